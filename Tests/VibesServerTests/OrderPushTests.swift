import Foundation
import Ingest
import SpotifyTestSupport
import SpotifyWebAPI
import Testing
import VibesHTTP
import VibesServer
import VibesTestSupport

/// `POST /api/playlists/{id}/order` with `"to": "spotify"`: the order of the "order this
/// playlist" view written to the playlist's own Spotify playlist (a fake one, with Spotify's
/// snapshots, moves, 2026 scopes and quota) by moves, through a real server on 127.0.0.1, with the
/// sign-in read from a session file at each request.
struct OrderPushTests {
    /// An account over the session file `path` on `fake`, read afresh at each request, as
    /// `vibes-analyze serve` reads the one `vibes-analyze auth login` writes.
    static func savedSession(at path: String, on fake: FakeSpotify) -> SpotifyAccount {
        SpotifyAccount.savedSession {
            let network = URLSessionTransport(timeout: loopbackTimeout)
            let accounts = SpotifyAccounts(
                credentials: SpotifyAppCredentials(clientID: "fake-client-id"),
                baseURL: fake.accountsBaseURL,
                transport: network
            )
            let tokens = TokenStore(path: path, accounts: accounts)
            let client = SpotifyClient(
                tokens: tokens,
                clientID: "fake-client-id",
                baseURL: fake.apiBaseURL,
                networking: ClientNetworking(network: network, retryPolicy: RetryPolicy(usesJitter: false))
            )
            return (client, tokens)
        }
    }

    /// Signs in as `vibes-analyze auth login` does: a session file with tokens `fake` issued,
    /// carrying `scopes`.
    static func signIn(
        at path: String,
        on fake: FakeSpotify,
        scopes: Set<String> = FakeSpotifyState.allScopes
    )
        async throws
    {
        _ = try await makeSignedInClient(fake, sessionPath: path, scopes: scopes)
    }

    /// Pushes "Workout" from the explorer's endpoint, so that it is on Spotify, and returns its
    /// store id and Spotify ID.
    static func pushWorkout(_ harness: ServerHarness) async throws -> (id: Int, spotifyID: String) {
        let workout = try await WebAppViewsTests.playlistID("Workout", in: harness)
        let pushed = try await harness.post("{}", to: "/api/playlists/\(workout)/push")
        #expect(pushed.status == 200, "\(pushed.errorMessage ?? "")")
        return (workout, try #require(try pushed.json()["spotify_id"] as? String))
    }

    /// The Spotify URIs of an order's preview, in order.
    static func previewURIs(_ harness: ServerHarness, id: Int, query: String) async throws -> [String] {
        let preview = try await harness.get("/api/playlists/\(id)/order?\(query)").json()
        let tracks = try #require(preview["tracks"] as? [[String: Any]])
        return tracks.compactMap { ($0["spotify_id"] as? String).map { "spotify:track:" + $0 } }
    }

    /// Whether every item of `after` kept the date added and adder it had in `before`.
    static func keptDates(_ before: [FakePlaylist.ListedItem], _ after: [FakePlaylist.ListedItem]) -> Bool {
        var added: [String: (String, String)] = [:]
        for item in before { added[item.uri ?? ""] = (item.addedAt, item.addedBy) }
        return before.count == after.count
            && after.allSatisfy { item in
                guard let (date, adder) = added[item.uri ?? ""] else { return false }
                return date == item.addedAt && adder == item.addedBy
            }
    }

    @Test func anOrderIsMovedIntoPlaceOnSpotifyAndARepeatMovesNothing() async throws {
        try await withTemporaryDirectory { folder in
            try await FakeSpotify.withServer { fake in
                let session = folder + "/spotify-session.json"
                let account = Self.savedSession(at: session, on: fake)
                try await ServerHarness.withServer(spotify: account) { harness async throws in
                    var bodies: [String] = []
                    // Signed in after the server started: the next request sees it.
                    #expect(try await harness.get("/api/spotify").json()["signed_in"] as? Bool == false)
                    try await Self.signIn(at: session, on: fake)
                    #expect(try await harness.get("/api/spotify").json()["signed_in"] as? Bool == true)
                    let (id, spotifyID) = try await Self.pushWorkout(harness)
                    let before = await fake.state.items(ofPlaylist: spotifyID)
                    #expect(before.count == 12)

                    let wanted = try await Self.previewURIs(harness, id: id, query: "order=arc&arc=falling")
                    #expect(wanted.count == 12 && wanted != before.map { $0.uri ?? "" })
                    let preview = try await harness.get("/api/playlists/\(id)/order?order=arc&arc=falling")
                    let spotify = try #require(try preview.json()["spotify"] as? [String: Any])
                    #expect(spotify["can_push"] as? Bool == true)
                    let writesBefore = await fake.state.requests(to: "/v1/playlists/\(spotifyID)/items")
                        .filter { $0.method != "GET" }.count

                    let body = #"{"order": "arc", "arc": "falling", "to": "spotify"}"#
                    let answer = try await harness.post(body, to: "/api/playlists/\(id)/order")
                    bodies.append(String(decoding: answer.body, as: UTF8.self))
                    #expect(answer.status == 200, "\(answer.errorMessage ?? "")")
                    let result = try answer.json()
                    let moved = try #require(result["moved"] as? Int)
                    let operations = try #require(result["operations"] as? Int)
                    // One move per item out of place, the longest run already in order staying put.
                    #expect(moved > 0 && operations > 0 && operations <= moved)
                    #expect(result["spotify_id"] as? String == spotifyID)
                    #expect(result["item_count"] as? Int == 12 && result["verified"] as? Bool == true)
                    #expect(result["method"] as? String == "moves")
                    let after = await fake.state.items(ofPlaylist: spotifyID)
                    #expect(after.map { $0.uri ?? "" } == wanted)
                    #expect(Self.keptDates(before, after), "dates added changed: \(before) → \(after)")
                    // Only moves were sent: no item was removed, replaced or added.
                    let writes = await fake.state.requests(to: "/v1/playlists/\(spotifyID)/items")
                        .filter { $0.method != "GET" }.dropFirst(writesBefore)
                    #expect(writes.count == operations)
                    #expect(
                        writes.allSatisfy { write in
                            let sent = (try? JSONSerialization.jsonObject(with: write.body)) as? [String: Any] ?? [:]
                            return write.method == "PUT" && sent["uris"] == nil && sent["snapshot_id"] != nil
                        }
                    )

                    // The same request again (a retry): the playlist is in that order, so nothing moves.
                    let again = try await harness.post(body, to: "/api/playlists/\(id)/order")
                    #expect(again.status == 200, "\(again.errorMessage ?? "")")
                    let repeated = try again.json()
                    #expect(repeated["moved"] as? Int == 0 && repeated["operations"] as? Int == 0)
                    let writesAfterRetry = await fake.state.requests(to: "/v1/playlists/\(spotifyID)/items")
                        .filter { $0.method != "GET" }.count
                    #expect(writesAfterRetry == writesBefore + writes.count)
                    #expect(await fake.state.items(ofPlaylist: spotifyID) == after)
                    bodies.append(String(decoding: again.body, as: UTF8.self))
                    // The store's playlist is untouched, and nothing was saved.
                    #expect(try harness.store.playlistOverviews(vibesOf: nil).count == 2)
                    let page = try await harness.get("/")
                    bodies.append(String(decoding: page.body, as: UTF8.self))
                    bodies.append(String(decoding: try await harness.get("/api/spotify").body, as: UTF8.self))
                    await expectNoTokens(in: bodies.joined(separator: "\n"), issuedBy: fake)
                }
            }
        }
    }

