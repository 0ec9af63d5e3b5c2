import Foundation
import GRDB
import Ingest
import SpotifyTestSupport
import SpotifyWebAPI
import Testing
import VibesTestSupport

/// A signed-in session for the fake Spotify and the environment that points the tool at the fakes.
func signedInToolEnvironment(
    directory: String,
    spotify: FakeSpotify,
    reccoBeatsURL: URL,
    scopes: [String] = ["user-library-read", "playlist-read-private"]
) async throws -> [String: String] {
    let (access, refresh) = await spotify.state.issueTokens()
    try await TokenStore(path: directory + "/config/vibes-analyze/spotify-session.json", accounts: nil).save(
        SpotifySession(
            accessToken: access,
            refreshToken: refresh,
            expiresAt: Date().addingTimeInterval(3600),
            scopes: scopes,
            grant: .authorizationCodePKCE,
            clientID: "fake-client-id",
            userID: "wizzler",
            userName: "JM Wizzler"
        )
    )
    return [
        "XDG_CONFIG_HOME": directory + "/config", "HOME": directory, "SPOTIFY_CLIENT_ID": "fake-client-id",
        "VIBES_HTTP_TIMEOUT": String(loopbackTimeout),
        "VIBES_SPOTIFY_API_URL": spotify.apiBaseURL.absoluteString,
        "VIBES_SPOTIFY_ACCOUNTS_URL": spotify.accountsBaseURL.absoluteString,
        "VIBES_RECCOBEATS_API_URL": reccoBeatsURL.absoluteString,
        "VIBES_DB": directory + "/library.sqlite",
    ]
}

/// The path a new user takes, through the built tool: a Spotify app that gets 403 on audio
/// features, ReccoBeats beside it, one `sync`, then the analyses.
struct FeaturesCommandTests {
    private func strings(_ sql: String, in path: String) throws -> Set<String> {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        return Set(try queue.read { db in try String.fetchAll(db, sql: sql) })
    }

    private func count(_ sql: String, in path: String) throws -> Int {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        return try queue.read { db in try Int.fetchOne(db, sql: sql)! }
    }

    @Test func oneSyncMakesANewAppsLibraryUsable() async throws {
        try await withTemporaryDirectory { directory in
            try await FakeSpotify.withServer { spotify in
                try await FakeReccoBeats.withServer { recco in
                    await spotify.state.setSavedTrackCount(120)
                    await spotify.state.addPlaylist(name: "Road trip", trackCount: 40)
                    await spotify.state.configure { $0.audioFeaturesForbidden = true }
                    await recco.state.configure { $0.knownPercent = 95 }
                    let env = try await signedInToolEnvironment(
                        directory: directory,
                        spotify: spotify,
                        reccoBeatsURL: recco.baseURL
                    )

                    let sync = try await runTool(["sync"], environment: env)
                    #expect(sync.exitCode == 0, "\(sync.stderr)")
                    #expect(sync.stdout.contains("Audio features:") && sync.stdout.contains("reccobeats"))
                    #expect(sync.stdout.contains("Spotify's /audio-features is closed to this app"))

                    let status = try await runTool(["features", "status", "--json"], environment: env)
                    #expect(status.exitCode == 0, "\(status.stderr)")
                    let decoded = try JSONDecoder().decode(FeatureStatus.self, from: Data(status.stdout.utf8))
                    #expect(Double(decoded.withFeatures) >= 0.9 * Double(decoded.tracks), "\(decoded)")
                    let reccobeats = try #require(decoded.sources.first { $0.source == "reccobeats" })
                    #expect(reccobeats.preferred == decoded.withFeatures)
                    #expect(decoded.missing.notFound == decoded.tracks - decoded.withFeatures)
                    let text = try await runTool(["features", "status"], environment: env)
                    #expect(text.stdout.contains("Road trip") && text.stdout.contains("not found at a provider"))
                    #expect(text.stdout.contains("not found at reccobeats (last asked "))

                    let cluster = try await runTool(["cluster", "--k", "4", "--seed", "7"], environment: env)
                    #expect(cluster.exitCode == 0, "\(cluster.stderr)")
                    let recommend = try await runTool(["recommend", "--mood", "chill", "-n", "5"], environment: env)
                    #expect(recommend.exitCode == 0, "\(recommend.stderr)")
                    #expect(recommend.stdout.split(separator: "\n").count >= 5)
                    let report = try await runTool(
                        ["report", "--format", "html", "--out", directory + "/report.html"],
                        environment: env
                    )
                    #expect(report.exitCode == 0, "\(report.stderr)")
                    let html = String(
                        decoding: FileManager.default.contents(atPath: directory + "/report.html") ?? Data(),
                        as: UTF8.self
                    )
                    #expect(html.contains("reccobeats"))
                    let library = try await runTool(["library"], environment: env)
                    #expect(library.stdout.contains("reccobeats"))
                }
            }
        }
    }

