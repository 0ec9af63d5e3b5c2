import Analytics
import Features
import Ingest

/// The seeds of a recommendation or a playlist as a person gives them: tracks, artists, vibes and
/// moods, and what to avoid.
public struct SeedRequest: Sendable, Equatable {
    /// Seed tracks: a Spotify ID, URI or link, an ISRC, or "artist - title".
    public var tracks: [String] = []
    /// Seed artists, by name (the centroid of their tracks).
    public var artists: [String] = []
    /// Seed vibes: a number as `vibes` shows it or a name (``VibeReference``).
    public var vibes: [String] = []
    /// The clustering run that ``vibes`` refer to; the current one when `nil`.
    public var run: Int64?
    /// Seed moods on the valence–energy plane.
    public var moods: [MoodWord] = []
    /// Tracks to move away from, given like ``tracks``.
    public var avoidTracks: [String] = []
    /// Artists to move away from.
    public var avoidArtists: [String] = []
    /// Artists whose tracks are never picked.
    public var excludedArtists: [String] = []
    /// How several seeds combine.
    public var combination: SeedCombination = .average

    public init() {}

    /// The number of positive seeds.
    public var positiveCount: Int { tracks.count + artists.count + vibes.count + moods.count }

    /// Whether any seed is a track: only a track has tags and playlists for the tag and
    /// co-membership blocks to compare, so other seeds do without reading them (on a million
    /// tracks, reading them took most of a `recommend --mood`).
    public var hasTrackSeeds: Bool { !tracks.isEmpty || !avoidTracks.isEmpty }
}

/// Seeds resolved against the store.
public struct ResolvedSeeds: Sendable {
    /// The positive seeds, in the order given: tracks, artists, vibes, moods.
    public var seeds: [RecommendationSeed]
    /// What to move away from.
    public var negative: [RecommendationSeed]
    /// The tracks of the excluded artists.
    public var excluded: Set<Int64>
    /// One line per seed saying what was picked.
    public var notes: [String]
}

/// The artist limits of a query (see ``ArtistLimits/init(maximumPerArtist:sameArtist:hasTrackSeeds:)``).
public struct ArtistLimits: Sendable, Equatable {
    /// The tracks a list from seed tracks holds by one artist unless the user asks otherwise, and
    /// by the seed tracks' own artists: discovery beyond the seed's artist by default.
    public static let defaultTracksPerArtist = 2

    /// At most this many tracks by one main artist.
    public var perArtist: Int?
    /// At most this many tracks by the seed tracks' own artists.
    public var perSeedArtist: Int?
    /// When a default limit applies, a line saying how to change it.
    public var note: String?

    /// The limits: with track seeds, at most ``defaultTracksPerArtist`` per artist (or
    /// `maximumPerArtist`) and at most as many by the seeds' own artists, which `sameArtist`
    /// lifts (to `maximumPerArtist` when given); without track seeds, `maximumPerArtist` alone.
    public init(maximumPerArtist: Int?, sameArtist: Bool, hasTrackSeeds: Bool) {
        guard hasTrackSeeds else {
            self.perArtist = maximumPerArtist
            self.perSeedArtist = maximumPerArtist
            return
        }
        let perArtist = maximumPerArtist ?? Self.defaultTracksPerArtist
        self.perArtist = perArtist
        if sameArtist {
            self.perSeedArtist = maximumPerArtist ?? Int.max
            return
        }
        let perSeedArtist = Swift.min(Self.defaultTracksPerArtist, perArtist)
        self.perSeedArtist = perSeedArtist
        note =
            "at most \(perArtist) track\(perArtist == 1 ? "" : "s") per artist and \(perSeedArtist) by the seed's own artist\(maximumPerArtist == nil ? " (--max-per-artist, --same-artist change this)" : " (--same-artist lifts the second)")"
    }
}

extension LibraryStore {
    /// The least search score taken as the track meant: "Daft Punk - One More Time" against
    /// "The Everly Brothers – Just One Time" scores 0.42, a missing word or a typo about 0.7.
    public static let strongSeedMatch = 0.6

