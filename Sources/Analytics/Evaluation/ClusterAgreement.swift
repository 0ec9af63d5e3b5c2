import Features

/// How well a clustering agrees with labels: normalised mutual information and the adjusted Rand
/// index.
///
/// - NMI: 1 when the groupings agree up to renaming, near 0 for unrelated ones
///   (``RetrievalEvaluation/normalizedMutualInformation(_:_:)``).
/// - ARI: the Rand index (the share of item pairs on which the two groupings agree: together in
///   both or apart in both) corrected for chance, as in scikit-learn's `adjusted_rand_score`. It is
///   1 for identical groupings, about 0 for random ones, and negative for less agreement than chance.
public struct ClusterAgreement: Hashable, Sendable, Codable {
    /// The number of items that have both a cluster and a label.
    public var itemCount: Int
    /// The number of distinct clusters among them.
    public var clusterCount: Int
    /// The number of distinct labels among them.
    public var labelCount: Int
    /// The normalised mutual information, 0…1.
    public var normalizedMutualInformation: Double
    /// The adjusted Rand index, at most 1.
    public var adjustedRandIndex: Double

    enum CodingKeys: String, CodingKey {
        case itemCount = "item_count"
        case clusterCount = "cluster_count"
        case labelCount = "label_count"
        case normalizedMutualInformation = "nmi"
        case adjustedRandIndex = "ari"
    }

    /// Compares the clusters of tracks with their labels.
    ///
    /// Only tracks with both are counted. A track with several labels takes its most common one in
    /// `labels` (ties by name), since both scores need one label per item.
    ///
    /// - Parameters:
    ///   - clusters: The cluster of each track, by track ID.
    ///   - labels: The labels of each track, by track ID.
    /// - Complexity: O(*n*) for *n* tracks, plus the label sets.
    public init(clusters: [Int64: Int], labels: [Int64: Set<String>]) {
        var frequency: [String: Int] = [:]
        for set in labels.values { for value in set { frequency[value, default: 0] += 1 } }
        var clusterColumn: [Int] = []
        var labelColumn: [String] = []
        for (trackID, cluster) in clusters.sorted(by: { $0.key < $1.key }) {
            guard let set = labels[trackID], !set.isEmpty else { continue }
            clusterColumn.append(cluster)
            labelColumn.append(set.max { (frequency[$0]!, $1) < (frequency[$1]!, $0) }!)
        }
        itemCount = clusterColumn.count
        clusterCount = Set(clusterColumn).count
        labelCount = Set(labelColumn).count
        normalizedMutualInformation = RetrievalEvaluation.normalizedMutualInformation(clusterColumn, labelColumn)
        adjustedRandIndex = ClusterAgreement.adjustedRandIndex(clusterColumn, labelColumn)
    }

    /// The adjusted Rand index of two labelings of the same items.
    ///
    /// With *n*ᵢⱼ items in cluster *i* of `a` and *j* of `b`, row sums *a*ᵢ and column sums *b*ⱼ:
    /// ARI = (Σ C(*n*ᵢⱼ, 2) − E) / (½ (Σ C(*a*ᵢ, 2) + Σ C(*b*ⱼ, 2)) − E), where
    /// E = Σ C(*a*ᵢ, 2) · Σ C(*b*ⱼ, 2) / C(*n*, 2). When the denominator is 0 (both labelings put
    /// everything in one group, or everything apart) the labelings agree and the index is 1.
    ///
    /// - Parameters:
    ///   - a: One label per item, such as cluster numbers.
    ///   - b: One label per item; as many as `a`.
    /// - Complexity: O(*n*).
    public static func adjustedRandIndex<A: Hashable, B: Hashable>(_ a: [A], _ b: [B]) -> Double {
        precondition(a.count == b.count, "Both labelings must cover the same \(a.count) items (got \(b.count)).")
        func pairs(_ count: Int) -> Double { Double(count) * Double(count - 1) / 2 }
        var countsA: [A: Int] = [:]
        var countsB: [B: Int] = [:]
        var joint: [Pair<A, B>: Int] = [:]
        for (x, y) in zip(a, b) {
            countsA[x, default: 0] += 1
            countsB[y, default: 0] += 1
            joint[Pair(a: x, b: y), default: 0] += 1
        }
        let index = joint.values.reduce(0) { $0 + pairs($1) }
        let pairsA = countsA.values.reduce(0) { $0 + pairs($1) }
        let pairsB = countsB.values.reduce(0) { $0 + pairs($1) }
        let total = pairs(a.count)
        let expected = total > 0 ? pairsA * pairsB / total : 0
        let maximum = (pairsA + pairsB) / 2
        guard maximum != expected else { return 1 }
        return (index - expected) / (maximum - expected)
    }
}

private struct Pair<A: Hashable, B: Hashable>: Hashable {
    var a: A
    var b: B
}

extension ClusterAgreement {
    /// How well k-means in the given space agrees with the labels: Lloyd's algorithm with
    /// `clusterCount` clusters (by default, one per distinct label), from `seed`.
    ///
    /// The space must not be built from the labels, or the agreement is worthless.
    ///
    /// - Returns: `nil` when there are fewer than 2 clusters to make.
    public static func ofKMeans(
        in features: FeatureMatrix,
        labels: [Int64: Set<String>],
        clusterCount: Int? = nil,
        seed: UInt64
    ) async throws -> (clusterCount: Int, agreement: ClusterAgreement)? {
        let count = clusterCount ?? Set(labels.values.flatMap { $0 }).count
        guard count >= 2 else { return nil }
        var generator = SplitMix64(seed: seed)
        let model = try await KMeans.fit(features.values, clusterCount: count, using: &generator)
        var assignment: [Int64: Int] = [:]
        for (row, id) in features.trackIDs.enumerated() { assignment[id] = Int(model.labels[row]) }
        return (count, ClusterAgreement(clusters: assignment, labels: labels))
    }
}