    @Test func aSyncWithReccoBeatsDownLandsAndFeaturesFetchRetries() async throws {
        try await withTemporaryDirectory { directory in
            try await FakeSpotify.withServer { spotify in
                await spotify.state.setSavedTrackCount(45)
                await spotify.state.configure { $0.audioFeaturesForbidden = true }
                var env = try await signedInToolEnvironment(
                    directory: directory,
                    spotify: spotify,
                    reccoBeatsURL: try FakeReccoBeats.unreachableBaseURL()
                )
                let sync = try await runTool(["sync", "--saved", "--audio-features"], environment: env)
                #expect(sync.exitCode == 0, "\(sync.stderr)")
                #expect(sync.stdout.contains("Audio features:  0 of 45 fetched"))
                #expect(sync.stdout.contains("ReccoBeats unreachable") && sync.stdout.contains("features fetch"))
                #expect(try count("SELECT count(*) FROM saved_tracks", in: directory + "/library.sqlite") == 45)

                try await FakeReccoBeats.withServer { recco in
                    env["VIBES_RECCOBEATS_API_URL"] = recco.baseURL.absoluteString
                    let fetch = try await runTool(["features", "fetch", "--source", "reccobeats"], environment: env)
                    #expect(fetch.exitCode == 0, "\(fetch.stderr)")
                    #expect(fetch.stdout.contains("Features: 45 of 45 fetched; 0 still missing."))
                    #expect(await recco.state.requests.map(\.ids.count) == [40, 5])
                }
            }
        }
    }

    @Test func aFailedPartIsNamedAndTheExitStatusIsOne() async throws {
        try await withTemporaryDirectory { directory in
            try await FakeSpotify.withServer { spotify in
                try await FakeReccoBeats.withServer { recco in
                    await spotify.state.setSavedTrackCount(20)
                    await spotify.state.configure { $0.audioFeaturesForbidden = true }
                    await spotify.state.inject(
                        .status(404, message: "Service not found"),
                        on: "/v1/me/top/artists",
                        times: 3
                    )
                    let env = try await signedInToolEnvironment(
                        directory: directory,
                        spotify: spotify,
                        reccoBeatsURL: recco.baseURL
                    )
                    let sync = try await runTool(["sync"], environment: env)
                    #expect(sync.exitCode == 1)
                    #expect(sync.stdout.contains("Failed: top: Spotify answered 404 to GET /v1/me/top/artists"))
                    #expect(sync.stdout.contains("Saved tracks:    20 new"))
                    #expect(sync.stdout.contains("Audio features:") && sync.stdout.contains("(reccobeats "))
                    #expect(!sync.stderr.contains("USAGE"))
                }
            }
        }
    }

