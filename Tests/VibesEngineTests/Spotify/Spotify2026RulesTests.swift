import Features
import Foundation
import Ingest
import SpotifyTestSupport
import SpotifyWebAPI
import Testing
import VibesEngine
import VibesHTTP
import VibesTestSupport

/// What Spotify imposes on a development-mode app in 2026, in the fake and in the client: search
/// pages of at most 10, scopes checked per token, and a developer quota that ends in
/// `429 QUOTA_EXCEEDED` with a `Retry-After` of hours.
struct Spotify2026RulesTests {
    @Test func theFakeRefusesASearchLimitAboveTen() async throws {
        try await FakeSpotify.withServer { fake in
            let (access, _) = await fake.state.issueTokens()
            let request = HTTPRequest(
                method: .get,
                url: URL(string: "\(fake.apiBaseURL)search?q=x&type=track&limit=20")!,
                headerFields: ["Authorization": "Bearer \(access)"]
            )
            let (response, data) = try await URLSessionTransport(timeout: loopbackTimeout).send(request, body: nil)
            #expect(response.status == 400)
            let body = try JSONSerialization.jsonObject(with: data) as? [String: [String: Any]]
            #expect(body?["error"]?["message"] as? String == "Invalid limit")
        }
    }

    @Test func searchIsPagedByTen() async throws {
        try await FakeSpotify.withServer { fake in
            await fake.state.configure { $0.searchResultCount = 30 }
            let signedIn = try await makeSignedInClient(fake)
            let tracks = try await signedIn.client.searchTracks("night drive", limit: 25)
            #expect(tracks.count == 25)
            #expect(tracks.first?.name == "night drive" && tracks.last?.name == "night drive 25")
            let requests = await fake.state.requests(to: "/v1/search")
            #expect(requests.map { $0.query["limit"] } == ["10", "10", "5"])
            #expect(requests.map { $0.query["offset"] } == ["0", "10", "20"])
            // Fewer hits than asked for: the paging stops when Spotify has no more.
            await fake.state.configure { $0.searchResultCount = 12 }
            let few = try await signedIn.client.search("x", type: .track, limit: 50)
            #expect(few.tracks?.items.count == 12)
            #expect(await fake.state.requests(to: "/v1/search").count == 5)
        }
    }

    @Test func aMissingScopeIsNamed() async throws {
        try await FakeSpotify.withServer { fake in
            let signedIn = try await makeSignedInClient(
                fake,
                scopes: ["user-library-read", "playlist-read-private"]
            )
            let devices = await spotifyError { _ = try await signedIn.client.devices() }
            #expect(devices == .missingScope(scope: "user-read-playback-state", endpoint: "GET /v1/me/player/devices"))
            #expect(devices?.description.contains("lacks the scope user-read-playback-state") == true)
            let play = await spotifyError { try await signedIn.client.play(.resume) }
            #expect(play == .missingScope(scope: "user-modify-playback-state", endpoint: "PUT /v1/me/player/play"))
            let top = await spotifyError { _ = try await signedIn.client.topTracks(over: .shortTerm) }
            #expect(top == .missingScope(scope: "user-top-read", endpoint: "GET /v1/me/top/tracks"))
            // What the token has works.
            #expect(try await signedIn.client.savedTracks(offset: 0).items.isEmpty)
            #expect(await fake.state.player.isPlaying == false)
        }
    }

    @Test func loginAsksForThePlaybackScopes() {
        #expect(Scope.vibesDefault.contains(.userReadPlaybackState))
        #expect(Scope.vibesDefault.contains(.userModifyPlaybackState))
    }

