import Foundation
import GRDB
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The SQLite file that holds a person's library: tracks, artists, audio features with their
/// provenance, playlists, listening history and the record of every import.
///
/// The store runs in WAL mode with foreign keys on, migrates itself when opened, and does every
/// write inside one transaction, so a crash or Ctrl-C leaves either all of a write or none of it.
public final class LibraryStore: Sendable {
    /// The path of the database file.
    public let path: String
    /// The connection pool (one writer, concurrent readers). Store code reads and writes through
    /// ``read(_:)`` and ``write(_:)``, which name this file in every database error.
    let database: DatabasePool
    let logger: Logger

    /// How a store waits for other programs and what it tells them.
    public struct Options: Sendable {
        /// How long a write waits while another program (another `vibes-analyze import`, say) holds
        /// the store's write lock: `nil` waits as long as it takes, `.zero` not at all. When the
        /// time is up the write fails with SQLite's "database is locked" (``StoreError/busy(path:holder:)``).
        public var writeWait: Duration?
        /// Called on the waiting thread once a write has waited about a second, then about every
        /// ten seconds, with the time waited and who holds the store when it is known.
        public var onWait: (@Sendable (StoreWait) -> Void)?
        /// What this program is doing, recorded beside the store while it holds a long write
        /// (an import) so that a waiting program can say whom it waits for.
        public var activity: String
        /// Whether a missing store is created. When `false`, opening a path where no file is
        /// throws ``StoreError/missingStore(path:)`` and creates nothing, not even a folder.
        public var createsMissingStore: Bool
        /// Called before a store written by an earlier version is upgraded, with the names of the
        /// migrations about to run: an upgrade rewrites tables and can take a while on a large
        /// library. Not called for a new store.
        public var onUpgrade: (@Sendable ([String]) -> Void)?

        public init(
            writeWait: Duration? = .seconds(10),
            onWait: (@Sendable (StoreWait) -> Void)? = nil,
            activity: String = "vibes-analyze",
            createsMissingStore: Bool = true,
            onUpgrade: (@Sendable ([String]) -> Void)? = nil
        ) {
            self.writeWait = writeWait
            self.onWait = onWait
            self.activity = activity
            self.createsMissingStore = createsMissingStore
            self.onUpgrade = onUpgrade
        }
    }

    /// Options of this store.
    public let options: Options
    /// Set while a write that is only worth doing when the store is free (a snapshot) runs: the
    /// busy handler then gives up at once instead of waiting.
    let opportunisticWrite = OpportunisticWriteFlag()