    @Test func ctrlCKeepsFinishedBatchesAndARerunResumes() async throws {
        try await withTemporaryDirectory { directory in
            try await FakeSpotify.withServer { spotify in
                try await FakeReccoBeats.withServer { recco in
                    await spotify.state.setSavedTrackCount(200)
                    let env = try await signedInToolEnvironment(
                        directory: directory,
                        spotify: spotify,
                        reccoBeatsURL: recco.baseURL
                    )
                    let sync = try await runTool(["sync", "--saved"], environment: env)
                    #expect(sync.exitCode == 0, "\(sync.stderr)")
                    await recco.state.configure { $0.responseDelay = .milliseconds(400) }

                    let process = Process()
                    process.executableURL = URL(fileURLWithPath: CommandLineTool.executablePath)
                    process.arguments = ["features", "fetch", "--source", "reccobeats", "--quiet"]
                    process.environment = env
                    process.standardOutput = FileHandle.nullDevice
                    process.standardError = FileHandle.nullDevice
                    let exited = AsyncStream<Void>.makeStream()
                    process.terminationHandler = { _ in exited.continuation.finish() }
                    try process.run()
                    let database = directory + "/library.sqlite"
                    var stored = 0
                    let deadline = ContinuousClock.now + .seconds(loopbackTimeout)
                    while stored == 0, ContinuousClock.now < deadline {
                        try await Task.sleep(for: .milliseconds(20))
                        stored = (try? count("SELECT count(*) FROM audio_features", in: database)) ?? 0
                    }
                    process.interrupt()  // SIGINT, as Ctrl-C sends
                    for await _ in exited.stream {}  // waits without blocking a thread
                    #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGINT)
                    let kept = try count("SELECT count(*) FROM audio_features", in: database)
                    #expect(kept > 0 && kept < 200 && kept % 40 == 0, "\(kept)")
                    let keptIDs = try strings(
                        "SELECT t.spotify_id FROM audio_features f JOIN tracks t ON t.id = f.track_id",
                        in: database
                    )

                    await recco.state.configure { $0.responseDelay = .zero }
                    // The request the interrupted process had in flight is recorded after its delay,
                    // later still on a loaded host; its tracks were not stored, so the rerun may ask
                    // for them again, but never for a track that was kept.
                    try await Task.sleep(for: .milliseconds(800))
                    let asked = await recco.state.requests.count
                    let rerun = try await runTool(["features", "fetch", "--source", "reccobeats"], environment: env)
                    #expect(rerun.exitCode == 0, "\(rerun.stderr)")
                    #expect(try count("SELECT count(*) FROM audio_features", in: database) == 200)
                    let resumed = await recco.state.requests.dropFirst(asked).flatMap(\.ids)
                    #expect(Set(resumed).isDisjoint(with: keptIDs), "a kept track was fetched again")
                    #expect(Set(resumed).count >= 200 - kept && resumed.count <= 200 - kept + 40, "\(resumed.count)")
                }
            }
        }
    }

    @Test func referenceTracksStayOutOfTheVibesButCanBeRecommended() async throws {
        try await withTemporaryDirectory { directory in
            let env = ["VIBES_DB": directory + "/library.sqlite", "HOME": directory]
            let imported = try await runTool(["import", "--reference", SampleLibrary.path], environment: env)
            #expect(imported.exitCode == 0, "\(imported.stderr)")
            let library = try await runTool(["library"], environment: env)
            #expect(library.stdout.contains("in your library 0; reference pool "))
            let cluster = try await runTool(["cluster", "--k", "3"], environment: env)
            #expect(cluster.exitCode != 0)
            let everything = try await runTool(["cluster", "--k", "3", "--from", "all", "--quiet"], environment: env)
            #expect(everything.exitCode == 0, "\(everything.stderr)")
            let recommend = try await runTool(["recommend", "--mood", "chill", "-n", "3"], environment: env)
            #expect(recommend.exitCode == 0, "\(recommend.stderr)")
            let mine = try await runTool(
                ["recommend", "--mood", "chill", "-n", "3", "--from", "library"],
                environment: env
            )
            #expect(mine.exitCode != 0 && mine.stderr.contains("no tracks with audio features"))
        }
    }

    @Test func aBadPrecedenceIsAUsageError() async throws {
        try await withTemporaryDirectory { directory in
            let env = ["VIBES_DB": directory + "/library.sqlite", "HOME": directory]
            let bad = try await runTool(["features", "precedence", "reccobeats,dataset"], environment: env)
            #expect(bad.exitCode == 64 && bad.stderr.contains("leaves out"))
            let good = try await runTool(
                ["features", "precedence", "reccobeats,spotify-api=export,dataset,local"],
                environment: env
            )
            #expect(good.exitCode == 0 && good.stdout.contains("reccobeats,spotify-api=export,dataset,local"))
        }
    }
}
