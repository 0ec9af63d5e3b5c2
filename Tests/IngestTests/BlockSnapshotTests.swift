import Features
import Foundation
import GRDB
import Testing
import VibesTestSupport

@testable import Ingest

/// The `blocks` snapshot: saved for the rows it was built over, read back as built, and never used
/// stale or damaged.
struct BlockSnapshotTests {
    static let tidytuesday = Fixtures.path("csv/tidytuesday-excerpt.csv")
    static let liked = Fixtures.path("exportify/Liked_Songs.csv")

    /// Term rows over `ids` from the store's genre tags and playlists, numbered by sorted name: a
    /// build of the engine's kind, made from what the triggers watch.
    static func build(_ store: LibraryStore, over ids: [Int64]) throws -> [SparseTermRows] {
        try [("tags", "genre"), ("co_membership", "playlist")].map { kind, label in
            let labels = try store.trackLabels(kind: label)
            let names = Set(labels.values.flatMap { $0 }).sorted()
            let number = Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, Int32($0)) })
            var starts = [0]
            var terms: [Int32] = []
            for id in ids {
                terms += (labels[id] ?? []).map { number[$0]! }.sorted()
                starts.append(terms.count)
            }
            return SparseTermRows(kind: kind, signals: [label], termNames: names, rowStarts: starts, rowTerms: terms)
        }
    }

    /// The blocks over `ids`, counting the builds in `builds`.
    static func blocks(
        _ store: LibraryStore,
        over ids: [Int64],
        saving: Bool = true,
        builds: inout Int
    ) throws -> [SparseTermRows] {
        var count = builds
        defer { builds = count }
        return try store.similarityBlockTerms(over: ids, saving: saving) {
            count += 1
            return try build(store, over: ids)
        }
    }

    func snapshotRows(_ store: LibraryStore) throws -> Int {
        try count(store, "SELECT count(*) FROM snapshots WHERE name = 'blocks'")
    }

    @Test func theBlocksAreSavedOnceAndReadBackAsBuilt() throws {
        try withStore { store in
            _ = try store.importFile(at: Self.tidytuesday)
            let ids = try store.featureTable().trackIDs
            var builds = 0
            let first = try Self.blocks(store, over: ids, builds: &builds)
            #expect(builds == 1 && first.count == 2 && first.allSatisfy { !$0.rowTerms.isEmpty })
            #expect(try snapshotRows(store) > 0)
            let second = try Self.blocks(store, over: ids, builds: &builds)
            #expect(builds == 1)
            #expect(second == first)
            // Other rows (another scope, tracks that gained or lost features): built for them,
            // not read from the snapshot of the library's rows.
            let fewer = Array(ids.dropLast())
            #expect(
                try Self.blocks(store, over: fewer, saving: false, builds: &builds) == Self.build(store, over: fewer)
            )
            #expect(builds == 2)
            // Not saved for them: the library's rows are still read from the snapshot.
            #expect(try Self.blocks(store, over: ids, builds: &builds) == first && builds == 2)
        }
    }

    /// An imported playlist of the two first tracks with features (the excerpt's playlists are
    /// tags only).
    static let roadtrip = """
        INSERT INTO playlists (origin_key, name, source, updated_at) VALUES ('test:roadtrip', 'Roadtrip', 'test', '');
        INSERT INTO playlist_items (playlist_id, position, track_id)
            SELECT (SELECT id FROM playlists WHERE origin_key = 'test:roadtrip'), 0, min(track_id) FROM audio_features;
        INSERT INTO playlist_items (playlist_id, position, track_id)
            SELECT (SELECT id FROM playlists WHERE origin_key = 'test:roadtrip'), 1, max(track_id) FROM audio_features;
        """

    @Test(arguments: [
        ("another import", "-"),
        (
            "a renamed tag",
            "UPDATE tags SET value = value || '!' WHERE id = (SELECT min(id) FROM tags WHERE kind = 'genre')"
        ),
        ("a removed tag", "DELETE FROM track_tags WHERE track_id = (SELECT min(track_id) FROM track_tags)"),
        (
            "a new playlist",
            "INSERT INTO playlists (origin_key, name, source, updated_at) VALUES ('test:2', 'B', 'test', '')"
        ),
        ("a renamed playlist", "UPDATE playlists SET name = 'Long Drive' WHERE origin_key = 'test:roadtrip'"),
        ("a removed item", "DELETE FROM playlist_items WHERE position = 1"),
    ])
    func everyChangeToTheTagsOrPlaylistsDeletesTheSnapshot(change: String, sql: String) throws {
        try withStore { store in
            _ = try store.importFile(at: Self.tidytuesday)
            try store.database.write { db in try db.execute(sql: Self.roadtrip) }
            let ids = try store.featureTable().trackIDs
            var builds = 0
            let before = try Self.blocks(store, over: ids, builds: &builds)
            #expect(try snapshotRows(store) > 0)
            if sql == "-" {
                _ = try store.importFile(at: Self.liked)
            } else {
                try store.database.write { db in try db.execute(sql: sql) }
            }
            #expect(try snapshotRows(store) == 0, "\(change)")
            let now = try store.featureTable().trackIDs
            let after = try Self.blocks(store, over: now, builds: &builds)
            #expect(builds == 2, "\(change)")
            #expect(after == (try Self.build(store, over: now)), "\(change)")
            // A new empty playlist changes no block, but the snapshot is built again all the same.
            #expect((after != before) == (change != "a new playlist"), "\(change)")
        }
    }

    @Test(arguments: ["0.row_terms", "0.counts", "1.terms", "track_ids", "block_count"])
    func aDamagedPartIsBuiltAgainNotTrusted(part: String) throws {
        try withStore { store in
            _ = try store.importFile(at: Self.tidytuesday)
            let ids = try store.featureTable().trackIDs
            var builds = 0
            let built = try Self.blocks(store, over: ids, builds: &builds)
            try store.database.write { db in
                let data = try #require(
                    try Data.fetchOne(
                        db,
                        sql: "SELECT data FROM snapshots WHERE name = 'blocks' AND part = ?",
                        arguments: [part]
                    )
                )
                // Every byte past the first few set high: terms out of range, counts that do not
                // add up, names that no longer end where their offsets say.
                var damaged = [UInt8](data)
                for index in damaged.indices.dropFirst(min(2, damaged.count - 1)) { damaged[index] = 0xF7 }
                if damaged.count < 12 { damaged += [0xF7, 0xF7, 0xF7] }
                try db.execute(
                    sql: "UPDATE snapshots SET data = ? WHERE name = 'blocks' AND part = ?",
                    arguments: [Data(damaged), part]
                )
            }
            #expect(try Self.blocks(store, over: ids, builds: &builds) == built)
            #expect(builds == 2, "\(part)")
            // Saved anew.
            #expect(try Self.blocks(store, over: ids, builds: &builds) == built && builds == 2)
        }
    }

    @Test func aBuildIsNotSavedWhenAnotherProgramWroteMeanwhile() throws {
        try withTemporaryDirectory { folder in
            let path = folder + "/library.sqlite"
            let store = try LibraryStore(path: path)
            _ = try store.importFile(at: Self.tidytuesday)
            let ids = try store.featureTable().trackIDs
            let built = try store.similarityBlockTerms(over: ids, saving: true) {
                let sources = try Self.build(store, over: ids)
                // Another program's write after the build read the tags (no trigger can delete
                // a snapshot not saved yet).
                let other = try LibraryStore(path: path)
                try other.database.write { db in try db.execute(sql: "UPDATE tags SET value = value || '!'") }
                return sources
            }
            #expect(try snapshotRows(store) == 0)
            var builds = 0
            let current = try Self.blocks(store, over: ids, builds: &builds)
            #expect(builds == 1 && current != built)
            #expect(try snapshotRows(store) > 0)
        }
    }

    @Test func anUpgradedStoreGetsTheTriggersOfANewOne() throws {
        let triggers = "SELECT sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name"
        let fresh = try withStore { store in try store.database.read { db in try String.fetchAll(db, sql: triggers) } }
        try withStoreFromEarlierVersion(
            migratedUpTo: "v19-playlist-recipes",
            writing: { _ in },
            { store in
                let upgraded = try store.database.read { db in try String.fetchAll(db, sql: triggers) }
                #expect(upgraded == fresh)
                #expect(upgraded.filter { $0.contains("snapshot_blocks_") }.count == 12)
            }
        )
    }

    @Test func damagedTermRowsDoNotFitTogether() {
        let good = SparseTermRows(
            kind: "tags",
            signals: [],
            termNames: ["a", "b"],
            rowStarts: [0, 2, 2, 3],
            rowTerms: [0, 1, 1]
        )
        #expect(good.isConsistent && good.rowCount == 3)
        for (starts, terms) in [
            ([0, 2, 2, 3], [1, 0, 1]), ([0, 2, 2, 3], [0, 2, 1]), ([0, 2, 1, 3], [0, 1, 1]),
            ([0, 2, 2, 4], [0, 1, 1]), ([0, 1, 1, 2], [0, 0, 1]),
        ] as [([Int], [Int32])] {
            var bad = good
            (bad.rowStarts, bad.rowTerms) = (starts, terms)
            #expect(!bad.isConsistent, "\(starts) \(terms)")
        }
    }
}
