import Features
import Foundation
import GRDB

extension LibraryStore {
    /// Reads every play of the listening history, oldest first.
    ///
    /// - Returns: The plays, and how many rows were left out because `played_at` is not an
    ///   ISO 8601 UTC time (`YYYY-MM-DDTHH:MM[:SS[.fff]]Z`) or `ms_played` is outside
    ///   ``Track/validDurationMS``.
    /// - Throws: ``StoreError`` when the read fails.
    /// - Complexity: One scan of `plays`.
    public func playHistory() throws -> (plays: [PlayRecord], unreadable: Int) {
        try read { db in
            var plays: [PlayRecord] = []
            var unreadable = 0
            let rows = try Row.fetchCursor(
                db,
                sql: "SELECT played_at, ms_played, track_id, skipped, reason_end FROM plays ORDER BY played_at, id"
            )
            while let row = try rows.next() {
                // A duration outside 0…100 hours (stored by versions that checked no range) is no
                // measurement, and summing it could overflow: the play is left out as unreadable.
                guard let endedAt = LibraryStore.utcDate(fromISO: row[0]),
                    let msPlayed = Int.fromDatabaseValue(row[1] as DatabaseValue),
                    Track.validDurationMS.contains(msPlayed)
                else {
                    unreadable += 1
                    continue
                }
                plays.append(
                    PlayRecord(
                        endedAt: endedAt,
                        msPlayed: msPlayed,
                        trackID: row[2],
                        skipped: row[3],
                        reasonEnd: row[4]
                    )
                )
            }
            return (plays, unreadable)
        }
    }

    /// Reads the name, credited artists, genres, Spotify ID and length of every track, keyed by
    /// track ID.
    ///
    /// - Complexity: One scan of `tracks` and `track_artists`.
    public func trackCredits() throws -> [Int64: TrackCredit] {
        try read { db in
            var result: [Int64: TrackCredit] = [:]
            let rows = try Row.fetchCursor(db, sql: "SELECT id, name, spotify_id, duration_ms FROM tracks")
            while let row = try rows.next() {
                let id: Int64 = row[0]
                result[id] = TrackCredit(
                    id: id,
                    name: row[1],
                    artists: [],
                    spotifyID: (row[2] as String?).flatMap { SpotifyID($0) },
                    durationMS: row[3]
                )
            }
            let credits = try Row.fetchCursor(
                db,
                sql: """
                    SELECT ta.track_id, a.name FROM track_artists ta JOIN artists a ON a.id = ta.artist_id
                    ORDER BY ta.track_id, ta.position
                    """
            )
            while let row = try credits.next() {
                result[row[0]]?.artists.append(row[1])
            }
            var datasetGenres: [Int64: [String]] = [:]
            let genres = try Row.fetchCursor(
                db,
                sql: """
                    SELECT tt.track_id, t.kind, t.value FROM track_tags tt JOIN tags t ON t.id = tt.tag_id
                    WHERE t.kind IN ('artist-genre', 'genre') ORDER BY tt.track_id, t.id
                    """
            )
            while let row = try genres.next() {
                let id: Int64 = row[0]
                let kind: String = row[1]
                if kind == "artist-genre" {
                    result[id]?.genres.append(row[2])
                } else {
                    datasetGenres[id, default: []].append(row[2])
                }
            }
            for (id, genres) in datasetGenres where result[id]?.genres.isEmpty == true { result[id]?.genres = genres }
            return result
        }
    }

