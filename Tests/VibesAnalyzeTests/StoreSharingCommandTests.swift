import Foundation
import Ingest
import Testing
import VibesTestSupport

/// A store open in this process stays sound while other programs write to the same file, even
/// after a second store was opened on it here and closed again.
///
/// POSIX ties a file's locks to the process and the file, not to a descriptor: a descriptor of
/// the store's file that code of ours opens and closes outside SQLite drops every lock this
/// process's SQLite connections hold on it. The last program to close the store then believes
/// nobody else has it open and folds the WAL into the file under the open store, which reads
/// "database disk image is malformed" next. An app or a server keeps a store open for long and
/// opens others on the same path; the tests of the libraries do too.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct StoreSharingCommandTests {
    @Test func aStoreKeepsItsLocksWhenAnotherOnTheSameFileOpensAndCloses() async throws {
        try await withTemporaryDirectory { folder in
            let db = folder + "/library.sqlite"
            let first = try LibraryStore(path: db)
            _ = try first.importFile(at: Fixtures.path("csv/tidytuesday-excerpt.csv"))
            let before = try first.summary().tracks
            #expect(before > 0)
            // Opened and closed again in this process.
            do { _ = try LibraryStore(path: db) }
            // Two other programs write to the store and end, one after the other.
            for file in ["exportify/Liked_Songs.csv", "csv/top50-excerpt.csv"] {
                let result = try await CommandLineTool.run(["import", Fixtures.path(file), "--db", db])
                #expect(result.status == 0, "\(result.stderr)")
            }
            // The first store reads on, and sees what they wrote.
            let after = try first.summary().tracks
            #expect(after > before)
            let check = try await CommandLineTool.run(["library", "--db", db, "--json"])
            #expect(check.status == 0, "\(check.stderr)")
            // And it still writes, without losing what the others wrote.
            _ = try first.importFile(at: Fixtures.path("exportify/Older_Layout.csv"))
            let reopened = try LibraryStore(path: db)
            #expect(try reopened.summary().tracks >= after)
        }
    }
}
