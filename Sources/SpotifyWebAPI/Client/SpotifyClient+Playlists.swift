import Features
import Foundation
import SpotifyWebModel
import VibesHTTP

extension SpotifyClient {
    /// The most items one playlist write may carry.
    public static let writeChunkSize = 100

    /// One page of the user's playlists, owned and followed (`GET /me/playlists`).
    public func currentUserPlaylists(
        offset: Int,
        limit: Int = pageLimit
    ) async throws -> SpotifyPagingObject<
        SpotifySimplifiedPlaylistObject
    > {
        try await decode(
            SpotifyPagingObject<SpotifySimplifiedPlaylistObject>.self,
            "me/playlists",
            query: [("limit", "\(limit)"), ("offset", "\(offset)")]
        )
    }

    /// One page of a playlist's items (`GET /playlists/{id}/items`, falling back to the older
    /// `/tracks` path when the API answers 404). Episodes are asked for by type so they can be
    /// told apart and skipped.
    ///
    /// - Parameters:
    ///   - playlistID: The playlist.
    ///   - offset: The index of the first item.
    ///   - limit: 1 to 100. Defaults to 100.
    public func playlistItems(
        of playlistID: SpotifyID,
        offset: Int,
        limit: Int = 100
    ) async throws
        -> SpotifyPagingObject<SpotifyTrackItemObject>
    {
        let query = [("limit", "\(limit)"), ("offset", "\(offset)"), ("additional_types", "track,episode")]
        return try await withPlaylistItemsPath(of: playlistID) { path in
            try await decode(SpotifyPagingObject<SpotifyTrackItemObject>.self, path, query: query)
        }
    }

    /// Every item of a playlist, in order, page by page.
    ///
    /// - Parameter progress: Called after each page with the number of items fetched so far.
    public func allPlaylistItems(
        of playlistID: SpotifyID,
        progress: (@Sendable (Int) -> Void)? = nil
    ) async throws -> [SpotifyTrackItemObject?] {
        var items: [SpotifyTrackItemObject?] = []
        while true {
            let page = try await playlistItems(of: playlistID, offset: items.count)
            items += page.items
            progress?(items.count)
            if page.items.isEmpty || items.count >= (page.total ?? 0) { return items }
        }
    }

    /// A playlist's details, without its items (`GET /playlists/{id}`).
    public func playlist(_ playlistID: SpotifyID) async throws -> SpotifySimplifiedPlaylistObject {
        try await decode(
            SpotifySimplifiedPlaylistObject.self,
            "playlists/\(playlistID)",
            query: [("fields", "id,name,snapshot_id,owner(id,display_name),items(total),tracks(total)")]
        )
    }

    /// Creates a playlist owned by the signed-in user (`POST /me/playlists`).
    ///
    /// - Parameters:
    ///   - name: The playlist's name.
    ///   - description: Its description, or `nil`.
    ///   - isPublic: Whether it appears on the user's profile. Defaults to `false`.
    public func createPlaylist(
        name: String,
        description: String? = nil,
        isPublic: Bool = false
    ) async throws
        -> SpotifySimplifiedPlaylistObject
    {
        struct Body: Encodable {
            var name: String
            var description: String?
            var `public`: Bool
        }
        return try await decode(
            SpotifySimplifiedPlaylistObject.self,
            "me/playlists",
            method: .post,
            json: Self.jsonBody(Body(name: name, description: description, public: isPublic))
        )
    }

    /// Appends `uris` to a playlist in chunks of 100, in order.
    ///
    /// A chunk that fails stops the rest, so the playlist holds a prefix of `uris`, never a
    /// reordered or duplicated list (posts are not retried after a lost response).
    ///
    /// - Returns: The playlist's snapshot after the last chunk, or `nil` for empty `uris` (no request).
    @discardableResult
    public func addItems(_ uris: [String], to playlistID: SpotifyID) async throws -> String? {
        var snapshot: String?
        for chunk in uris.chunked(into: Self.writeChunkSize) {
            snapshot = try await writeItems(Array(chunk), to: playlistID, method: .post).snapshotID
        }
        return snapshot
    }

