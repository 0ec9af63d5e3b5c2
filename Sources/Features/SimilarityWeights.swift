/// How much each part of the recommender's hybrid similarity counts: a factor per audio feature,
/// and the weight of each block beside the sound.
///
/// The hybrid score of a track-seeded query *q* and a track *j* is the weighted mean of block
/// cosines
///
///     (cos_sound(q, j) + w_tags · cos_tags(q, j) + w_co · cos_co(q, j)) / (1 + w_tags + w_co)
///
/// where the sound block is the audio features beside the artist context (weight
/// ``artistContext``, see `ArtistContext` in Analytics), the tag block the TF-IDF-weighted genre
/// tags of the track and its artists, and the co-membership block the TF-IDF-weighted playlists
/// it is in. A block the library has no data for is left out of the sum and of the denominator.
/// The score stays within −1…1. The defaults are ``default``; `vibes-analyze weights learn`
/// learns personal ones from the user's playlists.
public struct SimilarityWeights: Hashable, Sendable, Codable {
    /// A factor per audio feature, multiplying the schema's own weight; a feature absent here
    /// counts 1. Positive and finite.
    public var features: [AudioFeature: Double]
    /// The weight of the artist context against the track's own features inside the sound
    /// block; ``defaultArtistContextWeight`` by default (0 leaves it out).
    public var artistContext: Double
    /// The weight of the genre-tag block, ≥ 0; ``defaultTagWeight`` by default.
    public var tags: Double
    /// The weight of the playlist co-membership block, ≥ 0; ``defaultCoMembershipWeight`` by default.
    public var coMembership: Double
    /// The weight of the same-artist block (1 when two tracks share a main artist, else 0), ≥ 0;
    /// ``defaultSameArtistWeight`` by default.
    public var sameArtist: Double

    // The defaults of the artist context, the same artist and co-membership are those `weights
    // learn` (Analytics' `BlockWeightLearning`) chose on held-out playlists of each labelled set
    // with playlists (tidytuesday, Kaggle 2024), checked leave one dataset out: the weights learned
    // on one set, graded with `eval --weights` on the other (Benchmarks/RESULTS.md). No labelled
    // set has tags that do not derive from its labels, so the tag weight is the naive rule's: as
    // much as the sound.

    /// The artist context's default weight: 2, the artist's sound twice the track's own.
    public static let defaultArtistContextWeight = 2.0
    /// The tag block's default weight: 1, as much as the sound.
    public static let defaultTagWeight = 1.0
    /// The co-membership block's default weight: 2, twice the sound.
    public static let defaultCoMembershipWeight = 2.0
    /// The same-artist block's default weight: 1, as much as the sound.
    public static let defaultSameArtistWeight = 1.0

    /// Every feature at 1, the blocks at their defaults.
    public static let `default` = SimilarityWeights()

    public init(
        features: [AudioFeature: Double] = [:],
        artistContext: Double = SimilarityWeights.defaultArtistContextWeight,
        tags: Double = SimilarityWeights.defaultTagWeight,
        coMembership: Double = SimilarityWeights.defaultCoMembershipWeight,
        sameArtist: Double = SimilarityWeights.defaultSameArtistWeight
    ) {
        self.features = features
        self.artistContext = artistContext
        self.tags = tags
        self.coMembership = coMembership
        self.sameArtist = sameArtist
    }

    /// The factor of `feature`: its entry in ``features``, or 1.
    public func factor(of feature: AudioFeature) -> Double { features[feature] ?? 1 }

    enum CodingKeys: String, CodingKey {
        case features
        case artistContext = "artist_context"
        case tags
        case coMembership = "co_membership"
        case sameArtist = "same_artist"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let named = try container.decode([String: Double].self, forKey: .features)
        var features: [AudioFeature: Double] = [:]
        for (name, value) in named {
            guard let feature = AudioFeature(rawValue: name) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .features,
                    in: container,
                    debugDescription: "Unknown audio feature \"\(name)\"."
                )
            }
            features[feature] = value
        }
        self.init(
            features: features,
            artistContext: try container.decode(Double.self, forKey: .artistContext),
            tags: try container.decode(Double.self, forKey: .tags),
            coMembership: try container.decode(Double.self, forKey: .coMembership),
            sameArtist: try container.decodeIfPresent(Double.self, forKey: .sameArtist)
                ?? SimilarityWeights.defaultSameArtistWeight
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(
            Dictionary(uniqueKeysWithValues: features.map { ($0.key.rawValue, $0.value) }),
            forKey: .features
        )
        try container.encode(artistContext, forKey: .artistContext)
        try container.encode(tags, forKey: .tags)
        try container.encode(coMembership, forKey: .coMembership)
        try container.encode(sameArtist, forKey: .sameArtist)
    }
}

// MARK: - Schemas

extension FeatureSchema {
    /// This schema with each feature's weight multiplied by its factor in `weights`.
    ///
    /// - Precondition: Every factor of `weights` is positive and finite.
    public func applying(_ weights: SimilarityWeights) -> FeatureSchema {
        var scaled: [AudioFeature: Double] = [:]
        for entry in entries { scaled[entry.feature] = entry.weight * weights.factor(of: entry.feature) }
        guard
            let schema = try? FeatureSchema(
                features: features,
                weights: scaled,
                scaling: scaling,
                imputing: imputedFeatures
            )
        else { preconditionFailure("Feature factors must be positive and finite: \(weights.features).") }
        return schema
    }
}
