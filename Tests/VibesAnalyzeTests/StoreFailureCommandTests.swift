import Foundation
import GRDB
import Ingest
import Testing
import VibesTestSupport

/// A store with damaged pages or held by another program makes a command fail with a message
/// that names the store's file (never the file being imported), exit 1, and under `--json` one
/// error document: through the built tool, on a real SQLite file.
///
/// Serialized: each case runs the tool against a lock or a damaged file of its own, and a 2-core
/// CI machine shares them with every other suite.
@Suite(.serialized, .timeLimit(.minutes(10)))
struct StoreFailureCommandTests {
    /// What is wrong with the store.
    enum Trouble: String, CaseIterable, Sendable {
        /// The first page of `tracks`, of its indexes and of `snapshots` overwritten, as a disk
        /// that lost them would leave them: SQLite reads "database disk image is malformed".
        case damaged
        /// Another connection holds the store's write lock (`BEGIN IMMEDIATE`): readers go on,
        /// writers wait.
        case writing
        /// Another connection holds the store's exclusive lock (`locking_mode = EXCLUSIVE`):
        /// nobody else even reads.
        case exclusive
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var trouble: Trouble
        var command: [String]
        /// Words the message holds besides the store's path.
        var words: String

        var testDescription: String { "\(trouble.rawValue): \(command[0])" }
    }

    static let newTracks = Fixtures.path("exportify/Liked_Songs.csv")

    static let cases: [Case] = [
        Case(trouble: .damaged, command: ["import", newTracks], words: "is damaged"),
        Case(trouble: .damaged, command: ["library"], words: "is damaged"),
        Case(trouble: .writing, command: ["import", newTracks], words: "is busy"),
        Case(trouble: .exclusive, command: ["import", newTracks], words: "is busy"),
        Case(trouble: .exclusive, command: ["library"], words: "is busy"),
    ]

    /// A library of the tidytuesday excerpt, written into the main file (no WAL left beside it).
    static func makeLibrary(in folder: String) throws -> String {
        let db = folder + "/library.sqlite"
        do {
            let store = try LibraryStore(path: db)
            _ = try store.importFile(at: Fixtures.path("csv/tidytuesday-excerpt.csv"))
            _ = try store.prepareSnapshots(memoryLimit: 1 << 30)
        }
        let queue = try DatabaseQueue(path: db)
        try queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        try queue.close()
        return db
    }

    /// Overwrites the root page of `tracks`, of its indexes and of `snapshots` with 0xFF bytes.
    static func damage(_ db: String) throws {
        let queue = try DatabaseQueue(path: db)
        let (pageSize, roots) = try queue.read { db in
            (
                try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096,
                try Int.fetchAll(
                    db,
                    sql: "SELECT rootpage FROM sqlite_master WHERE tbl_name IN ('tracks', 'snapshots') AND rootpage > 1"
                )
            )
        }
        try queue.close()
        #expect(roots.count >= 3)
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: db))
        for root in roots {
            try handle.seek(toOffset: UInt64((root - 1) * pageSize))
            try handle.write(contentsOf: Data(repeating: 0xFF, count: pageSize))
        }
        try handle.close()
    }

    /// Another program's connection holding the store until ``release()``.
    final class LockHolder {
        let queue: DatabaseQueue

        init(db: String, exclusive: Bool) throws {
            var configuration = Configuration()
            configuration.allowsUnsafeTransactions = true  // the transaction stays open between calls
            queue = try DatabaseQueue(path: db, configuration: configuration)
            try queue.inDatabase { db in
                if exclusive { try db.execute(sql: "PRAGMA locking_mode = EXCLUSIVE") }
                try db.execute(sql: "BEGIN IMMEDIATE")
                // A write takes the lock at once (and, in exclusive mode, keeps readers out).
                try db.execute(sql: "CREATE TABLE lock_holder (x)")
            }
        }

        func release() throws {
            try queue.inDatabase { try $0.execute(sql: "ROLLBACK") }
            try queue.close()
        }
    }

    /// Runs `command` on a library in `trouble`, with a short wait for the lock.
    static func run(_ failure: Case, json: Bool, in folder: String) async throws -> (CommandLineTool.Result, String) {
        let db = try makeLibrary(in: folder)
        var holder: LockHolder?
        switch failure.trouble {
        case .damaged: try damage(db)
        case .writing: holder = try LockHolder(db: db, exclusive: false)
        case .exclusive: holder = try LockHolder(db: db, exclusive: true)
        }
        let result = try await CommandLineTool.run(
            failure.command + ["--db", db, "--wait", "0.5"] + (json ? ["--json"] : [])
        )
        try holder?.release()
        return (result, db)
    }

    @Test(arguments: cases)
    func theMessageNamesTheStore(_ failure: Case) async throws {
        try await withTemporaryDirectory { folder in
            let (result, db) = try await Self.run(failure, json: false, in: folder)
            #expect(result.status == 1 && !result.wasSignalled, "\(result.stderr)")
            #expect(result.stderr.contains("library store \(db) "), "\(result.stderr)")
            #expect(result.stderr.contains(failure.words), "\(result.stderr)")
            // The file being imported is never taken for the store.
            #expect(!result.stderr.contains("The library store \(Self.newTracks)"), "\(result.stderr)")
            #expect(!result.stderr.contains("Usage"), "\(result.stderr)")
        }
    }

    @Test(arguments: cases)
    func underJSONOneErrorDocumentNamesTheStore(_ failure: Case) async throws {
        try await withTemporaryDirectory { folder in
            let (result, db) = try await Self.run(failure, json: true, in: folder)
            #expect(result.status == 1 && !result.wasSignalled, "\(result.stderr)")
            // One document: the whole of stdout parses as one object.
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
                "stdout: \(result.stdout)"
            )
            let error = try #require(object["error"] as? [String: Any], "stdout: \(result.stdout)")
            #expect(error["code"] as? Int == 1)
            let message = try #require(error["message"] as? String)
            #expect(message.contains("library store \(db) "), "\(message)")
            #expect(message.contains(failure.words), "\(message)")
        }
    }
}
