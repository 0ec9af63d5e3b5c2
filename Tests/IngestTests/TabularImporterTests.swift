import Features
import Foundation
import GRDB
import Testing
import VibesTestSupport

@testable import Ingest

struct TabularImporterTests {
    /// Imports the CSV at `path` into `store` through the tabular importer in one transaction, at
    /// a fixed time: as a bulk import of a new store does (`bulk`: the indexes deferred, the new
    /// tracks' rows held back and inserted many to a statement), or every row written as it comes
    /// with the indexes kept.
    static func importRows(of path: String, into store: LibraryStore, bulk: Bool) throws -> LibraryWriter.Counts {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        // As an import runs (``LibraryStore/withForeignKeyChecksOff(_:)``).
        return try store.withForeignKeyChecksOff {
            try store.database.write { db in
                let runID = try LibraryStore.insertImportRun(
                    path: path,
                    format: .featuresCSV,
                    sha256: "",
                    at: "2026-01-02T03:04:05Z",
                    in: db
                )
                let writer = try LibraryWriter(db, runID: runID, fetchedAt: "2026-01-02T03:04:05Z")
                if bulk { try writer.deferIndexBuilds(expectedTracks: bytes.count / 256) }
                #expect(writer.findsSpotifyIDsInMemory == bulk)
                let context = ImportContext(
                    file: path,
                    options: ImportOptions(),
                    writer: writer,
                    totalBytes: bytes.count
                )
                var importer = TabularImporter(format: .featuresCSV, context: context, reader: CSVReader(bytes: bytes))
                _ = try importer.run(fileName: (path as NSString).lastPathComponent)
                try writer.buildDeferredIndexes()
                return writer.counts
            }
        }
    }

    /// A bulk import of a real file holds, row for row and ID for ID, what the same file written
    /// row by row holds, and counts the same.
    static func expectBulkImportEqualsRowByRow(_ path: String) throws {
        try withStore { bulk in
            try withStore { rowByRow in
                let many = try importRows(of: path, into: bulk, bulk: true)
                let one = try importRows(of: path, into: rowByRow, bulk: false)
                let content = try contentSnapshot(bulk)
                #expect(content["tracks"]?.isEmpty == false && content["audio_features"]?.isEmpty == false)
                #expect(content == (try contentSnapshot(rowByRow)))
                let encoder = JSONEncoder()
                encoder.outputFormatting = .sortedKeys
                #expect(try encoder.encode(many) == encoder.encode(one))
            }
        }
    }

    @Test(arguments: [
        "csv/tidytuesday-excerpt.csv", "csv/kaggle-2024-high-excerpt.csv", "csv/kaggle-2024-low-excerpt.csv",
        "csv/top50-excerpt.csv",
    ])
    func aBulkImportHoldsWhatARowByRowImportHolds(_ fixture: String) throws {
        try Self.expectBulkImportEqualsRowByRow(Fixtures.path(fixture))
    }

