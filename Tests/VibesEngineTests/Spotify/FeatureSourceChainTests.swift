import Features
import Foundation
import GRDB
import SpotifyTestSupport
import SpotifyWebAPI
import Testing
import VibesEngine
import VibesHTTP
import VibesTestSupport

@testable import Ingest

/// The feature-source chain inside `sync`, library and reference tracks, precedence, and saved
/// ReccoBeats answers as files, on real SQLite files and loopback fakes.
struct FeatureSourceChainTests {
    private func count(_ sql: String, in store: LibraryStore) throws -> Int {
        try store.database.read { db in try Int.fetchOne(db, sql: sql)! }
    }

    @Test func oneSyncFillsANewAppsLibraryFromReccoBeats() async throws {
        try await withTemporaryDirectory { directory in
            try await FakeSpotify.withServer { spotify in
                try await FakeReccoBeats.withServer { recco in
                    await spotify.state.setSavedTrackCount(150)
                    await spotify.state.addPlaylist(name: "Mixed", trackCount: 60, localFiles: 1)
                    await spotify.state.configure { $0.audioFeaturesForbidden = true }
                    await recco.state.configure { $0.knownPercent = 95 }
                    let store = try LibraryStore(path: directory + "/library.sqlite")
                    let signedIn = try await makeSignedInClient(spotify)
                    let sync = SpotifySync(
                        client: signedIn.client,
                        store: store,
                        featureProviders: [ReccoBeatsProvider(client: ReccoBeatsTests.client(recco))]
                    )
                    let report = try await sync.run(.all)

                    #expect(report.audioFeaturesForbidden)
                    let features = try #require(report.features)
                    let reccobeats = try #require(features.providers.last)
                    #expect(reccobeats.source == "reccobeats" && reccobeats.found > 0)
                    let catalogue = try count("SELECT count(*) FROM tracks WHERE is_local = 0", in: store)
                    let covered = try count(
                        "SELECT count(*) FROM current_features WHERE source = 'reccobeats'",
                        in: store
                    )
                    #expect(Double(covered) >= 0.9 * Double(catalogue), "\(covered) of \(catalogue)")
                    #expect(features.remaining == catalogue - covered)
                    // Stored values are the provider's numbers.
                    let sample = try await store.database.read { db in
                        try Row.fetchAll(
                            db,
                            sql: """
                                SELECT t.spotify_id, f.energy, f.tempo, f.key FROM tracks t
                                JOIN all_features f ON f.track_id = t.id AND f.source = 'reccobeats' LIMIT 25
                                """
                        )
                    }
                    for row in sample {
                        let values = FakeReccoBeatsState.values(for: row[0])
                        #expect(row[1] as Double == values["energy"] && row[2] as Double == values["tempo"])
                        #expect(Double(row[3] as Int) == values["key"])
                    }
                    // What sync must keep: ISRC, duration, artist IDs, genres as tags. (The fake's albums
                    // carry no release date; `SpotifyTrackObject.track` keeps one when present.)
                    #expect(
                        try count("SELECT count(*) FROM tracks WHERE is_local = 0 AND isrc IS NULL", in: store) == 0
                    )
                    #expect(
                        try count("SELECT count(*) FROM tracks WHERE is_local = 0 AND duration_ms IS NULL", in: store)
                            == 0
                    )
                    #expect(try count("SELECT count(*) FROM artists WHERE spotify_id IS NOT NULL", in: store) > 0)
                    #expect(report.artistsWithGenres > 0 && report.genreTagsAdded > 0)
                    #expect(
                        try count(
                            "SELECT count(*) FROM track_tags tt JOIN tags t ON t.id = tt.tag_id JOIN sources s ON s.id = tt.source_id WHERE t.kind = 'artist-genre' AND s.key = 'spotify-api'",
                            in: store
                        ) > 0
                    )
                    let artistRequests = await spotify.state.requests(to: "/v1/artists")
                    #expect(artistRequests.allSatisfy { ($0.query["ids"] ?? "").split(separator: ",").count <= 50 })

                    // The status explains the rest; a second sync asks nothing again.
                    let status = try store.featureStatus()
                    #expect(status.missing.notFound == catalogue - covered && status.missing.noSource == 1)
                    #expect(status.playlists.contains { $0.name == "Mixed" })
                    let before = await recco.state.requests.count
                    let second = try await sync.run(.all)
                    #expect(second.features?.fetched == 0)
                    #expect(await recco.state.requests.count == before)
                    #expect(await spotify.state.requests(to: "/v1/artists").count == artistRequests.count)
                }
            }
        }
    }

    @Test func aSyncLandsWhenReccoBeatsIsDown() async throws {
        try await withTemporaryDirectory { directory in
            try await FakeSpotify.withServer { spotify in
                await spotify.state.setSavedTrackCount(30)
                await spotify.state.configure { $0.audioFeaturesForbidden = true }
                let store = try LibraryStore(path: directory + "/library.sqlite")
                let signedIn = try await makeSignedInClient(spotify)
                let down = ReccoBeatsClient(
                    baseURL: try FakeReccoBeats.unreachableBaseURL(),
                    networking: ClientNetworking(
                        network: URLSessionTransport(timeout: 5),
                        retryPolicy: RetryPolicy(maxAttempts: 2, usesJitter: false),
                        clock: TestClock()
                    )
                )
                let sync = SpotifySync(
                    client: signedIn.client,
                    store: store,
                    featureProviders: [ReccoBeatsProvider(client: down)]
                )
                let report = try await sync.run(.all)
                #expect(report.savedTracksAdded == 30)
                let failure = try #require(report.features?.failures.first)
                let catalogue = try count("SELECT count(*) FROM tracks WHERE is_local = 0", in: store)
                #expect(failure.unreachable && report.features?.remaining == catalogue && catalogue >= 30)
                #expect(try count("SELECT count(*) FROM saved_tracks", in: store) == 30)
            }
        }
    }

    @Test func referenceTracksAreCandidatesOnlyUntilTheLibraryMeetsThem() async throws {
        try await withTemporaryDirectory { directory in
            let store = try LibraryStore(path: directory + "/library.sqlite")
            let reference = try store.importFile(
                at: Fixtures.path("csv/tidytuesday-excerpt.csv"),
                options: ImportOptions(isReference: true)
            )
            let all = try store.featureTable(scope: .all)
            #expect(all.rowCount == reference.tracksNew && all.rowCount > 0)
            #expect(try store.featureTable(scope: .library).rowCount == 0)
            #expect(try store.summary().referenceTracks == reference.tracksNew)

            // The same tracks in a file without --reference join the library.
            _ = try store.importFile(
                at: Fixtures.path("csv/tidytuesday-excerpt.csv"),
                options: ImportOptions(format: .exportify, force: true)
            )
            #expect(try store.featureTable(scope: .library).rowCount == all.rowCount)
            #expect(try store.summary().referenceTracks == 0)

            // A playlist scope reads only that playlist.
            let playlist = try #require(
                try store.database.read { db in try String.fetchOne(db, sql: "SELECT name FROM playlists LIMIT 1") }
            )
            let scoped = try store.featureTable(scope: .playlist(playlist))
            #expect(scoped.rowCount > 0 && scoped.rowCount <= all.rowCount)
            #expect(throws: TrackScopeError.unknownPlaylist(name: "No such playlist")) {
                try store.featureTable(scope: .playlist("No such playlist"))
            }
        }
    }

    @Test func precedenceDecidesWhichSourceAnalysesUse() async throws {
        try await withTemporaryDirectory { directory in
            let store = try LibraryStore(path: directory + "/library.sqlite")
            _ = try store.importFile(at: Fixtures.path("csv/tidytuesday-excerpt.csv"))
            let tracks = try count("SELECT count(*) FROM tracks", in: store)
            let json = directory + "/reccobeats.json"
            let ids = try await store.database.read { db in
                try String.fetchAll(db, sql: "SELECT spotify_id FROM tracks")
            }
            let items = ids.map { id -> [String: Any] in
                [
                    "id": UUID().uuidString.lowercased(), "href": "https://open.spotify.com/track/\(id)",
                    "isrc": "USUM72104140",
                    "energy": 0.123, "valence": 0.5, "danceability": 0.5, "acousticness": 0.1, "instrumentalness": 0,
                    "liveness": 0.1, "loudness": -7.0, "speechiness": 0.05, "tempo": 120.0, "key": -1, "mode": 1,
                ]
            }
            try JSONSerialization.data(withJSONObject: ["content": items]).write(to: URL(fileURLWithPath: json))

            let summary = try store.importFile(at: json)
            #expect(summary.format == .reccoBeatsJSON && summary.featuresWritten == tracks && summary.tracksNew == 0)
            #expect(
                try count(
                    "SELECT count(*) FROM all_features WHERE source = 'reccobeats' AND time_signature IS NULL",
                    in: store
                ) == tracks
            )
            // By default ReccoBeats (Spotify's current numbers) ranks above a dataset.
            #expect(try count("SELECT count(*) FROM current_features WHERE source = 'reccobeats'", in: store) == tracks)

            try store.setFeatureSourcePrecedence(
                try FeatureSourcePrecedence(parsing: "dataset,spotify-api=export=reccobeats,local")
            )
            #expect(
                try count("SELECT count(*) FROM current_features WHERE source = 'file:features-csv'", in: store)
                    == tracks
            )
            #expect(try store.featureSourcePrecedence().description == "dataset,spotify-api=export=reccobeats,local")
            #expect(try store.featureStatus().sources.first { $0.source == "file:features-csv" }?.preferred == tracks)

            try store.setFeatureSourcePrecedence(.default)
            #expect(try count("SELECT count(*) FROM current_features WHERE source = 'reccobeats'", in: store) == tracks)
        }
    }

    @Test(arguments: [
        ("reccobeats,dataset,local", "leaves out"), ("spotify-api=export=reccobeats,dataset,local,local", "twice"),
        ("spotify,export,reccobeats,dataset,local", "not a feature source"),
    ])
    func badPrecedenceTextsSayWhatIsWrong(text: String, phrase: String) {
        #expect {
            _ = try FeatureSourcePrecedence(parsing: text)
        } throws: { error in
            String(describing: error).contains(phrase)
        }
    }
}
