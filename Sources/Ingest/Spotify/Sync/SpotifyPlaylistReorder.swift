import Features
import Foundation
import GRDB

/// A Spotify playlist as read for reordering: its tracks in order and the snapshot they belong to.
public struct ReorderablePlaylist: Sendable, Hashable {
    public var spotifyID: SpotifyID
    public var name: String
    /// The snapshot the items were read at; the write is refused when the playlist moved on.
    public var snapshotID: String
    /// `spotify:track:…` URIs, in the playlist's order (repeats kept).
    public var uris: [String]
    /// The store's track for each URI, when the library holds it (parallel to `uris`).
    public var trackIDs: [Int64?]
}

/// What a reorder (or its undo) wrote.
public struct PlaylistReorderResult: Sendable, Hashable, Codable {
    public var spotifyID: String
    public var itemCount: Int
    /// How many tracks changed position.
    public var moved: Int
    public var snapshotID: String

    enum CodingKeys: String, CodingKey {
        case spotifyID = "spotify_id"
        case itemCount = "item_count"
        case moved
        case snapshotID = "snapshot_id"
    }
}

/// Why a reorder was refused; nothing was written.
public enum PlaylistReorderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The playlist changed on Spotify since it was read (or since it was reordered, for an undo).
    case changedSince(name: String, expected: String, found: String)
    /// The playlist holds items the Web API cannot write back: local files or podcast episodes.
    case unwritableItems(name: String, count: Int)
    /// There is no reorder of this playlist left to undo.
    case nothingToUndo(name: String)
    /// The order handed in is not a permutation of the playlist's items.
    case notAPermutation
    /// After the write, Spotify counts another number of items than were written.
    case countMismatch(name: String, written: Int, found: Int)

    public var description: String {
        switch self {
        case .changedSince(let name, let expected, let found):
            "\(name) changed on Spotify since it was read (snapshot \(found), expected \(expected)); nothing was written."
        case .unwritableItems(let name, let count):
            "\(name) holds \(count) local \(count == 1 ? "file or episode" : "files or episodes"), which Spotify's API "
                + "cannot write back; nothing was written."
        case .nothingToUndo(let name): "\(name) has no reorder to undo."
        case .notAPermutation: "The new order does not hold each item of the playlist exactly once."
        case .countMismatch(let name, let written, let found):
            "\(name) holds \(found) items on Spotify after \(written) were written; its earlier order is kept in the library."
        }
    }
}