    /// Replaces a playlist's items with `uris`: the first 100 replace, the rest are appended.
    ///
    /// - Returns: The playlist's snapshot after the last write.
    @discardableResult
    public func replaceItems(of playlistID: SpotifyID, with uris: [String]) async throws -> String {
        let first = Array(uris.prefix(Self.writeChunkSize))
        var snapshot = try await writeItems(first, to: playlistID, method: .put).snapshotID
        if uris.count > first.count, let last = try await addItems(Array(uris.dropFirst(first.count)), to: playlistID) {
            snapshot = last
        }
        return snapshot
    }

    /// Moves items within a playlist (`PUT /playlists/{id}/items` with `range_start`,
    /// `insert_before`, `range_length` and `snapshot_id`).
    ///
    /// The moved items keep their `added_at` and `added_by`; local files and episodes move like
    /// tracks. Spotify reads both positions in the snapshot named, so a move sent again with the same
    /// snapshot (after a lost answer) moves the same items before the same item again, and lands
    /// where the first did.
    ///
    /// - Parameters:
    ///   - rangeStart: The position of the first item to move.
    ///   - insertBefore: The position, in the same snapshot, to move them before; the item count
    ///     moves them to the end.
    ///   - rangeLength: How many items to move. Defaults to 1.
    ///   - snapshotID: The snapshot the positions refer to.
    /// - Returns: The playlist's snapshot after the move.
    @discardableResult
    public func reorderItems(
        of playlistID: SpotifyID,
        rangeStart: Int,
        insertBefore: Int,
        rangeLength: Int = 1,
        snapshotID: String?
    ) async throws -> String {
        struct Body: Encodable {
            var rangeStart: Int
            var insertBefore: Int
            var rangeLength: Int
            var snapshotID: String?
            enum CodingKeys: String, CodingKey {
                case rangeStart = "range_start"
                case insertBefore = "insert_before"
                case rangeLength = "range_length"
                case snapshotID = "snapshot_id"
            }
        }
        let body = Self.jsonBody(
            Body(rangeStart: rangeStart, insertBefore: insertBefore, rangeLength: rangeLength, snapshotID: snapshotID)
        )
        return try await withPlaylistItemsPath(of: playlistID) { path in
            try await decode(SpotifySnapshotObject.self, path, method: .put, json: body)
        }.snapshotID
    }

    /// Removes every occurrence of `uris` from a playlist (`DELETE /playlists/{id}/items`), in
    /// chunks of 100.
    ///
    /// - Returns: The playlist's snapshot after the last chunk, or `snapshotID` for empty `uris`.
    @discardableResult
    public func removeItems(_ uris: [String], from playlistID: SpotifyID, snapshotID: String?) async throws -> String? {
        struct Body: Encodable {
            struct Item: Encodable { var uri: String }
            var tracks: [Item]
            var snapshotID: String?
            enum CodingKeys: String, CodingKey {
                case tracks
                case snapshotID = "snapshot_id"
            }
        }
        var snapshot = snapshotID
        for chunk in uris.chunked(into: Self.writeChunkSize) {
            let body = Self.jsonBody(Body(tracks: chunk.map { Body.Item(uri: $0) }, snapshotID: snapshot))
            snapshot = try await withPlaylistItemsPath(of: playlistID) { path in
                try await decode(SpotifySnapshotObject.self, path, method: .delete, json: body)
            }.snapshotID
        }
        return snapshot
    }

    private func writeItems(
        _ uris: [String],
        to playlistID: SpotifyID,
        method: HTTPMethod
    ) async throws
        -> SpotifySnapshotObject
    {
        struct Body: Encodable { var uris: [String] }
        return try await withPlaylistItemsPath(of: playlistID) { path in
            try await decode(SpotifySnapshotObject.self, path, method: method, json: Self.jsonBody(Body(uris: uris)))
        }
    }

    /// Runs `body` with `playlists/{id}/items`, or with `playlists/{id}/tracks` when the newer path
    /// answers 404 (and from then on).
    private func withPlaylistItemsPath<T>(
        of playlistID: SpotifyID,
        _ body: (String) async throws -> T
    ) async throws -> T {
        let legacy = "playlists/\(playlistID)/tracks"
        if fallbacks.withLock({ $0.usesLegacyPlaylistItemsPath }) { return try await body(legacy) }
        do {
            return try await body("playlists/\(playlistID)/items")
        } catch SpotifyError.http(status: 404, _, _) {
            logger.info("/playlists/{id}/items answered 404; using /playlists/{id}/tracks.")
            fallbacks.withLock { $0.usesLegacyPlaylistItemsPath = true }
            return try await body(legacy)
        }
    }
}