    /// The name, credited artists, genres, Spotify ID and length of each of `ids` that the store
    /// holds, keyed by track ID: the few tracks a report names, without reading the others.
    ///
    /// - Complexity: Three indexed lookups per 500 IDs.
    public func trackCredits(for ids: [Int64]) throws -> [Int64: TrackCredit] {
        try read { db in
            var result: [Int64: TrackCredit] = [:]
            for chunk in ids.chunked(into: 500) {
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                let arguments = StatementArguments(Array(chunk))
                let statement = try PreparedStatement(
                    db,
                    sql: "SELECT id, name, spotify_id, duration_ms FROM tracks WHERE id IN (\(marks))"
                )
                try statement.bind(arguments)
                try statement.forEachRow { row in
                    let id = row.int64(0)
                    result[id] = TrackCredit(
                        id: id,
                        name: row.string(1) ?? "",
                        artists: [],
                        spotifyID: row.string(2).flatMap { SpotifyID($0) },
                        durationMS: row.isNull(3) ? nil : Int(row.int64(3))
                    )
                }
                let credits = try PreparedStatement(
                    db,
                    sql: """
                        SELECT ta.track_id, a.name FROM track_artists ta JOIN artists a ON a.id = ta.artist_id
                        WHERE ta.track_id IN (\(marks)) ORDER BY ta.track_id, ta.position
                        """
                )
                try credits.bind(arguments)
                try credits.forEachRow { row in result[row.int64(0)]?.artists.append(row.string(1) ?? "") }
                var datasetGenres: [Int64: [String]] = [:]
                let genres = try PreparedStatement(
                    db,
                    sql: """
                        SELECT tt.track_id, t.kind, t.value FROM track_tags tt JOIN tags t ON t.id = tt.tag_id
                        WHERE tt.track_id IN (\(marks)) AND t.kind IN ('artist-genre', 'genre')
                        ORDER BY tt.track_id, t.id
                        """
                )
                try genres.bind(arguments)
                try genres.forEachRow { row in
                    let id = row.int64(0)
                    if row.string(1) == "artist-genre" {
                        result[id]?.genres.append(row.string(2) ?? "")
                    } else {
                        datasetGenres[id, default: []].append(row.string(2) ?? "")
                    }
                }
                for (id, genres) in datasetGenres where result[id]?.genres.isEmpty == true {
                    result[id]?.genres = genres
                }
            }
            return result
        }
    }

    /// Who each of `trackIDs` is by and its genres, as codes, in that order (see
    /// ``TrackCreditTable``): the main artist, and the `artist-genre` tags, else the `genre` tags.
    ///
    /// The artists come from the `facts` snapshot's table of distinct names, and the genres from
    /// one scan of `track_tags`; on a million tracks that takes a fraction of a second, where
    /// reading every track's names as text (``trackCredits()``) took about 5 s.
    public func trackCreditTable(for trackIDs: [Int64]) throws -> TrackCreditTable {
        let facts = try withSnapshot(.facts, only: ArtistReferences.partNames, decode: ArtistReferences.init(parts:)) {
            db in
            let parts = try TrackFactsParts.build(db)
            guard let references = ArtistReferences(parts: SnapshotParts(parts)) else {
                throw StoreError.damaged(path: path, what: "the track facts just built do not read back")
            }
            return (references, parts)
        }
        let index = TrackIndex(trackIDs)
        var mainArtists = [Int32](repeating: -1, count: trackIDs.count)
        var from = 0
        for (row, id) in facts.trackIDs.enumerated() {
            guard let target = index.index(of: id, from: &from) else { continue }
            let start = row == 0 ? 0 : Int(facts.ends[row - 1])
            if start < Int(facts.ends[row]) { mainArtists[target] = facts.references[start] }
        }
        return try read { db in
            var genreNames: [String] = []
            var artistGenre: [Bool] = []
            var codeOfTag: [Int64: Int32] = [:]
            try PreparedStatement(
                db,
                sql: "SELECT id, kind, value FROM tags WHERE kind IN ('artist-genre', 'genre') ORDER BY id"
            ).forEachRow { row in
                codeOfTag[row.int64(0)] = Int32(genreNames.count)
                artistGenre.append(row.string(1) == "artist-genre")
                genreNames.append(row.string(2) ?? "")
            }
            // (row, code) pairs, then per row the artist genres if it has any, else the others.
            var pairs: [(row: Int32, code: Int32)] = []
            var hasArtistGenre = [Bool](repeating: false, count: trackIDs.count)
            // One scan in key order, (track, tag): the tracks come in ID order, so each search
            // starts where the last one ended, and each track's genres come in tag order.
            var from = 0
            var last: (id: Int64, target: Int?) = (-1, nil)
            try PreparedStatement(
                db,
                sql: """
                    SELECT track_id, tag_id FROM track_tags
                    WHERE tag_id IN (SELECT id FROM tags WHERE kind IN ('artist-genre', 'genre'))
                    """
            ).forEachRow { row in
                let id = row.int64(0)
                // A track's second genre: the same row as its first.
                if id != last.id { last = (id, index.index(of: id, from: &from)) }
                guard let code = codeOfTag[row.int64(1)], let target = last.target else { return }
                pairs.append((Int32(target), code))
                if artistGenre[Int(code)] { hasArtistGenre[target] = true }
            }
            pairs.removeAll { artistGenre[Int($0.code)] != hasArtistGenre[Int($0.row)] }
            var starts = [Int32](repeating: 0, count: trackIDs.count + 1)
            for pair in pairs { starts[Int(pair.row) + 1] += 1 }
            for row in 0..<trackIDs.count { starts[row + 1] += starts[row] }
            var next = starts
            var genres = [Int32](repeating: 0, count: pairs.count)
            // Each row's pairs come in tag order, and stay so.
            for pair in pairs {
                genres[Int(next[Int(pair.row)])] = pair.code
                next[Int(pair.row)] += 1
            }
            return TrackCreditTable(
                mainArtists: mainArtists,
                artistNames: facts.artistNames,
                genreStarts: starts,
                genres: genres,
                genreNames: genreNames
            )
        }
    }

