import Features
import Foundation
import SpotifyTestSupport
import SpotifyWebAPI
import Testing
import VibesHTTP
import VibesTestSupport

/// Rate limits, server errors, dropped connections and token trouble, against the fake server.
struct SpotifyFailureTests {
    @Test(arguments: [("3", Duration.seconds(3)), ("0", .seconds(1)), ("1.5", .milliseconds(1500))])
    func rateLimitWaitsForRetryAfter(header: String, expectedWait: Duration) async throws {
        try await FakeSpotify.withServer { fake in
            await fake.state.inject(.rateLimited(retryAfter: header), on: "/v1/me")
            let signedIn = try await makeSignedInClient(fake)
            _ = try await signedIn.client.currentUser()
            #expect(signedIn.clock.sleeps == [expectedWait])
            #expect(signedIn.client.requestCounter.value == 2)
        }
    }

    @Test func retryAfterAsAnHTTPDateIsHonoured() async throws {
        try await FakeSpotify.withServer { fake in
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
            await fake.state.inject(.rateLimited(retryAfter: formatter.string(from: now + 30)), on: "/v1/me")
            let signedIn = try await makeSignedInClient(fake, now: { now })
            _ = try await signedIn.client.currentUser()
            #expect(signedIn.clock.sleeps == [.seconds(30)])
        }
    }

    @Test func anUnreachableServerIsANetworkError() async throws {
        let tokens = TokenStore(path: nil, accounts: nil)
        try await tokens.save(
            SpotifySession(
                accessToken: "a",
                refreshToken: nil,
                expiresAt: .distantFuture,
                scopes: [],
                grant: .authorizationCodePKCE,
                clientID: "id"
            )
        )
        let clock = TestClock()
        // Port 9 (discard) on loopback: nothing listens, so the connection is refused.
        let client = SpotifyClient(
            tokens: tokens,
            baseURL: URL(string: "http://127.0.0.1:9/v1/")!,
            networking: ClientNetworking(
                network: URLSessionTransport(timeout: 5),
                retryPolicy: RetryPolicy(maxAttempts: 3, usesJitter: false),
                clock: clock
            )
        )
        let error = await spotifyError { _ = try await client.currentUser() }
        guard case .network(_, let attempts, let endpoint) = error else {
            Issue.record("expected a network error, got \(String(describing: error))")
            return
        }
        #expect(attempts == 3 && endpoint == "GET /v1/me")
        #expect(clock.sleeps == [.milliseconds(500), .seconds(1)])
    }

    @Test func rateLimitWithoutRetryAfterBacksOff() async throws {
        try await FakeSpotify.withServer { fake in
            await fake.state.inject(.rateLimited(retryAfter: nil, emptyBody: true), on: "/v1/me", times: 2)
            let signedIn = try await makeSignedInClient(fake)
            _ = try await signedIn.client.currentUser()
            #expect(signedIn.clock.sleeps == [.seconds(2), .seconds(4)])
        }
    }

    @Test func hugeRetryAfterFailsFastWithTheTimeToRetry() async throws {
        try await FakeSpotify.withServer { fake in
            await fake.state.inject(.rateLimited(retryAfter: "13749", emptyBody: true), on: "/v1/me/tracks")
            let signedIn = try await makeSignedInClient(fake)
            let error = await spotifyError { _ = try await signedIn.client.savedTracks(offset: 0) }
            guard case .rateLimited(let retryAfter, let retryAt, let endpoint) = error else {
                Issue.record("expected rateLimited, got \(String(describing: error))")
                return
            }
            #expect(retryAfter == .seconds(13749) && endpoint == "GET /v1/me/tracks")
            #expect(try #require(retryAt).timeIntervalSinceNow > 13_000)
            #expect(signedIn.clock.sleeps.isEmpty)
            let text = try #require(error).description
            #expect(text.contains("3 h 49 min") && text.contains("Try again after"))
        }
    }

