import Foundation
import GRDB

/// How a playlist is built, kept so it can be built again from the current library
/// (`playlist recipe`): the options of `playlist build`, and the Spotify playlist it updates.
public struct PlaylistRecipe: Sendable, Hashable, Codable {
    /// The recipe's name, which is also the name of the playlist it builds.
    public var name: String
    /// The `playlist build` options: seeds, mood or vibe, filters, length or duration, order,
    /// diversity.
    public var arguments: [String]
    /// The Spotify playlist a run updates in place, once the recipe was pushed.
    public var spotifyID: String?
    public var createdAt: String
    public var lastRunAt: String?

    enum CodingKeys: String, CodingKey {
        case name, arguments
        case spotifyID = "spotify_id"
        case createdAt = "created_at"
        case lastRunAt = "last_run_at"
    }
}

extension LibraryStore {
    /// Migration `v19-playlist-recipes`: the recipes of `playlist recipe`.
    static func createPlaylistRecipes(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE playlist_recipes (
                    id INTEGER PRIMARY KEY,
                    name TEXT NOT NULL UNIQUE COLLATE NOCASE,
                    arguments TEXT NOT NULL, -- JSON array of `playlist build` options
                    spotify_id TEXT,
                    created_at TEXT NOT NULL,
                    last_run_at TEXT
                )
                """
        )
    }

    /// Saves a recipe, replacing the options of one of the same name (its Spotify playlist is kept).
    public func saveRecipe(name: String, arguments: [String]) throws {
        let text = String(decoding: try JSONEncoder().encode(arguments), as: UTF8.self)
        let now = Date().formatted(.iso8601)
        try write { db in
            try db.execute(
                sql: """
                    INSERT INTO playlist_recipes (name, arguments, created_at) VALUES (?, ?, ?)
                    ON CONFLICT(name) DO UPDATE SET arguments = excluded.arguments
                    """,
                arguments: [name, text, now]
            )
        }
    }

    /// Every recipe, by name.
    public func recipes() throws -> [PlaylistRecipe] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT name, arguments, spotify_id, created_at, last_run_at FROM playlist_recipes ORDER BY name"
            ).map(Self.recipe(from:))
        }
    }

    /// The recipe of that name (case-insensitive), or `nil`.
    public func recipe(named name: String) throws -> PlaylistRecipe? {
        try read { db in
            try Row.fetchOne(
                db,
                sql:
                    "SELECT name, arguments, spotify_id, created_at, last_run_at FROM playlist_recipes WHERE name = ?",
                arguments: [name]
            ).map(Self.recipe(from:))
        }
    }

    /// Deletes a recipe (not the playlist it built); `false` when there was none.
    @discardableResult
    public func deleteRecipe(named name: String) throws -> Bool {
        try write { db in
            try db.execute(sql: "DELETE FROM playlist_recipes WHERE name = ?", arguments: [name])
            return db.changesCount > 0
        }
    }

    /// Records a run, and the Spotify playlist the recipe now updates.
    public func recordRecipeRun(name: String, spotifyID: String?) throws {
        try write { db in
            try db.execute(
                sql: "UPDATE playlist_recipes SET last_run_at = ?, spotify_id = coalesce(?, spotify_id) WHERE name = ?",
                arguments: [Date().formatted(.iso8601), spotifyID, name]
            )
        }
    }

    private static func recipe(from row: Row) -> PlaylistRecipe {
        let text: String = row[1]
        return PlaylistRecipe(
            name: row[0],
            arguments: (try? JSONDecoder().decode([String].self, from: Data(text.utf8))) ?? [],
            spotifyID: row[2],
            createdAt: row[3],
            lastRunAt: row[4]
        )
    }
}
