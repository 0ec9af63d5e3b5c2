import Features

/// What to recommend: seeds, tunable attributes in Spotify's vocabulary, and how to diversify.
///
/// This is the request of Spotify's retired `GET /v1/recommendations`, answered over the user's
/// own library: up to five seeds of mixed kinds, `min_*`/`max_*` hard filters and `target_*`
/// values for the fourteen tunable attributes, and a result count.
///
/// ```swift
/// var query = RecommendationQuery(seeds: [.track(42)])
/// query.setTarget(0.8, for: .energy)
/// query.setMaximum(120, for: .tempo)
/// let result = try recommender.recommend(query)
/// ```
public struct RecommendationQuery: Sendable {
    /// The maximum number of positive seeds, as in Spotify's endpoint.
    public static let maximumSeedCount = 5
    /// The most tracks one query returns: as many as a Spotify playlist holds.
    public static let maximumCount = 10_000

    /// The seeds to recommend from ("more like this").
    public var seeds: [RecommendationSeed]
    /// Seeds to move away from ("less like this").
    public var negativeSeeds: [RecommendationSeed]
    /// How several seeds are combined.
    public var combination: SeedCombination
    /// The bounds and targets, by attribute.
    public var constraints: [TunableAttribute: AttributeConstraint]
    /// Whether a tempo window (`min_tempo` and `max_tempo` together) and `target_tempo` accept half
    /// and double time (60 BPM matches 110…130 BPM); a one-sided tempo bound is applied as given.
    public var tempoOctave: Bool
    /// The number of tracks to return, 1…``maximumCount``.
    public var count: Int
    /// The weight of variety against similarity in maximal-marginal-relevance re-ranking: 0 ranks by
    /// similarity alone, 1 by dissimilarity to the tracks already picked alone.
    public var diversity: Double
    /// At most this many tracks by the same main artist; unlimited when `nil`.
    public var maximumPerArtist: Int?
    /// At most this many tracks by the main artists of the seed tracks, in place of
    /// ``maximumPerArtist`` for them; ``maximumPerArtist`` applies to them too when `nil`
    /// (`Int.max` lifts their limit).
    public var maximumPerSeedArtist: Int?
    /// Tracks never to return; the seed tracks are always excluded.
    public var excludedTrackIDs: Set<Int64>
    /// Whether a list from seed tracks damps the artists who turn up in most lists of the library
    /// (``WallpaperArtists``), other than the seeds' own; `false` by default.
    public var dampsWallpaperArtists = false

    public init(
        seeds: [RecommendationSeed] = [],
        negativeSeeds: [RecommendationSeed] = [],
        combination: SeedCombination = .average,
        count: Int = 20,
        diversity: Double = 0,
        maximumPerArtist: Int? = nil,
        tempoOctave: Bool = false
    ) {
        self.seeds = seeds
        self.negativeSeeds = negativeSeeds
        self.combination = combination
        self.constraints = [:]
        self.tempoOctave = tempoOctave
        self.count = count
        self.diversity = diversity
        self.maximumPerArtist = maximumPerArtist
        self.excludedTrackIDs = []
    }

    /// Sets the hard lower bound `min_<attribute>`.
    public mutating func setMinimum(_ value: Double, for attribute: TunableAttribute) {
        constraints[attribute, default: AttributeConstraint()].minimum = value
    }

    /// Sets the hard upper bound `max_<attribute>`.
    public mutating func setMaximum(_ value: Double, for attribute: TunableAttribute) {
        constraints[attribute, default: AttributeConstraint()].maximum = value
    }

    /// Sets `target_<attribute>`, the value that results should be near.
    public mutating func setTarget(_ value: Double, for attribute: TunableAttribute) {
        constraints[attribute, default: AttributeConstraint()].target = value
    }

    /// The attributes that have a target.
    public var targets: [(attribute: TunableAttribute, value: Double)] {
        TunableAttribute.allCases.compactMap { attribute in
            constraints[attribute]?.target.map { (attribute, $0) }
        }
    }

    /// Checks the query for contradictions a user can fix.
    ///
    /// - Throws: ``RecommendationError`` naming the offending option.
    public func validate() throws {
        guard seeds.count <= RecommendationQuery.maximumSeedCount else {
            throw RecommendationError.tooManySeeds(count: seeds.count)
        }
        guard !seeds.isEmpty || !targets.isEmpty else { throw RecommendationError.noSeeds }
        guard (1...RecommendationQuery.maximumCount).contains(count) else {
            throw RecommendationError.invalidCount(count)
        }
        guard (0...1).contains(diversity) else { throw RecommendationError.invalidDiversity(diversity) }
        for (attribute, constraint) in constraints {
            if let minimum = constraint.minimum, let maximum = constraint.maximum, minimum > maximum {
                throw RecommendationError.emptyRange(attribute: attribute, minimum: minimum, maximum: maximum)
            }
            for value in [constraint.minimum, constraint.maximum, constraint.target].compactMap({ $0 }) {
                guard attribute.acceptedRange.contains(value) else {
                    throw RecommendationError.outOfRange(attribute: attribute, value: value)
                }
            }
        }
    }
}

/// The bounds and target of one attribute; every part is optional.
public struct AttributeConstraint: Hashable, Sendable, Codable {
    /// `min_*`: tracks below this are removed.
    public var minimum: Double?
    /// `max_*`: tracks above this are removed.
    public var maximum: Double?
    /// `target_*`: the query is pulled to this value and tracks near it rank higher.
    public var target: Double?

    public init(minimum: Double? = nil, maximum: Double? = nil, target: Double? = nil) {
        self.minimum = minimum
        self.maximum = maximum
        self.target = target
    }
}

/// How several seeds make one query.
public enum SeedCombination: String, Sendable, CaseIterable, Codable {
    /// One query at the mean of the seeds' points: tracks between the seeds.
    case average
    /// One query per seed, with their results interleaved: a bit of each seed.
    case interleave
}

/// Something to recommend from: a track, a group of tracks, or a mood.
public enum RecommendationSeed: Hashable, Sendable {
    /// One track, by store ID.
    case track(Int64)
    /// The centroid of a group of tracks, such as an artist's tracks or a saved vibe cluster;
    /// `label` says what the group is ("artist Daft Punk", "vibe 3").
    case tracks([Int64], label: String)
    /// A point of the valence–energy plane.
    case mood(MoodWord)
}
