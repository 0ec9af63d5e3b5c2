import Analytics
import Features
import Numerics
import Testing
import VibesTestSupport

struct CosineIndexTests {
    /// Random rows with a seeded generator, uniform in −1…1.
    static func randomMatrix(rows: Int, columns: Int, seed: UInt64) -> Matrix {
        var generator = SplitMix64(seed: seed)
        return Matrix(
            rowCount: rows,
            columnCount: columns,
            elements: (0..<rows * columns).map { _ in Float(generator.nextUnitInterval() * 2 - 1) }
        )
    }

    /// The top `k` by cosine computed in Double, one pair at a time, ties by track ID.
    static func bruteForce(_ items: Matrix, ids: [Int64], query: ArraySlice<Float>, k: Int) -> [Int64] {
        let q = query.map(Double.init)
        let qNorm = q.reduce(0) { $0 + $1 * $1 }.squareRoot()
        let scored = (0..<items.rowCount).map { row -> (Double, Int64) in
            let x = items.row(row).map(Double.init)
            let norm = x.reduce(0) { $0 + $1 * $1 }.squareRoot()
            let dot = zip(x, q).reduce(0) { $0 + $1.0 * $1.1 }
            return (dot / (norm * qNorm), ids[row])
        }
        return scored.sorted { $0.0 > $1.0 || ($0.0 == $1.0 && $0.1 < $1.1) }.prefix(k).map(\.1)
    }

    @Test(arguments: [1, 2, 3])
    func batchedSearchMatchesBruteForceAcrossBlockEdges(taskCount: Int) async {
        // 2,500 rows and 300 queries cross the 1,024-row item blocks and the 256-query blocks.
        let items = CosineIndexTests.randomMatrix(rows: 2_500, columns: 12, seed: 7)
        let ids = (0..<2_500).map { Int64(10_000 - $0) }  // descending, so row order ≠ ID order
        let index = CosineIndex(FeatureMatrix(values: items, trackIDs: ids, columnNames: (0..<12).map { "f\($0)" }))
        let queries = CosineIndexTests.randomMatrix(rows: 300, columns: 12, seed: 8)
        let results = await index.nearestNeighbors(of: queries, count: 10, taskCount: taskCount)
        #expect(results.count == 300)
        for query in [0, 1, 255, 256, 299] {
            let expected = CosineIndexTests.bruteForce(items, ids: ids, query: queries.row(query), k: 10)
            #expect(results[query].map(\.trackID) == expected, "query \(query)")
        }
        for neighbors in results {
            #expect(zip(neighbors, neighbors.dropFirst()).allSatisfy { $0.similarity >= $1.similarity })
        }
    }

    @Test func resultsDoNotDependOnTheTaskCount() async {
        let items = CosineIndexTests.randomMatrix(rows: 1_500, columns: 12, seed: 1)
        let index = CosineIndex(
            FeatureMatrix(values: items, trackIDs: (1...1_500).map(Int64.init), columnNames: (0..<12).map { "f\($0)" })
        )
        let queries = CosineIndexTests.randomMatrix(rows: 600, columns: 12, seed: 2)
        let one = await index.nearestNeighbors(of: queries, count: 10, taskCount: 1)
        let two = await index.nearestNeighbors(of: queries, count: 10, taskCount: 2)
        let isSame = one == two
        #expect(isSame)
    }

    @Test func tiesAreBrokenBySmallerTrackID() async {
        // Five copies of one row, IDs out of order, and one other row.
        let rows: [[Float]] = [[1, 2], [1, 2], [1, 2], [2, 0], [1, 2], [1, 2]]
        let index = CosineIndex(
            FeatureMatrix(values: Matrix(rows: rows), trackIDs: [50, 20, 40, 1, 30, 10], columnNames: ["a", "b"])
        )
        let batch = await index.nearestNeighbors(of: Matrix(rows: [[1, 2]]), count: 3)
        #expect(batch[0].map(\.trackID) == [10, 20, 30])
        let single = index.nearestNeighbors(of: [1, 2], count: 3)
        #expect(single.map(\.trackID) == [10, 20, 30])
    }

    @Test func zeroRowsHaveSimilarityZeroAndFiltersApply() {
        let rows: [[Float]] = [[0, 0], [1, 0], [0, 1], [-1, 0]]
        let index = CosineIndex(
            FeatureMatrix(values: Matrix(rows: rows), trackIDs: [1, 2, 3, 4], columnNames: ["a", "b"])
        )
        let similarities = index.similarities(to: [2, 0])
        #expect(similarities.map { Double($0) } == [0, 1, 0, -1])
        let filtered = index.nearestNeighbors(of: [1, 0], count: 2, where: { $0 != 1 })
        #expect(filtered.map(\.trackID) == [1, 3])
    }

    @Test func askingForMoreThanTheIndexHoldsReturnsEverything() async {
        let index = CosineIndex(
            FeatureMatrix(values: Matrix(rows: [[1, 0], [0, 1]]), trackIDs: [1, 2], columnNames: ["a", "b"])
        )
        let results = await index.nearestNeighbors(of: Matrix(rows: [[1, 0]]), count: 10)
        #expect(results[0].map(\.trackID) == [1, 2])
    }
}
