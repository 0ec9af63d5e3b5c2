import Features

/// Learns personal weights of the hybrid similarity from the user's playlists: a factor per audio
/// feature and the artist context's weight, chosen to maximise same-playlist precision@10.
///
/// The search is a coordinate search over small grids (``factorGrid`` for features,
/// ``artistGrid`` for the artist context), from the defaults, two rounds at most; a value replaces
/// the current one only when it raises precision, so ties keep the default and the same seed gives
/// the same weights. Precision is measured on a sample of ``defaultQuerySample`` tracks of the
/// playlists, searching among all their tracks. The tag and co-membership weights are not learned:
/// co-membership is the playlists themselves, and the tags of a dataset may be given per playlist.
///
/// How much the learned weights help is measured on playlists they were not learned from, by
/// ``HeldOutPlaylists``.
public enum WeightLearning {
    /// The factors tried for each feature.
    public static let factorGrid: [Double] = [0.25, 0.5, 1, 2, 4]
    /// The artist-context weights tried.
    public static let artistGrid: [Double] = [0, 0.5, 1, 2]
    /// The number of query tracks precision is measured on while searching.
    public static let defaultQuerySample = 600
    /// The most rounds of the coordinate search.
    static let roundCount = 2

    /// Learns weights from every eligible playlist of `playlists`.
    ///
    /// - Parameters:
    ///   - recommender: A recommender with default weights.
    ///   - playlists: The playlists of each track, catch-alls already left out.
    ///   - k: The number of neighbours per query.
    ///   - seed: The seed of the query sample.
    /// - Returns: The learned weights; the tag and co-membership weights stay at their defaults.
    /// - Throws: ``AnalyticsError/tooFewPlaylists(eligible:required:minimumLength:)`` with fewer than
    ///   ``HeldOutPlaylists/minimumPlaylistCount`` playlists of ``HeldOutPlaylists/minimumPlaylistLength``
    ///   tracks.
    public static func learn(
        recommender: Recommender,
        playlists: [Int64: Set<String>],
        k: Int = 10,
        seed: UInt64 = 42,
        taskCount: Int = Parallelism.defaultThreadCount
    ) async throws -> SimilarityWeights {
        let eligible = HeldOutPlaylists.eligible(playlists, trackIDs: recommender.features.trackIDs)
        let count = Set(eligible.values.flatMap { $0 }).count
        guard count >= HeldOutPlaylists.minimumPlaylistCount else {
            throw AnalyticsError.tooFewPlaylists(
                eligible: count,
                required: HeldOutPlaylists.minimumPlaylistCount,
                minimumLength: HeldOutPlaylists.minimumPlaylistLength
            )
        }
        return await search(
            recommender: recommender,
            labels: eligible,
            k: k,
            querySample: defaultQuerySample,
            seed: seed,
            taskCount: taskCount
        )
    }

    /// The coordinate search on `labels`.
    static func search(
        recommender: Recommender,
        labels: [Int64: Set<String>],
        k: Int,
        querySample: Int,
        seed: UInt64,
        taskCount: Int
    ) async -> SimilarityWeights {
        let base = recommender.similaritySpace(excluding: EvaluationLabel.playlist.derivedSignals)
        let queries = LabelledQueries(
            trackIDs: recommender.features.trackIDs,
            labels: labels,
            k: k,
            sampleSize: querySample,
            sampleSeed: seed
        )
        var weights = SimilarityWeights.default
        guard queries.isMeasurable else { return weights }
        func precision(_ candidate: SimilarityWeights) async -> Double {
            let rates = await queries.hitRates(
                in: space(recommender: recommender, weights: candidate, base: base),
                taskCount: taskCount
            )
            return rates.reduce(0, +) / Double(Swift.max(1, rates.count))
        }
        var best = await precision(weights)
        for _ in 0..<roundCount {
            var changed = false
            for feature in recommender.scaling.schema.features {
                for factor in factorGrid where factor != weights.factor(of: feature) {
                    var candidate = weights
                    candidate.features[feature] = factor
                    let value = await precision(candidate)
                    if value > best + 1e-12 {
                        best = value
                        weights = candidate
                        changed = true
                    }
                }
            }
            for artist in artistGrid where artist != weights.artistContext {
                var candidate = weights
                candidate.artistContext = artist
                let value = await precision(candidate)
                if value > best + 1e-12 {
                    best = value
                    weights = candidate
                    changed = true
                }
            }
            if !changed { break }
        }
        weights.features = weights.features.filter { $0.value != 1 }
        return weights
    }

    /// `base` (the default space of `recommender`, features beside artist context) with the
    /// feature factors and artist weight of `weights` applied to its columns.
    static func space(recommender: Recommender, weights: SimilarityWeights, base: SimilaritySpace) -> SimilaritySpace {
        let d = recommender.features.columnCount
        let factors = recommender.scaling.columns.map { Float(weights.factor(of: $0.feature)) }
        let artist = Float(weights.artistContext)
        var elements = base.features.values.elements
        let width = 2 * d
        for row in 0..<base.features.rowCount {
            for column in 0..<d {
                elements[row * width + column] *= factors[column]
                elements[row * width + d + column] *= factors[column] * artist
            }
        }
        var space = base
        space.features = FeatureMatrix(
            values: Matrix(rowCount: base.features.rowCount, columnCount: width, elements: elements),
            trackIDs: base.features.trackIDs,
            columnNames: base.features.columnNames
        )
        space.name = "personal weights"
        return space
    }
}
