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
            "A seed track: a Spotify ID, URI or link, or a title to search for (\"Daft Punk - One More Time\"). Repeatable."
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
            "A seed vibe: its number as `vibes` shows it (1 = the largest), from the latest clustering run unless --run is given. Repeatable."
    )
    var vibes: [Int] = []

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

    @Option(
        name: .customLong("combine"),
        help: "How several seeds combine: average (tracks between them) or interleave (some of each)."
    )
    var combination: SeedCombination = .average

    var positiveCount: Int { tracks.count + artists.count + vibes.count + moods.count }

    func validate() throws {
        guard positiveCount <= RecommendationQuery.maximumSeedCount else {
            throw ValidationError(
                "Please give at most \(RecommendationQuery.maximumSeedCount) seeds in all (got \(positiveCount))."
            )
        }
    }

    /// Resolves the options against the store.
    ///
    /// - Returns: The positive and negative seeds, and one line per seed saying what was picked.
    /// - Throws: `ValidationError` naming a seed that matches nothing.
    func resolve(
        in store: LibraryStore
    ) throws -> (
        seeds: [RecommendationSeed], negative: [RecommendationSeed], notes: [String]
    ) {
        var notes: [String] = []
        func track(_ text: String) throws -> RecommendationSeed {
            let (id, note) = try SeedOptions.resolveTrack(text, in: store)
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
        func vibe(_ number: Int) throws -> RecommendationSeed {
            let (ids, label) = try SeedOptions.vibeMembers(number, run: run, in: store)
            notes.append("seed \(label): \(ids.count) tracks")
            return .tracks(ids, label: label)
        }
        let seeds =
            try tracks.map(track) + artists.map(artist) + vibes.map(vibe) + moods.map { RecommendationSeed.mood($0) }
        let negative = try avoidTracks.map(track) + avoidArtists.map(artist)
        return (seeds, negative, notes)
    }
}

extension SeedOptions {
    /// Finds a track by Spotify ID, URI or link, or else by a fuzzy title search.
    ///
    /// - Returns: The track's store ID and a line saying what was picked.
    /// - Throws: `ValidationError` when nothing matches.
    static func resolveTrack(_ text: String, in store: LibraryStore) throws -> (Int64, String) {
        if let id = SpotifyID(uri: text, category: "track") {
            guard let trackID = try store.trackID(spotifyID: id) else {
                throw CommandFailure(
                    "The track \(id.trackURI) is not in the library; import it first or search by title."
                )
            }
            return (trackID, "track \(text) → store ID \(trackID)")
        }
        guard let match = try store.searchTracks(matching: text, limit: 1).first else {
            throw CommandFailure(
                "No track in the library resembles \"\(text)\"; check the spelling or give a Spotify ID."
            )
        }
        let artist = match.track.artists.first.map { "\($0) – " } ?? ""
        return (
            match.track.id,
            "track \"\(text)\" → \(artist)\(match.track.name) (match \(match.score.formatted(digits: 2)))"
        )
    }
}

extension SeedOptions {
    /// The members of vibe `number` (1-based, largest vibe first, as `vibes` prints them) of a
    /// saved clustering run.
    ///
    /// - Returns: The member track IDs and a label such as `vibe 2 "Upbeat Dance"`.
    /// - Throws: `ValidationError` when there is no run or no such vibe.
    static func vibeMembers(_ number: Int, run: Int64?, in store: LibraryStore) throws -> ([Int64], String) {
        guard let record = try store.clusteringRun(id: run), let id = record.id else {
            throw CommandFailure(
                run.map { "There is no clustering run \($0); list the runs with `vibes-analyze vibes --list`." }
                    ?? "There are no vibes yet; find them with `vibes-analyze cluster` first."
            )
        }
        let clusters = try store.clusters(ofRun: id).sorted {
            $0.size != $1.size ? $0.size > $1.size : $0.cluster < $1.cluster
        }
        guard (1...Swift.max(1, clusters.count)).contains(number), !clusters.isEmpty else {
            throw CommandFailure("Run \(id) has vibes 1 to \(clusters.count); --vibe \(number) is not one of them.")
        }
        let cluster = clusters[number - 1]
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
    /// - Throws: `ValidationError` when the scope has no tracks with features.
    init(store: LibraryStore, scope: TrackScope = .all) throws {
        self.store = store
        let table = try describingScope { try store.featureTable(scope: scope) }
        guard table.rowCount > 0 else {
            throw CommandFailure(
                "The library at \(store.path) has no tracks with audio features; run `vibes-analyze import FILE` first."
            )
        }
        let facts = try store.trackFacts(for: table.trackIDs)
        let attributes = facts.map { fact in
            // Versions of one song (remixes, remasters, live takes) share a key, so recommendations
            // and playlists hold at most one of them.
            TrackAttributes(
                artists: fact.artists,
                songKey: fact.songKey,
                durationMS: fact.durationMS,
                popularity: fact.popularity
            )
        }
        recommender = Recommender(table: table, attributesByRow: attributes)
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
