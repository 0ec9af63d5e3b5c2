import Features
import Foundation
import GRDB
import Testing
import VibesTestSupport

@testable import Ingest

/// A store written before feature sources were numbered migrates in place: every feature row keeps
/// its track, source, priority, fetch time and values; the views show them as before; and the
/// snapshot and its triggers work on the new table.
struct FeatureSourceMigrationTests {
    /// A row as the views show it: track, source, priority, fetch time, energy, tempo.
    typealias Shown = [String]

    static func shown(_ view: String, in db: Database) throws -> [Shown] {
        try Row.fetchAll(
            db,
            sql: "SELECT track_id, source, priority, fetched_at, energy, tempo FROM \(view) ORDER BY track_id, source"
        ).map { row in
            [
                "\(row[0] as Int64)", row[1] as String, "\(row[2] as Int64)", row[3] as String,
                (row[4] as Double?).map { "\($0)" } ?? "nil", (row[5] as Double?).map { "\($0)" } ?? "nil",
            ]
        }
    }

    @Test func featureSourcesBecomeNumbersAndEveryRowIsKept() throws {
        var before: (all: [Shown], current: [Shown]) = ([], [])
        // Three tracks: one source, two sources of different priority, two of equal priority
        // fetched at different times (the later one is current).
        let rows: [(track: Int, source: String, priority: Int, fetched: String, energy: Double?, tempo: Double)] = [
            (1, "file:features-csv", 80, "2025-03-01T10:00:00Z", 0.5, 120),
            (2, "file:features-csv", 80, "2025-03-01T10:00:00Z", 0.25, 90),
            (2, "reccobeats", 60, "2026-01-02T03:04:05Z", nil, 91.5),
            (3, "local:essentia", 40, "2025-12-31T23:59:59Z", 0.75, 100),
            (3, "local:aubio", 40, "2026-02-01T00:00:00Z", 0.125, 101),
        ]
        try withStoreFromEarlierVersion(migratedUpTo: "v13-tag-sources") { db in
            for track in 1...3 {
                try db.execute(
                    sql: "INSERT INTO tracks (id, name, match_key) VALUES (?, ?, ?)",
                    arguments: [track, "Track \(track)", "t\(track)"]
                )
            }
            // A tag source numbered before: feature sources join the same table.
            try db.execute(sql: "INSERT INTO sources (id, key) VALUES (1, 'reccobeats')")
            for row in rows {
                try db.execute(
                    sql: """
                        INSERT INTO audio_features (track_id, source, priority, fetched_at, energy, tempo)
                        VALUES (?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [row.track, row.source, row.priority, row.fetched, row.energy, row.tempo]
                )
            }
            before = (try Self.shown("audio_features", in: db), try Self.shown("current_features", in: db))
        } _: { store in
            let after = try store.database.read { db in
                (all: try Self.shown("all_features", in: db), current: try Self.shown("current_features", in: db))
            }
            #expect(after.all == before.all)
            #expect(after.current == before.current)
            #expect(after.current.map { $0[1] } == ["file:features-csv", "file:features-csv", "local:aubio"])

            let (columns, sources, seconds) = try store.database.read { db in
                (
                    try db.columns(in: "audio_features").map(\.name),
                    try String.fetchAll(db, sql: "SELECT key FROM sources ORDER BY id"),
                    try Int64.fetchAll(db, sql: "SELECT fetched_at FROM audio_features ORDER BY track_id, source_id")
                )
            }
            #expect(Array(columns.prefix(5)) == ["track_id", "source_id", "priority", "import_run_id", "fetched_at"])
            #expect(sources == ["reccobeats", "file:features-csv", "local:aubio", "local:essentia"])
            #expect(seconds.first == Int64(try Date("2025-03-01T10:00:00Z", strategy: .iso8601).timeIntervalSince1970))

            // The snapshot is built from the new table, and a change to it deletes the snapshot.
            let table = try store.featureTable()
            #expect(table.trackIDs == [1, 2, 3])
            #expect(table.value(row: 2, feature: .energy) == 0.125)
            let hasSnapshot = {
                try store.database.read { db in
                    try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM snapshots WHERE name = 'features')")
                } ?? false
            }
            #expect(try hasSnapshot())
            try store.database.write { db in
                try db.execute(sql: "UPDATE audio_features SET energy_code = 0.5 WHERE track_id = 3")
            }
            #expect(try !hasSnapshot())

            // An import writes numbered rows next to the migrated ones; deleting a track takes its rows.
            _ = try store.importFile(at: Fixtures.path("csv/tidytuesday-excerpt.csv"))
            try store.database.write { db in try db.execute(sql: "DELETE FROM tracks WHERE id = 2") }
            let counts = try store.database.read { db in
                (
                    rows: try Int.fetchOne(db, sql: "SELECT count(*) FROM audio_features WHERE track_id = 2") ?? -1,
                    csvRows: try Int.fetchOne(
                        db,
                        sql: "SELECT count(*) FROM all_features WHERE source = 'file:features-csv'"
                    ) ?? 0,
                    sources: try Int.fetchOne(db, sql: "SELECT count(*) FROM sources WHERE key = 'file:features-csv'")
                        ?? 0
                )
            }
            #expect(counts.rows == 0)
            #expect(counts.csvRows > 1)
            #expect(counts.sources == 1)
        }
    }

    /// The upgrade rewrites `audio_features`; the file is compacted afterwards rather than left
    /// holding the old table's pages.
    @Test func anUpgradeThatFreesMuchOfTheFileCompactsIt() throws {
        var sizeBefore = 0
        // 150,000 rows of one source: about 20 MB of `audio_features` in the old shape.
        try withStoreFromEarlierVersion(migratedUpTo: "v13-tag-sources") { db in
            try db.execute(
                sql: """
                    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 150000)
                    INSERT INTO tracks (id, name, match_key) SELECT i, 'Track ' || i, 't' || i FROM n;
                    INSERT INTO audio_features (track_id, source, priority, fetched_at, energy, tempo, danceability)
                        SELECT id, 'file:features-csv', 80, '2025-03-01T10:00:00Z', (id % 1000) / 1000.0,
                               60 + id % 120, (id % 997) / 997.0
                        FROM tracks;
                    """
            )
            sizeBefore = try Self.fileSize(of: db)
        } _: { store in
            let (free, pages, rows) = try store.database.read { db in
                (
                    try Int.fetchOne(db, sql: "PRAGMA freelist_count") ?? -1,
                    try Int.fetchOne(db, sql: "PRAGMA page_count") ?? -1,
                    try Int.fetchOne(db, sql: "SELECT count(*) FROM all_features WHERE source = 'file:features-csv'")
                        ?? -1
                )
            }
            #expect(rows == 150_000)
            #expect(free < pages / 20)
            // Numbered sources and times take less room than the text did.
            #expect(pages * 4096 < sizeBefore)
        }
    }

    static func fileSize(of db: Database) throws -> Int {
        (try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0) * (try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 0)
    }

    /// Opening a store an earlier version wrote says which migrations are about to run, once; a
    /// new store and a current one say nothing.
    @Test func anUpgradeIsAnnouncedBeforeItRunsAndOnlyThen() throws {
        final class Heard: @unchecked Sendable {
            let lock = NSLock()
            var calls: [[String]] = []
            func add(_ names: [String]) { lock.withLock { calls.append(names) } }
        }
        let heard = Heard()
        let options = LibraryStore.Options(onUpgrade: { heard.add($0) })
        try withTemporaryDirectory { folder in
            let old = folder + "/old.sqlite"
            let queue = try DatabaseQueue(path: old)
            try LibraryStore.migrator.migrate(queue, upTo: "v13-tag-sources")
            try queue.close()
            _ = try LibraryStore(path: old, options: options)
            #expect(
                heard.calls == [
                    [
                        "v14-feature-source-ids", "v15-decimal-features", "v16-no-tag-index", "v17-spotify-id-index",
                        "v18-run-scope", "v19-playlist-recipes", "v20-block-snapshot", "v21-audio-embeddings",
                    ]
                ]
            )
            _ = try LibraryStore(path: old, options: options)
            _ = try LibraryStore(path: folder + "/new.sqlite", options: options)
            #expect(heard.calls.count == 1)
        }
    }
}
