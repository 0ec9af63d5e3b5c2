import Features
import Foundation
import GRDB

/// A playlist from the store, ready to write to Spotify: its tracks as URIs, in order.
public struct PushablePlaylist: Sendable, Hashable {
    /// The row in `playlists`.
    public var rowID: Int64
    public var name: String
    public var description: String?
    /// The Spotify playlist a previous push created, if any.
    public var spotifyID: SpotifyID?
    /// `spotify:track:…` URIs in playlist order.
    public var uris: [String]
    /// Names of the tracks that have no Spotify ID (local files, rows from ID-less imports).
    public var tracksWithoutID: [String]
}

extension LibraryStore {
    /// Finds a playlist to push by row ID, origin key, or name (case-insensitive; the most recently
    /// updated wins).
    ///
    /// - Throws: ``StoreError/notFound(what:)`` when nothing matches.
    public func pushablePlaylist(matching key: String) throws -> PushablePlaylist {
        try read { db in
            let row =
                try Row.fetchOne(
                    db,
                    sql: "SELECT id, name, description, spotify_id FROM playlists WHERE id = ? OR origin_key = ?",
                    arguments: [Int64(key), key]
                )
                ?? Row.fetchOne(
                    db,
                    sql:
                        "SELECT id, name, description, spotify_id FROM playlists WHERE name = ? COLLATE NOCASE ORDER BY updated_at DESC LIMIT 1",
                    arguments: [key]
                )
            guard let row else { throw StoreError.notFound(what: "A playlist named or numbered \"\(key)\"") }
            return try Self.pushablePlaylist(row, in: db)
        }
    }

    /// The playlist to push whose row ID is `rowID`, and no other.
    ///
    /// - Throws: ``StoreError/notFound(what:)`` when there is no such row.
    public func pushablePlaylist(rowID: Int64) throws -> PushablePlaylist {
        try read { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: "SELECT id, name, description, spotify_id FROM playlists WHERE id = ?",
                    arguments: [rowID]
                )
            else { throw StoreError.notFound(what: "Playlist \(rowID)") }
            return try Self.pushablePlaylist(row, in: db)
        }
    }

    /// The playlist of `row` (its `id`, `name`, `description` and `spotify_id`) with its tracks.
    private static func pushablePlaylist(_ row: Row, in db: Database) throws -> PushablePlaylist {
        let rowID: Int64 = row["id"]
        let items = try Row.fetchAll(
            db,
            sql: """
                SELECT t.spotify_id, t.name FROM playlist_items i JOIN tracks t ON t.id = i.track_id
                WHERE i.playlist_id = ? ORDER BY i.position
                """,
            arguments: [rowID]
        )
        var uris: [String] = []
        var missing: [String] = []
        for item in items {
            if let id = (item["spotify_id"] as String?).flatMap({ SpotifyID($0) }) {
                uris.append(id.trackURI)
            } else {
                missing.append(item["name"])
            }
        }
        return PushablePlaylist(
            rowID: rowID,
            name: row["name"],
            description: row["description"],
            spotifyID: (row["spotify_id"] as String?).flatMap { SpotifyID($0) },
            uris: uris,
            tracksWithoutID: missing
        )
    }

    /// Remembers which Spotify playlist a push wrote, so the next push replaces it.
    public func recordPush(of rowID: Int64, spotifyID: SpotifyID, snapshotID: String?) throws {
        try write { db in
            try db.execute(
                sql: "UPDATE playlists SET spotify_id = ?, snapshot_id = ?, updated_at = ? WHERE id = ?",
                arguments: [spotifyID.rawValue, snapshotID, Date().formatted(.iso8601), rowID]
            )
        }
    }
}
