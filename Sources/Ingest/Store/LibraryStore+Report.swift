import Features
import Foundation
import GRDB

/// One play of the listening history, as the mood report reads it.
public struct PlayRecord: Hashable, Sendable {
    /// When playback ended, parsed from the stored ISO 8601 UTC text.
    public var endedAt: Date
    /// How long the track played, in milliseconds.
    public var msPlayed: Int
    /// The matched track, or `nil` when the play matches no track of the store.
    public var trackID: Int64?
    /// Spotify's `skipped` flag (extended history only), `nil` when the source does not say.
    public var skipped: Bool?
    /// Why playback ended (`trackdone`, `fwdbtn`, …; extended history only).
    public var reasonEnd: String?
}

/// A track's name and artists, as the mood report names it.
public struct TrackCredit: Hashable, Sendable {
    public var id: Int64
    public var name: String
    /// The credited artists, main artist first.
    public var artists: [String]
    /// Its genres: the `artist-genre` tags (from Spotify or an Exportify export), else `genre`
    /// tags (a dataset's playlist genre), most specific first as stored.
    public var genres: [String] = []
    /// Its Spotify track ID, when it has a valid one.
    public var spotifyID: SpotifyID?
    /// Its length in milliseconds, when known.
    public var durationMS: Int?
}

extension LibraryStore {
    /// Reads every play of the listening history, oldest first.
    ///
    /// - Returns: The plays, and how many rows were left out because `played_at` is not an
    ///   ISO 8601 UTC time (`YYYY-MM-DDTHH:MM[:SS[.fff]]Z`) or `ms_played` is outside
    ///   ``Track/validDurationMS``.
    /// - Throws: ``StoreError`` when the read fails.
    /// - Complexity: One scan of `plays`.
    public func playHistory() throws -> (plays: [PlayRecord], unreadable: Int) {
        try reportRead { db in
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
        try reportRead { db in
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

    private func reportRead<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try database.read(body)
        } catch let error as DatabaseError {
            throw StoreError(error, path: path)
        }
    }
}
