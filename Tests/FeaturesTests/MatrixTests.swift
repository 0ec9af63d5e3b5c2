import Features
import Testing

struct MatrixTests {
    @Test func gramMatrixMatchesDotProductsComputedByHand() {
        var generator = SplitMix(seed: 42)
        let rows = (0..<37).map { _ in (0..<12).map { _ in Float.random(in: -1...1, using: &generator) } }
        let matrix = Matrix(rows: rows)
        let gram = matrix.gramMatrix()
        #expect(gram.rowCount == 37 && gram.columnCount == 37)
        for i in 0..<37 {
            for j in 0..<37 {
                let expected = zip(rows[i], rows[j]).reduce(Float(0)) { $0 + $1.0 * $1.1 }
                #expect(abs(gram[i, j] - expected) <= 1e-5 * max(1, abs(expected)))
                #expect(abs(gram[i, j] - gram[j, i]) <= 1e-5 * max(1, abs(expected)))
            }
        }
    }

    @Test func productWithTransposeHasTheRightShapeAndValues() {
        let a = Matrix(rows: [[1, 2, 3], [4, 5, 6]])
        let b = Matrix(rows: [[1, 0, 0], [0, 1, 0], [1, 1, 1], [2, 0, -1]])
        let product = a.multipliedByTranspose(of: b)
        #expect(product.rowCount == 2 && product.columnCount == 4)
        #expect(product.elements == [1, 2, 6, -1, 4, 5, 15, 2])
    }

    @Test func squaredRowNormsAreSumsOfSquares() {
        let matrix = Matrix(rows: [[3, 4], [0, 0], [1, -1]])
        #expect(matrix.squaredRowNorms() == [25, 0, 2])
        #expect(
            Matrix(rowCount: 0, columnCount: 3).multipliedByTranspose(of: Matrix(rowCount: 2, columnCount: 3)).elements
                .isEmpty
        )
    }
}

/// A small seeded generator for test data (Steele, Lea & Flood's SplitMix64).
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
