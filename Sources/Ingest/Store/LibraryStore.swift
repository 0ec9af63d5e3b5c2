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
            _ = FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
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
            let isMarked = try database.read { db in try LibraryStore.checkIdentity(of: db, path: path) }
            try LibraryStore.migrator.migrate(database)
            if !isMarked {
                try database.write { db in
                    try db.execute(sql: "PRAGMA application_id = \(LibraryStore.applicationID)")
                }
            }
        } catch let error as DatabaseError {
            throw StoreError.cannotOpen(path: path, reason: error.message ?? "\(error.resultCode)")
        }
    }

    /// The SQLite `application_id` of a vibes-analyze store: "VIBE" in ASCII.
    static let applicationID: Int32 = 0x5649_4245

    /// Refuses a file that is not a vibes-analyze store, or that a newer version wrote.
    ///
    /// A file with our `application_id` is ours. One without (the id is 0) is ours when it has no
    /// tables yet (a new or empty file) or when it holds our first migration (a store written
    /// before the id was set); anything else is another application's database and is not touched.
    ///
    /// - Returns: Whether the file already carries our `application_id`.
    @discardableResult
    static func checkIdentity(of db: Database, path: String) throws -> Bool {
        let id = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
        if id != applicationID {
            guard id == 0 else { throw StoreError.foreignDatabase(path: path) }
            let tables = try String.fetchAll(
                db,
                sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            )
            if !tables.isEmpty {
                let hasOurFirstMigration =
                    tables.contains("grdb_migrations")
                    ? try Bool.fetchOne(
                        db,
                        sql: "SELECT EXISTS (SELECT 1 FROM grdb_migrations WHERE identifier = 'v1-library')"
                    ) ?? false : false
                guard hasOurFirstMigration else { throw StoreError.foreignDatabase(path: path) }
            }
        }
        if try db.tableExists("grdb_migrations") {
            let known = Set(migrator.migrations)
            let unknown = try migrator.appliedIdentifiers(db).filter { !known.contains($0) }.sorted()
            guard unknown.isEmpty else { throw StoreError.newerSchema(path: path, unknownMigrations: unknown) }
        }
        return id == applicationID
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
