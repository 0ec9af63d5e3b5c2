import Foundation
import Ingest
import SpotifyTestSupport
import SpotifyWebAPI
import Testing
import VibesEngine
import VibesTestSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How `playlist push` is invoked: nested under the `playlist` group, next to `playlist build`.
let pushCommand = ["playlist", "push"]

struct SpotifyCommandsTests {
    // MARK: - End to end: the built tool against the fake Spotify

    @Test func loginThroughTheLoopbackServerOfTheBuiltTool() async throws {
        try await withTemporaryDirectory { directory in
            try await FakeSpotify.withServer { fake in
                let environment = [
                    "XDG_CONFIG_HOME": directory + "/config", "HOME": directory, "SPOTIFY_CLIENT_ID": "fake-client-id",
                    "VIBES_HTTP_TIMEOUT": String(loopbackTimeout),
                    "VIBES_SPOTIFY_API_URL": fake.apiBaseURL.absoluteString,
                    "VIBES_SPOTIFY_ACCOUNTS_URL": fake.accountsBaseURL.absoluteString,
                ]
                let base = directory + "/login"
                async let run = runTool(
                    ["auth", "login", "--port", "0", "--timeout", String(Int(loopbackTimeout))],
                    environment: environment,
                    base: base
                )
                // Play the browser: wait for the printed URL, then follow it through the fake's consent page.
                var authorizeURL: URL?
                let deadline = ContinuousClock.now + .seconds(loopbackTimeout)
                while authorizeURL == nil, ContinuousClock.now < deadline {
                    let text = String(
                        decoding: FileManager.default.contents(atPath: base + ".err") ?? Data(),
                        as: UTF8.self
                    )
                    authorizeURL = text.split(separator: "\n").first { $0.contains("/accounts/authorize?") }
                        .flatMap { URL(string: $0.trimmingCharacters(in: .whitespaces)) }
                    if authorizeURL == nil { try await Task.sleep(for: .milliseconds(20)) }
                }
                let (data, _) = try await URLSession(configuration: .loopback).data(from: try #require(authorizeURL))
                #expect(String(decoding: data, as: UTF8.self).contains("You can close this tab"))
                let login = try await run
                #expect(login.exitCode == 0, "\(login.stderr)")
                #expect(login.stdout.contains("Signed in as JM Wizzler (wizzler)."))
                #expect(login.stderr.contains("Waiting for the redirect to http://127.0.0.1:"))
                let sessionPath = directory + "/config/vibes-analyze/spotify-session.json"
                let mode = try FileManager.default.attributesOfItem(atPath: sessionPath)[.posixPermissions] as? NSNumber
                #expect(mode?.intValue == 0o600)
                for token in await fake.state.issuedTokens {
                    #expect(!(login.stdout + login.stderr).contains(token))
                }
            }
        }
    }

    @Test func aDamagedSessionFileIsNamedAndTheCLIGivesTheAdvice() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory + "/config/vibes-analyze"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try Data("{\"access_token\": tru".utf8).write(to: URL(fileURLWithPath: folder + "/spotify-session.json"))
            let environment = [
                "XDG_CONFIG_HOME": directory + "/config", "HOME": directory, "SPOTIFY_CLIENT_ID": "fake-client-id",
            ]
            let status = try await runTool(["auth", "status"], environment: environment)
            #expect(status.exitCode == 1)
            #expect(status.stderr.contains("the session file \(folder)/spotify-session.json is damaged"))
            #expect(status.stderr.contains("Run `vibes-analyze auth login` to sign in again."))
            // The library's own text gives no command-line advice.
            do {
                _ = try await TokenStore(path: folder + "/spotify-session.json", accounts: nil).session()
                Issue.record("a damaged session loaded")
            } catch {
                #expect(!"\(error)".contains("auth login"))
            }
        }
    }

    @Test func statusSyncAndPushThroughTheBuiltTool() async throws {
        try await withTemporaryDirectory { directory in
            try await FakeSpotify.withServer { fake in
                await fake.state.setSavedTrackCount(60)
                await fake.state.addPlaylist(name: "Road trip", trackCount: 12)
                let sessionPath = directory + "/config/vibes-analyze/spotify-session.json"
                let environment = try await signedInToolEnvironment(
                    directory: directory,
                    spotify: fake,
                    reccoBeatsURL: try FakeReccoBeats.unreachableBaseURL(),
                    scopes: ["playlist-modify-private", "user-library-read"]
                )

                let status = try await runTool(["auth", "status"], environment: environment)
                #expect(status.exitCode == 0)
                #expect(status.stdout.contains("Signed in as JM Wizzler (wizzler)."))
                #expect(status.stdout.contains("Scopes:        playlist-modify-private user-library-read"))

                await fake.state.inject(.rateLimited(retryAfter: "1"), on: "/v1/me/tracks")
                let sync = try await runTool(["sync", "--saved", "--playlists", "--verbose"], environment: environment)
                #expect(sync.exitCode == 0, "\(sync.stderr)")
                #expect(sync.stdout.contains("Saved tracks:    60 new"))
                #expect(sync.stdout.contains("Playlists:       1 updated"))
                #expect(
                    sync.stderr.contains("Spotify's rate limit: waiting 1.0 s before attempt 2 of GET /v1/me/tracks.")
                )
                #expect(sync.stderr.contains("Saved tracks: 60 of 60 checked"))

                let push = try await runTool(pushCommand + ["Road trip", "--json"], environment: environment)
                #expect(push.exitCode == 0, "\(push.stderr)")
                #expect(push.stdout.contains("\"item_count\" : 12"))
                let pushedID = try #require(await fake.state.writtenItems.keys.first)
                #expect(await fake.state.writtenItems[pushedID]?.count == 12)
                let again = try await runTool(pushCommand + ["Road trip"], environment: environment)
                #expect(again.stdout.contains("Replaced \"Road trip\" with 12 tracks"))

                await fake.state.revokeRefreshTokens()
                await fake.state.expireAccessTokens()
                let revoked = try await runTool(["sync", "--saved"], environment: environment)
                #expect(revoked.exitCode == 1)
                #expect(revoked.stderr.contains("Run `vibes-analyze auth login` again."))
                #expect(!FileManager.default.fileExists(atPath: sessionPath))

                let everything = [status, sync, push, again, revoked].map { $0.stdout + $0.stderr }.joined()
                for token in await fake.state.issuedTokens {
                    #expect(!everything.contains(token))
                }
                let logout = try await runTool(["auth", "logout"], environment: environment)
                #expect(logout.stdout.contains("Not signed in; nothing to remove."))
            }
        }
    }
}

/// The output of one run of the built `vibes-analyze`.
struct ToolRun: Sendable {
    var exitCode: Int32
    var stdout: String
    var stderr: String
}

/// Runs the built `vibes-analyze` with `arguments` and only `environment` (plus a `PATH`).
///
/// - Parameter base: The path the output files start with (`.out`, `.err`), so a test can watch
///   stderr while the tool runs.
func runTool(
    _ arguments: [String],
    environment: [String: String],
    base: String = NSTemporaryDirectory() + "vibes-tool-" + UUID().uuidString
) async throws -> ToolRun {
    let result = try await CommandLineTool.run(
        arguments,
        environment: environment.merging(["PATH": "/usr/bin:/bin"]) { first, _ in first },
        inheritsEnvironment: false,
        outputBase: base
    )
    return ToolRun(exitCode: result.status, stdout: result.stdout, stderr: result.stderr)
}
