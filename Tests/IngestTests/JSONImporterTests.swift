import Foundation
import GRDB
import Testing
import VibesTestSupport

@testable import Ingest

struct JSONImporterTests {
    @Test func streamingHistoryPlaysAreLinkedToLibraryTracksByArtistAndTitle() throws {
        try withStore { store in
            let history = try store.importFile(at: Fixtures.path("json/StreamingHistory0.json"))
            #expect(history.format == .streamingHistory)
            #expect(history.playsNew == 40)
            #expect(history.playsMatched == 0)  // no tracks yet
            let library = try store.importFile(at: Fixtures.path("json/YourLibrary.json"))
            #expect(library.format == .yourLibrary)
            #expect(library.savedTracks == 40)
            // The fixture README: 25 of the 40 plays are of tracks in the library excerpt.
            #expect(library.playsMatched == 25)
            #expect(try count(store, "SELECT count(*) FROM plays WHERE track_id IS NOT NULL") == 25)
            // endTime is minute precision UTC: "2021-04-22 05:41" → "2021-04-22T05:41:00Z".
            let first = try store.database.read { db in try String.fetchOne(db, sql: "SELECT min(played_at) FROM plays")
            }
            #expect(first?.count == 20)
            #expect(first?.hasSuffix(":00Z") == true)
        }
    }

    @Test func extendedHistoryKeepsSkipsAndReasonsAndLeavesOutEpisodes() throws {
        try withStore { store in
            let summary = try store.importFile(at: Fixtures.path("json/Streaming_History_Audio_2023-2024_0.json"))
            #expect(summary.format == .extendedHistory)
            #expect(summary.playsNew == 3)
            #expect(summary.notes.contains { $0.hasPrefix("1 plays of podcast episodes") })
            #expect(try count(store, "SELECT count(*) FROM plays WHERE skipped = 1 AND reason_end = 'fwdbtn'") == 1)
            // Plays with a track URI create (or find) the track and link to it.
            #expect(try count(store, "SELECT count(*) FROM plays WHERE track_id IS NOT NULL") == 3)
            #expect(try count(store, "SELECT count(*) FROM tracks WHERE spotify_id = '0r7CVbZTWZgbTCYdfa2P31'") == 1)
        }
    }

    @Test func accountPlaylistsKeepTheirOrder() throws {
        try withStore { store in
            let summary = try store.importFile(at: Fixtures.path("json/Playlist1.json"))
            #expect(summary.format == .accountPlaylists)
            #expect(summary.playlists == 3)
            let data = Fixtures.data("json/Playlist1.json")
            let export = try JSONDecoder().decode(JSONImporter.AccountPlaylists.self, from: data)
            for playlist in export.playlists {
                let names = try store.database.read { db in
                    try String.fetchAll(
                        db,
                        sql:
                            "SELECT t.name FROM playlist_items pi JOIN playlists p ON p.id = pi.playlist_id JOIN tracks t ON t.id = pi.track_id WHERE p.name = ? ORDER BY pi.position",
                        arguments: [playlist.name]
                    )
                }
                #expect(names == playlist.items.compactMap { $0.track?.trackName })
            }
        }
    }

    @Test func spotifyAPIResponsesImportFeaturesSavedTracksAndLocalFiles() throws {
        try withStore { store in
            let features = try store.importFile(at: Fixtures.path("spotify/get-audio-features-several.json"))
            #expect(features.format == .spotifyJSON)
            #expect(features.featuresWritten == 3)
            #expect(
                try count(
                    store,
                    "SELECT count(*) FROM all_features WHERE source = 'file:spotify-json' AND time_signature = 3"
                ) == 1
            )
            let saved = try store.importFile(at: Fixtures.path("spotify/get-me-tracks.json"))
            #expect(saved.savedTracks == 1)
            let local = try store.importFile(at: Fixtures.path("json/get-playlist-local-songs.json"))
            #expect(local.playlists == 1)
            #expect(try count(store, "SELECT count(*) FROM tracks WHERE is_local = 1 AND spotify_id IS NULL") > 0)
        }
    }

    @Test func malformedJSONNamesTheFieldAndChangesNothing() throws {
        try withTemporaryDirectory { folder in
            let store = try LibraryStore(path: folder + "/library.sqlite")
            let path = folder + "/StreamingHistory1.json"
            try Data(
                #"[{"endTime":"2021-04-22 05:41","artistName":"A","trackName":"B","msPlayed":1},{"endTime":"yesterday","artistName":"A","trackName":"C","msPlayed":2}]"#
                    .utf8
            )
            .write(to: URL(fileURLWithPath: path))
            let before = try contentSnapshot(store)
            let error = try #require(throws: ImportError.self) { try store.importFile(at: path) }
            #expect(error.field == "[1].endTime")
            #expect(error.message.contains("expected a time as \"YYYY-MM-DD HH:MM\""))
            #expect(try contentSnapshot(store) == before)

            let truncated = folder + "/StreamingHistory2.json"
            try Data(#"[{"endTime":"2021-04-22 05:41","artistName":"A","trackName":"B","msPlayed":"#.utf8).write(
                to: URL(fileURLWithPath: truncated)
            )
            let syntax = try #require(throws: ImportError.self) {
                try store.importFile(at: truncated, options: ImportOptions(format: .streamingHistory))
            }
            #expect(syntax.message.hasPrefix("the JSON is truncated at byte 75 (it ends inside an object)"))
        }
    }
}
