import Features
import Foundation
import GRDB

/// A reorder of a Spotify playlist as the store keeps it, so it can be undone.
package struct StoredPlaylistReorder: Sendable, Hashable {
    /// The row in `playlist_reorders`.
    package var id: Int64
    /// The item keys in the order before the reorder.
    package var originalURIs: [String]
    /// The playlist's snapshot after the reorder, or `nil` when the write stopped part-way.
    package var snapshotAfter: String?
}

extension LibraryStore {
    /// The store's track IDs for these Spotify track IDs; IDs the library does not hold are left out.
    package func trackIDs(forSpotifyIDs spotifyIDs: Set<String>) async throws -> [String: Int64] {
        try await read { db in
            var result: [String: Int64] = [:]
            for chunk in Array(spotifyIDs).chunked(into: 500) {
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                let rows = try Row.fetchAll(
                    db,
                    sql: "SELECT spotify_id, id FROM tracks WHERE spotify_id IN (\(marks))",
                    arguments: StatementArguments(Array(chunk))
                )
                for row in rows { result[row[0]] = row[1] }
            }
            return result
        }
    }

    /// Keeps a playlist's order before a reorder is written.
    ///
    /// - Parameters:
    ///   - originalURIs: The item keys in their order before the reorder.
    /// - Returns: The record's ID, for ``recordReorderSnapshot(_:of:)``.
    package func recordReorder(
        of spotifyID: String,
        originalURIs: [String],
        snapshotBefore: String,
        at date: Date = Date()
    ) async throws -> Int64 {
        let original = String(decoding: try JSONEncoder().encode(originalURIs), as: UTF8.self)
        let now = LibraryStore.timestamp(date)
        return try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO playlist_reorders (spotify_id, original_uris, snapshot_before, created_at)
                    VALUES (?, ?, ?, ?)
                    """,
                arguments: [spotifyID, original, snapshotBefore, now]
            )
            return db.lastInsertedRowID
        }
    }

    /// Records the snapshot a finished reorder left the playlist at.
    package func recordReorderSnapshot(_ snapshotID: String, of recordID: Int64) async throws {
        try await write { db in
            try db.execute(
                sql: "UPDATE playlist_reorders SET snapshot_after = ? WHERE id = ?",
                arguments: [snapshotID, recordID]
            )
        }
    }

    /// The latest reorder of a playlist that was not undone, or `nil` when there is none.
    package func latestReorder(of spotifyID: String) async throws -> StoredPlaylistReorder? {
        try await read { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT id, original_uris, snapshot_after FROM playlist_reorders
                    WHERE spotify_id = ? AND undone_at IS NULL ORDER BY id DESC LIMIT 1
                    """,
                arguments: [spotifyID]
            ).map { row in
                let text: String = row[1]
                return StoredPlaylistReorder(
                    id: row[0],
                    originalURIs: (try? JSONDecoder().decode([String].self, from: Data(text.utf8))) ?? [],
                    snapshotAfter: row[2]
                )
            }
        }
    }

    /// Marks a reorder as undone.
    package func markReorderUndone(_ recordID: Int64, at date: Date = Date()) async throws {
        try await write { db in
            try db.execute(
                sql: "UPDATE playlist_reorders SET undone_at = ? WHERE id = ?",
                arguments: [LibraryStore.timestamp(date), recordID]
            )
        }
    }
}
