import Analytics
import ArgumentParser
import Features
import Ingest
import VibesCommandSupport

/// The seeds of `recommend` and `playlist build`: tracks, artists, moods, and what to avoid.
struct SeedOptions: ParsableArguments {
    @Option(
        name: .customLong("seed"),
        help:
            "A seed track: a Spotify ID, URI or link, an ISRC, or \"artist - title\" (\"Daft Punk - One More Time\"). Repeatable."
    )
    var tracks: [String] = []

    @Option(
        name: .customLong("seed-artist"),
        help: "A seed artist (the centroid of their tracks), by name. Repeatable."
    )
    var artists: [String] = []

    @Option(
        name: .customLong("vibe"),
        help:
            "A seed vibe: its number as `vibes` shows it (1 = the largest) or its name, from the current clustering run unless --run is given. Repeatable."
    )
    var vibes: [String] = []

    @Option(name: .customLong("run"), help: "The clustering run that --vibe numbers refer to; the latest by default.")
    var run: Int64?

    @Option(
        name: .customLong("mood"),
        help: "A seed mood on the valence–energy plane: \(MoodWord.allCases.map(\.rawValue).joined(separator: ", "))."
    )
    var moods: [MoodWord] = []

    @Option(
        name: .customLong("avoid"),
        help: "A track to move away from (\"less like this\"), given like --seed. Repeatable."
    )
    var avoidTracks: [String] = []

    @Option(name: .customLong("avoid-artist"), help: "An artist to move away from. Repeatable.")
    var avoidArtists: [String] = []

    @Option(name: .customLong("exclude-artist"), help: "An artist whose tracks are never picked. Repeatable.")
    var excludedArtists: [String] = []

    @Option(
        name: .customLong("combine"),
        help: "How several seeds combine: average (tracks between them) or interleave (some of each)."
    )
    var combination: SeedCombination = .average

    var positiveCount: Int { tracks.count + artists.count + vibes.count + moods.count }

    /// Whether any seed is a track: only a track has tags and playlists for the tag and
    /// co-membership blocks to compare, so other seeds do without reading them (on a million
    /// tracks, reading them took most of a `recommend --mood`).
    var hasTrackSeeds: Bool { !tracks.isEmpty || !avoidTracks.isEmpty }

    func validate() throws {
        guard positiveCount <= RecommendationQuery.maximumSeedCount else {
            throw ValidationError(
                "Please give at most \(RecommendationQuery.maximumSeedCount) seeds in all (got \(positiveCount))."
            )
        }
    }

    /// Resolves the options against the store.
    ///
    /// - Parameter library: The tracks that can be picked; a seed track must be one of them.
    /// - Returns: The positive and negative seeds, the tracks of `--exclude-artist`, and one line
    ///   per seed saying what was picked.
    /// - Throws: `CommandFailure` naming a seed that matches nothing or only weakly.
    func resolve(
        in store: LibraryStore,
        library: LoadedLibrary
    ) throws -> (
        seeds: [RecommendationSeed], negative: [RecommendationSeed], excluded: Set<Int64>, notes: [String]
    ) {
        var notes: [String] = []
        func track(_ text: String) throws -> RecommendationSeed {
            let (id, note) = try SeedOptions.resolveTrack(text, in: store, hasFeatures: library.hasFeatures)
            notes.append(note)
            return .track(id)
        }
        func artist(_ text: String) throws -> RecommendationSeed {
            guard let match = try store.searchArtist(matching: text) else {
                throw CommandFailure("No artist in the library resembles \"\(text)\"; check the spelling.")
            }
            notes.append(
                "seed artist \"\(text)\" → \(match.name), \(match.trackIDs.count) tracks (match \(match.score.formatted(digits: 2)))"
            )
            return .tracks(match.trackIDs, label: "artist \(match.name)")
        }
        func vibe(_ text: String) throws -> RecommendationSeed {
            let (ids, label) = try SeedOptions.vibeMembers(text, run: run, in: store)
            notes.append("seed \(label): \(ids.count) tracks")
            return .tracks(ids, label: label)
        }
        let seeds =
            try tracks.map(track) + artists.map(artist) + vibes.map(vibe) + moods.map { RecommendationSeed.mood($0) }
        let negative = try avoidTracks.map(track) + avoidArtists.map(artist)
        var excluded = Set<Int64>()
        for text in excludedArtists {
            guard let match = try store.searchArtist(matching: text) else {
                throw CommandFailure("No artist in the library resembles \"\(text)\"; check the spelling.")
            }
            notes.append("excluded artist \"\(text)\" → \(match.name), \(match.trackIDs.count) tracks")
            excluded.formUnion(match.trackIDs)
        }
        return (seeds, negative, excluded, notes)
    }
}

