/// A clustering run: how it was made, what it clustered and how well it separates the tracks.
///
/// One vocabulary from end to end: Analytics makes a run, the store keeps it in `clustering_runs`
/// with one column per field, and `cluster --json` and `vibes --json` print it, with the store's
/// column names as JSON keys (`cluster_count`, `restart_count`, …). The command-line flag for
/// ``clusterCount`` is `--k`, the usual name in the literature.
///
/// A run holds only what its seed determines, so the same seed gives the same run, bit for bit;
/// when it was made and how long it took are kept beside it by the store.
public struct ClusteringRun: Hashable, Sendable, Codable {
    /// The k-means algorithm a run used.
    public enum Algorithm: String, Hashable, Sendable, Codable, CaseIterable {
        /// Lloyd's algorithm over every track, with k-means++ seeding and restarts.
        case lloyd
        /// Mini-batch k-means (Sculley 2010), for very large libraries.
        case minibatch
    }

    /// The run number, assigned when the store saves the run; `nil` before.
    public var id: Int64?
    /// The algorithm.
    public var algorithm: Algorithm
    /// The number of clusters (vibes), *k*.
    public var clusterCount: Int
    /// The seed of every random choice.
    public var seed: UInt64
    /// The number of restarts; the one with the lowest inertia was kept.
    public var restartCount: Int
    /// The most iterations per restart (steps, for mini-batch).
    public var maxIterations: Int
    /// The convergence tolerance, relative to the mean column variance.
    public var tolerance: Double
    /// The number of threads. The run is identical for a given seed and thread count.
    public var threadCount: Int
    /// The schema and its fitted scaling, to map centroids back to the features' own units.
    public var scaling: FeatureScaling
    /// The number of tracks clustered.
    public var trackCount: Int
    /// The number of tracks left out because they miss a clustered feature.
    public var excludedTrackCount: Int
    /// The iterations run by the kept restart.
    public var iterationCount: Int
    /// Whether the kept restart converged before the iteration limit.
    public var hasConverged: Bool
    /// The within-cluster sum of squared distances, in scaled units.
    public var inertia: Double
    /// The mean silhouette on a sample, from −1 to 1, when computed.
    public var silhouette: Double?
    /// The Calinski–Harabasz score, when computed.
    public var calinskiHarabasz: Double?
    /// The Davies–Bouldin score, when computed.
    public var daviesBouldin: Double?
    /// With `--k auto`, the scores of every cluster count tried, in increasing order.
    public var clusterCountScan: [ClusterQuality]?

    public init(
        id: Int64? = nil,
        algorithm: Algorithm,
        clusterCount: Int,
        seed: UInt64,
        restartCount: Int,
        maxIterations: Int,
        tolerance: Double,
        threadCount: Int,
        scaling: FeatureScaling,
        trackCount: Int,
        excludedTrackCount: Int,
        iterationCount: Int,
        hasConverged: Bool,
        inertia: Double,
        silhouette: Double?,
        calinskiHarabasz: Double?,
        daviesBouldin: Double?,
        clusterCountScan: [ClusterQuality]?
    ) {
        self.id = id
        self.algorithm = algorithm
        self.clusterCount = clusterCount
        self.seed = seed
        self.restartCount = restartCount
        self.maxIterations = maxIterations
        self.tolerance = tolerance
        self.threadCount = threadCount
        self.scaling = scaling
        self.trackCount = trackCount
        self.excludedTrackCount = excludedTrackCount
        self.iterationCount = iterationCount
        self.hasConverged = hasConverged
        self.inertia = inertia
        self.silhouette = silhouette
        self.calinskiHarabasz = calinskiHarabasz
        self.daviesBouldin = daviesBouldin
        self.clusterCountScan = clusterCountScan
    }

    /// The JSON keys, which are also the store's column names.
    public enum CodingKeys: String, CodingKey, CaseIterable {
        case id, algorithm
        case clusterCount = "cluster_count"
        case seed
        case restartCount = "restart_count"
        case maxIterations = "max_iterations"
        case tolerance
        case threadCount = "thread_count"
        case scaling
        case trackCount = "track_count"
        case excludedTrackCount = "excluded_track_count"
        case iterationCount = "iteration_count"
        case hasConverged = "has_converged"
        case inertia, silhouette
        case calinskiHarabasz = "calinski_harabasz"
        case daviesBouldin = "davies_bouldin"
        case clusterCountScan = "cluster_count_scan"
    }
}