    /// Opens the store at `path`, creating the file and its folder if needed, and migrates it.
    ///
    /// Creating and migrating are serialised between processes by an exclusive `flock(2)` on the
    /// store's folder, so many first opens at once make one schema (an open that finds the schema
    /// current takes no lock). A new folder is created 0700 and a new file 0600; existing ones keep
    /// their modes.
    ///
    /// - Throws: ``StoreError`` when the file cannot be created, opened or migrated, is another
    ///   application's database, or was written by a newer version.
    public init(path: String, logger: Logger = Logger(label: "vibes.store"), options: Options = Options()) throws {
        self.path = path
        self.logger = logger
        self.options = options
        // The store holds listening history: a new folder is the owner's only (0700), a new file too
        // (0600, which SQLite gives its -wal and -shm files). Existing folders keep their modes.
        let folder = (path as NSString).deletingLastPathComponent
        guard options.createsMissingStore || FileManager.default.fileExists(atPath: path) else {
            throw StoreError.missingStore(path: path)
        }
        if !folder.isEmpty {
            try Self.createFolders(folder, path: path)
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw StoreError.cannotOpen(
                path: path,
                reason: "it is a folder; name a library file such as library.sqlite"
            )
        }
        var lock = FolderLock(folder: folder.isEmpty ? "." : folder)
        defer { lock.release() }
        if !FileManager.default.fileExists(atPath: path) {
            try lock.acquire(path: path)
            // O_EXCL: of several processes creating the store at once, one creates it; nobody
            // replaces a file another has begun to write.
            let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
            if descriptor >= 0 {
                close(descriptor)
            } else if errno != EEXIST {
                throw StoreError.cannotOpen(path: path, reason: String(cString: strerror(errno)))
            }
        }
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .callback(
            Self.busyCallback(options: options, path: path, opportunistic: opportunisticWrite)
        )
        configuration.prepareDatabase { db in
            // NORMAL is durable across application crashes in WAL mode.
            // Readers keep a small cache: a snapshot's 48 MB of a million tracks' values was read
            // into 48 MB of fresh cache pages and copied out again, memory the kernel must fault
            // in and clear (about a quarter of a `recommend`); a small cache reuses its pages.
            let cache = db.configuration.readonly ? LibraryStore.readerCacheKiB : LibraryStore.writerCacheKiB
            try db.execute(
                sql: "PRAGMA synchronous = NORMAL; PRAGMA cache_size = -\(cache); PRAGMA temp_store = MEMORY"
            )
            // Readers do not map the file (`mmap_size`): it saved the `pread` calls of a snapshot's
            // overflow pages (about 0.1 s of a million-track `recommend`), but every mapped page a
            // command touched counted in its resident memory: 750 MB for a `report`, not 185.
        }
        do {
            // Turning a new file into WAL mode takes an exclusive lock that SQLite does not wait
            // for: a store another process is still creating is opened under the folder lock,
            // which its creator holds until the schema is made.
            if !Self.isInWALMode(path) { try lock.acquire(path: path) }
            database = try DatabasePool(path: path, configuration: configuration)
            // Unlocked, a store another process is creating can look foreign (its first table
            // exists, its id is not set yet): any doubt is settled under the lock.
            var isMarked = (try? database.read { db in try LibraryStore.checkIdentity(of: db, path: path) }) ?? false
            let isCurrent =
                isMarked ? try database.read { db in try LibraryStore.migrator.hasCompletedMigrations(db) } : false
            if !isMarked || !isCurrent {
                try lock.acquire(path: path)
                // Read again under the lock: another process may have migrated meanwhile.
                isMarked = try database.read { db in try LibraryStore.checkIdentity(of: db, path: path) }
                let applied = try database.read { db in
                    try db.tableExists("grdb_migrations") ? try LibraryStore.migrator.appliedIdentifiers(db) : []
                }
                let pending = LibraryStore.migrator.migrations.filter { !applied.contains($0) }
                let isUpgrade = !applied.isEmpty && !pending.isEmpty
                if isUpgrade { options.onUpgrade?(pending) }
                try LibraryStore.migrator.migrate(database)
                if isUpgrade { try compactAfterMigration() }
                try database.write { db in
                    // Which version wrote the schema, for an older version's refusal to name.
                    try db.execute(
                        sql: "INSERT OR REPLACE INTO store_about (key, value) VALUES ('written_by', ?)",
                        arguments: [LibraryStore.softwareVersion]
                    )
                    try db.execute(sql: "PRAGMA user_version = \(LibraryStore.schemaVersion)")
                    if !isMarked { try db.execute(sql: "PRAGMA application_id = \(LibraryStore.applicationID)") }
                }
            }
        } catch let error as DatabaseError {
            let wrapped = StoreError(error, path: path)
            if case .busy = wrapped { throw wrapped }
            if case .diskFull = wrapped { throw wrapped }
            // A store whose schema or pages do not read back is damaged, not unreachable (a file
            // that is no SQLite database at all, `SQLITE_NOTADB`, is more likely the wrong path).
            if error.resultCode == .SQLITE_CORRUPT {
                throw StoreError.damaged(path: path, what: wrapped.reason)
            }
            throw StoreError.cannotOpen(path: path, reason: wrapped.reason)
        }
    }

