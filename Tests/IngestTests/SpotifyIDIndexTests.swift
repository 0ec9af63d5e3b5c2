import Features
import Foundation
import GRDB
import Testing
import VibesTestSupport

@testable import Ingest

/// The in-memory table of Spotify IDs an import uses while the unique index is deferred.
struct SpotifyIDTableTests {
    /// A 22-character base-62 ID made from `number`.
    static func id(_ number: Int) -> String {
        let digits = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
        var value = number
        var text = ""
        for _ in 0..<22 {
            text.append(digits[value % 62])
            value /= 62
        }
        return text
    }

    @Test func findsWhatItHoldsThroughGrowthAndNothingElse() throws {
        var table = try #require(SpotifyIDTable(expectedCount: 10))
        // Past the first size (65,536 slots hold 49,152), the table doubles twice.
        var refused = 0
        for number in 0..<150_000 where !table.insert(Self.id(number), storeID: Int64(number + 1)) { refused += 1 }
        #expect(refused == 0)
        #expect(table.count == 150_000)
        var lookups = 0
        var asked = 0
        for number in stride(from: 0, to: 150_000, by: 7) {
            lookups += 1
            let found = table.find(Self.id(number)) { storeID in
                asked += 1
                return storeID == Int64(number + 1)
            }
            #expect(found == Int64(number + 1))
        }
        for number in 150_000..<151_000 {
            lookups += 1
            #expect(
                table.find(Self.id(number)) { _ in
                    asked += 1
                    return false
                } == nil
            )
        }
        // Only tracks whose ID has the same 32-bit hash are checked against the store: almost
        // always just the one looked for.
        #expect(asked >= 21_429 && asked < 21_429 + 10, "\(asked) checks for \(lookups) lookups")
    }

    @Test func twoIDsWithTheSameHashAreToldApartByTheStore() throws {
        // Two different IDs with the same 32-bit hash, found by the birthday bound (about 77,000
        // IDs for even odds).
        var seen: [UInt32: Int] = [:]
        var pair: (Int, Int)?
        for number in 0..<2_000_000 {
            let hash = SpotifyIDTable.hash(Self.id(number))
            if let other = seen[hash] {
                pair = (other, number)
                break
            }
            seen[hash] = number
        }
        let (first, second) = try #require(pair)
        var table = try #require(SpotifyIDTable(expectedCount: 2))
        let firstInserted = table.insert(Self.id(first), storeID: 10)
        #expect(firstInserted)
        // The store says which track has which ID.
        let stored: [Int64: String] = [10: Self.id(first), 20: Self.id(second)]
        #expect(table.find(Self.id(second)) { stored[$0] == Self.id(second) } == nil)
        let secondInserted = table.insert(Self.id(second), storeID: 20)
        #expect(secondInserted)
        #expect(table.find(Self.id(second)) { stored[$0] == Self.id(second) } == 20)
        #expect(table.find(Self.id(first)) { stored[$0] == Self.id(first) } == 10)
    }

    @Test func refusesWhatItCannotHold() throws {
        #expect(SpotifyIDTable(expectedCount: 7_000_000) == nil, "past 2²³ slots at 0.75 load")
        #expect(SpotifyIDTable(expectedCount: 6_000_000) != nil)
        var small = try #require(SpotifyIDTable(expectedCount: 0, maximumSlotCount: 8))
        let six = (0..<6).map { small.insert(Self.id($0), storeID: Int64($0 + 1)) }
        #expect(six == Array(repeating: true, count: 6))
        let seventh = small.insert(Self.id(6), storeID: 7)
        #expect(!seventh, "a seventh track in eight slots is past the highest load")
        let zero = small.insert(Self.id(7), storeID: 0)
        let tooLarge = small.insert(Self.id(7), storeID: Int64(UInt32.max) + 1)
        #expect(!zero && !tooLarge)
        #expect(small.count == 6)
    }
}

/// Imports with the unique index of Spotify IDs deferred write what imports with it kept write.
struct DeferredSpotifyIDIndexTests {
    /// The tracks of `count` rows: every fifth repeats an earlier row's ID with other metadata, and
    /// every seventh has a longer list of artists than the row it repeats.
    static func tracks(_ count: Int, firstID: Int = 0) -> [Track] {
        (0..<count).map { row in
            let number = row % 5 == 4 ? firstID + row / 2 : firstID + row
            return Track(
                spotifyID: SpotifyID(SpotifyIDTableTests.id(number)),
                name: "Song \(number)" + (row % 5 == 4 ? " (Remastered)" : ""),
                artists: row % 7 == 6 ? ["Artist \(number % 40)", "Guest \(row)"] : ["Artist \(number % 40)"],
                album: row % 3 == 0 ? nil : "Album \(number / 10)",
                durationMS: 180_000 + row,
                popularity: row % 101
            )
        }
    }