extension SeedOptions {
    /// The least search score taken as the track meant: "Daft Punk - One More Time" against
    /// "The Everly Brothers – Just One Time" scores 0.42, a missing word or a typo about 0.7.
    static let strongMatch = 0.6

    /// Finds a track by Spotify ID, URI or link, by ISRC, or else by a fuzzy "artist - title"
    /// search.
    ///
    /// A search takes the best match of at least ``strongMatch`` that has audio features; when
    /// the best match has none, the best one that has them, and the note says so.
    ///
    /// - Parameter hasFeatures: Whether a track can be used (it has features, in scope).
    /// - Returns: The track's store ID and a line saying what was picked.
    /// - Throws: `CommandFailure` when nothing matches well enough, listing the closest tracks.
    static func resolveTrack(
        _ text: String,
        in store: LibraryStore,
        hasFeatures: (Int64) -> Bool = { _ in true }
    ) throws -> (Int64, String) {
        if let id = SpotifyID(uri: text, category: "track") {
            guard let trackID = try store.trackID(spotifyID: id) else {
                throw CommandFailure(
                    "The track \(id.trackURI) is not in the library; import it first or search by title."
                )
            }
            guard hasFeatures(trackID) else {
                throw CommandFailure(
                    "The track \(id.trackURI) has no audio features here; run `vibes-analyze features fetch`, or choose another seed."
                )
            }
            return (trackID, "track \(text) → store ID \(trackID)")
        }
        let trimmed = text.trimmingCharacters(in: .whitespaces).uppercased()
        if trimmed.count == 12, trimmed.wholeMatch(of: /[A-Z]{2}[A-Z0-9]{3}[0-9]{7}/) != nil {
            let ids = try store.trackIDs(isrc: trimmed)
            guard let id = ids.first(where: hasFeatures) else {
                throw CommandFailure(
                    ids.isEmpty
                        ? "No track in the library has the ISRC \(trimmed); import it first or search by title."
                        : "The track with ISRC \(trimmed) has no audio features here; run `vibes-analyze features fetch`, or choose another seed."
                )
            }
            return (id, "ISRC \(trimmed) → store ID \(id)")
        }
        let matches = try store.searchTracks(matching: text, limit: 20)
        let strong = matches.filter { $0.score >= strongMatch }
        guard let best = strong.first else {
            throw CommandFailure(weakMatchMessage(text, matches: Array(matches.prefix(5)), hasFeatures: hasFeatures))
        }
        func describe(_ match: TrackMatch) -> String {
            let artist = match.track.artists.first.map { "\($0) – " } ?? ""
            return "\(artist)\(match.track.name) (match \(match.score.formatted(digits: 2)))"
        }
        if hasFeatures(best.track.id) {
            return (best.track.id, "track \"\(text)\" → \(describe(best))")
        }
        guard let usable = strong.first(where: { hasFeatures($0.track.id) }) else {
            throw CommandFailure(
                "\"\(text)\" is \(describe(best)), which has no audio features here; run `vibes-analyze features fetch`, or choose another seed."
            )
        }
        return (
            usable.track.id,
            "track \"\(text)\" → \(describe(best)) has no audio features; using \(describe(usable)) instead"
        )
    }

