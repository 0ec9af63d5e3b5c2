import Foundation
import GRDB

extension LibraryStore {
    /// The tables `sync` keeps beside the library: checkpoints, and what each client ID may use.
    static func createSpotifySyncSchema(_ db: Database) throws {
        try db.execute(
            sql: """
                -- Where each part of a sync stands: watermarks and resume points, as text.
                CREATE TABLE spotify_sync_state (
                    key TEXT PRIMARY KEY NOT NULL,
                    value TEXT NOT NULL,
                    updated_at TEXT NOT NULL
                );

                -- What the API allows a client ID, such as audio-features: forbidden (403 since 2024-11-27).
                CREATE TABLE spotify_capabilities (
                    client_id TEXT NOT NULL,
                    capability TEXT NOT NULL,
                    status TEXT NOT NULL CHECK (status IN ('allowed', 'forbidden')),
                    checked_at TEXT NOT NULL,
                    PRIMARY KEY (client_id, capability)
                ) WITHOUT ROWID;
                """
        )
    }

    /// Reads a sync checkpoint.
    public func spotifySyncValue(forKey key: String) throws -> String? {
        try read { db in try Self.syncValue(forKey: key, in: db) }
    }

    /// Reads several sync checkpoints at once, in one transaction; keys without a value are left out.
    package func spotifySyncValues(forKeys keys: [String]) async throws -> [String: String] {
        try await read { db in
            var values: [String: String] = [:]
            for key in keys { values[key] = try Self.syncValue(forKey: key, in: db) }
            return values
        }
    }

    /// Sets a sync checkpoint, or removes it when `value` is `nil`.
    package func setSpotifySyncValue(_ value: String?, forKey key: String) throws {
        try write { db in try Self.setSyncValue(value, forKey: key, in: db) }
    }

    /// What the store recorded about `capability` for `clientID`: `allowed`, `forbidden` or `nil`.
    public func spotifyCapability(_ capability: String, clientID: String) throws -> String? {
        try read { db in
            try String.fetchOne(
                db,
                sql: "SELECT status FROM spotify_capabilities WHERE client_id = ? AND capability = ?",
                arguments: [clientID, capability]
            )
        }
    }

    /// Records what the API allowed `clientID`.
    public func recordSpotifyCapability(
        _ capability: String,
        clientID: String,
        isAllowed: Bool,
        at date: Date = Date()
    )
        throws
    {
        try write { db in
            try db.execute(
                sql: """
                    INSERT INTO spotify_capabilities (client_id, capability, status, checked_at) VALUES (?, ?, ?, ?)
                    ON CONFLICT (client_id, capability) DO UPDATE SET status = excluded.status, checked_at = excluded.checked_at
                    """,
                arguments: [clientID, capability, isAllowed ? "allowed" : "forbidden", date.formatted(.iso8601)]
            )
        }
    }

    static func syncValue(forKey key: String, in db: Database) throws -> String? {
        try String.fetchOne(db, sql: "SELECT value FROM spotify_sync_state WHERE key = ?", arguments: [key])
    }

    static func setSyncValue(_ value: String?, forKey key: String, in db: Database) throws {
        if let value {
            try db.execute(
                sql: """
                    INSERT INTO spotify_sync_state (key, value, updated_at) VALUES (?, ?, ?)
                    ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
                    """,
                arguments: [key, value, Date().formatted(.iso8601)]
            )
        } else {
            try db.execute(sql: "DELETE FROM spotify_sync_state WHERE key = ?", arguments: [key])
        }
    }
}
