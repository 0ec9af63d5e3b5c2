import Foundation
import GRDB
import Testing
import VibesTestSupport

@testable import Ingest

struct ImportAtomicityTests {
    struct MalformedCase: CustomTestStringConvertible, Sendable {
        var file: String
        var line: Int
        /// Text at which the reported column must point, or `nil` when the error has no column.
        var columnAt: String?
        var field: String?
        var message: String
        var testDescription: String { file }
    }

    static let malformed: [MalformedCase] = [
        .init(
            file: "truncated-row.csv",
            line: 6,
            columnAt: nil,
            field: nil,
            message: "expected 23 fields as in the header, found 10"
        ),
        .init(
            file: "wrong-type.csv",
            line: 4,
            columnAt: "loud",
            field: "energy",
            message: "expected a number for energy (0–1), found \"loud\""
        ),
        .init(
            file: "bad-track-id.csv",
            line: 3,
            columnAt: "not-a-spotify-id",
            field: "track_id",
            message: "expected a 22-character Spotify track ID, found \"not-a-spotify-id\""
        ),
        .init(
            file: "unterminated-quote.csv",
            line: 5,
            columnAt: nil,
            field: nil,
            message: "a quoted field opened here is never closed"
        ),
        .init(
            file: "bad-encoding.csv",
            line: 4,
            columnAt: nil,
            field: nil,
            message: "invalid UTF-8 (byte 0xF1) in a file that is otherwise UTF-8; re-save it as UTF-8"
        ),
        .init(
            file: "wrong-header.csv",
            line: 1,
            columnAt: nil,
            field: nil,
            message: "cannot tell the format from the header"
        ),
    ]