    /// Gives the space back when a migration left at least a tenth of the file (and 10 MB) free,
    /// as one that rewrites a table does: its old pages would otherwise stay in the file until
    /// later writes reuse them, and the file would be larger after an upgrade that made the
    /// library smaller.
    ///
    /// Measured on a million tracks: upgrading to `v14-feature-source-ids` rewrote
    /// `audio_features` and left the file at 877 MB; compacted (`VACUUM`, 14 s for the whole first
    /// command at 221 MB) it was 668 MB, 156 MB of which were that store's clustering runs.
    /// Upgrading a 567 MB store to `v15-decimal-features` left it at 624 MB, 21 % of it free.
    /// The temporary copy goes to a file, not memory (``withTemporaryStorageInFiles(_:)``).
    private func compactAfterMigration() throws {
        let (free, total, pageSize) = try database.read { db in
            (
                try Int.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0,
                try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0,
                try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
            )
        }
        guard free * pageSize >= 10 << 20, free * 10 >= total else { return }
        logger.info("compacting the store after its upgrade", metadata: ["free_pages": "\(free)", "pages": "\(total)"])
        try withTemporaryStorageInFiles {
            try database.writeWithoutTransaction { db in try db.execute(sql: "VACUUM") }
        }
    }

    /// An exclusive `flock(2)` on a folder, taken only when needed and released once.
    private struct FolderLock {
        let folder: String
        var descriptor: Int32 = -1

        init(folder: String) { self.folder = folder }

        mutating func acquire(path: String) throws {
            guard descriptor < 0 else { return }
            descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard descriptor >= 0 else {
                throw StoreError.cannotOpen(
                    path: path,
                    reason: "cannot open its folder to lock it (\(String(cString: strerror(errno))))"
                )
            }
            while flock(descriptor, LOCK_EX) != 0 {
                guard errno == EINTR else {
                    throw StoreError.cannotOpen(
                        path: path,
                        reason: "cannot lock its folder (\(String(cString: strerror(errno))))"
                    )
                }
            }
        }

        mutating func release() {
            guard descriptor >= 0 else { return }
            close(descriptor)  // closing drops the flock
            descriptor = -1
        }
    }

    /// Whether the file at `path` is in WAL mode, asked of SQLite through a read-only connection.
    /// A file too short to have a header, or one SQLite cannot read now, is not.
    ///
    /// Not read with a descriptor of our own: POSIX ties a file's locks to the process, not to the
    /// descriptor, so closing it would drop the locks every SQLite connection of this process
    /// holds on the store (another store open on the same file, an app's or a server's). The
    /// last other program to close the store would then fold the WAL into the file under them,
    /// and they would read "database disk image is malformed". SQLite's own descriptors are
    /// shared per file within the process and closed only when no lock needs them.
    static func isInWALMode(_ path: String) -> Bool {
        guard FileManager.default.fileExists(atPath: path) else { return false }
        var configuration = Configuration()
        configuration.readonly = true
        guard let queue = try? DatabaseQueue(path: path, configuration: configuration) else { return false }
        defer { try? queue.close() }
        // The journal mode is known once the header has been read: a read makes SQLite read it.
        return
            (try? queue.read { db -> Bool in
                _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master")
                return try String.fetchOne(db, sql: "PRAGMA journal_mode") == "wal"
            }) ?? false
    }

    /// SQLite's busy handler: sleeps 20 ms at a time for the first second, then 100 ms, tells
    /// `options.onWait` after a second and every ten seconds, and gives up after `writeWait`.
    private static func busyCallback(
        options: Options,
        path: String,
        opportunistic: OpportunisticWriteFlag
    ) -> Database.BusyCallback {
        let limit = options.writeWait.map { Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18 }
        return { tries in
            if opportunistic.isSet { return false }
            let waited = tries < 50 ? Double(tries) * 0.02 : 1 + Double(tries - 50) * 0.1
            if let limit, waited >= limit { return false }
            if let onWait = options.onWait, tries == 50 || (tries > 50 && (tries - 50) % 100 == 0) {
                onWait(StoreWait(seconds: waited, holder: LibraryStore.writer(of: path)))
            }
            usleep(tries < 50 ? 20_000 : 100_000)
            return true
        }
    }

