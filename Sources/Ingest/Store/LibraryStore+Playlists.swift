import Features
import Foundation
import GRDB

extension LibraryStore {
    /// The `source` of playlists this tool builds.
    public static let builtPlaylistSource = "vibes-analyze"

    /// Adds what built playlists need beyond imported ones: how they were built and how well they flow.
    static func addBuiltPlaylistColumns(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE playlists ADD COLUMN built_settings TEXT;
                ALTER TABLE playlists ADD COLUMN transition_score REAL;
                """
        )
    }

    /// Saves a built playlist under its name, replacing an earlier one of the same name.
    ///
    /// The playlist is stored with `source` = `vibes-analyze` and `origin_key` = `built:<folded
    /// name>`; its items keep their order and lock flags are kept in the settings. An earlier one
    /// of the same name is replaced in its row: the row ID and the Spotify playlist a push
    /// recorded stay.
    ///
    /// - Parameters:
    ///   - playlist: The playlist; every entry's track must be in the store.
    ///   - settings: How it was built (the command line, as JSON or text), for the record.
    /// - Returns: The playlist's row ID.
    /// - Throws: ``StoreError`` when a track is missing or the write fails.
    @discardableResult
    public func saveBuiltPlaylist(_ playlist: Playlist, settings: String? = nil) throws -> Int64 {
        let originKey = "built:" + Track.normalizedName(playlist.name)
        let now = ISO8601DateFormatter().string(from: Date())
        do {
            return try write { db in
                // Updated in place: the row keeps its ID and the Spotify playlist a push wrote
                // (`spotify_id`, `snapshot_id`), so the next push replaces that one.
                guard
                    let id = try Int64.fetchOne(
                        db,
                        sql: """
                            INSERT INTO playlists (origin_key, name, description, source, updated_at, built_settings, transition_score)
                            VALUES (?, ?, ?, ?, ?, ?, ?)
                            ON CONFLICT (origin_key) DO UPDATE SET
                                name = excluded.name, description = excluded.description, source = excluded.source,
                                updated_at = excluded.updated_at, built_settings = excluded.built_settings,
                                transition_score = excluded.transition_score
                            RETURNING id
                            """,
                        arguments: [
                            originKey, playlist.name, playlist.description, LibraryStore.builtPlaylistSource, now,
                            settings, playlist.transitionScore,
                        ]
                    )
                else { preconditionFailure("an INSERT … RETURNING answers its row") }
                try db.execute(sql: "DELETE FROM playlist_items WHERE playlist_id = ?", arguments: [id])
                for (position, entry) in playlist.entries.enumerated() {
                    try db.execute(
                        sql:
                            "INSERT INTO playlist_items (playlist_id, position, track_id, added_by) VALUES (?, ?, ?, ?)",
                        arguments: [id, position, entry.trackID, entry.isLocked ? "locked" : nil]
                    )
                }
                return id
            }
        } catch let error as StoreError where error.isConstraintViolation {
            throw StoreError.notFound(what: "A track of playlist \"\(playlist.name)\"")
        }
    }

    /// The names of the saved built playlists, newest first.
    public func builtPlaylistNames() throws -> [String] {
        try read { db in
            try String.fetchAll(
                db,
                sql: "SELECT name FROM playlists WHERE source = ? ORDER BY updated_at DESC, id DESC",
                arguments: [LibraryStore.builtPlaylistSource]
            )
        }
    }

    /// Reads a saved built playlist by name (folded, so case and accents do not matter).
    ///
    /// - Returns: The playlist with its entries in order (features left empty), or `nil`.
    public func builtPlaylist(named name: String) throws -> Playlist? {
        let originKey = "built:" + Track.normalizedName(name)
        let stored: (id: Int64, name: String, description: String?, score: Double?, items: [(Int64, Bool)])? =
            try read { db in
                guard
                    let row = try Row.fetchOne(
                        db,
                        sql: "SELECT id, name, description, transition_score FROM playlists WHERE origin_key = ?",
                        arguments: [originKey]
                    )
                else { return nil }
                let id: Int64 = row[0]
                let items = try Row.fetchAll(
                    db,
                    sql: "SELECT track_id, added_by FROM playlist_items WHERE playlist_id = ? ORDER BY position",
                    arguments: [id]
                ).map { ($0[0] as Int64, ($0[1] as String?) == "locked") }
                return (id, row[1], row[2], row[3], items)
            }
        guard let stored else { return nil }
        let summaries = try trackSummaries(for: stored.items.map(\.0))
        let paths = try localFilePaths(for: stored.items.map(\.0))
        let entries = stored.items.compactMap { id, isLocked -> Playlist.Entry? in
            guard let summary = summaries[id] else { return nil }
            var entry = Playlist.Entry(
                trackID: id,
                spotifyID: summary.spotifyID.flatMap { SpotifyID($0) },
                name: summary.name,
                artists: summary.artists,
                album: summary.album,
                durationMS: summary.durationMS,
                popularity: summary.popularity,
                isLocked: isLocked
            )
            entry.filePath = paths[id]
            return entry
        }
        return Playlist(
            name: stored.name,
            description: stored.description ?? "",
            entries: entries,
            transitionScore: stored.score
        )
    }
}