    /// The error for a seed that matches nothing well: the closest tracks, for the user to pick.
    static func weakMatchMessage(_ text: String, matches: [TrackMatch], hasFeatures: (Int64) -> Bool) -> String {
        guard !matches.isEmpty else {
            return "No track in the library resembles \"\(text)\"; check the spelling, or give a Spotify ID or an ISRC."
        }
        let closest = matches.map { match in
            let artist = match.track.artists.first.map { "\($0) – " } ?? ""
            let source = match.track.spotifyID.map { "spotify:track:\($0)" } ?? "store ID \(match.track.id)"
            let features = hasFeatures(match.track.id) ? "" : ", no audio features"
            return "\(artist)\(match.track.name) (match \(match.score.formatted(digits: 2)), \(source)\(features))"
        }
        return
            "No track in the library matches \"\(text)\" well enough. The closest: \(closest.joined(separator: "; "))."
            + " Give one of them as \"artist - title\", or a Spotify ID, URI or link, or an ISRC."
    }
}

extension SeedOptions {
    /// The tracks a list from seed tracks holds by one artist unless the user asks otherwise, and by
    /// the seed tracks' own artists: discovery beyond the seed's artist by default.
    static let defaultTracksPerArtist = 2

    /// The artist limits of a query: with track seeds, at most ``defaultTracksPerArtist`` per artist
    /// (or `--max-per-artist`) and at most as many by the seeds' own artists, which `--same-artist`
    /// lifts (to `--max-per-artist` when given); without track seeds, `--max-per-artist` alone.
    ///
    /// - Returns: The limits and, when a default limit applies, a note saying how to change it.
    static func artistLimits(
        maxPerArtist: Int?,
        sameArtist: Bool,
        hasTrackSeeds: Bool
    ) -> (perArtist: Int?, perSeedArtist: Int?, note: String?) {
        guard hasTrackSeeds else { return (maxPerArtist, maxPerArtist, nil) }
        let perArtist = maxPerArtist ?? defaultTracksPerArtist
        if sameArtist { return (perArtist, maxPerArtist ?? Int.max, nil) }
        let perSeedArtist = Swift.min(defaultTracksPerArtist, perArtist)
        let note =
            "at most \(perArtist) track\(perArtist == 1 ? "" : "s") per artist and \(perSeedArtist) by the seed's own artist\(maxPerArtist == nil ? " (--max-per-artist, --same-artist change this)" : " (--same-artist lifts the second)")"
        return (perArtist, perSeedArtist, note)
    }

    /// The members of vibe `text` (its number, 1-based, largest vibe first, as `vibes` prints
    /// them, or its name: ``VibeReference``) of a saved clustering run.
    ///
    /// - Returns: The member track IDs and a label such as `vibe 2 "Upbeat Dance"`.
    /// - Throws: `CommandFailure` when there is no run or no such vibe.
    static func vibeMembers(_ text: String, run: Int64?, in store: LibraryStore) throws -> ([Int64], String) {
        guard let record = try store.clusteringRun(id: run), let id = record.run.id else {
            throw CommandFailure(
                run.map { "There is no clustering run \($0); list the runs with `vibes-analyze vibes --list`." }
                    ?? "There are no vibes yet; find them with `vibes-analyze cluster` first."
            )
        }
        let clusters = try store.rankedClusters(ofRun: id)
        let index = try VibeReference(text).index(in: clusters.map(\.name), runID: id)
        let number = index + 1
        let cluster = clusters[index]
        let members = try store.assignments(ofRun: id).filter { $0.cluster == cluster.cluster }.map(\.trackID)
        return (members, "vibe \(number) \"\(cluster.name)\"")
    }
}

extension MoodWord: ExpressibleByArgument {}
extension SeedCombination: ExpressibleByArgument {}

/// The library loaded for similarity work: the recommender and the track metadata.
struct LoadedLibrary {
    var recommender: Recommender
    let store: LibraryStore

