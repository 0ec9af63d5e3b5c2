import Foundation
import GRDB
import Testing
import VibesTestSupport

@testable import Ingest

/// A store knows itself by its `application_id`, and refuses files that are not stores or that a
/// newer version wrote, leaving them as they were.
struct StoreIdentityTests {
    private func applicationID(_ path: String) throws -> Int32 {
        try DatabaseQueue(path: path).read { db in try Int32.fetchOne(db, sql: "PRAGMA application_id")! }
    }

    private func tables(_ path: String) throws -> [String] {
        try DatabaseQueue(path: path).read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        }
    }

    @Test func aNewStoreIsMarkedAsOurs() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/library.sqlite"
            _ = try LibraryStore(path: path)
            #expect(try applicationID(path) == LibraryStore.applicationID)
            _ = try LibraryStore(path: path)  // and opens again
        }
    }

    @Test func anotherApplicationsDatabaseIsRefusedAndLeftAlone() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/photos.sqlite"
            try DatabaseQueue(path: path).write { db in
                try db.execute(sql: "CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT)")
            }
            #expect(throws: StoreError.self) { try LibraryStore(path: path) }
            do {
                _ = try LibraryStore(path: path)
            } catch let error as StoreError {
                #expect(error.description.contains("another application's SQLite database"))
            }
            #expect(try tables(path) == ["photos"])

            let other = directory + "/other.sqlite"
            try DatabaseQueue(path: other).write { db in try db.execute(sql: "PRAGMA application_id = 42") }
            #expect(throws: StoreError.foreignDatabase(path: other)) { try LibraryStore(path: other) }
        }
    }

    @Test func aStoreFromBeforeTheIdIsAdopted() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/library.sqlite"
            _ = try LibraryStore(path: path)
            try DatabaseQueue(path: path).write { db in try db.execute(sql: "PRAGMA application_id = 0") }
            _ = try LibraryStore(path: path)
            #expect(try applicationID(path) == LibraryStore.applicationID)
        }
    }

    @Test func aStoreFromANewerVersionIsRefusedAndLeftAlone() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/library.sqlite"
            _ = try LibraryStore(path: path)
            try DatabaseQueue(path: path).write { db in
                try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-from-the-future')")
                try db.execute(sql: "UPDATE store_about SET value = '9.9.0' WHERE key = 'written_by'")
            }
            let before = try tables(path)
            let error = StoreError.newerSchema(
                path: path,
                writtenBy: "9.9.0",
                schema: LibraryStore.schemaVersion + 1,
                unknownMigrations: ["v99-from-the-future"]
            )
            #expect(throws: error) { try LibraryStore(path: path) }
            #expect(error.description.contains("was written by vibes-analyze 9.9.0"))
            #expect(error.description.contains("this is vibes-analyze \(LibraryStore.softwareVersion)"))
            #expect(try tables(path) == before)
        }
    }

    @Test func aNewerSchemaVersionAloneIsRefused() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/library.sqlite"
            _ = try LibraryStore(path: path)
            try DatabaseQueue(path: path).write { db in
                try db.execute(sql: "PRAGMA user_version = \(LibraryStore.schemaVersion + 3)")
            }
            #expect(throws: StoreError.self) { try LibraryStore(path: path) }
            // A current store records its schema and who wrote it, and reopening writes nothing.
            let other = directory + "/other.sqlite"
            _ = try LibraryStore(path: other)
            let (version, writer) = try DatabaseQueue(path: other).read { db in
                (
                    try Int.fetchOne(db, sql: "PRAGMA user_version"),
                    try String.fetchOne(db, sql: "SELECT value FROM store_about WHERE key = 'written_by'")
                )
            }
            #expect(version == LibraryStore.schemaVersion && writer == LibraryStore.softwareVersion)
        }
    }
}
