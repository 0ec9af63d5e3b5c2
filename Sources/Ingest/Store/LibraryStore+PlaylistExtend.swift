import Features
import Foundation
import GRDB

extension LibraryStore {
    /// The store's tracks of a playlist, in order (repeats kept).
    public func playlistTrackIDs(rowID: Int64) throws -> [Int64] {
        try read { db in
            try Int64.fetchAll(
                db,
                sql: "SELECT track_id FROM playlist_items WHERE playlist_id = ? ORDER BY position",
                arguments: [rowID]
            )
        }
    }

    /// Appends tracks to a stored playlist, after its last item, marked as added now by
    /// vibes-analyze (`playlist extend`).
    ///
    /// - Parameter snapshotID: The playlist's Spotify snapshot after the same tracks were appended
    ///   there, so the next sync knows the stored items are current; `nil` leaves it as it is.
    public func appendToPlaylist(rowID: Int64, trackIDs: [Int64], snapshotID: String? = nil) throws {
        let now = Date().formatted(.iso8601)
        try write { db in
            var position =
                (try Int.fetchOne(
                    db,
                    sql: "SELECT max(position) FROM playlist_items WHERE playlist_id = ?",
                    arguments: [rowID]
                ) ?? -1) + 1
            for trackID in trackIDs {
                try db.execute(
                    sql:
                        "INSERT INTO playlist_items (playlist_id, position, track_id, added_at, added_by) VALUES (?, ?, ?, ?, ?)",
                    arguments: [rowID, position, trackID, now, "vibes-analyze"]
                )
                position += 1
            }
            try db.execute(
                sql: "UPDATE playlists SET updated_at = ?, snapshot_id = coalesce(?, snapshot_id) WHERE id = ?",
                arguments: [now, snapshotID, rowID]
            )
        }
    }
}
