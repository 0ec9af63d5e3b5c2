/// How well a clustering separates its points: the scores printed for every k by `--k auto`.
///
/// - Inertia: the within-cluster sum of squared distances; always falls as k grows (the elbow).
/// - Silhouette: from −1 to 1, higher is better; the mean over a seeded random sample of points of
///   (b − a) / max(a, b), where a is the mean distance to the point's own cluster and b to the
///   nearest other cluster. Computed on a sample because it costs O(*s*²).
/// - Calinski–Harabasz: the ratio of between- to within-cluster dispersion, each per degree of
///   freedom; higher is better.
/// - Davies–Bouldin: the mean over clusters of the worst ratio of summed spreads to centroid
///   separation; 0 is best.
///
/// The three scores follow scikit-learn's `silhouette_score`, `calinski_harabasz_score` and
/// `davies_bouldin_score`. Analytics computes them (`ClusterQuality.evaluate`); the store keeps
/// them as they are, and their JSON keys are the store's column names.
public struct ClusterQuality: Hashable, Sendable, Codable {
    /// The number of clusters.
    public var clusterCount: Int
    /// The within-cluster sum of squared distances.
    public var inertia: Double
    /// The mean silhouette over the sample, or `nil` with fewer than 2 non-empty clusters.
    public var silhouette: Double?
    /// The Calinski–Harabasz score, or `nil` with fewer than 2 non-empty clusters.
    public var calinskiHarabasz: Double?
    /// The Davies–Bouldin score, or `nil` with fewer than 2 non-empty clusters.
    public var daviesBouldin: Double?
    /// The number of points the silhouette was computed on (0 when it was not computed).
    public var silhouetteSampleSize: Int

    public init(
        clusterCount: Int,
        inertia: Double,
        silhouette: Double?,
        calinskiHarabasz: Double?,
        daviesBouldin: Double?,
        silhouetteSampleSize: Int
    ) {
        self.clusterCount = clusterCount
        self.inertia = inertia
        self.silhouette = silhouette
        self.calinskiHarabasz = calinskiHarabasz
        self.daviesBouldin = daviesBouldin
        self.silhouetteSampleSize = silhouetteSampleSize
    }

    enum CodingKeys: String, CodingKey {
        case clusterCount = "cluster_count"
        case inertia, silhouette
        case calinskiHarabasz = "calinski_harabasz"
        case daviesBouldin = "davies_bouldin"
        case silhouetteSampleSize = "silhouette_sample_size"
        /// The key stores written before the run vocabulary was unified used for the cluster count.
        case legacyClusterCount = "k"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        clusterCount =
            try container.decodeIfPresent(Int.self, forKey: .clusterCount)
            ?? container.decode(Int.self, forKey: .legacyClusterCount)
        inertia = try container.decode(Double.self, forKey: .inertia)
        silhouette = try container.decodeIfPresent(Double.self, forKey: .silhouette)
        calinskiHarabasz = try container.decodeIfPresent(Double.self, forKey: .calinskiHarabasz)
        daviesBouldin = try container.decodeIfPresent(Double.self, forKey: .daviesBouldin)
        silhouetteSampleSize = try container.decodeIfPresent(Int.self, forKey: .silhouetteSampleSize) ?? 0
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(clusterCount, forKey: .clusterCount)
        try container.encode(inertia, forKey: .inertia)
        try container.encode(silhouette, forKey: .silhouette)
        try container.encode(calinskiHarabasz, forKey: .calinskiHarabasz)
        try container.encode(daviesBouldin, forKey: .daviesBouldin)
        try container.encode(silhouetteSampleSize, forKey: .silhouetteSampleSize)
    }
}
