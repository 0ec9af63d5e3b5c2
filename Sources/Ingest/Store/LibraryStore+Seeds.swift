import Features
import GRDB

/// A track found by a name search, with how well it matched.
public struct TrackMatch: Hashable, Sendable {
    /// The track.
    public var track: TrackSummary
    /// The similarity of the query to the track's "artist title" or title, 0…1 (1 is exact).
    public var score: Double
}

/// An artist found by a name search, with the tracks credited to them.
public struct ArtistMatch: Hashable, Sendable {
    public var name: String
    /// How well the name matched, 0…1.
    public var score: Double
    /// The IDs of the artist's tracks, in ID order.
    public var trackIDs: [Int64]
}

extension LibraryStore {
    /// Reads the display summaries of every track, keyed by track ID.
    ///
    /// - Complexity: One pass over `tracks` and `track_artists`.
    public func allTrackSummaries() throws -> [Int64: TrackSummary] {
        try database.read { db in
            var artists: [Int64: [String]] = [:]
            let credits = try Row.fetchCursor(
                db,
                sql: """
                    SELECT ta.track_id, a.name FROM track_artists ta JOIN artists a ON a.id = ta.artist_id
                    ORDER BY ta.track_id, ta.position
                    """
            )
            while let row = try credits.next() { artists[row[0], default: []].append(row[1]) }
            var result: [Int64: TrackSummary] = [:]
            let rows = try Row.fetchCursor(
                db,
                sql: "SELECT id, spotify_id, name, album, duration_ms, popularity FROM tracks"
            )
            while let row = try rows.next() {
                let id: Int64 = row[0]
                result[id] = TrackSummary(
                    id: id,
                    spotifyID: row[1],
                    name: row[2],
                    artists: artists[id] ?? [],
                    album: row[3],
                    durationMS: row[4],
                    popularity: row[5]
                )
            }
            return result
        }
    }

    /// What recommendations need to know of each track besides its features, for `trackIDs` in
    /// ascending order (the order ``featureTable(scope:)`` reads): one entry per ID, in that order.
    ///
    /// Two ordered scans merged with the IDs, into arrays rather than dictionaries: on a million
    /// tracks, ``allTrackSummaries()`` and the dictionaries built from it took most of a 21 s
    /// `recommend`.
    ///
    /// - Precondition: `trackIDs` is sorted ascending.
    public func trackFacts(for trackIDs: [Int64]) throws -> [TrackFacts] {
        try database.read { db in
            var artistNames: [Int64: String] = [:]
            try PreparedStatement(db, sql: "SELECT id, name FROM artists").forEachRow { row in
                artistNames[row.int64(0)] = row.string(1) ?? ""
            }
            var facts = [TrackFacts](repeating: TrackFacts(), count: trackIDs.count)
            var index = 0
            try PreparedStatement(db, sql: "SELECT id, name, duration_ms, popularity FROM tracks ORDER BY id")
                .forEachRow { row in
                    let id = row.int64(0)
                    while index < trackIDs.count, trackIDs[index] < id { index += 1 }
                    guard index < trackIDs.count, trackIDs[index] == id else { return }
                    facts[index].name = row.string(1) ?? ""
                    facts[index].durationMS = row.isNull(2) ? nil : Int(row.int64(2))
                    facts[index].popularity = row.isNull(3) ? nil : Int(row.int64(3))
                }
            index = 0
            try PreparedStatement(db, sql: "SELECT track_id, artist_id FROM track_artists ORDER BY track_id, position")
                .forEachRow { row in
                    let id = row.int64(0)
                    while index < trackIDs.count, trackIDs[index] < id { index += 1 }
                    guard index < trackIDs.count, trackIDs[index] == id,
                        let name = artistNames[row.int64(1)]
                    else { return }
                    facts[index].artists.append(name)
                }
            return facts
        }
    }

    /// The store ID of the track with `spotifyID`, or `nil`.
    public func trackID(spotifyID: SpotifyID) throws -> Int64? {
        try database.read { db in
            try Int64.fetchOne(db, sql: "SELECT id FROM tracks WHERE spotify_id = ?", arguments: [spotifyID.rawValue])
        }
    }