    @Test func importsTidyTuesdayRowsAsTracksFeaturesAndTags() throws {
        try withStore { store in
            let path = Fixtures.path("csv/tidytuesday-excerpt.csv")
            let summary = try store.importFile(at: path)
            // The fixture README: 42 rows holding 36 distinct track IDs.
            #expect(summary.format == .featuresCSV)
            #expect(summary.rowsRead == 42)
            #expect(summary.rowsRejected == 0)
            #expect(summary.tracksNew == 36)
            #expect(summary.featuresWritten == 36)
            #expect(try count(store, "SELECT count(*) FROM tracks") == 36)
            // A track in several playlists is one track with several playlist tags.
            let tagged = try count(
                store,
                "SELECT count(*) FROM (SELECT track_id FROM track_tags JOIN tags ON tags.id = tag_id WHERE kind = 'playlist' GROUP BY track_id HAVING count(*) > 1)"
            )
            #expect(tagged > 0)
            // Values are stored exactly as written, including scientific notation.
            let energy = try store.database.read { db in
                try Double.fetchOne(
                    db,
                    sql:
                        "SELECT energy FROM audio_features af JOIN tracks t ON t.id = af.track_id WHERE t.spotify_id = '6f807x0ima9a1j3VPbc7VN'"
                )
            }
            #expect(energy == 0.916)
            let scientific = try count(
                store,
                "SELECT count(*) FROM audio_features WHERE instrumentalness > 0 AND instrumentalness < 0.0001"
            )
            #expect(scientific > 0)
            // Out-of-range values are kept and flagged, never dropped or clamped.
            let loud = try count(store, "SELECT count(*) FROM audio_features WHERE loudness > 0")
            #expect(loud > 0)
            #expect(summary.outOfRange["loudness"] == loud)
            #expect(
                try count(store, "SELECT count(*) FROM audio_features WHERE tempo = 0") == summary.outOfRange["tempo"]
            )
            // R's `NA` is a missing value, not a name; such tracks keep their ID and features.
            #expect(try count(store, "SELECT count(*) FROM tracks WHERE name = ''") == 2)
            #expect(try count(store, "SELECT count(*) FROM artists WHERE name = 'NA'") == 0)
            #expect(summary.notes.contains { $0.contains("NA") })
            #expect(try count(store, "SELECT count(*) FROM artists WHERE name = 'Tiësto' AND name_key = 'tiesto'") == 1)
        }
    }

    @Test func readsKaggleFilesWithOtherColumnOrdersAndCRLF() throws {
        try withStore { store in
            let high = try store.importFile(at: Fixtures.path("csv/kaggle-2024-high-excerpt.csv"))
            let low = try store.importFile(at: Fixtures.path("csv/kaggle-2024-low-excerpt.csv"))
            #expect(high.rowsRead == 12 && high.rowsRejected == 0)
            #expect(low.rowsRead == 9 && low.rowsRejected == 0)
            // Line 265 of the low file has an empty feature block: the track lands without features.
            #expect(low.tracksWithoutFeatures == 1)
            let missing = try count(
                store,
                "SELECT count(*) FROM tracks WHERE spotify_id = '2teI76KKFE6qkpLZJs7tZ7' AND id NOT IN (SELECT track_id FROM audio_features)"
            )
            #expect(missing == 1)
            // The first data row of the high file: energy 0.592, tempo 157.969, time signature 3.
            let row = try #require(
                try store.database.read { db in
                    try Row.fetchOne(
                        db,
                        sql:
                            "SELECT energy, tempo, time_signature FROM audio_features af JOIN tracks t ON t.id = af.track_id WHERE t.spotify_id = '2plbrEY59IikOBgBGLjaoe'"
                    )
                }
            )
            #expect(row[0] as Double == 0.592)
            #expect(row[1] as Double == 157.969)
            #expect(row[2] as Int == 3)
            // "Lady Gaga, Bruno Mars" is two artists.
            #expect(
                try count(
                    store,
                    "SELECT count(*) FROM track_artists ta JOIN tracks t ON t.id = ta.track_id WHERE t.spotify_id = '2plbrEY59IikOBgBGLjaoe'"
                ) == 2
            )
        }
    }

    @Test func detectsPercentScaleAndWindows1252InTop50() throws {
        try withStore { store in
            let summary = try store.importFile(at: Fixtures.path("csv/top50-excerpt.csv"))
            #expect(summary.encoding == "Windows-1252")
            #expect(summary.scale?.hasPrefix("percent (detected") == true)
            #expect(summary.notes.contains { $0.contains("Windows-1252") })
            #expect(summary.tracksNew == 15)
            // Row 1: "Señorita", Shawn Mendes, energy 55 → 0.55, 117 BPM, 191 s.
            let row = try #require(
                try store.database.read { db in
                    try Row.fetchOne(
                        db,
                        sql:
                            "SELECT t.duration_ms, af.energy, af.tempo FROM tracks t JOIN audio_features af ON af.track_id = t.id WHERE t.name = 'Señorita'"
                    )
                }
            )
            #expect(row[0] as Int == 191_000)
            #expect(abs(row[1] as Double - 0.55) < 1e-12)
            #expect(row[2] as Double == 117)
            #expect(try count(store, "SELECT count(*) FROM tags WHERE kind = 'genre' AND value = 'canadian pop'") == 1)
        }
    }

    @Test func refusesPercentValuesWhenTheUserSaysUnit() throws {
        try withStore { store in
            // 0–100 values read as 0–1 are not valid: the file is refused at the first one…
            let error = try #require(throws: ImportError.self) {
                try store.importFile(at: Fixtures.path("csv/top50-excerpt.csv"), options: ImportOptions(scale: .unit))
            }
            #expect(error.line == 2 && error.field == "Energy", "\(error)")
            #expect(error.message.hasPrefix("expected energy from 0 to 1, found \"55\""), "\(error)")
            #expect(try count(store, "SELECT count(*) FROM tracks") == 0)
            // …or, with --skip-invalid, each such value is kept as missing and counted.
            let summary = try store.importFile(
                at: Fixtures.path("csv/top50-excerpt.csv"),
                options: ImportOptions(scale: .unit, skipInvalid: true)
            )
            #expect(summary.scale == "unit (as given by --scale)")
            #expect(summary.rowsRejected == 0)
            #expect(summary.invalidKeptAsMissing["Energy"] == 15)
            #expect(try count(store, "SELECT count(*) FROM audio_features WHERE energy IS NOT NULL") == 0)
        }
    }

    @Test func exportifysOlderLayoutLandsAsAPlaylist() throws {
        try withStore { store in
            // `Spotify ID`, `Artist IDs`, …, `Artist Name(s)`, …, `Added At`: no `Track URI`.
            let summary = try store.importFile(at: Fixtures.path("exportify/Older_Layout.csv"))
            #expect(summary.format == .exportify)
            #expect(summary.rowsRead == 8 && summary.featuresWritten == 8 && summary.rowsRejected == 0)
            #expect(summary.playlists == 1)
            let items = try store.database.read { db in
                try String.fetchAll(
                    db,
                    sql: """
                        SELECT t.spotify_id FROM playlists p JOIN playlist_items pi ON pi.playlist_id = p.id
                        JOIN tracks t ON t.id = pi.track_id WHERE p.name = 'Older Layout' ORDER BY pi.position
                        """
                )
            }
            #expect(items.count == 8 && items.first == "2uuJs2nltcYFh9pkKP7bW4")
            // The same tracks as the current layout's first eight rows, with the same features.
            let older = try store.featureTable()
            try withStore { current in
                _ = try current.importFile(at: Fixtures.path("exportify/Liked_Songs.csv"))
                let ids = try current.database.read { db in
                    try String.fetchAll(db, sql: "SELECT spotify_id FROM tracks ORDER BY id LIMIT 8")
                }
                #expect(ids == items)
                let table = try current.featureTable()
                #expect(
                    Array(table.values.prefix(8 * FeatureTable.columnCount)).map(\.bitPattern)
                        == older.values.map(\.bitPattern)
                )
            }
        }
    }

    @Test func importsExportifyAsTracksFeaturesPlaylistAndSavedTracks() throws {
        try withStore { store in
            let summary = try store.importFile(at: Fixtures.path("exportify/Liked_Songs.csv"))
            #expect(summary.format == .exportify)
            #expect(summary.encoding == "UTF-8 with BOM")
            #expect(summary.rowsRead == 20)
            #expect(summary.featuresWritten == 20)
            #expect(summary.savedTracks == 20)
            let playlist = try #require(
                try store.database.read { db in try Row.fetchOne(db, sql: "SELECT id, name, origin_key FROM playlists")
                }
            )
            #expect(playlist["name"] as String == "Liked Songs")
            // Items keep the file's order: the first row is "Show Me" by Joey Bada$$.
            let first = try store.database.read { db in
                try String.fetchOne(
                    db,
                    sql: "SELECT t.name FROM playlist_items pi JOIN tracks t ON t.id = pi.track_id WHERE position = 0"
                )
            }
            #expect(first == "Show Me")
            // "Lil He77;Homixide Gang" is two artists; genres are tags.
            #expect(
                try count(
                    store,
                    "SELECT count(*) FROM track_artists ta JOIN tracks t ON t.id = ta.track_id WHERE t.spotify_id = '1AhRLlotY7XdyNa16M9VMD'"
                ) == 2
            )
            #expect(
                try count(store, "SELECT count(*) FROM tags WHERE kind = 'artist-genre' AND value = 'hip hop'") == 1
            )
            #expect(
                try count(
                    store,
                    "SELECT count(*) FROM all_features WHERE source = 'file:exportify' AND priority = \(FeatureSource.file(format: "exportify").priority)"
                ) == 20
            )
        }
    }

    @Test func aSecondSourceForTheSameTrackIsKeptBesideTheFirst() throws {
        try withStore { store in
            _ = try store.importFile(at: Fixtures.path("csv/tidytuesday-excerpt.csv"))
            let tracksBefore = try count(store, "SELECT count(*) FROM tracks")
            // The same IDs through Spotify API JSON would be a second source; here: the same file as another format.
            _ = try store.importFile(
                at: Fixtures.path("csv/tidytuesday-excerpt.csv"),
                options: ImportOptions(format: .exportify, force: true)
            )
            #expect(try count(store, "SELECT count(*) FROM tracks") == tracksBefore)
            #expect(try count(store, "SELECT count(DISTINCT source) FROM all_features") == 2)
            // The preferred row is the higher-priority source.
            #expect(
                try count(store, "SELECT count(*) FROM current_features WHERE source = 'file:exportify'")
                    == tracksBefore
            )
            let table = try store.featureTable()
            #expect(table.rowCount == tracksBefore)
        }
    }
}
