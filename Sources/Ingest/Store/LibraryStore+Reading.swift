import Features
import GRDB

/// A track as lists and reports show it.
public struct TrackSummary: Hashable, Sendable, Codable {
    public var id: Int64
    public var spotifyID: String?
    public var name: String
    public var artists: [String]
    public var album: String?
    public var durationMS: Int?
    public var popularity: Int?

    enum CodingKeys: String, CodingKey {
        case id
        case spotifyID = "spotify_id"
        case name, artists, album
        case durationMS = "duration_ms"
        case popularity
    }
}

extension LibraryStore {
    /// Reads the current audio features of every track that has any, reference tracks included,
    /// in track-ID order; ``featureTable(scope:)`` reads a part.
    public func featureTable() throws -> FeatureTable {
        try featureTable(scope: .all)
    }

    /// Reads the display summaries of the given tracks, keyed by track ID.
    public func trackSummaries(for ids: some Collection<Int64>) throws -> [Int64: TrackSummary] {
        guard !ids.isEmpty else { return [:] }
        return try read { db in
            var result: [Int64: TrackSummary] = [:]
            for chunk in Array(ids).chunked(into: 500) {
                let placeholders = databaseQuestionMarks(count: chunk.count)
                let rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT t.id, t.spotify_id, t.name, t.album, t.duration_ms, t.popularity,
                               (SELECT group_concat(name, char(31)) FROM
                                   (SELECT a.name FROM track_artists ta JOIN artists a ON a.id = ta.artist_id
                                    WHERE ta.track_id = t.id ORDER BY ta.position)) AS artists
                        FROM tracks t WHERE t.id IN (\(placeholders))
                        """,
                    arguments: StatementArguments(chunk)
                )
                for row in rows {
                    let artists =
                        (row["artists"] as String?).map { $0.split(separator: "\u{1F}").map(String.init) } ?? []
                    let summary = TrackSummary(
                        id: row["id"],
                        spotifyID: row["spotify_id"],
                        name: row["name"],
                        artists: artists,
                        album: row["album"],
                        durationMS: row["duration_ms"],
                        popularity: row["popularity"]
                    )
                    result[summary.id] = summary
                }
            }
            return result
        }
    }
}

extension LibraryStore {
    /// Reads what a CSV export writes beyond a track's summary, keyed by track ID: the release
    /// date, the explicit flag, the artists' genres and the record label (imported as tags), and
    /// when and by whom the track was added (when it was saved to the library, else when it first
    /// entered an imported playlist).
    public func exportDetails(for ids: some Collection<Int64>) throws -> [Int64: Playlist.Entry.ExportDetails] {
        guard !ids.isEmpty else { return [:] }
        return try read { db in
            var result: [Int64: Playlist.Entry.ExportDetails] = [:]
            for chunk in Array(ids).chunked(into: 500) {
                let rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT t.id, t.release_date, t.explicit,
                               (SELECT group_concat(value, char(31)) FROM
                                   (SELECT g.value FROM track_tags tt JOIN tags g ON g.id = tt.tag_id
                                    WHERE tt.track_id = t.id AND g.kind = 'artist-genre' ORDER BY g.value)) AS genres,
                               (SELECT g.value FROM track_tags tt JOIN tags g ON g.id = tt.tag_id
                                WHERE tt.track_id = t.id AND g.kind = 'label' ORDER BY g.value LIMIT 1) AS label,
                               COALESCE((SELECT s.added_at FROM saved_tracks s WHERE s.track_id = t.id),
                                        (SELECT MIN(pi.added_at) FROM playlist_items pi WHERE pi.track_id = t.id))
                                   AS added_at,
                               (SELECT pi.added_by FROM playlist_items pi
                                WHERE pi.track_id = t.id AND pi.added_by IS NOT NULL
                                ORDER BY pi.added_at, pi.playlist_id, pi.position LIMIT 1) AS added_by
                        FROM tracks t WHERE t.id IN (\(databaseQuestionMarks(count: chunk.count)))
                        """,
                    arguments: StatementArguments(chunk)
                )
                for row in rows {
                    let explicit: Int? = row["explicit"]
                    result[row["id"]] = Playlist.Entry.ExportDetails(
                        releaseDate: row["release_date"],
                        isExplicit: explicit.map { $0 != 0 },
                        addedBy: row["added_by"],
                        addedAt: row["added_at"],
                        genres: (row["genres"] as String?).map { $0.split(separator: "\u{1F}").map(String.init) } ?? [],
                        recordLabel: row["label"]
                    )
                }
            }
            return result
        }
    }
}