    /// Resolves the seeds of `request` against the store.
    ///
    /// - Parameters:
    ///   - request: The seeds as given.
    ///   - recommender: The tracks that can be picked; a seed track must be one of them.
    /// - Returns: The positive and negative seeds, the tracks of the excluded artists, and one
    ///   line per seed saying what was picked.
    /// - Throws: ``EngineError`` naming a seed that matches nothing or only weakly, or a vibe or
    ///   run that does not exist.
    public func resolveSeeds(_ request: SeedRequest, in recommender: Recommender) throws -> ResolvedSeeds {
        var notes: [String] = []
        func track(_ text: String) throws -> RecommendationSeed {
            let (id, note) = try resolveTrack(text, hasFeatures: { recommender.row(of: $0) != nil })
            notes.append(note)
            return .track(id)
        }
        func artist(_ text: String) throws -> RecommendationSeed {
            guard let match = try searchArtist(matching: text) else { throw EngineError.noSuchArtist(query: text) }
            notes.append(
                "seed artist \"\(text)\" → \(match.name), \(match.trackIDs.count) tracks (match \(match.score.formatted(digits: 2)))"
            )
            return .tracks(match.trackIDs, label: "artist \(match.name)")
        }
        func vibe(_ text: String) throws -> RecommendationSeed {
            let (ids, label) = try vibeMembers(text, run: request.run)
            notes.append("seed \(label): \(ids.count) tracks")
            return .tracks(ids, label: label)
        }
        let seeds =
            try request.tracks.map(track) + request.artists.map(artist) + request.vibes.map(vibe)
            + request.moods.map { RecommendationSeed.mood($0) }
        let negative = try request.avoidTracks.map(track) + request.avoidArtists.map(artist)
        var excluded = Set<Int64>()
        for text in request.excludedArtists {
            guard let match = try searchArtist(matching: text) else { throw EngineError.noSuchArtist(query: text) }
            notes.append("excluded artist \"\(text)\" → \(match.name), \(match.trackIDs.count) tracks")
            excluded.formUnion(match.trackIDs)
        }
        return ResolvedSeeds(seeds: seeds, negative: negative, excluded: excluded, notes: notes)
    }

    /// Finds a track by Spotify ID, URI or link, by ISRC, or else by a fuzzy "artist - title"
    /// search.
    ///
    /// A search takes the best match of at least ``strongSeedMatch`` that has audio features;
    /// when the best match has none, the best one that has them, and the note says so.
    ///
    /// - Parameter hasFeatures: Whether a track can be used (it has features, in scope).
    /// - Returns: The track's store ID and a line saying what was picked.
    /// - Throws: ``EngineError`` when nothing matches well enough (with the closest tracks), or
    ///   the track has no features.
    public func resolveTrack(
        _ text: String,
        hasFeatures: (Int64) -> Bool = { _ in true }
    ) throws -> (trackID: Int64, note: String) {
        if let id = SpotifyID(uri: text, category: "track") {
            guard let trackID = try trackID(spotifyID: id) else { throw EngineError.trackNotInLibrary(id) }
            guard hasFeatures(trackID) else { throw EngineError.seedWithoutFeatures(.spotifyID(id)) }
            return (trackID, "track \(text) → store ID \(trackID)")
        }
        let trimmed = text.trimmingCharacters(in: .whitespaces).uppercased()
        if trimmed.count == 12, trimmed.wholeMatch(of: /[A-Z]{2}[A-Z0-9]{3}[0-9]{7}/) != nil {
            let ids = try trackIDs(isrc: trimmed)
            guard let id = ids.first(where: hasFeatures) else {
                throw ids.isEmpty
                    ? EngineError.noTrackWithISRC(trimmed) : EngineError.seedWithoutFeatures(.isrc(trimmed))
            }
            return (id, "ISRC \(trimmed) → store ID \(id)")
        }
        let matches = try searchTracks(matching: text, limit: 20)
        func candidate(_ match: TrackMatch) -> SeedCandidate {
            SeedCandidate(
                trackID: match.track.id,
                artist: match.track.artists.first,
                name: match.track.name,
                spotifyID: match.track.spotifyID,
                score: match.score,
                hasFeatures: hasFeatures(match.track.id)
            )
        }
        let strong = matches.filter { $0.score >= Self.strongSeedMatch }
        guard let best = strong.first else {
            throw EngineError.weakMatch(query: text, candidates: matches.prefix(5).map(candidate))
        }
        if hasFeatures(best.track.id) {
            return (best.track.id, "track \"\(text)\" → \(candidate(best).summary)")
        }
        guard let usable = strong.first(where: { hasFeatures($0.track.id) }) else {
            throw EngineError.seedWithoutFeatures(.search(query: text, match: candidate(best)))
        }
        return (
            usable.track.id,
            "track \"\(text)\" → \(candidate(best).summary) has no audio features; using \(candidate(usable).summary) instead"
        )
    }

    /// The members of vibe `text` (its number, 1-based, largest vibe first, as `vibes` prints
    /// them, or its name: ``VibeReference``) of a saved clustering run.
    ///
    /// - Parameter run: The run; the current one when `nil`.
    /// - Returns: The member track IDs and a label such as `vibe 2 "Upbeat Dance"`.
    /// - Throws: ``EngineError`` when there is no run or no such vibe.
    public func vibeMembers(_ text: String, run: Int64?) throws -> (trackIDs: [Int64], label: String) {
        guard let record = try clusteringRun(id: run), let id = record.run.id else {
            throw EngineError.noClusteringRun(id: run)
        }
        let clusters = try rankedClusters(ofRun: id)
        let index = try VibeReference(text).index(in: clusters.map(\.name), runID: id)
        let cluster = clusters[index]
        let members = try assignments(ofRun: id).filter { $0.cluster == cluster.cluster }.map(\.trackID)
        return (members, "vibe \(index + 1) \"\(cluster.name)\"")
    }
}