    @Test func repeatedRateLimitsStopAtTheBudget() async throws {
        try await FakeSpotify.withServer { fake in
            await fake.state.inject(.rateLimited(retryAfter: "25"), on: "/v1/me", times: 5)
            let signedIn = try await makeSignedInClient(fake)
            let error = await spotifyError { _ = try await signedIn.client.currentUser() }
            guard case .rateLimited = error else {
                Issue.record("expected rateLimited, got \(String(describing: error))")
                return
            }
            // 25 + 25 fit in the 60-second budget; a third wait would not.
            #expect(signedIn.clock.sleeps == [.seconds(25), .seconds(25)])
            #expect(signedIn.client.requestCounter.value == 3)
        }
    }

    @Test(arguments: [500, 502, 503])
    func serverErrorsAreRetriedWithExponentialBackoff(status: Int) async throws {
        try await FakeSpotify.withServer { fake in
            await fake.state.inject(.status(status, message: "Server error"), on: "/v1/me", times: 3)
            let signedIn = try await makeSignedInClient(fake)
            #expect(try await signedIn.client.currentUser().id == "wizzler")
            #expect(signedIn.clock.sleeps == [.milliseconds(500), .seconds(1), .seconds(2)])
        }
    }

    @Test func persistentServerErrorsStopAfterTheLastAttempt() async throws {
        try await FakeSpotify.withServer { fake in
            await fake.state.inject(.status(503, message: nil), on: "/v1/me", times: 10)
            let signedIn = try await makeSignedInClient(fake)
            let error = await spotifyError { _ = try await signedIn.client.currentUser() }
            #expect(error == .http(status: 503, message: nil, endpoint: "GET /v1/me"))
            #expect(signedIn.client.requestCounter.value == RetryPolicy.default.maxAttempts)
            #expect(signedIn.clock.sleeps.last == .seconds(8))
        }
    }

    @Test func jitteredBackoffStaysInTheUpperHalf() {
        let policy = RetryPolicy()
        for attempt in 1...6 {
            let full = min(Duration.milliseconds(500) * (1 << (attempt - 1)), .seconds(8))
            let wait = policy.backoff(afterAttempt: attempt)
            #expect(wait >= full / 2 && wait <= full)
        }
    }

    @Test func postsAreNotRetriedAfterAnAmbiguous500() async throws {
        try await FakeSpotify.withServer { fake in
            await fake.state.inject(.status(500, message: "Server error"), on: "/v1/me/playlists")
            let signedIn = try await makeSignedInClient(fake)
            let error = await spotifyError { _ = try await signedIn.client.createPlaylist(name: "Once") }
            #expect(error == .http(status: 500, message: "Server error", endpoint: "POST /v1/me/playlists"))
            #expect(await fake.state.playlists.isEmpty)
        }
    }

    @Test func droppedConnectionsAreRetried() async throws {
        try await FakeSpotify.withServer { fake in
            await fake.state.setSavedTrackCount(3)
            await fake.state.inject(.dropConnection, on: "/v1/me/tracks", times: 2)
            let signedIn = try await makeSignedInClient(fake)
            let page = try await signedIn.client.savedTracks(offset: 0)
            #expect(page.items.count == 3)
            #expect(signedIn.clock.sleeps == [.milliseconds(500), .seconds(1)])
        }
    }

    @Test func droppedConnectionsGiveUpWithANetworkError() async throws {
        try await FakeSpotify.withServer { fake in
            await fake.state.inject(.dropConnection, on: "/v1/me/tracks", times: 10)
            let signedIn = try await makeSignedInClient(fake, policy: RetryPolicy(maxAttempts: 3, usesJitter: false))
            let error = await spotifyError { _ = try await signedIn.client.savedTracks(offset: 0) }
            guard case .network(_, let attempts, let endpoint) = error else {
                Issue.record("expected a network error, got \(String(describing: error))")
                return
            }
            #expect(attempts == 3 && endpoint == "GET /v1/me/tracks")
        }
    }

