import Foundation
import Ingest
import SpotifyTestSupport
import SpotifyWebAPI
import Testing
import VibesTestSupport

/// The 2026 development-mode rules through the built tool: search pages of 10, named missing
/// scopes, the developer quota, and a sync that plans and keeps to a request budget.
@Suite(.serialized, .timeLimit(.minutes(10)))
struct Spotify2026CommandTests {
    /// A signed-in environment whose tokens carry only `scopes`.
    static func environment(directory: String, fake: FakeSpotify, scopes: Set<String>) async throws -> [String: String]
    {
        let (access, refresh) = await fake.state.issueTokens(scopes: scopes)
        try await TokenStore(path: directory + "/config/vibes-analyze/spotify-session.json", accounts: nil).save(
            SpotifySession(
                accessToken: access,
                refreshToken: refresh,
                expiresAt: Date().addingTimeInterval(3600),
                scopes: scopes.sorted(),
                grant: .authorizationCodePKCE,
                clientID: "fake-client-id",
                userID: "wizzler",
                userName: "JM Wizzler"
            )
        )
        return [
            "XDG_CONFIG_HOME": directory + "/config", "HOME": directory, "SPOTIFY_CLIENT_ID": "fake-client-id",
            "VIBES_HTTP_TIMEOUT": String(loopbackTimeout),
            "VIBES_SPOTIFY_API_URL": fake.apiBaseURL.absoluteString,
            "VIBES_SPOTIFY_ACCOUNTS_URL": fake.accountsBaseURL.absoluteString,
            "VIBES_RECCOBEATS_API_URL": try FakeReccoBeats.unreachableBaseURL().absoluteString,
            "VIBES_DB": directory + "/library.sqlite",
        ]
    }

    @Test func searchAsksInPagesOfTen() async throws {
        try await withTemporaryDirectory { directory in
            try await FakeSpotify.withServer { fake in
                await fake.state.configure { $0.searchResultCount = 40 }
                let environment = try await Self.environment(directory: directory, fake: fake, scopes: [])
                let search = try await runTool(
                    ["search", "night", "--limit", "25", "--json"],
                    environment: environment
                )
                #expect(search.exitCode == 0, "\(search.stderr)")
                let object = try JSONSerialization.jsonObject(with: Data(search.stdout.utf8)) as? [String: Any]
                #expect((object?["items"] as? [Any])?.count == 25)
                #expect(await fake.state.requests(to: "/v1/search").map { $0.query["limit"] } == ["10", "10", "5"])
            }
        }
    }

    @Test func devicesAndPlayNameTheMissingScopeAndHowToAddIt() async throws {
        try await withTemporaryDirectory { directory in
            try await FakeSpotify.withServer { fake in
                let environment = try await Self.environment(
                    directory: directory,
                    fake: fake,
                    scopes: ["user-library-read", "playlist-read-private"]
                )
                let devices = try await runTool(["devices"], environment: environment)
                #expect(devices.exitCode == 1)
                #expect(devices.stderr.contains("lacks the scope user-read-playback-state"), "\(devices.stderr)")
                #expect(
                    devices.stderr.contains("vibes-analyze auth login --scope user-read-playback-state"),
                    "\(devices.stderr)"
                )
                let play = try await runTool(["play"], environment: environment)
                #expect(play.exitCode == 1)
                #expect(play.stderr.contains("lacks the scope user-modify-playback-state"), "\(play.stderr)")
                #expect(await fake.state.player.isPlaying == false)
            }
        }
    }

    @Test func theQuotaStopsASyncWithItsResetTimeAndWhatWasSaved() async throws {
        try await withTemporaryDirectory { directory in
            try await FakeSpotify.withServer { fake in
                await fake.state.setSavedTrackCount(120)
                let environment = try await Self.environment(
                    directory: directory,
                    fake: fake,
                    scopes: FakeSpotifyState.allScopes
                )
                await fake.state.setQuota(2)
                let started = Date()
                let sync = try await runTool(["sync", "--saved"], environment: environment)
                #expect(sync.exitCode == 1)
                #expect(sync.stderr.contains("quota for this app's developer account is used up"), "\(sync.stderr)")
                #expect(sync.stderr.contains("resets in 4 h"), "\(sync.stderr)")
                #expect(sync.stderr.contains("100 saved tracks"), "\(sync.stderr)")
                #expect(!sync.stderr.contains("rate limit stopped"), "\(sync.stderr)")
                #expect(Date().timeIntervalSince(started) < 60)  // not waited out
                await fake.state.setQuota(nil)
                let resumed = try await runTool(["sync", "--saved", "--json"], environment: environment)
                #expect(resumed.exitCode == 0, "\(resumed.stderr)")
                let report = try JSONSerialization.jsonObject(with: Data(resumed.stdout.utf8)) as? [String: Any]
                #expect(report?["saved_tracks_added"] as? Int == 20)
            }
        }
    }

    @Test func syncPlansItsRequestsAndStopsAtABudget() async throws {
        try await withTemporaryDirectory { directory in
            try await FakeSpotify.withServer { fake in
                await fake.state.setSavedTrackCount(120)
                await fake.state.addPlaylist(name: "Road trip", trackCount: 40)
                let environment = try await Self.environment(
                    directory: directory,
                    fake: fake,
                    scopes: FakeSpotifyState.allScopes
                )
                let plan = try await runTool(["sync", "--saved", "--playlists", "--plan"], environment: environment)
                #expect(plan.exitCode == 0, "\(plan.stderr)")
                #expect(plan.stdout.contains("This sync needs 5 requests to Spotify"), "\(plan.stdout)")
                let planJSON = try await runTool(
                    ["sync", "--saved", "--playlists", "--plan", "--json"],
                    environment: environment
                )
                let object = try JSONSerialization.jsonObject(with: Data(planJSON.stdout.utf8)) as? [String: Any]
                #expect(object?["requests"] as? Int == 5 && object?["exact"] as? Bool == true)

                let limited = try await runTool(
                    ["sync", "--saved", "--playlists", "--max-requests", "2"],
                    environment: environment
                )
                #expect(limited.exitCode == 0, "\(limited.stderr)")
                #expect(limited.stdout.contains("Stopped at the budget of 2 requests"), "\(limited.stdout)")
                #expect(limited.stdout.contains("saved: 100 saved tracks"), "\(limited.stdout)")
                let rest = try await runTool(["sync", "--saved", "--playlists", "--json"], environment: environment)
                #expect(rest.exitCode == 0, "\(rest.stderr)")
                let report = try JSONSerialization.jsonObject(with: Data(rest.stdout.utf8)) as? [String: Any]
                #expect(report?["saved_tracks_added"] as? Int == 20 && report?["playlists_updated"] as? Int == 1)
                #expect(report?["budget_reached"] as? Bool == false)
            }
        }
    }
}