    /// Creates `folder` and its missing parents with mode 0700 (`mkdir -p`), leaving existing ones
    /// as they are.
    private static func createFolders(_ folder: String, path: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw StoreError.cannotOpen(path: path, reason: "\(folder) is a file, not a folder")
            }
            return
        }
        let parent = (folder as NSString).deletingLastPathComponent
        if !parent.isEmpty && parent != folder { try createFolders(parent, path: path) }
        guard mkdir(folder, 0o700) == 0 || errno == EEXIST else {
            throw StoreError.cannotOpen(
                path: path,
                reason: "cannot create the folder \(folder) (\(String(cString: strerror(errno))))"
            )
        }
    }

    /// The version of vibes-analyze, recorded in the stores it migrates.
    public static let softwareVersion = "0.1.0"

    /// The page cache of a reading connection, in KiB.
    static let readerCacheKiB = 8_192

    /// The page cache of the writing connection, in KiB; an import sets its own
    /// (``importCacheKiB``) for its transaction.
    ///
    /// Measured on a million tracks, the first command after an upgrade (migration `v13-tag-sources`
    /// copies 3 million tag rows, then the snapshots are rebuilt) took 7.3 s and 490 MB with a
    /// 256 MB cache, 7.0–7.5 s and 240 MB with this one: the writer's other work (snapshot
    /// builds, syncs, saved runs) scans or touches few pages, which a large cache does not speed up.
    static let writerCacheKiB = 16_384

    /// The schema version, kept in the store's `PRAGMA user_version`: the number of migrations.
    public static let schemaVersion = migrator.migrations.count

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
            let schema = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
            guard unknown.isEmpty && schema <= schemaVersion else {
                let writtenBy =
                    try db.tableExists("store_about")
                    ? try String.fetchOne(db, sql: "SELECT value FROM store_about WHERE key = 'written_by'") : nil
                throw StoreError.newerSchema(
                    path: path,
                    writtenBy: writtenBy,
                    schema: Swift.max(schema, schemaVersion + unknown.count),
                    unknownMigrations: unknown
                )
            }
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
        try read { db in try LibraryStore.migrator.appliedMigrations(db) }
    }

    // MARK: - Who holds the store

    /// The note beside the store naming the program that holds a long write.
    var writerNotePath: String { path + "-writer" }

    /// Runs `body`, a long write that already holds the write lock, with a note beside the store
    /// (`<store>-writer`, mode 0600) saying who writes, so that other programs waiting for the store
    /// can name it. The note is removed afterwards; one left by a killed process names a process
    /// that no longer runs and is ignored.
    func withWriterNote<T>(_ body: () throws -> T) rethrows -> T {
        let note = StoreWriter(activity: options.activity, processID: getpid())
        if let data = try? JSONEncoder().encode(note) {
            let descriptor = open(writerNotePath, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0o600)
            if descriptor >= 0 {
                try? FileHandle(fileDescriptor: descriptor, closeOnDealloc: true).write(contentsOf: data)
            }
        }
        defer { unlink(writerNotePath) }
        return try body()
    }

    /// The program holding a long write on the store at `path`, when its note names one that runs.
    public static func writer(of path: String) -> StoreWriter? {
        guard let data = FileManager.default.contents(atPath: path + "-writer"),
            let note = try? JSONDecoder().decode(StoreWriter.self, from: data),
            note.processID > 0, kill(note.processID, 0) == 0 || errno == EPERM
        else { return nil }
        return note
    }
}

/// A program holding a long write on a store, from the note it leaves beside the store.
public struct StoreWriter: Codable, Hashable, Sendable {
    /// What it does, such as `import`.
    public var activity: String
    /// Its process ID.
    public var processID: Int32

    public init(activity: String, processID: Int32) {
        self.activity = activity
        self.processID = processID
    }

    enum CodingKeys: String, CodingKey {
        case activity
        case processID = "pid"
    }
}

/// A write waiting for another program to finish its write.
public struct StoreWait: Sendable {
    /// How long the write has waited so far.
    public var seconds: Double
    /// Who holds the store, when it left a note.
    public var holder: StoreWriter?
}