extension LibraryStore {
    /// Reads a Spotify playlist for reordering: its snapshot, its items, and the store's tracks.
    ///
    /// - Throws: ``PlaylistReorderError/unwritableItems(name:count:)`` for local files or
    ///   episodes; ``SpotifyError`` from the reads.
    public func readForReorder(_ playlistID: SpotifyID, using client: SpotifyClient) async throws -> ReorderablePlaylist
    {
        let details = try await client.playlist(playlistID)
        let items = try await client.allPlaylistItems(of: playlistID)
        let name = details.name ?? playlistID.rawValue
        var uris: [String] = []
        var unwritable = 0
        for item in items {
            let track = item?.item ?? item?.track
            guard item?.isLocal != true, track?.type ?? "track" == "track", let id = track?.id, SpotifyID(id) != nil
            else {
                unwritable += 1
                continue
            }
            uris.append("spotify:track:\(id)")
        }
        if unwritable > 0 { throw PlaylistReorderError.unwritableItems(name: name, count: unwritable) }
        let ids = uris.map { String($0.dropFirst("spotify:track:".count)) }
        let known: [String: Int64] = try await database.read { db in
            var result: [String: Int64] = [:]
            for chunk in Array(Set(ids)).chunked(into: 500) {
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
        return ReorderablePlaylist(
            spotifyID: playlistID,
            name: name,
            snapshotID: details.snapshotID ?? "",
            uris: uris,
            trackIDs: ids.map { known[$0] }
        )
    }

    /// Writes `playlist`'s items in the order `order` (indexes into `playlist.uris`), keeping the
    /// original order in the store for ``undoReorder(of:name:using:)``.
    ///
    /// The playlist's snapshot is read again first: a playlist changed since ``readForReorder(_:using:)``
    /// is refused. The original order is stored before anything is written, so even a write that
    /// fails part-way can be undone. The first 100 items replace the playlist, the rest are appended
    /// in order, and the count is read back.
    public func writeReorder(
        _ playlist: ReorderablePlaylist,
        order: [Int],
        using client: SpotifyClient
    ) async throws -> PlaylistReorderResult {
        guard order.count == playlist.uris.count, Set(order) == Set(playlist.uris.indices) else {
            throw PlaylistReorderError.notAPermutation
        }
        let current = try await client.playlist(playlist.spotifyID).snapshotID ?? ""
        guard current == playlist.snapshotID else {
            throw PlaylistReorderError.changedSince(name: playlist.name, expected: playlist.snapshotID, found: current)
        }
        let original = String(decoding: try JSONEncoder().encode(playlist.uris), as: UTF8.self)
        let now = LibraryStore.timestamp(Date())
        let recordID = try await database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO playlist_reorders (spotify_id, original_uris, snapshot_before, created_at)
                    VALUES (?, ?, ?, ?)
                    """,
                arguments: [playlist.spotifyID.rawValue, original, playlist.snapshotID, now]
            )
            return db.lastInsertedRowID
        }
        let uris = order.map { playlist.uris[$0] }
        let snapshot = try await client.replaceItems(of: playlist.spotifyID, with: uris)
        try await Self.checkCount(of: playlist.spotifyID, name: playlist.name, written: uris.count, using: client)
        try await database.write { db in
            try db.execute(
                sql: "UPDATE playlist_reorders SET snapshot_after = ? WHERE id = ?",
                arguments: [snapshot, recordID]
            )
        }
        return PlaylistReorderResult(
            spotifyID: playlist.spotifyID.rawValue,
            itemCount: uris.count,
            moved: zip(order, order.indices).count { $0 != $1 },
            snapshotID: snapshot
        )
    }

    /// Puts back the order a playlist had before its latest reorder.
    ///
    /// - Throws: ``PlaylistReorderError/nothingToUndo(name:)``, or
    ///   ``PlaylistReorderError/changedSince(name:expected:found:)`` when the playlist changed on
    ///   Spotify after the reorder (someone else's edit would be lost).
    public func undoReorder(
        of playlistID: SpotifyID,
        name: String,
        using client: SpotifyClient
    ) async throws
        -> PlaylistReorderResult
    {
        let record: (id: Int64, uris: [String], after: String?)? = try await database.read { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT id, original_uris, snapshot_after FROM playlist_reorders
                    WHERE spotify_id = ? AND undone_at IS NULL ORDER BY id DESC LIMIT 1
                    """,
                arguments: [playlistID.rawValue]
            ).map { row in
                let text: String = row[1]
                return (row[0], (try? JSONDecoder().decode([String].self, from: Data(text.utf8))) ?? [], row[2])
            }
        }
        guard let record else { throw PlaylistReorderError.nothingToUndo(name: name) }
        let current = try await client.playlist(playlistID).snapshotID ?? ""
        // A reorder that failed part-way has no snapshot after it: its undo writes the original back.
        if let after = record.after, after != current {
            throw PlaylistReorderError.changedSince(name: name, expected: after, found: current)
        }
        let snapshot = try await client.replaceItems(of: playlistID, with: record.uris)
        try await Self.checkCount(of: playlistID, name: name, written: record.uris.count, using: client)
        try await database.write { db in
            try db.execute(
                sql: "UPDATE playlist_reorders SET undone_at = ? WHERE id = ?",
                arguments: [LibraryStore.timestamp(Date()), record.id]
            )
        }
        return PlaylistReorderResult(
            spotifyID: playlistID.rawValue,
            itemCount: record.uris.count,
            moved: 0,
            snapshotID: snapshot
        )
    }

    /// Reads the playlist's item count back and compares it with what was written.
    private static func checkCount(
        of playlistID: SpotifyID,
        name: String,
        written: Int,
        using client: SpotifyClient
    ) async throws {
        let found = try await client.playlist(playlistID).itemCount ?? written
        guard found == written else {
            throw PlaylistReorderError.countMismatch(name: name, written: written, found: found)
        }
    }
}
