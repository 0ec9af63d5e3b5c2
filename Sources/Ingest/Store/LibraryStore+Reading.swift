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
        return try database.read { db in
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

extension Array {
    /// The array cut into consecutive pieces of at most `size` elements.
    func chunked(into size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
