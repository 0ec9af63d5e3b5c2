import Features

/// The result of fitting k-means for a range of cluster counts and keeping the best.
public struct ClusterCountScan: Sendable {
    /// The scores of every cluster count tried, in increasing k.
    public var qualities: [ClusterQuality]
    /// The model of the chosen cluster count.
    public var model: KMeans
    /// The chosen cluster count: the largest whose silhouette is within
    /// ``granularityTolerance`` of the best one's.
    public var chosenClusterCount: Int { model.clusterCount }
    /// How far below the best silhouette a larger k may score and still be chosen.
    public var granularityTolerance: Double
}

extension KMeans {
    /// Fits k-means for every cluster count in `clusterCounts` and keeps the largest whose
    /// silhouette is within `granularityTolerance` of the best, reporting inertia, silhouette,
    /// Calinski–Harabasz and Davies–Bouldin for each.
    ///
    /// The silhouette of audio features falls slowly and almost steadily with k (on the
    /// tidytuesday sample from 0.159 at k = 2 to 0.109 at k = 12), so the highest silhouette
    /// alone picks the smallest k tried nearly always: two vibes, "energetic" and "mellow", on
    /// every real library tried. A person recognises finer vibes. The prior for granularity says
    /// that k's whose silhouettes differ by less than `granularityTolerance` separate the tracks
    /// about as well, and then prefers more vibes. Where the data has clear clusters, the
    /// silhouette falls sharply past their number and that number is chosen.
    ///
    /// Counts that the data cannot support (k ≥ the number of rows) are skipped.
    ///
    /// - Parameters:
    ///   - data: One point per row.
    ///   - clusterCounts: The cluster counts to try; 4…12 by default.
    ///   - options: The options of every fit.
    ///   - silhouetteSampleSize: The sample size of each silhouette.
    ///   - granularityTolerance: How far below the best silhouette a larger k may score and
    ///     still be chosen; 0.01 by default, 0 for the highest silhouette (the smallest k among
    ///     equals).
    ///   - generator: The source of randomness, drawn from in increasing k.
    ///   - progress: Called after each k with the work done and the whole work, counting each k as
    ///     k units (a fit's cost grows with k).
    /// - Returns: The scores of every k and the chosen model.
    /// - Throws: ``AnalyticsError/tooFewSamples(required:available:what:)`` with fewer than
    ///   `clusterCounts.lowerBound + 1` rows.
    public static func fitChoosingClusterCount(
        _ data: Matrix,
        among clusterCounts: ClosedRange<Int> = 4...12,
        options: Options = Options(),
        silhouetteSampleSize: Int = 4000,
        granularityTolerance: Double = 0.01,
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
        var models: [KMeans] = []
        let work = (clusterCounts.lowerBound...upper).reduce(0, +)
        var done = 0
        for k in clusterCounts.lowerBound...upper {
            let model = try await fit(data, clusterCount: k, options: options, using: &generator)
            let quality = ClusterQuality.evaluate(
                model,
                on: data,
                silhouetteSampleSize: silhouetteSampleSize,
                threadCount: options.threadCount,
                using: &generator
            )
            qualities.append(quality)
            models.append(model)
            done += k
            progress?(done, work)
        }
        let scores = qualities.map { $0.silhouette ?? -.infinity }
        let best = scores.max()!
        let chosen = scores.lastIndex { $0 >= best - Swift.max(0, granularityTolerance) }!
        return ClusterCountScan(
            qualities: qualities,
            model: models[chosen],
            granularityTolerance: granularityTolerance
        )
    }
}