    @Test func anExpiredTokenMidPagingIsRefreshedOnce() async throws {
        try await FakeSpotify.withServer { fake in
            await fake.state.setSavedTrackCount(150)
            let signedIn = try await makeSignedInClient(fake)
            let before = try #require(await signedIn.tokens.session()).accessToken
            _ = try await signedIn.client.savedTracks(offset: 0)
            await fake.state.inject(.expireAccessTokens, on: "/v1/me/tracks")
            _ = try await signedIn.client.savedTracks(offset: 50)
            _ = try await signedIn.client.savedTracks(offset: 100)
            let after = try #require(await signedIn.tokens.session()).accessToken
            #expect(after != before)
            #expect(await fake.state.requests(to: "/accounts/api/token").count == 1)
            #expect(await fake.state.requests(to: "/v1/me/tracks").count == 4)
        }
    }

    @Test func aTokenNearExpiryIsRefreshedBeforeTheRequest() async throws {
        try await FakeSpotify.withServer { fake in
            let signedIn = try await makeSignedInClient(fake, expiresIn: 30)
            _ = try await signedIn.client.currentUser()
            #expect(await fake.state.requests(to: "/accounts/api/token").count == 1)
            #expect(await fake.state.requests(to: "/v1/me").count == 1)
        }
    }

    @Test func aRevokedRefreshTokenClearsTheSession() async throws {
        try await withTemporaryDirectory { directory in
            try await FakeSpotify.withServer { fake in
                let path = directory + "/config/spotify-session.json"
                let signedIn = try await makeSignedInClient(fake, sessionPath: path)
                #expect(FileManager.default.fileExists(atPath: path))
                await fake.state.revokeRefreshTokens()
                await fake.state.expireAccessTokens()
                let error = await spotifyError { _ = try await signedIn.client.currentUser() }
                #expect(error == .sessionRevoked(description: "Refresh token revoked"))
                #expect(error?.description.contains("revoked the stored sign-in") == true)
                #expect(!FileManager.default.fileExists(atPath: path))
                #expect(try await signedIn.tokens.session() == nil)
                let next = await spotifyError { _ = try await signedIn.client.currentUser() }
                #expect(next == .notSignedIn)
            }
        }
    }

    @Test func noTokenAppearsInErrorsOrLogs() async throws {
        try await FakeSpotify.withServer { fake in
            let log = LogCapture()
            let signedIn = try await makeSignedInClient(fake, logger: log.logger)
            let client = signedIn.client
            let first = await fake.state.issuedTokens[0]
            await fake.state.inject(.malformedJSON, on: "/v1/me/tracks")
            await fake.state.inject(.status(500, message: "Bearer \(first) failed"), on: "/v1/me", times: 6)
            var errors: [SpotifyError?] = []
            errors.append(await spotifyError { _ = try await client.savedTracks(offset: 0) })
            errors.append(await spotifyError { _ = try await client.currentUser() })
            await fake.state.expireAccessTokens()
            _ = try await client.currentUser()  // 401, refresh, retry: new tokens
            let session = try #require(await signedIn.tokens.session())
            await fake.state.revokeRefreshTokens()
            await fake.state.expireAccessTokens()
            errors.append(await spotifyError { _ = try await client.currentUser() })
            var dumped = ""
            dump(session, to: &dumped)
            var texts = [session.description, String(reflecting: session), dumped]
            for error in errors.compactMap({ $0 }) {
                texts += [error.description, String(reflecting: error), "\(error)", error.localizedDescription]
            }
            texts += log.lines
            #expect(errors.compactMap { $0 }.count == 3)
            #expect(log.lines.contains { $0.contains("refreshing") })
            await expectNoTokens(in: texts.joined(separator: "\n"), issuedBy: fake)
        }
    }
}
