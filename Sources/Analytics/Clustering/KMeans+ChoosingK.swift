import Features

/// The result of fitting k-means for a range of cluster counts and keeping the best.
public struct ClusterCountScan: Sendable {
    /// The scores of every cluster count tried, in increasing k.
    public var qualities: [ClusterQuality]
    /// The model of the chosen cluster count.
    public var model: KMeans
    /// The chosen cluster count: the one with the highest silhouette (the lowest k among equals).
    public var chosenClusterCount: Int { model.clusterCount }
}

extension KMeans {
    /// Fits k-means for every cluster count in `clusterCounts` and keeps the one with the highest
    /// silhouette, reporting inertia, silhouette, Calinski–Harabasz and Davies–Bouldin for each.
    ///
    /// Counts that the data cannot support (k ≥ the number of rows) are skipped.
    ///
    /// - Parameters:
    ///   - data: One point per row.
    ///   - clusterCounts: The cluster counts to try; 2…12 by default.
    ///   - options: The options of every fit.
    ///   - silhouetteSampleSize: The sample size of each silhouette.
    ///   - generator: The source of randomness, drawn from in increasing k.
    ///   - progress: Called after each k with the work done and the whole work, counting each k as
    ///     k units (a fit's cost grows with k).
    /// - Returns: The scores of every k and the chosen model.
    /// - Throws: ``AnalyticsError/tooFewSamples(required:available:what:)`` with fewer than
    ///   `clusterCounts.lowerBound + 1` rows.
    public static func fitChoosingClusterCount(
        _ data: Matrix,
        among clusterCounts: ClosedRange<Int> = 2...12,
        options: Options = Options(),
        silhouetteSampleSize: Int = 4000,
        using generator: inout some RandomNumberGenerator,
        progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil
    ) async throws -> ClusterCountScan {
        guard clusterCounts.lowerBound >= 2 else {
            throw AnalyticsError.invalidParameter(
                name: "The smallest cluster count to try",
                value: "\(clusterCounts.lowerBound)",
                expected: "at least 2"
            )
        }
        let upper = Swift.min(clusterCounts.upperBound, data.rowCount - 1)
        guard upper >= clusterCounts.lowerBound else {
            throw AnalyticsError.tooFewSamples(
                required: clusterCounts.lowerBound + 1,
                available: data.rowCount,
                what: "Choosing the number of clusters"
            )
        }
        var qualities: [ClusterQuality] = []
        var best: (model: KMeans, silhouette: Double)?
        let work = (clusterCounts.lowerBound...upper).reduce(0, +)
        var done = 0
        for k in clusterCounts.lowerBound...upper {
            let model = try await fit(data, clusterCount: k, options: options, using: &generator)
            let quality = ClusterQuality.evaluate(
                model,
                on: data,
                silhouetteSampleSize: silhouetteSampleSize,
                using: &generator
            )
            qualities.append(quality)
            done += k
            progress?(done, work)
            let score = quality.silhouette ?? -.infinity
            if best == nil || score > best!.silhouette { best = (model, score) }
        }
        return ClusterCountScan(qualities: qualities, model: best!.model)
    }
}
