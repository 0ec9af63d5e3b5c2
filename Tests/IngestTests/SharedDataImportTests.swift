import Foundation
import GRDB
import Testing
import VibesTestSupport

@testable import Ingest

/// Imports of the real public datasets in `../shared/data`; skipped, visibly, where it is absent.
@Suite(.enabled(if: SharedData.isAvailable, SharedData.skipReason))
struct SharedDataImportTests {
    @Test func aBulkImportOfTidyTuesdayHoldsWhatARowByRowImportHolds() throws {
        try TabularImporterTests.expectBulkImportEqualsRowByRow(
            SharedData.path("tidytuesday-2020-01-21/spotify_songs.csv")
        )
    }

    @Test func tidyTuesdayImportsEveryRowWithItsGenres() throws {
        try withStore { store in
            let summary = try store.importFile(at: SharedData.path("tidytuesday-2020-01-21/spotify_songs.csv"))
            // shared/data/README.md: 32,833 rows, 28,356 distinct track IDs, 6 genres, 24 subgenres.
            #expect(summary.rowsRead == 32_833)
            #expect(summary.rowsRejected == 0)
            #expect(summary.tracksNew == 28_356)
            #expect(try count(store, "SELECT count(*) FROM tags WHERE kind = 'genre'") == 6)
            #expect(try count(store, "SELECT count(*) FROM tags WHERE kind = 'subgenre'") == 24)
            // Three release-date precisions survive.
            #expect(try count(store, "SELECT count(DISTINCT release_precision) FROM tracks") == 3)
            // Flags agree with the values they flag.
            #expect(
                summary.outOfRange["loudness"]
                    == (try count(store, "SELECT count(*) FROM audio_features WHERE loudness > 0"))
            )
            #expect(
                summary.outOfRange["tempo"] == (try count(store, "SELECT count(*) FROM audio_features WHERE tempo < 1"))
            )
            let maxLoudness = try store.database.read { db in
                try Double.fetchOne(db, sql: "SELECT max(loudness) FROM audio_features")
            }
            #expect(maxLoudness == 1.275)
        }
    }

    @Test func everyDatasetImportsWithoutRejectionsAndPlaysLinkToTracks() throws {
        try withStore { store in
            let files = [
                "spotify-music-dataset-2024/high_popularity_spotify_data.csv",
                "spotify-music-dataset-2024/low_popularity_spotify_data.csv",
                "top50-2019/top50.csv",
                "spotify-api/exports/exportify/kofort9-mymusic/Liked_Songs.csv",
                "spotify-api/exports/account-data-jonas-mika/YourLibrary.json",
                "spotify-api/exports/account-data-jonas-mika/Playlist1.json",
                "spotify-api/exports/account-data-jonas-mika/StreamingHistory0.json",
            ]
            var summaries: [String: ImportSummary] = [:]
            for file in files {
                let summary = try store.importFile(at: SharedData.path(file))
                #expect(summary.rowsRejected == 0, "\(file)")
                summaries[file] = summary
            }
            // Row counts from shared/data/README.md.
            #expect(summaries[files[0]]?.rowsRead == 1_686)
            #expect(summaries[files[1]]?.rowsRead == 3_145)
            #expect(summaries[files[2]]?.rowsRead == 50)
            #expect(summaries[files[2]]?.encoding == "Windows-1252")
            #expect(summaries[files[3]]?.rowsRead == 7_785)
            #expect(summaries[files[5]]?.playlists == 37)
            #expect(
                try count(
                    store,
                    "SELECT count(*) FROM playlist_items pi JOIN playlists p ON p.id = pi.playlist_id WHERE p.source = 'file:account-playlists'"
                ) == 1_793
            )
            #expect(summaries[files[6]]?.playsNew == 10_000)
            #expect(try count(store, "SELECT count(*) FROM plays") == 10_000)
            // Plays carry no track IDs; most are linked by artist and title to the library just imported.
            let linked = try count(store, "SELECT count(*) FROM plays WHERE track_id IS NOT NULL")
            #expect(linked > 5_000)
            // Exportify and the 2024 set share 177 IDs with identical features (README cross-check):
            // both rows are kept, with their own sources.
            let shared = try count(
                store,
                "SELECT count(*) FROM (SELECT track_id FROM audio_features GROUP BY track_id HAVING count(DISTINCT source_id) = 2)"
            )
            #expect(shared >= 177)
        }
    }

    @Test func everySavedWebAPIResponseImportsOrSaysWhyItHoldsNothing() throws {
        try withStore { store in
            let folder = SharedData.path("spotify-api/responses")
            let files = try FileManager.default.subpathsOfDirectory(atPath: folder)
                .filter { $0.hasSuffix(".json") && ($0.contains("/get-")) }.sorted()
            #expect(files.count > 20)
            var imported = 0
            for file in files {
                do {
                    let summary = try store.importFile(at: folder + "/" + file)
                    #expect(summary.rowsRejected == 0, "\(file)")
                    imported += 1
                } catch let error as ImportError {
                    // Profiles, artists and the player state carry no tracks: the error says so.
                    #expect(
                        error.message.hasPrefix("this is ") && error.message.contains("holds no tracks"),
                        "\(file): \(error)"
                    )
                }
            }
            #expect(imported > 15)
            // The recorded local-files playlist keeps its local tracks.
            #expect(try count(store, "SELECT count(*) FROM tracks WHERE is_local = 1") > 0)
            #expect(try count(store, "SELECT count(*) FROM all_features WHERE source = 'file:spotify-json'") >= 4)
        }
    }
}
