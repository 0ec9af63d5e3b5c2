import Features
import Foundation
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
        try read { db in
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

    /// What recommendations need to know of each track besides its features, for `trackIDs`: one
    /// entry per ID, in that order (an ID the store does not hold gets an empty entry).
    ///
    /// Read by ID from `tracks` and `track_artists`: callers ask for a playlist's tracks, not the
    /// library's (the library's columns come from the `facts` snapshot,
    /// ``trackAttributeColumns(for:)``), and the snapshot no longer keeps the names, which were
    /// 21 MB of a million tracks' store.
    public func trackFacts(for trackIDs: [Int64]) throws -> [TrackFacts] {
        try read { db in
            let track = try db.cachedStatement(sql: "SELECT name, duration_ms, popularity FROM tracks WHERE id = ?")
            let artists = try db.cachedStatement(
                sql: """
                    SELECT a.name FROM track_artists ta JOIN artists a ON a.id = ta.artist_id
                    WHERE ta.track_id = ? ORDER BY ta.position
                    """
            )
            return try trackIDs.map { id in
                var fact = TrackFacts()
                guard let row = try Row.fetchOne(track, arguments: [id]) else { return fact }
                fact.name = row[0] ?? ""
                fact.durationMS = row[1]
                fact.popularity = row[2]
                fact.artists = try String.fetchAll(artists, arguments: [id])
                if !fact.name.isEmpty {
                    fact.songKey = Track.songKey(artist: fact.artists.first ?? "", title: fact.name)
                }
                return fact
            }
        }
    }

    /// The main artist, song, duration and popularity of each of `trackIDs`, as columns in that
    /// order, for the recommender (an ID the store does not hold gets unknowns).
    ///
    /// Only the `facts` snapshot's fixed-width parts are read (14 bytes a track), no names: on a
    /// million tracks, decoding every name, artist and song key as text and freeing them took
    /// about 0.6 s of a 2.6 s `recommend`.
    public func trackAttributeColumns(for trackIDs: [Int64]) throws -> TrackAttributeColumns {
        let all = try factsSnapshot()
        // Every track of the library asked for (the usual case): the columns as they were read.
        if trackIDs == all.trackIDs {
            return TrackAttributeColumns(
                artistCodes: all.artistCodes,
                songCodes: all.songCodes,
                durationMS: all.durations,
                popularity: all.popularity
            )
        }
        let index = TrackIndex(all.trackIDs)
        var artists = [Int32](repeating: -1, count: trackIDs.count)
        var songs = artists
        var durations = artists
        var popularity = [Int8](repeating: -1, count: trackIDs.count)
        var from = 0
        for (target, id) in trackIDs.enumerated() {
            guard let row = index.index(of: id, from: &from) else { continue }
            artists[target] = all.artistCodes[row]
            songs[target] = all.songCodes[row]
            durations[target] = all.durations[row]
            popularity[target] = all.popularity[row]
        }
        return TrackAttributeColumns(
            artistCodes: artists,
            songCodes: songs,
            durationMS: durations,
            popularity: popularity
        )
    }

    /// The `facts` snapshot's columns, read (not the artists, which only reports read) or built.
    func factsSnapshot() throws -> TrackFactsSnapshot {
        try withSnapshot(.facts, only: TrackFactsSnapshot.columnParts, decode: TrackFactsSnapshot.init(parts:)) { db in
            let parts = try TrackFactsParts.build(db)
            guard let snapshot = TrackFactsSnapshot(parts: SnapshotParts(parts)) else {
                throw StoreError.damaged(path: path, what: "the track facts just built do not read back")
            }
            return (snapshot, parts)
        }
    }

    /// The store ID of the track with `spotifyID`, or `nil`.
    public func trackID(spotifyID: SpotifyID) throws -> Int64? {
        try read { db in
            try Int64.fetchOne(db, sql: "SELECT id FROM tracks WHERE spotify_id = ?", arguments: [spotifyID.rawValue])
        }
    }

    /// The store IDs of the tracks with `isrc` (upper case), in ID order.
    public func trackIDs(isrc: String) throws -> [Int64] {
        try read { db in
            try Int64.fetchAll(db, sql: "SELECT id FROM tracks WHERE isrc = ? ORDER BY id", arguments: [isrc])
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
        var scored: [(id: Int64, score: Double, popularity: Int)] = try read { db in
            var result: [(Int64, Double, Int)] = []
            let rows = try Row.fetchCursor(db, sql: "SELECT id, match_key, popularity, name FROM tracks")
            while let row = try rows.next() {
                let key: String = row[1]
                let parts = key.split(separator: "\u{1F}", maxSplits: 1, omittingEmptySubsequences: false)
                let artist = parts.count == 2 ? String(parts[0]) : ""
                let title = parts.count == 2 ? String(parts[1]) : key
                func score(_ title: String) -> Double {
                    let artistTitle = artist.isEmpty ? title : artist + " " + title
                    if title == folded || artistTitle == folded { return 1 }
                    return Swift.max(
                        LibraryStore.dice(queryGrams, LibraryStore.trigrams(title)),
                        LibraryStore.dice(queryGrams, LibraryStore.trigrams(artistTitle))
                    )
                }
                var best = score(title)
                // A version's title ("I Don't Care (with Justin Bieber) - Loud Luxury Remix") is
                // also scored by its song's title ("I Don't Care"), as `songKey` cuts it.
                let name: String = row[3]
                if best < 1, name.contains(where: { "([{-".contains($0) }) {
                    let songKey = Track.songKey(artist: "", title: name)
                    let core = String(songKey.drop { $0 != "\u{1F}" }.dropFirst())
                    if core != title { best = Swift.max(best, score(core)) }
                }
                if best >= 0.3 { result.append((row[0], best, (row[2] as Int?) ?? -1)) }
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
        return try read { db in
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
    /// The key shared by versions of one song (``Track/songKey(artist:title:)`` of the main artist
    /// and the name), or `nil` for a track without a name.
    public var songKey: String?
    /// The credited artists, main artist first.
    public var artists: [String] = []
    public var durationMS: Int?
    public var popularity: Int?

    public init() {}
}

/// The reference into the distinct artist names of each artist met so far, by artist ID: an
/// array indexed by ID when the IDs are dense (rowids, as SQLite gives them), else a dictionary.
private struct ArtistReferenceTable {
    private var byIndex: [Int32] = []
    private var byID: [Int64: Int32] = [:]

    /// - Parameters:
    ///   - largestID: The largest artist ID there is.
    ///   - count: How many artists there are: the array is used only when the IDs fill a good
    ///     part of it, so sparse IDs never cost more memory than a few per artist.
    init(largestID: Int64, count: Int) {
        if largestID >= 0 && largestID < 1 << 24 && largestID <= 4 * Int64(count) + 4096 {
            byIndex = [Int32](repeating: -1, count: Int(largestID) + 1)
        }
    }

    func reference(of id: Int64) -> Int32? {
        if id >= 0 && id < byIndex.count {
            let reference = byIndex[Int(id)]
            return reference < 0 ? nil : reference
        }
        return byID[id]
    }

    mutating func set(_ reference: Int32, of id: Int64) {
        if id >= 0 && id < byIndex.count { byIndex[Int(id)] = reference } else { byID[id] = reference }
    }
}

/// Builds the `facts` snapshot.
enum TrackFactsParts {
    /// The `facts` snapshot's parts, built in ordered scans of `tracks` and `track_artists`
    /// without a value per track: IDs packed, the artists as a table of
    /// distinct names with each track's references into it, and the columns of
    /// ``TrackAttributeColumns``: each track's main artist (folded) and song key as codes, its
    /// duration (`Int32`) and popularity (`Int8`), −1 for none. The song keys themselves are not
    /// kept (they were 22 MB of a million tracks' snapshot); ``TrackFactsSnapshot`` derives one
    /// from the name and the main artist when asked.
    ///
    /// Built from a million `TrackFacts` values, the snapshot took about 300 MB at the end of an
    /// import, most of its peak; these arrays take about 60 MB.
    static func build(_ db: Database) throws -> [String: SnapshotBlob] {
        var nameOfArtist: [Int64: String] = [:]
        try PreparedStatement(db, sql: "SELECT id, name FROM artists").forEachRow { row in
            nameOfArtist[row.int64(0)] = row.string(1) ?? ""
        }
        var trackIDs: [Int64] = []
        var durations: [Int32] = []
        var popularity: [Int8] = []
        try PreparedStatement(db, sql: "SELECT id, duration_ms, popularity FROM tracks ORDER BY id")
            .forEachRow { row in
                trackIDs.append(row.int64(0))
                durations.append(row.isNull(1) ? -1 : Int32(clamping: row.int64(1)))
                popularity.append(row.isNull(2) ? -1 : Int8(clamping: row.int64(2)))
            }
        // The artists, as references into the distinct names, in credit order.
        var referenceOfName: [String: Int32] = [:]
        var referenceOfArtist = ArtistReferenceTable(
            largestID: nameOfArtist.keys.max() ?? 0,
            count: nameOfArtist.count
        )
        var artistNames: [String] = []
        var artistKeyCodes: [Int32] = []
        var artistKeys = TrackAttributeColumns.Interner()
        var references: [Int32] = []
        var referenceEnds: [Int32] = []
        var artistCodes: [Int32] = []
        referenceEnds.reserveCapacity(trackIDs.count)
        artistCodes.reserveCapacity(trackIDs.count)
        func closeTrack() {
            let start = Int(referenceEnds.last ?? 0)
            artistCodes.append(references.count > start ? artistKeyCodes[Int(references[start])] : -1)
            referenceEnds.append(Int32(references.count))
        }
        try PreparedStatement(db, sql: "SELECT track_id, artist_id FROM track_artists ORDER BY track_id, position")
            .forEachRow { row in
                let id = row.int64(0)
                while referenceEnds.count < trackIDs.count, trackIDs[referenceEnds.count] < id { closeTrack() }
                guard referenceEnds.count < trackIDs.count, trackIDs[referenceEnds.count] == id else { return }
                let artistID = row.int64(1)
                // An artist met before: its reference by its ID, without hashing its name again.
                if let reference = referenceOfArtist.reference(of: artistID) {
                    references.append(reference)
                    return
                }
                guard let name = nameOfArtist[artistID] else { return }
                let reference =
                    referenceOfName[name]
                    ?? {
                        artistNames.append(name)
                        referenceOfName[name] = Int32(artistNames.count - 1)
                        // Folded once per distinct name, not once per track.
                        artistKeyCodes.append(artistKeys.code(Track.normalizedName(name)))
                        return Int32(artistNames.count - 1)
                    }()
                referenceOfArtist.set(reference, of: artistID)
                references.append(reference)
            }
        while referenceEnds.count < trackIDs.count { closeTrack() }
        // Songs, numbered in order of first appearance by a 128-bit hash of their key rather than
        // by the key itself (a million keys as strings took about 100 MB), in a third scan that
        // reads each name once instead of keeping them all (21 MB a million tracks).
        var songOfHash: [SIMD2<UInt64>: Int32] = [:]
        var songCodes: [Int32] = []
        songCodes.reserveCapacity(trackIDs.count)
        try PreparedStatement(db, sql: "SELECT name FROM tracks ORDER BY id").forEachRow { row in
            let index = songCodes.count
            let name = row.text(0)
            guard index < trackIDs.count, !name.isEmpty else {
                songCodes.append(-1)
                return
            }
            let first = Int(index == 0 ? 0 : referenceEnds[index - 1])
            let artist = first < Int(referenceEnds[index]) ? artistNames[Int(references[first])] : ""
            let hash = Self.songHash(Track.songKey(artist: artist, title: name))
            let code = songOfHash[hash] ?? Int32(songOfHash.count)
            songOfHash[hash] = code
            songCodes.append(code)
        }
        // The scans share one read transaction, so they see the same tracks.
        assert(songCodes.count == trackIDs.count)
        let packedArtists = PackedStrings.parts(artistNames)
        return [
            "track_ids": .ascending(trackIDs),
            "duration_ms": .narrow(durations),
            "popularity": SnapshotBlob(popularity),
            "artists": packedArtists.bytes, "artist_ends": packedArtists.ends,
            "artist_references": .narrow(references),
            "artist_counts": .narrow(zip([0] + referenceEnds.dropLast(), referenceEnds).map { $1 - $0 }),
            "artist_codes": .narrow(artistCodes), "song_codes": .narrow(songCodes),
        ]
    }

    /// Two 64-bit FNV-1a hashes of the key's bytes, from different offsets.
    static func songHash(_ key: String) -> SIMD2<UInt64> {
        var a: UInt64 = 0xcbf2_9ce4_8422_2325
        var b: UInt64 = 0x84222325_cbf29ce4
        for byte in key.utf8 {
            a = (a ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            b = (b ^ UInt64(byte)) &* 0x0000_0001_0000_01b3 &+ 0x9E37_79B9
        }
        return SIMD2(a, b)
    }
}

/// The `facts` snapshot read back: every track's fixed-width columns.
struct TrackFactsSnapshot {
    /// The parts of the fixed-width columns (``LibraryStore/trackAttributeColumns(for:)``).
    static let columnParts: Set<String> = ["track_ids", "artist_codes", "song_codes", "duration_ms", "popularity"]

    var trackIDs: [Int64]
    var artistCodes: [Int32]
    var songCodes: [Int32]
    var durations: [Int32]
    var popularity: [Int8]

    /// Decodes the snapshot's parts, or returns `nil` when they do not fit together.
    init?(parts: SnapshotParts) {
        guard let trackIDs = parts.ascending("track_ids") else { return nil }
        self.trackIDs = trackIDs
        artistCodes = parts.integers("artist_codes")
        songCodes = parts.integers("song_codes")
        durations = parts.integers("duration_ms")
        popularity = parts.array("popularity")
        let count = trackIDs.count
        guard [artistCodes.count, songCodes.count, durations.count, popularity.count].allSatisfy({ $0 == count })
        else { return nil }
    }
}
