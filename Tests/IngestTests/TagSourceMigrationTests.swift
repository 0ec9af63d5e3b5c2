import Foundation
import GRDB
import Testing
import VibesTestSupport

@testable import Ingest

/// A store written before tag sources were numbered migrates in place: every tag keeps its track,
/// tag and source, and later imports and deletions work on the new table.
struct TagSourceMigrationTests {
    @Test func tagSourcesBecomeNumbersAndEveryTagIsKept() throws {
        var written: [[String]] = []
        // The schema as the previous version left it, with tags from three sources.
        try withStoreFromEarlierVersion(migratedUpTo: "v12-reference-index") { db in
            for track in 1...4 {
                try db.execute(
                    sql: "INSERT INTO tracks (id, name, match_key) VALUES (?, ?, ?)",
                    arguments: [track, "Track \(track)", "t\(track)"]
                )
            }
            for (tag, value) in ["pop", "rock", "chill"].enumerated() {
                try db.execute(
                    sql: "INSERT INTO tags (id, kind, value) VALUES (?, 'genre', ?)",
                    arguments: [tag + 1, value]
                )
            }
            for (track, tag, source) in [
                (1, 1, "file:features-csv"), (1, 2, "spotify-api"), (2, 3, "file:features-csv"),
                (4, 1, "spotify-api"), (4, 3, "file:exportify"),
            ] {
                try db.execute(
                    sql: "INSERT INTO track_tags (track_id, tag_id, source) VALUES (?, ?, ?)",
                    arguments: [track, tag, source]
                )
                written.append(["\(track)", "\(tag)", source])
            }
        } _: { store in
            func tags() throws -> [[String]] {
                try store.database.read { db in
                    try Row.fetchAll(
                        db,
                        sql: """
                            SELECT tt.track_id, tt.tag_id, s.key FROM track_tags tt JOIN sources s ON s.id = tt.source_id
                            ORDER BY 1, 2
                            """
                    ).map { row in ["\(row[0] as Int64)", "\(row[1] as Int64)", row[2] as String] }
                }
            }
            #expect(try tags() == written)
            let (sources, columns, indexes) = try store.database.read { db in
                (
                    try String.fetchAll(db, sql: "SELECT key FROM sources ORDER BY id"),
                    try db.columns(in: "track_tags").map(\.name),
                    try db.indexes(on: "track_tags").map(\.name)
                )
            }
            #expect(sources == ["file:exportify", "file:features-csv", "spotify-api"])
            #expect(columns == ["track_id", "tag_id", "source_id"])
            // v13 built the index by tag again; v16 dropped it, and only the key is left.
            #expect(indexes == ["sqlite_autoindex_track_tags_1"])

            // Deleting a track still takes its tags along; a genre is still found by its index.
            try store.database.write { db in try db.execute(sql: "DELETE FROM tracks WHERE id = 4") }
            #expect(try tags() == written.filter { $0[0] != "4" })
            let popTracks = try store.database.read { db in
                try Int64.fetchAll(db, sql: "SELECT track_id FROM track_tags WHERE tag_id = 1")
            }
            #expect(popTracks == [1])

            // An import numbers a source it meets for the first time, and reuses a known one.
            _ = try store.importFile(at: Fixtures.path("csv/tidytuesday-excerpt.csv"))
            let counts = try store.database.read { db in
                try Row.fetchAll(
                    db,
                    sql:
                        "SELECT s.key, count(*) FROM track_tags tt JOIN sources s ON s.id = tt.source_id GROUP BY s.key"
                ).map { ($0[0] as String, $0[1] as Int) }
            }
            let bySource = Dictionary(uniqueKeysWithValues: counts)
            #expect(bySource["file:features-csv"].map { $0 > 2 } == true)
            #expect(try store.database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sources") } == 3)
        }
    }
}

/// Migration `v16-no-tag-index`: the index by tag goes, with the snapshots of the previous
/// formats, and what was read through them reads the same.
struct TagIndexMigrationTests {
    @Test func theTagIndexAndOldSnapshotsGoAndTagsReadTheSame() throws {
        try withStoreFromEarlierVersion(migratedUpTo: "v15-decimal-features") { db in
            try db.execute(sql: "INSERT INTO sources (key) VALUES ('file:csv')")
            try db.execute(sql: "INSERT INTO tags (id, kind, value) VALUES (1, 'genre', 'pop'), (2, 'genre', 'rock')")
            for track in 1...5 {
                try db.execute(
                    sql: "INSERT INTO tracks (id, name, match_key) VALUES (?, ?, ?)",
                    arguments: [track, "Track \(track)", "t\(track)"]
                )
                try db.execute(
                    sql: "INSERT INTO track_tags (track_id, tag_id, source_id) VALUES (?, ?, 1)",
                    arguments: [track, track <= 3 ? 1 : 2]
                )
            }
            try db.execute(
                sql: "INSERT INTO snapshots (name, part, data) VALUES ('features', 'format', 'features-2:x')"
            )
            #expect(try db.indexes(on: "track_tags").contains { $0.name == "track_tags_tag" })
        } _: { store in
            let (indexes, snapshots, tags) = try store.database.read { db in
                (
                    try db.indexes(on: "track_tags").map(\.name),
                    try Int.fetchOne(db, sql: "SELECT count(*) FROM snapshots") ?? -1,
                    try LibraryStore.topTags(in: db, limit: 5)
                )
            }
            #expect(indexes == ["sqlite_autoindex_track_tags_1"])
            #expect(snapshots == 0)
            #expect(tags.map { "\($0.value) \($0.tracks)" } == ["pop 3", "rock 2"])
        }
    }
}
