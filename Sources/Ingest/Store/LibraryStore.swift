import Foundation
import GRDB
import Logging

/// The SQLite file that holds a person's library: tracks, artists, audio features with their
/// provenance, playlists, listening history and the record of every import.
///
/// The store runs in WAL mode with foreign keys on, migrates itself when opened, and does every
/// write inside one transaction, so a crash or Ctrl-C leaves either all of a write or none of it.
public final class LibraryStore: Sendable {
    /// The path of the database file.
    public let path: String
    /// The connection pool (one writer, concurrent readers).
    public let database: DatabasePool
    let logger: Logger

    /// Opens the store at `path`, creating the file and its folder if needed, and migrates it.
    ///
    /// - Throws: ``StoreError`` when the file cannot be created, opened or migrated.
    public init(path: String, logger: Logger = Logger(label: "vibes.store")) throws {
        self.path = path
        self.logger = logger
        // The store holds listening history: a new folder is the owner's only (0700), a new file too
        // (0600, which SQLite gives its -wal and -shm files). Existing folders keep their modes.
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty && !FileManager.default.fileExists(atPath: folder) {
            do {
                try FileManager.default.createDirectory(
                    atPath: folder,
                    withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700]
                )
            } catch {
                throw StoreError.cannotOpen(
                    path: path,
                    reason: "cannot create its folder: \(error.localizedDescription)"
                )
            }
        }
        if !FileManager.default.fileExists(atPath: path) {
            // An empty file is an empty SQLite database; creating it here sets its mode.
            FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
        }
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            // NORMAL is durable across application crashes in WAL mode. A large page cache keeps the
            // indexes of a million-row import in memory (SQLite's default is 2 MB).
            try db.execute(sql: "PRAGMA synchronous = NORMAL; PRAGMA cache_size = -262144; PRAGMA temp_store = MEMORY")
        }
        do {
            database = try DatabasePool(path: path, configuration: configuration)
            try LibraryStore.migrator.migrate(database)
        } catch let error as DatabaseError {
            throw StoreError.cannotOpen(path: path, reason: error.message ?? "\(error.resultCode)")
        }
    }

    /// The store location when none is given: `$VIBES_DB`, else
    /// `$XDG_DATA_HOME/vibes-analyze/library.sqlite`, else `~/.local/share/vibes-analyze/library.sqlite`.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let path = environment["VIBES_DB"], !path.isEmpty { return path }
        if let data = environment["XDG_DATA_HOME"], !data.isEmpty {
            return data + "/vibes-analyze/library.sqlite"
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.local/share/vibes-analyze/library.sqlite"
    }

    /// The names of the migrations applied to this file, in order.
    public func appliedMigrations() throws -> [String] {
        try database.read { db in try LibraryStore.migrator.appliedMigrations(db) }
    }
}