    /// Writes `tracks` into `store` in one transaction, with the indexes deferred (for
    /// `expectedTracks` tracks, in a table of at most `slotLimit` slots) or not; returns the store
    /// IDs given, and whether the table of Spotify IDs was in use after the deferral and after the
    /// writes.
    static func write(
        _ tracks: [Track],
        into store: LibraryStore,
        deferringFor expectedTracks: Int? = nil,
        slotLimit: Int = SpotifyIDTable.defaultMaximumSlotCount
    ) throws -> (ids: [Int64], tableAtStart: Bool, tableAtEnd: Bool) {
        try store.database.write { db in
            let writer = try LibraryWriter(db, runID: nil, fetchedAt: "2026-01-02T03:04:05Z")
            writer.spotifyIDTableSlotLimit = slotLimit
            if let expectedTracks { try writer.deferIndexBuilds(expectedTracks: expectedTracks) }
            let atStart = writer.findsSpotifyIDsInMemory
            let ids = try tracks.map { try writer.write($0).id }
            let atEnd = writer.findsSpotifyIDsInMemory
            try writer.buildDeferredIndexes()
            #expect(!writer.findsSpotifyIDsInMemory)
            return (ids, atStart, atEnd)
        }
    }

    /// With room for every track, and with room for only some: then the index is built halfway
    /// through, from the rows so far, and finds the rest.
    @Test(arguments: [(SpotifyIDTable.defaultMaximumSlotCount, 300, true), (128, 0, false)])
    func deferredAndKeptIndexesWriteTheSameStore(slotLimit: Int, expectedTracks: Int, tableToTheEnd: Bool) throws {
        try withStore { kept in
            try withStore { deferred in
                // Both stores hold the same earlier import, whose tracks the next rows meet again.
                let earlier = Self.tracks(60)
                _ = try Self.write(earlier, into: kept)
                _ = try Self.write(earlier, into: deferred)
                let next = Self.tracks(300, firstID: 40)
                let keptIDs = try Self.write(next, into: kept).ids
                let written = try Self.write(
                    next,
                    into: deferred,
                    deferringFor: expectedTracks,
                    slotLimit: slotLimit
                )
                #expect(written.tableAtStart)
                #expect(written.tableAtEnd == tableToTheEnd)
                let deferredIDs = written.ids
                #expect(deferredIDs == keptIDs)
                #expect(try contentSnapshot(deferred) == contentSnapshot(kept))
                let indexes = try deferred.database.read { db in try db.indexes(on: "tracks").map(\.name).sorted() }
                #expect(indexes.contains(LibraryWriter.spotifyIDIndex))
                // Some rows were new, some met the earlier import's tracks, some this one's.
                #expect(Set(keptIDs).count < keptIDs.count)
                #expect(keptIDs.contains { $0 <= 60 } && keptIDs.contains { $0 > 60 })
            }
        }
    }

    @Test func aFailedImportLeavesTheIndexesAsTheyWere() throws {
        try withStore { store in
            func schema() throws -> [String] {
                try store.database.read { db in
                    try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name")
                }
            }
            let before = try schema()
            #expect(before.contains("CREATE UNIQUE INDEX tracks_spotify_id ON tracks(spotify_id)"))
            // Into an empty store, every file is a bulk import: its indexes are dropped, then the
            // bad row rolls the drop back with the rest.
            #expect(throws: ImportError.self) { try store.importFile(at: Fixtures.path("malformed/wrong-type.csv")) }
            #expect(try schema() == before)
            #expect(try count(store, "SELECT count(*) FROM tracks") == 0)
        }
    }

    @Test func aDeferredIndexIsBuiltAgainAndRefusesARepeatedID() throws {
        try withStore { store in
            _ = try store.importFile(at: Fixtures.path("csv/tidytuesday-excerpt.csv"))
            let refused = try #require(throws: DatabaseError.self) {
                try store.database.write { db in
                    try db.execute(
                        sql:
                            "INSERT INTO tracks (spotify_id, name, match_key) SELECT spotify_id, 'x', 'x' FROM tracks LIMIT 1"
                    )
                }
            }
            #expect(refused.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE)
            let unique = try store.database.read { db in
                try db.indexes(on: "tracks").first { $0.name == LibraryWriter.spotifyIDIndex }?.isUnique
            }
            #expect(unique == true)
        }
    }
}