    @Test(arguments: malformed)
    func malformedFileIsRejectedWholeWithItsPlaceAndLeavesTheStoreAsItWas(_ malformed: MalformedCase) throws {
        try withStore { store in
            _ = try store.importFile(at: Fixtures.path("csv/kaggle-2024-high-excerpt.csv"))
            let before = try contentSnapshot(store)
            let path = Fixtures.path("malformed/" + malformed.file)
            let error = try #require(throws: ImportError.self) { try store.importFile(at: path) }
            #expect(error.file == path)
            #expect(error.line == malformed.line)
            #expect(error.field == malformed.field)
            #expect(error.message.hasPrefix(malformed.message))
            if let needle = malformed.columnAt {
                #expect(error.column == (try column(of: needle, onLine: malformed.line, of: path)))
                #expect(
                    error.description.hasPrefix(
                        "\(path):\(malformed.line):\(error.column!): field \"\(malformed.field!)\": "
                    )
                )
            }
            #expect(try contentSnapshot(store) == before)
        }
    }

    @Test func skipInvalidImportsGoodRowsAndRecordsEveryRejection() throws {
        try withStore { store in
            let path = Fixtures.path("malformed/wrong-type.csv")
            let summary = try store.importFile(at: path, options: ImportOptions(skipInvalid: true))
            #expect(summary.rowsRead == 10)
            #expect(summary.rowsRejected == 1)
            #expect(summary.rowsImported == 9)
            #expect(summary.rejections.map(\.line) == [4])
            let recorded = try #require(
                try store.database.read { db in
                    try String.fetchOne(
                        db,
                        sql: "SELECT rejections FROM import_runs WHERE id = ?",
                        arguments: [summary.runID]
                    )
                }
            )
            let rejections = try JSONDecoder().decode([ImportError].self, from: Data(recorded.utf8))
            #expect(rejections == summary.rejections)
            #expect(try count(store, "SELECT rows_rejected FROM import_runs") == 1)
        }
    }

    @Test func importingTheSameFileTwiceChangesNothingAndSaysSo() throws {
        try withStore { store in
            let path = Fixtures.path("exportify/Liked_Songs.csv")
            let first = try store.importFile(at: path)
            let after = try contentSnapshot(store)
            let second = try store.importFile(at: path)
            #expect(first.status == .imported)
            #expect(second.status == .unchanged)
            #expect(second.runID == first.runID)
            #expect(try contentSnapshot(store) == after)
            // Forced, it reads the file again and the upserts change nothing but the run log.
            let forced = try store.importFile(at: path, options: ImportOptions(force: true))
            #expect(forced.status == .imported)
            #expect(forced.tracksNew == 0 && forced.tracksUpdated == 0 && forced.featuresWritten == 0)
            #expect(forced.playlists == 0 && forced.savedTracks == 0)
            var snapshot = try contentSnapshot(store)
            snapshot["import_runs"] = after["import_runs"]
            #expect(snapshot == after)
        }
    }

    /// Imports write with the foreign-key checks off (``LibraryStore/withForeignKeyChecksOff(_:)``):
    /// every link they write must still point at a row, and the checks must be on again for the
    /// next write, after an import that succeeds and after one that fails.
    @Test func everyFormatLeavesEveryLinkValidAndTheChecksOnAgain() throws {
        try withStore { store in
            let files = [
                "csv/tidytuesday-excerpt.csv", "csv/kaggle-2024-high-excerpt.csv", "csv/kaggle-2024-low-excerpt.csv",
                "csv/top50-excerpt.csv", "exportify/Liked_Songs.csv", "exportify/Older_Layout.csv",
                "json/YourLibrary.json", "json/Playlist1.json", "json/StreamingHistory0.json",
                "json/Streaming_History_Audio_2023-2024_0.json", "json/get-playlist-local-songs.json",
            ]
            for file in files { _ = try store.importFile(at: Fixtures.path(file)) }
            // The same tracks again from a file with longer artist lists and new metadata: the
            // update paths (replaced artist links, merged tags) run too.
            _ = try store.importFile(
                at: Fixtures.path("csv/tidytuesday-excerpt.csv"),
                options: ImportOptions(force: true)
            )
            _ = try? store.importFile(at: Fixtures.path("malformed/wrong-type.csv"))
            let (violations, checksOn) = try store.database.writeWithoutTransaction { db in
                (
                    try Row.fetchAll(db, sql: "PRAGMA foreign_key_check"),
                    try Int.fetchOne(db, sql: "PRAGMA foreign_keys")
                )
            }
            #expect(violations.isEmpty)
            #expect(checksOn == 1)
            #expect(try count(store, "SELECT count(*) FROM track_tags") > 0)
            #expect(try count(store, "SELECT count(*) FROM playlist_items") > 0)
            #expect(try count(store, "SELECT count(*) FROM plays WHERE track_id IS NOT NULL") > 0)
            // A link to a track that does not exist is refused again.
            let refused = try #require(throws: DatabaseError.self) {
                try store.database.write { db in
                    try db.execute(
                        sql: "INSERT INTO track_artists (track_id, position, artist_id) VALUES (999999, 0, 1)"
                    )
                }
            }
            #expect(refused.extendedResultCode == .SQLITE_CONSTRAINT_FOREIGNKEY)
        }
    }

    @Test func missingFileAndFolderAreNamed() throws {
        try withStore { store in
            let missing = try #require(throws: ImportError.self) { try store.importFile(at: "/nonexistent/file.csv") }
            #expect(missing.description == "/nonexistent/file.csv: no such file")
            let folder = try #require(throws: ImportError.self) { try store.importFile(at: NSTemporaryDirectory()) }
            #expect(folder.message.contains("is a folder"))
        }
    }

    @Test func aStoreReopenedAfterAnImportHasTheSameContent() throws {
        try withTemporaryDirectory { folder in
            let path = folder + "/library.sqlite"
            var before: [String: [String]] = [:]
            do {
                let store = try LibraryStore(path: path)
                _ = try store.importFile(at: Fixtures.path("csv/tidytuesday-excerpt.csv"))
                before = try contentSnapshot(store)
                #expect(try store.appliedMigrations() == LibraryStore.migrator.migrations)
                #expect(LibraryStore.migrator.migrations.first == "v1-library")
            }
            let reopened = try LibraryStore(path: path)
            #expect(try contentSnapshot(reopened) == before)
            let mode = try reopened.database.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
            #expect(mode == "wal")
        }
    }
}

struct StorePermissionTests {
    @Test func aNewStoreAndItsNewFolderAreTheOwnersOnly() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/new/library.sqlite"
            let store = try LibraryStore(path: path)
            _ = try store.importFile(at: Fixtures.path("csv/tidytuesday-excerpt.csv"))
            let manager = FileManager.default
            func mode(_ path: String) throws -> Int {
                try #require(manager.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber).intValue
            }
            #expect(try mode(directory + "/new") == 0o700)
            #expect(try mode(path) == 0o600)
            #expect(try mode(path + "-wal") == 0o600)

            // An existing folder keeps its mode.
            try manager.createDirectory(atPath: directory + "/shared", withIntermediateDirectories: false)
            try manager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory + "/shared")
            _ = try LibraryStore(path: directory + "/shared/library.sqlite")
            #expect(try mode(directory + "/shared") == 0o755)
            #expect(try mode(directory + "/shared/library.sqlite") == 0o600)
        }
    }
}