    /// Reads the features of the tracks in `scope` and what recommendations filter by (artists,
    /// duration, popularity), and builds the similarity space. Display details are read later, for
    /// the few tracks shown (``summaries(of:)``).
    ///
    /// The weights come from `weights`, or else the store's personal weights when `personal`,
    /// or else the defaults. With `context`, the hybrid similarity also holds the tag block (artist
    /// genres, dataset genres and subgenres) and the co-membership block (imported playlists,
    /// catch-alls left out).
    ///
    /// - Throws: `ValidationError` when the scope has no tracks with features.
    init(
        store: LibraryStore,
        scope: TrackScope = .all,
        personal: Bool = true,
        context: Bool = true,
        weights: SimilarityWeights? = nil
    ) throws {
        self.store = store
        let table = try describingScope { try store.featureTable(scope: scope) }
        guard table.rowCount > 0 else {
            throw CommandFailure(
                "The library at \(store.path) has no tracks with audio features; run `vibes-analyze import FILE` first."
            )
        }
        // Versions of one song (remixes, remasters, live takes) share a song code, so
        // recommendations and playlists hold at most one of them.
        let attributes = try store.trackAttributeColumns(for: table.trackIDs)
        let chosen = try weights ?? (personal ? store.personalWeights() : nil) ?? .default
        // The space comes from the store's cache when the last command used this table and these
        // weights (see `LibraryStore.featureSpace(of:schema:)`).
        let space = try store.featureSpace(of: table, schema: FeatureSchema.default.applying(chosen))
        recommender = Recommender(table: consume table, space: space, attributes: consume attributes, weights: chosen)
        if context {
            let ids = recommender.features.trackIDs
            recommender = recommender.addingSameArtist()
            if let tags = SimilarityBlock.tags(from: try LoadedLibrary.tagSources(store: store), trackIDs: ids) {
                recommender = recommender.adding(tags)
            }
            let playlists = try LoadedLibrary.playlists(store: store, trackIDs: ids)
            if let block = SimilarityBlock.coMembership(playlists: playlists, trackIDs: ids) {
                recommender = recommender.adding(block)
            }
        }
    }

    /// The tags of the tag block, by the signal each kind of tag is.
    static func tagSources(store: LibraryStore) throws -> [SimilarityBlock.Source] {
        [
            SimilarityBlock.Source(signal: .artistGenreTags, terms: try store.trackLabels(kind: "artist-genre")),
            SimilarityBlock.Source(signal: .genreTags, terms: try store.trackLabels(kind: "genre")),
            SimilarityBlock.Source(signal: .subgenreTags, terms: try store.trackLabels(kind: "subgenre")),
        ]
    }

    /// Every genre tag of each track (artist genres, dataset genres and subgenres), for the names
    /// of vibes.
    static func nameTags(store: LibraryStore) throws -> [Int64: Set<String>] {
        var tags: [Int64: Set<String>] = [:]
        for source in try tagSources(store: store) {
            for (id, set) in source.terms { tags[id, default: []].formUnion(set) }
        }
        return tags
    }

    /// The imported playlists of each of `trackIDs`, catch-alls left out.
    static func playlists(store: LibraryStore, trackIDs: [Int64]) throws -> [Int64: Set<String>] {
        let inSpace = Set(trackIDs)
        let labels = try store.trackLabels(kind: EvaluationLabel.playlist.rawValue).filter { inSpace.contains($0.key) }
        return CatchAllPlaylist.removing(
            CatchAllPlaylist.find(in: labels, libraryTrackCount: trackIDs.count),
            from: labels
        )
    }

    /// Whether `trackID` is one of the tracks this library can pick (it has features, in scope).
    func hasFeatures(_ trackID: Int64) -> Bool {
        recommender.row(of: trackID) != nil
    }

    /// The display summaries of `trackIDs`, by ID.
    func summaries(of trackIDs: some Collection<Int64>) throws -> [Int64: TrackSummary] {
        try store.trackSummaries(for: trackIDs)
    }

    /// "Artist – Title" for display.
    func title(of trackID: Int64) -> String {
        guard let summary = try? store.trackSummaries(for: [trackID])[trackID] else { return "track \(trackID)" }
        let artist = summary.artists.first.map { "\($0) – " } ?? ""
        return artist + summary.name
    }
}

extension Double {
    /// The value with a fixed number of decimals, such as `0.96`.
    func formatted(digits: Int) -> String {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let rounded = (self * scale).rounded() / scale
        var text = String(rounded)
        if let dot = text.firstIndex(of: ".") {
            let decimals = text.distance(from: dot, to: text.endIndex) - 1
            if decimals < digits { text += String(repeating: "0", count: digits - decimals) }
        } else if digits > 0 {
            text += "." + String(repeating: "0", count: digits)
        }
        return text
    }
}
