import Features

/// Same-playlist precision on playlists the similarity has not seen: the user's playlists split
/// into folds, each fold graded in turn with the others as the only playlists known.
///
/// Two things depend on playlists and so can only be graded this way: the co-membership block
/// (``SimilarityBlock/coMembership(playlists:trackIDs:)``), built from the training folds' playlists,
/// and personal weights (``WeightLearning``), learned on them. Every variant is measured on the same
/// queries (the held-out folds' tracks, each seeding a search among the tracks of the same fold),
/// and its difference to the default similarity comes with a paired bootstrap confidence interval.
public struct HeldOutPlaylists: Hashable, Sendable, Codable {
    /// The smallest number of eligible playlists to learn or grade with.
    public static let minimumPlaylistCount = 5
    /// The fewest tracks with features a playlist needs to be eligible.
    public static let minimumPlaylistLength = 5

    /// The number of eligible playlists.
    public var playlistCount: Int
    /// The number of folds.
    public var foldCount: Int
    /// The number of queries (fold, track) over all folds.
    public var queryCount: Int
    /// The number of neighbours per query.
    public var k: Int
    /// Precision@k of the default similarity (sound and any tag block), 0…1.
    public var defaultPrecision: Double
    /// The variants, each against the default on the same queries.
    public var variants: [Variant]
    /// The seed of the folds, the learning's query sample and the bootstrap.
    public var seed: UInt64

    /// One variant of the similarity.
    public struct Variant: Hashable, Sendable, Codable {
        /// What it is, such as "+ co-membership (training playlists)".
        public var name: String
        /// Precision@k, 0…1.
        public var precision: Double
        /// Variant minus default, with its confidence interval.
        public var difference: PairedBootstrap

        enum CodingKeys: String, CodingKey {
            case name
            case precision = "precision_at_k"
            case difference
        }
    }

    enum CodingKeys: String, CodingKey {
        case playlistCount = "playlist_count"
        case foldCount = "fold_count"
        case queryCount = "query_count"
        case k
        case defaultPrecision = "default_precision_at_k"
        case variants, seed
    }

    /// The eligible playlists of `playlists` (at least ``minimumPlaylistLength`` tracks among
    /// `trackIDs`), by track.
    public static func eligible(_ playlists: [Int64: Set<String>], trackIDs: [Int64]) -> [Int64: Set<String>] {
        let inSpace = Set(trackIDs)
        var sizes: [String: Int] = [:]
        for (id, set) in playlists where inSpace.contains(id) { for name in set { sizes[name, default: 0] += 1 } }
        let kept = Set(sizes.filter { $0.value >= minimumPlaylistLength }.keys)
        var result: [Int64: Set<String>] = [:]
        for (id, set) in playlists where inSpace.contains(id) {
            let remaining = set.intersection(kept)
            if !remaining.isEmpty { result[id] = remaining }
        }
        return result
    }

    /// The eligible playlist names split into `foldCount` folds, shuffled with `seed`.
    static func folds(of playlists: [Int64: Set<String>], foldCount: Int, seed: UInt64) -> [Set<String>] {
        var names = Array(Set(playlists.values.flatMap { $0 })).sorted()
        var generator = SplitMix64(seed: seed)
        names.shuffle(using: &generator)
        var folds = Array(repeating: Set<String>(), count: foldCount)
        for (index, name) in names.enumerated() { folds[index % foldCount].insert(name) }
        return folds
    }

    /// `playlists` restricted to the names in `kept`; tracks left with none are dropped.
    static func restricted(_ playlists: [Int64: Set<String>], to kept: Set<String>) -> [Int64: Set<String>] {
        var result: [Int64: Set<String>] = [:]
        for (id, set) in playlists {
            let remaining = set.intersection(kept)
            if !remaining.isEmpty { result[id] = remaining }
        }
        return result
    }

    /// Grades the default similarity of `recommender`, with co-membership from the training
    /// playlists, and with weights learned on them, on held-out playlists.
    ///
    /// - Parameters:
    ///   - recommender: A recommender with default weights and no co-membership block; a tag block
    ///     it holds must not use signals derived from playlists.
    ///   - playlists: The playlists of each track, catch-alls already left out.
    ///   - foldCount: The number of folds; 3 by default.
    ///   - k: The number of neighbours per query.
    ///   - learnSample: Queries per fold for learning (``WeightLearning``).
    ///   - resampleCount: Bootstrap resamples.
    ///   - seed: The seed of folds, samples and the bootstrap.
    /// - Throws: ``AnalyticsError/tooFewPlaylists(eligible:required:minimumLength:)``.
    public static func measure(
        recommender: Recommender,
        playlists: [Int64: Set<String>],
        foldCount: Int = 3,
        k: Int = 10,
        learnSample: Int = WeightLearning.defaultQuerySample,
        resampleCount: Int = 1_000,
        seed: UInt64 = 42,
        taskCount: Int = Parallelism.defaultThreadCount
    ) async throws -> HeldOutPlaylists {
        let trackIDs = recommender.features.trackIDs
        let eligible = eligible(playlists, trackIDs: trackIDs)
        let names = Set(eligible.values.flatMap { $0 })
        guard names.count >= minimumPlaylistCount else {
            throw AnalyticsError.tooFewPlaylists(
                eligible: names.count,
                required: minimumPlaylistCount,
                minimumLength: minimumPlaylistLength
            )
        }
        let base = recommender.similaritySpace(excluding: EvaluationLabel.playlist.derivedSignals)
        var defaultRates: [Double] = []
        var coRates: [Double] = []
        var learnedRates: [Double] = []
        let folds = folds(of: eligible, foldCount: foldCount, seed: seed)
        for (fold, heldOut) in folds.enumerated() {
            let training = restricted(eligible, to: names.subtracting(heldOut))
            let graded = restricted(eligible, to: heldOut)
            let queries = LabelledQueries(trackIDs: trackIDs, labels: graded, k: k, sampleSize: nil, sampleSeed: seed)
            guard queries.isMeasurable else { continue }
            defaultRates += await queries.hitRates(in: base, taskCount: taskCount)
            var withCo = base
            if let block = SimilarityBlock.coMembership(playlists: training, trackIDs: trackIDs) {
                withCo.add(block, weight: Float(SimilarityWeights.defaultCoMembershipWeight))
            }
            coRates += await queries.hitRates(in: withCo, taskCount: taskCount)
            let learned = await WeightLearning.search(
                recommender: recommender,
                labels: training,
                k: k,
                querySample: learnSample,
                seed: seed &+ UInt64(fold),
                taskCount: taskCount
            )
            learnedRates += await queries.hitRates(
                in: WeightLearning.space(recommender: recommender, weights: learned, base: base),
                taskCount: taskCount
            )
        }
        func variant(_ name: String, _ rates: [Double]) -> Variant {
            Variant(
                name: name,
                precision: mean(rates),
                difference: PairedBootstrap.meanDifference(
                    rates,
                    defaultRates,
                    resampleCount: resampleCount,
                    seed: seed
                )
            )
        }
        return HeldOutPlaylists(
            playlistCount: names.count,
            foldCount: folds.count,
            queryCount: defaultRates.count,
            k: k,
            defaultPrecision: mean(defaultRates),
            variants: [
                variant("+ co-membership (training playlists)", coRates),
                variant("personal weights (learned on training playlists)", learnedRates),
            ],
            seed: seed
        )
    }
}

private func mean(_ values: [Double]) -> Double { values.isEmpty ? 0 : values.reduce(0, +) / Double(values.count) }
