import Features

/// A principal component analysis of the rows of a matrix: the directions along which a library
/// varies most, and every track's position along them.
///
/// The covariance matrix is formed with BLAS `ssyrk` on the centred data, its eigenvectors are found
/// with LAPACK `ssyevd`, and the points are projected with `sgemm`. Components are ordered by
/// decreasing variance. Each eigenvector's sign is fixed so that its largest-magnitude loading is
/// positive, so the same data always gives the same picture.
///
/// ```swift
/// let pca = try PCA.fit(space.matrix.values, componentCount: 2)
/// let points = pca.project(space.matrix.values)   // n × 2
/// print(pca.explainedVarianceRatios)              // [0.31, 0.18]
/// ```
public struct PCA: Sendable {
    /// The column means subtracted before projecting, one per input column.
    public var means: [Float]
    /// The principal axes, one unit-length component per row (`componentCount × columnCount`).
    public var components: Matrix
    /// The variance of the data along each component (the covariance eigenvalues, with *n* − 1 in
    /// the denominator), largest first.
    public var explainedVariances: [Double]
    /// The total variance of the data: the trace of the covariance matrix, the sum of all
    /// eigenvalues including those of components not kept.
    public var totalVariance: Double

    /// The number of components kept.
    public var componentCount: Int { components.rowCount }

    /// The share of the total variance each component explains, from 0 to 1; they sum to at most 1.
    public var explainedVarianceRatios: [Double] {
        explainedVariances.map { totalVariance > 0 ? $0 / totalVariance : 0 }
    }

    /// Fits the principal components of the rows of `data`.
    ///
    /// - Parameters:
    ///   - data: The points, one per row; every value must be finite.
    ///   - componentCount: The number of components to keep, at most `data.columnCount`; all of
    ///     them when `nil`.
    /// - Returns: The fitted analysis.
    /// - Throws: ``AnalyticsError/tooFewSamples(required:available:what:)`` with fewer than 2 rows,
    ///   ``AnalyticsError/nonFiniteValue(row:column:)`` for a `NaN` or infinite value, and
    ///   ``AnalyticsError/invalidParameter(name:value:expected:)`` for a component count out of
    ///   range or when LAPACK fails to converge.
    /// - Complexity: O(*n* · *d*² + *d*³) for *n* rows of *d* columns.
    public static func fit(_ data: Matrix, componentCount: Int? = nil) throws -> PCA {
        let n = data.rowCount
        let d = data.columnCount
        let kept = componentCount ?? d
        guard n >= 2 else {
            throw AnalyticsError.tooFewSamples(required: 2, available: n, what: "A principal component analysis")
        }
        guard (1...Swift.max(1, d)).contains(kept), d > 0 else {
            throw AnalyticsError.invalidParameter(
                name: "componentCount",
                value: "\(kept)",
                expected: "between 1 and \(d)"
            )
        }
        for (index, value) in data.elements.enumerated() where !value.isFinite {
            throw AnalyticsError.nonFiniteValue(row: index / d, column: index % d)
        }

        // Centre in Double, so that a large offset does not eat the Float precision of the spread.
        var sums = [Double](repeating: 0, count: d)
        for row in 0..<n {
            for column in 0..<d { sums[column] += Double(data.elements[row * d + column]) }
        }
        let means = sums.map { $0 / Double(n) }
        var centred = data
        for row in 0..<n {
            for column in 0..<d {
                centred.elements[row * d + column] = Float(Double(data.elements[row * d + column]) - means[column])
            }
        }

        let covariance = Kernels.covariance(ofCentred: centred)
        var totalVariance = 0.0
        for column in 0..<d { totalVariance += Double(covariance.elements[column * d + column]) }
        guard let (eigenvalues, eigenvectors) = Kernels.symmetricEigendecomposition(covariance) else {
            throw AnalyticsError.invalidParameter(
                name: "covariance matrix",
                value: "\(d)×\(d)",
                expected: "one whose eigenvalues LAPACK ssyevd can find"
            )
        }

        // LAPACK returns ascending eigenvalues with the eigenvectors as columns; keep the largest.
        var components = Matrix(rowCount: kept, columnCount: d)
        var variances: [Double] = []
        for component in 0..<kept {
            let source = d - 1 - component
            var vector = (0..<d).map { eigenvectors.elements[$0 * d + source] }
            let largest = vector.indices.max {
                abs(vector[$0]) < abs(vector[$1]) || (abs(vector[$0]) == abs(vector[$1]) && $0 > $1)
            }!
            if vector[largest] < 0 { vector = vector.map { -$0 } }
            for column in 0..<d { components[component, column] = vector[column] }
            variances.append(Swift.max(0, Double(eigenvalues[source])))
        }
        return PCA(
            means: means.map { Float($0) },
            components: components,
            explainedVariances: variances,
            totalVariance: totalVariance
        )
    }

    /// Returns the coordinates of the rows of `data` along the components.
    ///
    /// - Parameter data: Points with as many columns as the fitted data.
    /// - Returns: An `n × componentCount` matrix; column *j* is the score on component *j*.
    /// - Complexity: O(*n* · *d* · *m*) for *m* components, one `sgemm`.
    public func project(_ data: Matrix) -> Matrix {
        precondition(
            data.columnCount == means.count,
            "The data has \(data.columnCount) columns; the analysis was fitted on \(means.count)."
        )
        var centred = data
        let d = data.columnCount
        for index in centred.elements.indices { centred.elements[index] -= means[index % d] }
        return centred.multipliedByTranspose(of: components)
    }
}