    @Test func spotifysRefusalsAreTypedErrorsAndLeaveThePlaylistAlone() async throws {
        try await withTemporaryDirectory { folder in
            try await FakeSpotify.withServer { fake in
                let session = folder + "/spotify-session.json"
                try await Self.signIn(at: session, on: fake)
                try await ServerHarness.withServer(spotify: Self.savedSession(at: session, on: fake)) {
                    harness async throws in
                    let (id, spotifyID) = try await Self.pushWorkout(harness)
                    let before = await fake.state.items(ofPlaylist: spotifyID)
                    let body = #"{"order": "arc", "arc": "falling", "to": "spotify"}"#
                    let path = "/api/playlists/\(id)/order"

                    // A sign-in without the playlist-modify scopes: Spotify's 403 Insufficient client scope.
                    try await Self.signIn(at: session, on: fake, scopes: ["playlist-read-private"])
                    let scope = try await harness.post(body, to: path)
                    #expect(
                        scope.status == 403 && scope.errorCode == "spotify_scope_missing",
                        "\(scope.errorMessage ?? "")"
                    )
                    #expect(scope.errorMessage?.contains("vibes-analyze auth login") == true)

                    // The developer quota: 429 QUOTA_EXCEEDED with a Retry-After of hours, never waited out.
                    try await Self.signIn(at: session, on: fake)
                    await fake.state.setQuota(0)
                    let quota = try await harness.post(body, to: path)
                    #expect(
                        quota.status == 429 && quota.errorCode == "spotify_quota_exceeded",
                        "\(quota.errorMessage ?? "")"
                    )
                    #expect(quota.errorMessage?.contains("QUOTA_EXCEEDED") == true)
                    // Our answer tells the client when to come back: Spotify's hours, not seconds.
                    let wait = try #require(quota.headers["retry-after"].flatMap { Int($0) })
                    #expect((4 * 3600 - 60...4 * 3600 + 1).contains(wait), "\(wait)")
                    await fake.state.setQuota(nil)

                    // Signed out: the preview and the push say so.
                    try FileManager.default.removeItem(atPath: session)
                    let preview = try await harness.get("\(path)?order=key").json()
                    let spotify = try #require(preview["spotify"] as? [String: Any])
                    #expect(spotify["can_push"] as? Bool == false)
                    #expect((spotify["message"] as? String)?.contains("vibes-analyze auth login") == true)
                    let signedOut = try await harness.post(body, to: path)
                    #expect(signedOut.status == 409 && signedOut.errorCode == "spotify_not_signed_in")

                    // A playlist with no Spotify playlist.
                    try await Self.signIn(at: session, on: fake)
                    let quiet = try await WebAppViewsTests.playlistID("Quiet Evening", in: harness)
                    let local = try await harness.post(body, to: "/api/playlists/\(quiet)/order")
                    #expect(local.status == 409 && local.errorCode == "playlist_not_on_spotify")
                    let quietPreview = try await harness.get("/api/playlists/\(quiet)/order").json()
                    #expect((quietPreview["spotify"] as? [String: Any])?["can_push"] as? Bool == false)

                    #expect(await fake.state.items(ofPlaylist: spotifyID) == before)
                    // Signed in again, the same request goes through.
                    let done = try await harness.post(body, to: path)
                    #expect(done.status == 200, "\(done.errorMessage ?? "")")
                    let after = await fake.state.items(ofPlaylist: spotifyID)
                    #expect(Self.keptDates(before, after) && after != before)
                }
            }
        }
    }

    /// One browser for two things: the explorer names a point on hover and from the keyboard, and
    /// the "order this playlist" view pushes its order to Spotify.
    @Test(.enabled(if: HeadlessChromium.isAvailable, HeadlessChromium.skipReason))
    func theOrderViewPushesToSpotifyAndExplorerPointsAreNamed() async throws {
        try await FakeSpotify.withServer { fake in
            let signedIn = try await makeSignedInClient(fake)
            try await ServerHarness.withServer(spotify: SpotifyAccount { signedIn.client }) { harness async throws in
                let (id, spotifyID) = try await Self.pushWorkout(harness)
                let before = await fake.state.items(ofPlaylist: spotifyID)
                try await ChromiumSession.withSession { browser in
                    // The explorer: "]" names the first shown track; the pointer over its point names it too.
                    try await ExplorerTests.openExplorer(browser, harness: harness)
                    try await ExplorerTests.choose("Quiet Evening", in: "explorer-playlist", browser)
                    try await browser.waitUntil("document.getElementById('explorer-canvas').dataset.shown === '8'")
                    try await browser.evaluate("document.getElementById('explorer-canvas').focus()")
                    try await browser.send(
                        "Input.dispatchKeyEvent",
                        ["type": "keyDown", "key": "]", "code": "BracketRight", "text": "]"]
                    )
                    try await browser.send(
                        "Input.dispatchKeyEvent",
                        ["type": "keyUp", "key": "]", "code": "BracketRight"]
                    )
                    try await browser.waitUntil("!document.getElementById('explorer-tip').hidden")
                    let named = try await browser.evaluate(
                        "document.getElementById('explorer-tip').textContent",
                        as: String.self
                    )
                    #expect(named == "Artist 1 – Song 1", "\(named)")
                    try await browser.press(.escape)
                    try await browser.waitUntil("document.getElementById('explorer-tip').hidden")
                    let spot = try await browser.evaluate(
                        """
                        (() => { const c = document.getElementById('explorer-canvas'), r = c.getBoundingClientRect();
                          const tip = document.getElementById('explorer-tip');
                          return [r.left + c.clientLeft + Number(tip.dataset.x), r.top + c.clientTop + Number(tip.dataset.y)]; })()
                        """,
                        as: [Double].self
                    )
                    try await browser.mouse(.moved, x: spot[0], y: spot[1], isButtonDown: false)
                    try await browser.waitUntil("!document.getElementById('explorer-tip').hidden")
                    #expect(
                        try await browser.evaluate(
                            "document.getElementById('explorer-tip').textContent",
                            as: String.self
                        )
                            == named
                    )
                    #expect(
                        try await browser.evaluate(
                            "document.getElementById('explorer-canvas').getAttribute('aria-describedby')",
                            as: String.self
                        ) == "explorer-tip"
                    )

                    // The order view: preview arc falling, push it, and Spotify holds that order.
                    try await browser.evaluate("location.hash = '#playlist/\(id)/order/arc/falling'")
                    try await browser.waitUntil(
                        "document.querySelectorAll('#order-list li').length === 12"
                            + " && !document.getElementById('order-push').disabled"
                    )
                    try await ExplorerTests.click("#order-push", browser)
                    try await browser.waitUntil(
                        "document.getElementById('order-status').textContent.startsWith('Reordered on Spotify')"
                    )
                    #expect(browser.pageErrors.isEmpty, "\(browser.pageErrors)")
                }
                let wanted = try await Self.previewURIs(harness, id: id, query: "order=arc&arc=falling")
                let after = await fake.state.items(ofPlaylist: spotifyID)
                #expect(after.map { $0.uri ?? "" } == wanted)
                #expect(after.map { $0.uri ?? "" } != before.map { $0.uri ?? "" })
                #expect(Self.keptDates(before, after))
            }
        }
    }
}
