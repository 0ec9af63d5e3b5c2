import Foundation
import GRDB
import Testing
import VibesTestSupport

@testable import Ingest

/// A library an earlier version wrote, opened by the built tool: the one-time upgrade says so on
/// stderr before it runs (not under `--quiet`), and the command then works on the upgraded store.
@Suite(.serialized)
struct StoreUpgradeCommandTests {
    @Test func theFirstCommandOnAnOlderStoreSaysItUpgradesIt() async throws {
        try await withTemporaryDirectory { folder in
            let db = folder + "/library.sqlite"
            try writeEarlierStore(at: db, migratedUpTo: "v13-tag-sources") { db in
                try db.execute(sql: "INSERT INTO tracks (id, name, match_key) VALUES (1, 'Song', 's')")
                try db.execute(
                    sql: """
                        INSERT INTO audio_features (track_id, source, priority, fetched_at, energy, valence, danceability)
                        VALUES (1, 'file:features-csv', 80, '2025-03-01T10:00:00Z', 0.5, 0.5, 0.5)
                        """
                )
            }
            let quietCopy = folder + "/quiet.sqlite"
            try FileManager.default.copyItem(atPath: db, toPath: quietCopy)

            let first = try await CommandLineTool.run(["library", "--db", db])
            #expect(first.status == 0)
            #expect(first.stderr.contains("Upgrading the library at \(db)"))
            #expect(first.stderr.contains("v14-feature-source-ids"))
            #expect(first.stdout.contains("1"))
            let second = try await CommandLineTool.run(["library", "--db", db])
            #expect(second.status == 0)
            #expect(!second.stderr.contains("Upgrading"))
            let quiet = try await CommandLineTool.run(["library", "--db", quietCopy, "--quiet"])
            #expect(quiet.status == 0)
            #expect(!quiet.stderr.contains("Upgrading"))
        }
    }
}

/// Writes a store at `path` as an earlier version left it, its migrations run up to `migration`,
/// holding the rows `write` inserts: what the built tool finds when a user upgrades.
func writeEarlierStore(at path: String, migratedUpTo migration: String, _ write: (Database) throws -> Void) throws {
    let queue = try DatabaseQueue(path: path)
    try LibraryStore.migrator.migrate(queue, upTo: migration)
    try queue.write(write)
    try queue.close()
}