    /// Finds tracks whose "artist title" or title resembles `query`, best first.
    ///
    /// Matching is fuzzy: names are folded (case, accents, punctuation; see
    /// ``Track/normalizedName(_:)``) and compared by their character trigrams (Dice coefficient),
    /// so "daft punk one more time" and "One More Time" both find the track, and small typos cost
    /// little. Ties go to the more popular track, then the smaller ID.
    ///
    /// - Parameters:
    ///   - query: A title, or an artist and a title ("Daft Punk - One More Time").
    ///   - limit: The most matches to return.
    /// - Returns: Up to `limit` matches with a score of at least 0.3.
    public func searchTracks(matching query: String, limit: Int = 5) throws -> [TrackMatch] {
        let folded = Track.normalizedName(query)
        guard !folded.isEmpty else { return [] }
        let queryGrams = LibraryStore.trigrams(folded)
        // `match_key` already holds the folded "artist␟title", so nothing is folded per track here.
        var scored: [(id: Int64, score: Double, popularity: Int)] = try database.read { db in
            var result: [(Int64, Double, Int)] = []
            let rows = try Row.fetchCursor(db, sql: "SELECT id, match_key, popularity FROM tracks")
            while let row = try rows.next() {
                let key: String = row[1]
                let parts = key.split(separator: "\u{1F}", maxSplits: 1, omittingEmptySubsequences: false)
                let title = parts.count == 2 ? String(parts[1]) : key
                let artistTitle = parts.count == 2 && !parts[0].isEmpty ? parts[0] + " " + title : title
                var score = Swift.max(
                    LibraryStore.dice(queryGrams, LibraryStore.trigrams(title)),
                    LibraryStore.dice(queryGrams, LibraryStore.trigrams(artistTitle))
                )
                if title == folded || artistTitle == folded { score = 1 }
                if score >= 0.3 { result.append((row[0], score, (row[2] as Int?) ?? -1)) }
            }
            return result
        }
        scored.sort { ($0.score, $0.popularity, -$0.id) > ($1.score, $1.popularity, -$1.id) }
        scored = Array(scored.prefix(limit))
        let summaries = try trackSummaries(for: scored.map(\.id))
        return scored.compactMap { match in summaries[match.id].map { TrackMatch(track: $0, score: match.score) } }
    }

    /// Finds the artist whose name best resembles `query` and returns their tracks.
    ///
    /// - Returns: The best match with a score of at least 0.5, or `nil`.
    public func searchArtist(matching query: String) throws -> ArtistMatch? {
        let folded = Track.normalizedName(query)
        guard !folded.isEmpty else { return nil }
        let queryGrams = LibraryStore.trigrams(folded)
        return try database.read { db in
            var best: (id: Int64, name: String, score: Double)?
            let rows = try Row.fetchCursor(db, sql: "SELECT id, name, name_key FROM artists ORDER BY id")
            while let row = try rows.next() {
                let name: String = row[1]
                let key = Track.normalizedName(name)
                let score = key == folded ? 1 : LibraryStore.dice(queryGrams, LibraryStore.trigrams(key))
                if score > (best?.score ?? 0) { best = (row[0], name, score) }
            }
            guard let best, best.score >= 0.5 else { return nil }
            let ids = try Int64.fetchAll(
                db,
                sql: "SELECT DISTINCT track_id FROM track_artists WHERE artist_id = ? ORDER BY track_id",
                arguments: [best.id]
            )
            return ArtistMatch(name: best.name, score: best.score, trackIDs: ids)
        }
    }

    /// The character trigrams of a folded name, padded so that short words count, each packed
    /// into one integer (three 21-bit scalars).
    static func trigrams(_ text: String) -> Set<UInt64> {
        let scalars = [32, 32] + text.unicodeScalars.map { UInt64($0.value) } + [32]
        guard scalars.count >= 3 else { return [] }
        var result = Set<UInt64>(minimumCapacity: scalars.count)
        for index in 0...(scalars.count - 3) {
            result.insert(scalars[index] << 42 | scalars[index + 1] << 21 | scalars[index + 2])
        }
        return result
    }

    /// The Dice coefficient of two sets, 2|A∩B| / (|A| + |B|).
    static func dice(_ a: Set<UInt64>, _ b: Set<UInt64>) -> Double {
        guard !a.isEmpty || !b.isEmpty else { return 0 }
        let (small, large) = a.count <= b.count ? (a, b) : (b, a)
        let shared = small.reduce(0) { $0 + (large.contains($1) ? 1 : 0) }
        return 2 * Double(shared) / Double(a.count + b.count)
    }
}

/// A track's name, artists, duration and popularity: what recommendations filter and group by.
public struct TrackFacts: Hashable, Sendable {
    public var name = ""
    /// The credited artists, main artist first.
    public var artists: [String] = []
    public var durationMS: Int?
    public var popularity: Int?

    public init() {}
}
