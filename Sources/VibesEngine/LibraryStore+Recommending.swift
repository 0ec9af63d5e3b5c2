import Analytics
import Features
import Ingest

/// What to recommend: the seeds, the tuning, and where candidates come from.
public struct RecommendRequest: Sendable {
    /// The tracks that can be picked.
    public var scope: TrackScope = .all
    /// The similarity weights.
    public var weights: WeightChoice = .personal
    /// The seeds as given.
    public var seeds = SeedRequest()
    /// The count, diversity, constraints and tempo handling; its seeds, combination and artist
    /// limits come from ``seeds``, ``maximumPerArtist`` and ``sameArtist``.
    public var query = RecommendationQuery()
    /// At most this many tracks by one main artist (see ``ArtistLimits``); when `nil`, lists from
    /// seed tracks also damp the artists who turn up in most lists (``Analytics/WallpaperArtists``).
    public var maximumPerArtist: Int?
    /// Whether the seed tracks' own artists may fill the list.
    public var sameArtist = false

    public init() {}

    /// The query with the resolved seeds and the artist limits.
    func query(with resolved: ResolvedSeeds, limits: ArtistLimits) -> RecommendationQuery {
        var query = query
        query.seeds = resolved.seeds
        query.negativeSeeds = resolved.negative
        query.combination = seeds.combination
        query.maximumPerArtist = limits.perArtist
        query.maximumPerSeedArtist = limits.perSeedArtist
        query.excludedTrackIDs = resolved.excluded
        // Discovery by default: without a limit of the user's own, artists who turn up in most
        // lists give way to others.
        query.dampsWallpaperArtists = maximumPerArtist == nil && seeds.hasTrackSeeds
        return query
    }

    /// The artist limits of the request.
    var artistLimits: ArtistLimits {
        ArtistLimits(maximumPerArtist: maximumPerArtist, sameArtist: sameArtist, hasTrackSeeds: !seeds.tracks.isEmpty)
    }
}

/// Recommendations with what was resolved to find them.
public struct Recommendations: Sendable {
    /// What was picked for each seed, the artist limits, and the candidate pool.
    public var notes: [String]
    public var result: RecommendationResult
    /// The display summaries of the recommended tracks.
    public var summaries: [Int64: TrackSummary]
    /// The recommended tracks from the reference pool rather than the user's library.
    public var referenceTrackIDs: Set<Int64>
}

extension LibraryStore {
    /// Recommends tracks of the library like the seeds of `request`.
    ///
    /// - Parameters:
    ///   - request: The seeds, tuning and scope.
    ///   - phase: Called with "load" once the library is read and "compute" once the query ran.
    /// - Returns: The recommendations, their summaries and notes for the user.
    /// - Throws: ``EngineError`` for a seed that cannot be resolved, `RecommendationError` for a
    ///   query that cannot run.
    public func recommend(
        _ request: RecommendRequest,
        phase: (String) -> Void = { _ in }
    ) throws -> Recommendations {
        let clock = ContinuousClock()
        let start = clock.now
        let recommender = try makeRecommender(
            scope: request.scope,
            weights: request.weights,
            context: request.seeds.hasTrackSeeds
        )
        phase("load")
        let resolved = try resolveSeeds(request.seeds, in: recommender)
        let limits = request.artistLimits
        let result = try recommender.recommend(request.query(with: resolved, limits: limits))
        let elapsed = clock.now - start
        phase("compute")
        var notes = resolved.notes
        if let note = limits.note { notes.append(note) }
        let (seconds, attoseconds) = elapsed.components
        notes.append(
            "pool: \(result.pool.candidates) candidates, \(result.pool.afterFilters) after filters, \(result.pool.returned) returned"
                + " (\(seconds * 1000 + attoseconds / 1_000_000_000_000_000) ms)"
        )
        let ids = result.recommendations.map(\.trackID)
        let summaries = try trackSummaries(for: ids)
        let reference = try referenceTracks(among: ids)
        if let note = Self.newTracksNote(count: reference.count) { notes.append(note) }
        return Recommendations(notes: notes, result: result, summaries: summaries, referenceTrackIDs: reference)
    }
}