    /// Parses `YYYY-MM-DDTHH:MM[:SS[.fff…]]Z` (or with a space for `T`) as a UTC date; fractions of a
    /// second are dropped. Returns `nil` for any other text.
    static func utcDate(fromISO text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 17, bytes.last == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                guard index < bytes.count, (0x30...0x39).contains(bytes[index]) else { return nil }
                value = value * 10 + Int(bytes[index] - 0x30)
            }
            return value
        }
        guard bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] == 0x54 || bytes[10] == 0x20, bytes[13] == 0x3A,
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60
        else { return nil }
        var second = 0
        if bytes[16] == 0x3A {
            guard let value = number(17..<19), value < 61 else { return nil }
            second = value
        } else if bytes.count != 17 {
            return nil
        }
        // Days from the civil date (Howard Hinnant's algorithm), valid for the proleptic Gregorian calendar.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }
}

/// The artists of the `facts` snapshot as they are stored: each track's references into a table
/// of distinct names, without making a string per track.
struct ArtistReferences {
    /// The snapshot's parts it reads.
    static let partNames: Set<String> = [
        "track_ids", "artist_references", "artist_counts", "artists", "artist_ends",
    ]

    var trackIDs: [Int64]
    var references: [Int32]
    /// Where each track's references end.
    var ends: [Int32]
    var artistNames: [String]

    init?(parts: SnapshotParts) {
        guard let trackIDs = parts.ascending("track_ids") else { return nil }
        let references: [Int32] = parts.integers("artist_references")
        let counts: [Int32] = parts.integers("artist_counts")
        // Each track's count of references, summed into where they end.
        var ends = [Int32](repeating: 0, count: counts.count)
        var end = 0
        for (index, count) in counts.enumerated() {
            end += Int(count)
            ends[index] = Int32(clamping: end)
        }
        guard let names = PackedStrings.strings(bytes: parts["artists"], ends: parts["artist_ends"]),
            counts.count == trackIDs.count, counts.allSatisfy({ $0 >= 0 }), end == references.count,
            references.allSatisfy({ $0 >= 0 && Int($0) < names.count })
        else { return nil }
        self.trackIDs = trackIDs
        self.references = references
        self.ends = ends
        artistNames = names
    }
}
