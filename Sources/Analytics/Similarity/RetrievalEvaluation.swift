import Features

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How well nearest neighbours share labels (playlists, genres) with their seed, against chance.
///
/// For every labelled track, its `k` nearest labelled tracks (itself left out) are found with an
/// exact ``CosineIndex``; a neighbour is a hit when it shares at least one label with the seed.
/// Precision@k is the mean hit rate over seeds. The random baseline is the exact expected hit rate
/// of `k` neighbours drawn uniformly from the other labelled tracks, averaged the same way, so the
/// two figures are comparable on any library, including ones where a track has several labels.
public struct RetrievalEvaluation: Hashable, Sendable, Codable {
    /// The number of neighbours per seed.
    public var k: Int
    /// The number of labelled tracks used as seeds (all labelled tracks are candidates).
    public var seedCount: Int
    /// The number of distinct labels.
    public var labelCount: Int
    /// The mean fraction of the `k` neighbours sharing a label with their seed, 0…1.
    public var precision: Double
    /// The expected precision of uniformly random neighbours, 0…1.
    public var randomBaseline: Double
    /// Precision and baseline per label, for seeds carrying that label, largest label first.
    public var perLabel: [LabelPrecision]

    /// Precision divided by the random baseline.
    public var lift: Double { randomBaseline > 0 ? precision / randomBaseline : 0 }

    /// Precision@k of the seeds carrying one label.
    public struct LabelPrecision: Hashable, Sendable, Codable {
        public var label: String
        public var seedCount: Int
        public var precision: Double
        public var randomBaseline: Double

        enum CodingKeys: String, CodingKey {
            case label
            case seedCount = "seed_count"
            case precision
            case randomBaseline = "random_baseline"
        }
    }

    enum CodingKeys: String, CodingKey {
        case k
        case seedCount = "seed_count"
        case labelCount = "label_count"
        case precision = "precision_at_k"
        case randomBaseline = "random_baseline"
        case perLabel = "per_label"
    }

    /// Measures precision@`k` of the neighbours in `features` against `labels`.
    ///
    /// - Parameters:
    ///   - features: The scaled features; rows whose track has no label are ignored.
    ///   - labels: The labels of each track, by track ID; a track may have several.
    ///   - k: The number of neighbours per seed; 10 by default.
    ///   - sampleSize: When set and smaller than the number of labelled tracks, only this many
    ///     seeds, drawn without replacement with `SplitMix64(seed: sampleSeed)`, are queried; every
    ///     labelled track stays a candidate neighbour.
    ///   - sampleSeed: The seed of the sample; the same seed gives the same figures.
    ///   - taskCount: The number of concurrent search tasks.
    /// - Returns: The figures; precision and baseline are 0 when fewer than `k + 1` tracks are labelled.
    /// - Complexity: O(*n*² · *d*) for *n* labelled tracks, in BLAS blocks.
    public static func measure(
        features: FeatureMatrix,
        labels: [Int64: Set<String>],
        k: Int = 10,
        sampleSize: Int? = nil,
        sampleSeed: UInt64 = 42,
        taskCount: Int = Parallelism.defaultThreadCount
    ) async -> RetrievalEvaluation {
        let queries = LabelledQueries(
            trackIDs: features.trackIDs,
            labels: labels,
            k: k,
            sampleSize: sampleSize,
            sampleSeed: sampleSeed
        )
        guard queries.isMeasurable else { return queries.evaluation(hitRates: []) }
        let space = SimilaritySpace(name: "features", features: features, metric: .cosine, signals: [.audioFeatures])
        return queries.evaluation(hitRates: await queries.hitRates(in: space, taskCount: taskCount))
    }

    /// The normalised mutual information of two labelings of the same items, 0…1.
    ///
    /// NMI = I(A; B) / ((H(A) + H(B)) / 2), the arithmetic normalisation that scikit-learn's
    /// `normalized_mutual_info_score` uses by default. It is 1 when the labelings agree up to a
    /// renaming, near 0 for independent ones, and symmetric. Two labelings with a single class
    /// each score 1.
    ///
    /// - Parameters:
    ///   - a: One label per item, such as cluster numbers.
    ///   - b: One label per item, such as genres mapped to integers; as many as `a`.
    /// - Complexity: O(*n*).
    public static func normalizedMutualInformation<A: Hashable, B: Hashable>(_ a: [A], _ b: [B]) -> Double {
        precondition(a.count == b.count, "Both labelings must cover the same \(a.count) items (got \(b.count)).")
        guard !a.isEmpty else { return 1 }
        let n = Double(a.count)
        var countsA: [A: Double] = [:]
        var countsB: [B: Double] = [:]
        var joint: [JointKey<A, B>: Double] = [:]
        for (x, y) in zip(a, b) {
            countsA[x, default: 0] += 1
            countsB[y, default: 0] += 1
            joint[JointKey(a: x, b: y), default: 0] += 1
        }
        func entropy(_ counts: some Collection<Double>) -> Double {
            counts.reduce(0) { $0 - ($1 / n) * log($1 / n) }
        }
        let entropyA = entropy(countsA.values)
        let entropyB = entropy(countsB.values)
        if entropyA == 0 && entropyB == 0 { return 1 }
        var information = 0.0
        for (pair, count) in joint {
            information += (count / n) * log(count * n / (countsA[pair.a]! * countsB[pair.b]!))
        }
        let normalizer = (entropyA + entropyB) / 2
        return normalizer > 0 ? Swift.max(0, information / normalizer) : 0
    }
}

private struct JointKey<A: Hashable, B: Hashable>: Hashable {
    var a: A
    var b: B
}