    @Test func theQuotaIsReportedAtOnceWithItsResetTime() async throws {
        try await FakeSpotify.withServer { fake in
            await fake.state.setSavedTrackCount(200)
            await fake.state.setQuota(2)
            let now = Date(timeIntervalSince1970: 1_790_000_000)
            let signedIn = try await makeSignedInClient(fake, now: { now })
            _ = try await signedIn.client.savedTracks(offset: 0)
            _ = try await signedIn.client.savedTracks(offset: 50)
            let error = await spotifyError { _ = try await signedIn.client.savedTracks(offset: 100) }
            #expect(
                error
                    == .quotaExceeded(
                        retryAfter: .seconds(14_400),
                        resetsAt: now.addingTimeInterval(14_400),
                        endpoint: "GET /v1/me/tracks"
                    )
            )
            #expect(error?.description.contains("quota") == true)
            #expect(error?.description.contains("resets in 4 h") == true)
            #expect(error?.description.contains("rate limit") == false)
            // Neither waited out nor sent again.
            #expect(signedIn.clock.sleeps.isEmpty)
            #expect(await fake.state.requests(to: "/v1/me/tracks").count == 3)
        }
    }

    @Test func aSyncStoppedByTheQuotaKeepsWhatItFetchedAndResumes() async throws {
        try await withTemporaryDirectory { directory in
            try await FakeSpotify.withServer { fake in
                await fake.state.setSavedTrackCount(120)
                await fake.state.setQuota(2)
                let signedIn = try await makeSignedInClient(fake)
                let store = try LibraryStore(path: directory + "/library.sqlite")
                let sync = SpotifySync(client: signedIn.client, store: store)
                do {
                    _ = try await sync.run(.savedTracks)
                    Issue.record("the quota should have stopped the sync")
                } catch let error as SpotifySyncInterruptedError {
                    guard case .quotaExceeded = error.underlying as? SpotifyError else {
                        Issue.record("expected the quota, got \(error.underlying)")
                        return
                    }
                    #expect(error.report.savedTracksAdded == 100)
                    #expect(error.description.contains("100 saved tracks"))
                }
                await fake.state.setQuota(nil)
                let resumed = try await sync.run(.savedTracks)
                #expect(resumed.savedTracksAdded == 20)
                #expect(
                    await fake.state.requests(to: "/v1/me/tracks").map { $0.query["offset"] } == [
                        "0", "50", "100", "100",
                    ]
                )
            }
        }
    }

    @Test func aSyncStopsCleanlyAtItsBudgetAndTheNextResumes() async throws {
        try await withTemporaryDirectory { directory in
            try await FakeSpotify.withServer { fake in
                await fake.state.setSavedTrackCount(120)
                await fake.state.addPlaylist(name: "Road trip", trackCount: 40)
                let store = try LibraryStore(path: directory + "/library.sqlite")
                let budget = RequestBudget(limit: 2)
                let limited = try await makeSignedInClient(fake, requestBudget: budget)
                let first = try await SpotifySync(client: limited.client, store: store).run([.savedTracks, .playlists])
                #expect(first.budgetReached && first.requestBudget == 2)
                #expect(first.requests == 2 && first.savedTracksAdded == 100)
                #expect(first.notes.contains { $0.contains("Stopped at the budget of 2 requests") })
                #expect(await fake.state.requests(to: "/v1/").count == 2)

                let free = try await makeSignedInClient(fake)
                let second = try await SpotifySync(client: free.client, store: store).run([.savedTracks, .playlists])
                #expect(!second.budgetReached && second.savedTracksAdded == 20 && second.playlistsUpdated == 1)
            }
        }
    }

    @Test func thePlanCountsTheRequestsTheSyncThenSends() async throws {
        try await withTemporaryDirectory { directory in
            try await FakeSpotify.withServer { fake in
                await fake.state.setSavedTrackCount(120)
                await fake.state.addPlaylist(name: "Short", trackCount: 30)
                await fake.state.addPlaylist(name: "Long", trackCount: 250)
                let signedIn = try await makeSignedInClient(fake)
                let store = try LibraryStore(path: directory + "/library.sqlite")
                let sync = SpotifySync(client: signedIn.client, store: store)
                let parts: SpotifySync.Parts = [.savedTracks, .playlists, .top]
                let plan = try await sync.plan(parts)
                #expect(plan.parts.map(\.part) == ["saved", "playlists", "top"])
                #expect(plan.parts.map(\.requests) == [3, 1 + 1 + 3, 6])
                #expect(plan.exact && plan.planningRequests == 2)
                let before = signedIn.client.requestCounter.value
                let report = try await sync.run(parts)
                #expect(report.requests == plan.requests)
                #expect(signedIn.client.requestCounter.value - before == plan.requests)

                // After it, only what changed is counted.
                await fake.state.saveNewTracks(3)
                let again = try await sync.plan(parts)
                #expect(again.parts.map(\.requests) == [1, 1, 0])
            }
        }
    }
}