/// Migration `v17-spotify-id-index`: `tracks` is copied with the same rows and IDs, every link to
/// a track still holds, and the uniqueness of Spotify IDs moves to a named index.
struct SpotifyIDIndexMigrationTests {
    @Test func tracksAreCopiedWithEveryLinkIndexAndTrigger() throws {
        var before: [String: [String]] = [:]
        var dependents: [String] = []
        try withStoreFromEarlierVersion(migratedUpTo: "v16-no-tag-index") { db in
            try db.execute(sql: "INSERT INTO sources (id, key) VALUES (1, 'file:csv')")
            try db.execute(sql: "INSERT INTO artists (id, name, name_key) VALUES (1, 'Artist', 'artist')")
            try db.execute(sql: "INSERT INTO tags (id, kind, value) VALUES (1, 'genre', 'pop')")
            for track in 1...20 {
                try db.execute(
                    sql: """
                        INSERT INTO tracks (id, spotify_id, name, album, isrc, duration_ms, popularity, match_key, in_library, local_id)
                        VALUES (?, ?, ?, 'Album', ?, 200000, ?, ?, ?, ?)
                        """,
                    arguments: [
                        track * 3, track % 4 == 0 ? nil : SpotifyIDTableTests.id(track), "Track \(track)",
                        track % 2 == 0 ? "USRC1\(track)" : nil, track, "t\(track)", track % 5 == 0 ? 0 : 1,
                        track % 4 == 0 ? "local-\(track)" : nil,
                    ]
                )
                try db.execute(
                    sql: "INSERT INTO track_artists (track_id, position, artist_id) VALUES (?, 0, 1)",
                    arguments: [track * 3]
                )
                try db.execute(
                    sql: "INSERT INTO track_tags (track_id, tag_id, source_id) VALUES (?, 1, 1)",
                    arguments: [track * 3]
                )
                try db.execute(
                    sql: """
                        INSERT INTO audio_features (track_id, source_id, priority, fetched_at, energy_code)
                        VALUES (?, 1, 1, 0, ?)
                        """,
                    arguments: [track * 3, 500 * 16 + 3]
                )
            }
            try db.execute(sql: "INSERT INTO snapshots (name, part, data) VALUES ('facts', 'format', 'x')")
            before = try Self.content(db)
            dependents = try Self.dependents(db)
        } _: { store in
            let (after, dependentsAfter, indexes, violations) = try store.database.read { db in
                (
                    try Self.content(db), try Self.dependents(db),
                    try db.indexes(on: "tracks").map { "\($0.name) \($0.isUnique)" }.sorted(),
                    try Row.fetchAll(db, sql: "PRAGMA foreign_key_check")
                )
            }
            #expect(after == before)
            #expect(violations.isEmpty)
            #expect(dependentsAfter == dependents)
            #expect(indexes.contains("tracks_spotify_id true"))
            #expect(!indexes.contains { $0.hasPrefix("sqlite_autoindex") })
            // The links still lead to the copied table: deleting a track deletes what refers to it,
            // and its trigger still drops the facts snapshot.
            try store.database.write { db in try db.execute(sql: "DELETE FROM tracks WHERE id = 3") }
            #expect(try count(store, "SELECT count(*) FROM track_artists WHERE track_id = 3") == 0)
            #expect(try count(store, "SELECT count(*) FROM audio_features WHERE track_id = 3") == 0)
            #expect(try count(store, "SELECT count(*) FROM track_tags") == 19)
            #expect(try count(store, "SELECT count(*) FROM snapshots WHERE name = 'facts'") == 0)
        }
    }

    /// Every row of the tables that hold or refer to tracks.
    static func content(_ db: Database) throws -> [String: [String]] {
        var content: [String: [String]] = [:]
        for table in ["tracks", "track_artists", "track_tags", "audio_features", "snapshots"] {
            content[table] = try Row.fetchAll(db, sql: "SELECT * FROM \(table) ORDER BY 1, 2").map(\.description)
        }
        return content
    }

    /// The SQL of the indexes and triggers of `tracks` other than the index of Spotify IDs.
    static func dependents(_ db: Database) throws -> [String] {
        try String.fetchAll(
            db,
            sql: """
                SELECT sql FROM sqlite_master WHERE tbl_name = 'tracks' AND type IN ('index', 'trigger')
                    AND sql IS NOT NULL AND name != 'tracks_spotify_id' ORDER BY name
                """
        )
    }
}
