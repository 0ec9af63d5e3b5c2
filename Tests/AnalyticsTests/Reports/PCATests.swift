import Analytics
import Features
import Foundation
import Numerics
import Testing
import VibesTestSupport

struct PCATests {
    /// Four points at ±3u and ±1v around (10, −5), with u = (0.6, 0.8) and v = (−0.8, 0.6).
    ///
    /// By hand: the covariance (n − 1 = 3) is (2·9·uuᵀ + 2·1·vvᵀ)/3 = 6·uuᵀ + ⅔·vvᵀ, so the
    /// eigenvalues are 6 and ⅔ with eigenvectors u and v, PC1 explains 6 / (20/3) = 0.9, and the
    /// scores of the points are (3, 0), (−3, 0), (0, 1) and (0, −1). The sign rule (largest loading
    /// positive) makes PC1 = u (0.8 > 0) and PC2 = −v (−0.8 is the largest, so it flips).
    @Test func recoversAKnownDecomposition() throws {
        let u: (Float, Float) = (0.6, 0.8)
        let v: (Float, Float) = (-0.8, 0.6)
        let rows: [[Float]] = [
            [10 + 3 * u.0, -5 + 3 * u.1], [10 - 3 * u.0, -5 - 3 * u.1],
            [10 + v.0, -5 + v.1], [10 - v.0, -5 - v.1],
        ]
        let pca = try PCA.fit(Matrix(rows: rows))
        #expect(pca.componentCount == 2)
        #expect(pca.explainedVariances[0].isApproximatelyEqual(to: 6, absoluteTolerance: 1e-4))
        #expect(pca.explainedVariances[1].isApproximatelyEqual(to: 2.0 / 3, absoluteTolerance: 1e-4))
        #expect(pca.totalVariance.isApproximatelyEqual(to: 20.0 / 3, absoluteTolerance: 1e-4))
        #expect(pca.explainedVarianceRatios[0].isApproximatelyEqual(to: 0.9, absoluteTolerance: 1e-5))
        #expect(pca.explainedVarianceRatios[1].isApproximatelyEqual(to: 0.1, absoluteTolerance: 1e-5))
        #expect(Double(pca.components[0, 0]).isApproximatelyEqual(to: 0.6, absoluteTolerance: 1e-5))
        #expect(Double(pca.components[0, 1]).isApproximatelyEqual(to: 0.8, absoluteTolerance: 1e-5))
        #expect(Double(pca.components[1, 0]).isApproximatelyEqual(to: 0.8, absoluteTolerance: 1e-5))
        #expect(Double(pca.components[1, 1]).isApproximatelyEqual(to: -0.6, absoluteTolerance: 1e-5))
        #expect(Double(pca.means[0]).isApproximatelyEqual(to: 10, absoluteTolerance: 1e-5))
        #expect(Double(pca.means[1]).isApproximatelyEqual(to: -5, absoluteTolerance: 1e-5))

        let scores = pca.project(Matrix(rows: rows))
        let expected: [[Double]] = [[3, 0], [-3, 0], [0, -1], [0, 1]]
        for (row, values) in expected.enumerated() {
            for (column, value) in values.enumerated() {
                #expect(
                    Double(scores[row, column]).isApproximatelyEqual(to: value, absoluteTolerance: 1e-4),
                    "row \(row) column \(column)"
                )
            }
        }
    }

    /// On seeded random correlated data, V·Λ·Vᵀ rebuilds the covariance computed directly in Double,
    /// the components are orthonormal, and the ratios of all components sum to 1.
    @Test func rebuildsTheCovarianceOfRandomData() throws {
        var rng = SplitMix64(seed: 7)
        let n = 500
        let d = 5
        var rows: [[Float]] = []
        for _ in 0..<n {
            let a = Float(rng.nextUnitInterval() - 0.5)
            let b = Float(rng.nextUnitInterval() - 0.5)
            let noise = (0..<d).map { _ in Float(rng.nextUnitInterval() - 0.5) * 0.2 }
            rows.append([3 * a + noise[0], a - 2 * b + noise[1], b + noise[2], 5 + noise[3], -a + noise[4]])
        }
        let pca = try PCA.fit(Matrix(rows: rows))
        var means = [Double](repeating: 0, count: d)
        for row in rows { for j in 0..<d { means[j] += Double(row[j]) / Double(n) } }
        for i in 0..<d {
            for j in 0..<d {
                var direct = 0.0
                for row in rows { direct += (Double(row[i]) - means[i]) * (Double(row[j]) - means[j]) }
                direct /= Double(n - 1)
                var rebuilt = 0.0
                for c in 0..<d {
                    rebuilt += Double(pca.components[c, i]) * pca.explainedVariances[c] * Double(pca.components[c, j])
                }
                #expect(rebuilt.isApproximatelyEqual(to: direct, absoluteTolerance: 1e-4), "covariance (\(i), \(j))")
                var dot = 0.0
                for k in 0..<d { dot += Double(pca.components[i, k]) * Double(pca.components[j, k]) }
                #expect(dot.isApproximatelyEqual(to: i == j ? 1 : 0, absoluteTolerance: 1e-4), "components \(i)·\(j)")
            }
        }
        #expect(pca.explainedVarianceRatios.reduce(0, +).isApproximatelyEqual(to: 1, absoluteTolerance: 1e-5))
        #expect(zip(pca.explainedVariances, pca.explainedVariances.dropFirst()).allSatisfy { $0 >= $1 })
    }

    @Test func keepsOnlyTheRequestedComponents() throws {
        let pca = try PCA.fit(Matrix(rows: [[1, 2, 3], [2, 1, 0], [0, 0, 1], [5, 1, 2]]), componentCount: 2)
        #expect(pca.components.rowCount == 2)
        #expect(pca.project(Matrix(rows: [[1, 1, 1]])).columnCount == 2)
    }

    @Test func rejectsTooFewRowsAndMissingValues() {
        #expect(throws: AnalyticsError.self) { try PCA.fit(Matrix(rows: [[1, 2]])) }
        #expect(throws: AnalyticsError.self) { try PCA.fit(Matrix(rows: [[1, .nan], [2, 3]])) }
        #expect(throws: AnalyticsError.self) { try PCA.fit(Matrix(rows: [[1, 2], [2, 3]]), componentCount: 3) }
    }
}
