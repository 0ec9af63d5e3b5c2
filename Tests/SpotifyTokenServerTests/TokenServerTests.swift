import FlyingFox
import Foundation
import SpotifyTestSupport
import SpotifyWebAPI
import Synchronization
import Testing
import VibesHTTP
import VibesTestSupport

@testable import SpotifyTokenServer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The token server over real HTTP on 127.0.0.1, in front of a fake accounts service that answers
/// with Spotify's shapes.
struct TokenServerTests {
    static let clientID = "fake-client-id"
    static let secret = "s3cret-client-value"
    static let redirectURI = "vibesapp://spotify-login-callback"
    static let key = Data((0..<32).map { UInt8($0) })

    // MARK: - Swap

    @Test func swapReturnsTheRefreshTokenSealedAndSendsTheCodeWithTheSecret() async throws {
        try await FakeAccounts.withServer { fake in
            try await withTokenServer(accounts: fake) { endpoints, _ in
                let answer = try await post(
                    endpoints.swapURL,
                    form: ["code": FakeAccounts.validCode, "code_verifier": "verifier-123"]
                )
                #expect(answer.status == 200)
                #expect(answer.headers["content-type"] == "application/json")
                #expect(answer.headers["cache-control"] == "no-store")
                let json = try answer.object()
                #expect(json["access_token"] as? String == "BQ-fake-access-1")
                #expect(json["token_type"] as? String == "Bearer")
                #expect(json["scope"] as? String == "user-read-email user-library-read")
                #expect(json["expires_in"] as? Int == 3600)
                let sealed = try #require(json["refresh_token"] as? String)
                #expect(sealed != "AQ-fake-refresh-1")
                #expect(sealed.hasPrefix("v1."))
                #expect(!sealed.contains("AQ-fake-refresh"))
                #expect(try Self.sealer().open(sealed) == "AQ-fake-refresh-1")
                #expect(!answer.text.contains(Self.secret))

                let received = fake.received
                #expect(received.count == 1)
                let request = try #require(received.first)
                #expect(request.path == "/api/token")
                #expect(
                    request.authorization == "Basic "
                        + Data("\(Self.clientID):\(Self.secret)".utf8).base64EncodedString()
                )
                #expect(
                    request.form == [
                        "grant_type": "authorization_code", "code": FakeAccounts.validCode,
                        "redirect_uri": Self.redirectURI, "code_verifier": "verifier-123",
                    ]
                )
            }
        }
    }

    @Test func swapWithoutAVerifierSendsNone() async throws {
        try await FakeAccounts.withServer { fake in
            try await withTokenServer(accounts: fake) { endpoints, _ in
                let answer = try await post(endpoints.swapURL, form: ["code": FakeAccounts.validCode])
                #expect(answer.status == 200)
                #expect(fake.received.first?.form["code_verifier"] == nil)
                // The redirect URI is the server's, whatever the app sends.
                #expect(fake.received.first?.form["redirect_uri"] == Self.redirectURI)
            }
        }
    }

    // MARK: - Refresh

    @Test func refreshOpensTheSealedTokenAndSealsARotatedOne() async throws {
        try await FakeAccounts.withServer { fake in
            fake.rotatesRefreshTokens = true
            try await withTokenServer(accounts: fake) { endpoints, _ in
                let swapped = try await post(endpoints.swapURL, form: ["code": FakeAccounts.validCode]).object()
                let sealed = try #require(swapped["refresh_token"] as? String)

                let answer = try await post(endpoints.refreshURL, form: ["refresh_token": sealed])
                #expect(answer.status == 200)
                let json = try answer.object()
                #expect(json["access_token"] as? String == "BQ-fake-access-2")
                let rotated = try #require(json["refresh_token"] as? String)
                #expect(rotated.hasPrefix("v1.") && rotated != sealed)
                #expect(try Self.sealer().open(rotated) == "AQ-fake-refresh-2")
                #expect(!answer.text.contains("AQ-fake-refresh"))

                let request = try #require(fake.received.last)
                #expect(request.form == ["grant_type": "refresh_token", "refresh_token": "AQ-fake-refresh-1"])
                #expect(
                    request.authorization == "Basic "
                        + Data("\(Self.clientID):\(Self.secret)".utf8).base64EncodedString()
                )

                // The rotated token works in turn.
                let again = try await post(endpoints.refreshURL, form: ["refresh_token": rotated])
                #expect(again.status == 200)
                #expect(fake.received.last?.form["refresh_token"] == "AQ-fake-refresh-2")
            }
        }
    }

    @Test func refreshWithoutRotationAnswersWithoutARefreshToken() async throws {
        try await FakeAccounts.withServer { fake in
            try await withTokenServer(accounts: fake) { endpoints, _ in
                let swapped = try await post(endpoints.swapURL, form: ["code": FakeAccounts.validCode]).object()
                let sealed = try #require(swapped["refresh_token"] as? String)
                let answer = try await post(endpoints.refreshURL, form: ["refresh_token": sealed])
                #expect(answer.status == 200)
                let json = try answer.object()
                #expect(json["refresh_token"] == nil)
                #expect(json["access_token"] as? String == "BQ-fake-access-2")
                // The same sealed token keeps working, as Spotify's does.
                #expect(try await post(endpoints.refreshURL, form: ["refresh_token": sealed]).status == 200)
            }
        }
    }

    /// A refresh token this server cannot open never reaches Spotify.
    @Test(arguments: ForeignToken.allCases)
    func aForeignOrChangedTokenIsRefusedWithoutAskingSpotify(_ kind: ForeignToken) async throws {
        try await FakeAccounts.withServer { fake in
            try await withTokenServer(accounts: fake) { endpoints, log in
                let token = try kind.make()
                let answer = try await post(endpoints.refreshURL, form: ["refresh_token": token])
                #expect(answer.status == 400)
                let json = try answer.object()
                #expect(json["error"] as? String == "invalid_token")
                #expect((json["error_description"] as? String)?.isEmpty == false)
                #expect(fake.received.isEmpty)
                #expect(log.entries.map(\.error) == ["invalid_token"])
            }
        }
    }

    enum ForeignToken: String, CaseIterable, CustomTestStringConvertible {
        case tampered, otherKey, otherClientID, truncated, noVersion, notBase64URL, nonCanonicalBase64URL

        var testDescription: String { rawValue }

        func make() throws -> String {
            let good = try TokenServerTests.sealer().seal("AQ-fake-refresh-1")
            switch self {
            case .tampered:
                var characters = Array(good)
                let index = 20
                characters[index] = characters[index] == "A" ? "B" : "A"
                return String(characters)
            case .otherKey:
                return try RefreshTokenSealer(key: Data(repeating: 9, count: 32), clientID: TokenServerTests.clientID)
                    .seal("AQ-fake-refresh-1")
            case .otherClientID:
                return try RefreshTokenSealer(key: TokenServerTests.key, clientID: "another-client").seal(
                    "AQ-fake-refresh-1"
                )
            case .truncated:
                return String(good.prefix(30))
            case .noVersion:
                return String(good.dropFirst(3))
            case .notBase64URL:
                return "v1." + String(good.dropFirst(3)).replacingOccurrences(of: "-", with: "+") + "=="
            case .nonCanonicalBase64URL:
                // The same bytes spelled with another value of the unused bits in the last character:
                // 18 + 28 bytes leave 4 of them.
                let body = try String(TokenServerTests.sealer().seal("AQ-fake-refresh-1x").dropFirst(3))
                let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
                let value = try #require(body.last.flatMap(alphabet.firstIndex(of:)))
                return "v1." + body.dropLast() + String(alphabet[value ^ 1])
            }
        }
    }

    // MARK: - Spotify's errors

    @Test func spotifysErrorsPassThroughWithTheirStatusAndBody() async throws {
        try await FakeAccounts.withServer { fake in
            try await withTokenServer(accounts: fake) { endpoints, log in
                let badCode = try await post(endpoints.swapURL, form: ["code": "AQC-expired"])
                #expect(badCode.status == 400)
                #expect(badCode.text == FakeAccounts.invalidCodeBody)

                let revoked = try RefreshTokenSealer(key: Self.key, clientID: Self.clientID).seal("AQ-revoked")
                let refused = try await post(endpoints.refreshURL, form: ["refresh_token": revoked])
                #expect(refused.status == 400)
                #expect(refused.text == FakeAccounts.revokedBody)

                fake.nextAnswer = (429, ["Retry-After": "7"], #"{"error":"rate_limited"}"#)
                let limited = try await post(endpoints.swapURL, form: ["code": FakeAccounts.validCode])
                #expect(limited.status == 429)
                #expect(limited.headers["retry-after"] == "7")
                #expect(limited.text == #"{"error":"rate_limited"}"#)

                #expect(log.entries.map(\.error) == ["invalid_grant", "invalid_grant", "rate_limited"])
                #expect(log.entries.map(\.status) == [400, 400, 429])
            }
        }
    }

    @Test func anUnreachableAccountsServiceIsABadGateway() async throws {
        let closed = UnreachableLoopback.url()
        try await withTokenServer(accountsURL: closed) { endpoints, _ in
            let answer = try await post(endpoints.swapURL, form: ["code": FakeAccounts.validCode])
            #expect(answer.status == 502)
            #expect(try answer.object()["error"] as? String == "server_error")
        }
    }

    // MARK: - Bad requests

    @Test func missingOrRepeatedFieldsAreInvalidRequests() async throws {
        try await FakeAccounts.withServer { fake in
            try await withTokenServer(accounts: fake) { endpoints, _ in
                let noCode = try await post(endpoints.swapURL, form: ["code_verifier": "v"])
                #expect(noCode.status == 400)
                #expect(try noCode.object()["error"] as? String == "invalid_request")
                #expect(try (noCode.object()["error_description"] as? String)?.contains("code") == true)

                let noToken = try await post(endpoints.refreshURL, body: Data())
                #expect(noToken.status == 400)
                #expect(try noToken.object()["error"] as? String == "invalid_request")

                let twice = try await post(endpoints.swapURL, body: Data("code=a&code=b".utf8))
                #expect(twice.status == 400)
                #expect(try twice.object()["error"] as? String == "invalid_request")
                #expect(fake.received.isEmpty)
            }
        }
    }

    @Test func formEncodingIsDecoded() {
        let form = try? TokenServer.decodeForm(Data("code=a%2Bb+c&code_verifier=x%3D%3D&empty=".utf8)).get()
        #expect(form == ["code": "a+b c", "code_verifier": "x==", "empty": ""])
        #expect(throws: TokenServer.FormProblem.self) { try TokenServer.decodeForm(Data("code=%zz".utf8)).get() }
    }

    @Test func otherMethodsAndPathsGetJSONErrors() async throws {
        try await withTokenServer(accountsURL: URL(string: "http://127.0.0.1:9/")!) { endpoints, log in
            let get = try await send(.get, endpoints.swapURL)
            #expect(get.status == 405)
            #expect(get.headers["allow"] == "POST")
            #expect(try get.object()["error"] as? String == "method_not_allowed")

            let put = try await send(.put, endpoints.refreshURL, body: Data("refresh_token=x".utf8))
            #expect(put.status == 405)

            let elsewhere = URL(string: "/token?code=AQC-secret-in-query", relativeTo: endpoints.swapURL)!.absoluteURL
            let missing = try await send(.post, elsewhere, body: Data())
            #expect(missing.status == 404)
            #expect(try missing.object()["error"] as? String == "not_found")
            #expect(log.entries.map(\.path) == ["/swap", "/refresh", "/token"])
            #expect(!log.lines.joined().contains("AQC-secret"))
        }
    }

    // MARK: - Limits

    @Test func anOversizeBodyIsRefusedUnread() async throws {
        try await FakeAccounts.withServer { fake in
            try await withTokenServer(accounts: fake) { endpoints, _ in
                let body = Data(("code=" + String(repeating: "A", count: 17_000)).utf8)
                let answer = try await post(endpoints.swapURL, body: body)
                #expect(answer.status == 413)
                #expect(try answer.object()["error"] as? String == "request_too_large")
                #expect(fake.received.isEmpty)
                // The server still answers.
                #expect(try await post(endpoints.swapURL, form: ["code": FakeAccounts.validCode]).status == 200)
            }
        }
    }

    @Test func aChunkedBodyIsCutOffAtTheLimit() async throws {
        try await FakeAccounts.withServer { fake in
            try await withTokenServer(accounts: fake) { endpoints, _ in
                // A body stream of unknown length goes out with `Transfer-Encoding: chunked`.
                var request = URLRequest(url: endpoints.swapURL, timeoutInterval: loopbackTimeout)
                request.httpMethod = "POST"
                request.httpBodyStream = InputStream(data: Data(("code=" + String(repeating: "A", count: 40_000)).utf8))
                let (data, response) = try await URLSession(configuration: .loopback).data(for: request)
                #expect((response as? HTTPURLResponse)?.statusCode == 413)
                #expect(String(decoding: data, as: UTF8.self).contains("request_too_large"))
                #expect(fake.received.isEmpty)
            }
        }
    }

    @Test func aClientOverTheRateLimitMustWait() async throws {
        try await FakeAccounts.withServer { fake in
            // One request a minute after a burst of 2: the third must wait, however slowly a busy
            // machine runs the first two.
            let limits = TokenServer.Limits(requestsPerMinute: 1, burst: 2, requestTimeout: .seconds(loopbackTimeout))
            try await withTokenServer(accounts: fake, limits: limits) { endpoints, log in
                let started = ContinuousClock.now
                #expect(try await post(endpoints.swapURL, form: ["code": "AQC-1"]).status == 400)
                #expect(try await post(endpoints.swapURL, form: ["code": "AQC-2"]).status == 400)
                // On a machine so loaded that the first two took most of a minute, whether the
                // bucket has refilled when the server handles the third depends on the scheduler:
                // either answer is right then, as long as it matches what reached Spotify.
                if ContinuousClock.now - started > .seconds(50) {
                    let status = try await post(endpoints.swapURL, form: ["code": "AQC-3"]).status
                    #expect(status == 400 ? fake.received.count == 3 : status == 429 && fake.received.count == 2)
                    return
                }
                let third = try await post(endpoints.swapURL, form: ["code": "AQC-3"])
                #expect(third.status == 429)
                let wait = try #require(third.headers["retry-after"].flatMap(Int.init))
                #expect((1...60).contains(wait))  // the next token comes within a minute
                #expect(try third.object()["error"] as? String == "too_many_requests")
                #expect(fake.received.count == 2)
                #expect(log.entries.map(\.status) == [400, 400, 429])
            }
        }
    }

    @Test func theBucketRefillsWithTime() async throws {
        let clock = TestClock()
        let limiter = RateLimiter(requestsPerMinute: 30, burst: 3, clock: clock)
        for _ in 0..<3 { #expect(limiter.acquire(for: "a") == nil) }
        #expect(limiter.acquire(for: "a") == .seconds(2))
        #expect(limiter.acquire(for: "b") == nil)  // each address has its own bucket
        try await clock.sleep(for: .seconds(2))
        #expect(limiter.acquire(for: "a") == nil)
        #expect(limiter.acquire(for: "a") == .seconds(2))
        try await clock.sleep(for: .seconds(60))
        for _ in 0..<3 { #expect(limiter.acquire(for: "a") == nil) }  // never more than the burst
        #expect(limiter.acquire(for: "a") != nil)
    }

    @Test func theLimiterForgetsQuietClientsFirstThenTheLongestQuiet() async throws {
        let clock = TestClock()
        let limiter = RateLimiter(requestsPerMinute: 1, burst: 1, maximumClients: 3, clock: clock)
        #expect(limiter.acquire(for: "quiet") == nil)
        try await clock.sleep(for: .seconds(120))  // "quiet" has its allowance back
        for client in ["b", "c", "d"] {
            #expect(limiter.acquire(for: client) == nil)
            try await clock.sleep(for: .seconds(1))
        }
        #expect(limiter.trackedClients == ["b", "c", "d"])
        #expect(limiter.acquire(for: "e") == nil)
        #expect(limiter.trackedClients == ["c", "d", "e"])
        #expect(limiter.acquire(for: "c") != nil)  // still limited
    }

    // MARK: - Logging and addresses

    @Test func theAccessLogHoldsNoTokenCodeOrSecret() async throws {
        try await FakeAccounts.withServer { fake in
            fake.rotatesRefreshTokens = true
            try await withTokenServer(accounts: fake) { endpoints, log in
                let swap = try await post(
                    endpoints.swapURL,
                    form: ["code": FakeAccounts.validCode, "code_verifier": "verifier-123"]
                )
                let sealed = try #require(try swap.object()["refresh_token"] as? String)
                let refresh = try await post(endpoints.refreshURL, form: ["refresh_token": sealed])
                let rotated = try #require(try refresh.object()["refresh_token"] as? String)
                let bad = try await post(endpoints.swapURL, form: ["code": "AQC-wrong-code"])
                let responses = [swap, refresh, bad]

                let lines = log.lines
                #expect(lines.count == 3)
                let secrets = [
                    FakeAccounts.validCode, "verifier-123", "AQC-wrong-code", sealed, rotated, "AQ-fake-refresh",
                    "BQ-fake-access", Self.secret, String(sealed.dropFirst(3).prefix(12)),
                ]
                for line in lines {
                    #expect(line.contains(" 127.0.0.1 POST /"))
                    for secret in secrets { #expect(!line.contains(secret), "\(line)") }
                }
                #expect(log.entries.map(\.status) == [200, 200, 400])
                #expect(log.entries.map(\.path) == ["/swap", "/refresh", "/swap"])
                #expect(lines[2].hasSuffix(" error=invalid_grant"))
                for response in responses { #expect(!response.text.contains(Self.secret)) }
            }
        }
    }

    @Test func forwardedForIsTrustedOnlyWhenAsked() async throws {
        let url = URL(string: "http://127.0.0.1:9/")!
        let forwarded = ["X-Forwarded-For": "198.51.100.7, 203.0.113.9"]
        try await withTokenServer(accountsURL: url) { endpoints, log in
            _ = try await send(.get, endpoints.swapURL, headers: forwarded)
            #expect(log.entries.map(\.clientAddress) == ["127.0.0.1"])
        }
        try await withTokenServer(accountsURL: url, trustsForwardedFor: true) { endpoints, log in
            _ = try await send(.get, endpoints.swapURL, headers: forwarded)
            _ = try await send(.get, endpoints.swapURL, headers: ["X-Forwarded-For": "not an address"])
            #expect(log.entries.map(\.clientAddress) == ["203.0.113.9", "127.0.0.1"])
        }
    }

    @Test func theServerSaysWhyItCannotListen() async throws {
        try await withTokenServer(accountsURL: URL(string: "http://127.0.0.1:9/")!) { endpoints, _ in
            let port = try #require(endpoints.swapURL.port.map(UInt16.init))
            let taken = try await runServer(port: port)
            guard case .cannotListen("127.0.0.1", port, let reason) = taken else {
                Issue.record("expected cannotListen, got \(taken)")
                return
            }
            #expect(!reason.isEmpty)
        }
        let unknown = try await runServer(bindAddress: "localhost")
        #expect(unknown == .cannotListen(address: "localhost", port: 0, reason: "it is not an IPv4 or IPv6 address"))
    }

    // MARK: - Sealer and files

    @Test func sealingIsRandomizedAndOpensOnlyWithTheSameKeyAndClientID() throws {
        let sealer = try Self.sealer()
        let first = try sealer.seal("AQ-token")
        let second = try sealer.seal("AQ-token")
        #expect(first != second)
        #expect(try sealer.open(first) == "AQ-token" && sealer.open(second) == "AQ-token")
        #expect(first.count == 3 + ((12 + 8 + 16) * 4 + 2) / 3)
        #expect(throws: TokenServerError.invalidToken(.notAuthentic)) {
            try RefreshTokenSealer(key: Self.key, clientID: "other").open(first)
        }
        #expect(throws: TokenServerError.invalidKeyLength(byteCount: 16)) {
            try RefreshTokenSealer(key: Data(count: 16), clientID: "x")
        }
    }

    @Test func aNewKeyFileIsPrivateAndNeverOverwritten() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/token-key"
            try RefreshTokenSealer.writeNewKey(toFile: path)
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(text.count == 65 && text.hasSuffix("\n"))
            #expect(text.dropLast().allSatisfy { $0.isHexDigit && !$0.isUppercase })

            #expect(throws: TokenServerError.fileExists(path: path)) {
                try RefreshTokenSealer.writeNewKey(toFile: path)
            }
            #expect(try String(contentsOfFile: path, encoding: .utf8) == text)

            let sealer = try RefreshTokenSealer(keyFile: path, clientID: Self.clientID)
            #expect(try sealer.open(sealer.seal("AQ-x")) == "AQ-x")

            try RefreshTokenSealer.writeNewKey(toFile: directory + "/second-key")
            let second = try RefreshTokenSealer(keyFile: directory + "/second-key", clientID: Self.clientID)
            #expect(throws: TokenServerError.invalidToken(.notAuthentic)) { try second.open(sealer.seal("AQ-x")) }
        }
    }

    @Test func keyAndSecretFilesMustBePrivateAndWellFormed() async throws {
        try await withTemporaryDirectory { directory in
            func write(_ text: String, _ name: String, mode: Int = 0o600) throws -> String {
                let path = directory + "/" + name
                try Data(text.utf8).write(to: URL(fileURLWithPath: path))
                try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
                return path
            }
            let hex = String(repeating: "ab", count: 32)
            let open = try write(hex + "\n", "open-key", mode: 0o644)
            #expect(throws: TokenServerError.fileNotPrivate(path: open, mode: 0o644)) {
                try RefreshTokenSealer(keyFile: open, clientID: "x")
            }
            let short = try write("abcd\n", "short-key")
            #expect(
                throws: TokenServerError.malformedFile(
                    path: short,
                    reason: "it holds 4 hexadecimal characters where a 256-bit key has 64"
                )
            ) {
                try RefreshTokenSealer(keyFile: short, clientID: "x")
            }
            let garbage = try write(String(repeating: "zz", count: 32), "garbage-key")
            #expect(throws: TokenServerError.self) { try RefreshTokenSealer(keyFile: garbage, clientID: "x") }
            #expect(
                throws: TokenServerError.cannotReadFile(
                    path: directory + "/none",
                    reason: "no such file, or no permission to see it"
                )
            ) {
                try RefreshTokenSealer(keyFile: directory + "/none", clientID: "x")
            }
            // Upper case and surrounding white space are fine.
            let upper = try write("  " + hex.uppercased() + "\r\n", "upper-key")
            #expect(throws: Never.self) { try RefreshTokenSealer(keyFile: upper, clientID: "x") }

            // A symbolic link is followed, and the file it leads to is checked.
            let link = directory + "/linked-key"
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: upper)
            #expect(throws: Never.self) { try RefreshTokenSealer(keyFile: link, clientID: "x") }

            let secret = try write("s3cret\n", "secret", mode: 0o400)
            #expect(try TokenServer.loadClientSecret(fromFile: secret) == "s3cret")
            let shared = try write("s3cret\n", "shared-secret", mode: 0o640)
            #expect(throws: TokenServerError.fileNotPrivate(path: shared, mode: 0o640)) {
                try TokenServer.loadClientSecret(fromFile: shared)
            }
            let empty = try write("\n", "empty-secret")
            #expect(throws: TokenServerError.malformedFile(path: empty, reason: "it is empty")) {
                try TokenServer.loadClientSecret(fromFile: empty)
            }
            let twoLines = try write("a\nb\n", "two-line-secret")
            #expect(throws: TokenServerError.malformedFile(path: twoLines, reason: "it has more than one line")) {
                try TokenServer.loadClientSecret(fromFile: twoLines)
            }
            #expect(!"\(TokenServerError.fileNotPrivate(path: shared, mode: 0o640))".contains("s3cret"))
        }
    }

    @Test func theConfigurationNeverShowsTheSecret() {
        let configuration = TokenServer.Configuration(
            clientID: Self.clientID,
            clientSecret: Self.secret,
            redirectURI: Self.redirectURI
        )
        #expect(!"\(configuration)".contains(Self.secret))
        #expect(configuration.port == 8080 && configuration.bindAddress == "127.0.0.1")
    }

    // MARK: - Helpers

    static func sealer() throws -> RefreshTokenSealer {
        try RefreshTokenSealer(key: key, clientID: clientID)
    }

    /// Runs a server that must fail to listen, and returns its error.
    private func runServer(bindAddress: String = "127.0.0.1", port: UInt16 = 0) async throws -> TokenServerError {
        let server = TokenServer(
            configuration: TokenServer.Configuration(
                clientID: Self.clientID,
                clientSecret: Self.secret,
                redirectURI: Self.redirectURI,
                bindAddress: bindAddress,
                port: port
            ),
            sealer: try Self.sealer(),
            transport: URLSessionTransport(timeout: loopbackTimeout)
        )
        do {
            try await server.run { _ in Issue.record("the server must not listen") }
        } catch let error as TokenServerError {
            return error
        }
        throw CancellationError()
    }
}

// MARK: - Running a server

/// Runs a token server on a free port of 127.0.0.1 in front of `fake` while `body` runs.
func withTokenServer<T>(
    accounts fake: FakeAccounts,
    limits: TokenServer.Limits = TokenServer.Limits(requestTimeout: .seconds(loopbackTimeout)),
    _ body: (TokenServer.Endpoints, AccessLogCapture) async throws -> T
) async throws -> T {
    try await withTokenServer(accountsURL: fake.baseURL, limits: limits, body)
}

func withTokenServer<T>(
    accountsURL: URL,
    limits: TokenServer.Limits = TokenServer.Limits(requestTimeout: .seconds(loopbackTimeout)),
    trustsForwardedFor: Bool = false,
    transport: (any HTTPTransport)? = nil,
    _ body: (TokenServer.Endpoints, AccessLogCapture) async throws -> T
) async throws -> T {
    let log = AccessLogCapture()
    let server = TokenServer(
        configuration: TokenServer.Configuration(
            clientID: TokenServerTests.clientID,
            clientSecret: TokenServerTests.secret,
            redirectURI: TokenServerTests.redirectURI,
            accountsBaseURL: accountsURL,
            port: 0,
            limits: limits,
            trustsForwardedFor: trustsForwardedFor
        ),
        sealer: try TokenServerTests.sealer(),
        transport: transport ?? URLSessionTransport(timeout: loopbackTimeout),
        accessLog: log.append
    )
    let (listening, continuation) = AsyncStream<TokenServer.Endpoints>.makeStream()
    let task = Task {
        defer { continuation.finish() }
        try await server.run { continuation.yield($0) }
    }
    defer { task.cancel() }
    var iterator = listening.makeAsyncIterator()
    guard let endpoints = await iterator.next() else {
        try await task.value
        throw CancellationError()
    }
    let result = try await body(endpoints, log)
    task.cancel()
    try await task.value
    return result
}

// MARK: - HTTP client

/// One answer of the token server.
struct TokenServerAnswer {
    var status: Int
    /// Header fields keyed by lower-cased name.
    var headers: [String: String]
    var body: Data

    var text: String { String(decoding: body, as: UTF8.self) }

    func object(sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: body) as? [String: Any]
        return try #require(object, "not a JSON object: \(text)", sourceLocation: sourceLocation)
    }
}

/// POSTs `form` as `application/x-www-form-urlencoded`.
func post(_ url: URL, form: [String: String]) async throws -> TokenServerAnswer {
    try await post(url, body: Data(SpotifyAccounts.formEncode(form).utf8))
}

func post(_ url: URL, body: Data) async throws -> TokenServerAnswer {
    try await send(.post, url, body: body, headers: ["Content-Type": "application/x-www-form-urlencoded"])
}

func send(
    _ method: VibesHTTP.HTTPMethod,
    _ url: URL,
    body: Data? = nil,
    headers: [String: String] = [:]
) async throws -> TokenServerAnswer {
    let transport = URLSessionTransport(timeout: loopbackTimeout)
    let (response, data) = try await transport.send(
        VibesHTTP.HTTPRequest(method: method, url: url, headerFields: headers),
        body: body
    )
    return TokenServerAnswer(status: response.status, headers: response.headerFields, body: data)
}

/// The access log entries of one server.
final class AccessLogCapture: Sendable {
    private let storage = Mutex<[TokenServer.AccessLogEntry]>([])

    var entries: [TokenServer.AccessLogEntry] { storage.withLock { $0 } }
    var lines: [String] { entries.map(\.description) }

    func append(_ entry: TokenServer.AccessLogEntry) {
        storage.withLock { $0.append(entry) }
    }
}

// MARK: - Fake accounts service

/// Spotify's token endpoint, `POST /api/token`, on 127.0.0.1, with Spotify's response shapes.
///
/// It knows one authorization code, issues `BQ-fake-access-N` and `AQ-fake-refresh-N`, and
/// records every request. It checks the client's Basic credentials as Spotify does.
final class FakeAccounts: Sendable {
    struct Received: Sendable {
        var path: String
        var authorization: String?
        var form: [String: String]
    }

    private struct State {
        var received: [Received] = []
        var serial = 0
        var validRefreshTokens: Set<String> = []
        var rotatesRefreshTokens = false
        var nextAnswer: (status: Int, headers: [String: String], body: String)?
        var answerDelay: Duration?
    }

    static let validCode = "AQC-fake-code"
    static let invalidCodeBody = #"{"error":"invalid_grant","error_description":"Invalid authorization code"}"#
    static let revokedBody = #"{"error":"invalid_grant","error_description":"Refresh token revoked"}"#

    private let state = Mutex(State())
    private let boundPort = Mutex<UInt16>(0)

    /// `http://127.0.0.1:PORT/`: the token endpoint is `api/token` below it.
    var baseURL: URL { URL(string: "http://127.0.0.1:\(boundPort.withLock { $0 })/")! }

    var received: [Received] { state.withLock { $0.received } }

    /// Whether a refresh answers with a new refresh token (Spotify sometimes does).
    var rotatesRefreshTokens: Bool {
        get { state.withLock { $0.rotatesRefreshTokens } }
        set { state.withLock { $0.rotatesRefreshTokens = newValue } }
    }

    /// An answer for the next request instead of the usual one.
    var nextAnswer: (status: Int, headers: [String: String], body: String)? {
        get { state.withLock { $0.nextAnswer } }
        set { state.withLock { $0.nextAnswer = newValue } }
    }

    /// How long each answer waits after the request is recorded; none by default.
    var answerDelay: Duration? {
        get { state.withLock { $0.answerDelay } }
        set { state.withLock { $0.answerDelay = newValue } }
    }

    private init() {}

    /// Starts a fake on a free port, runs `body`, and stops it.
    static func withServer<T>(_ body: (FakeAccounts) async throws -> T) async throws -> T {
        let fake = FakeAccounts()
        let server = HTTPServer(
            address: try .inet(ip4: "127.0.0.1", port: 0),
            timeout: loopbackTimeout,
            logger: .disabled,
            handler: FakeAccountsHandler { try await fake.handle($0) }
        )
        let task = Task { try await server.run() }
        defer { task.cancel() }
        try await server.waitUntilListening(timeout: loopbackTimeout)
        guard case .ip4(_, let port) = await server.listeningAddress else { throw CancellationError() }
        fake.boundPort.withLock { $0 = port }
        do {
            let result = try await body(fake)
            await server.stop(timeout: 0.5)
            return result
        } catch {
            await server.stop(timeout: 0.5)
            throw error
        }
    }

    private func handle(_ request: FlyingFox.HTTPRequest) async throws -> FlyingFox.HTTPResponse {
        var components = URLComponents()
        components.percentEncodedQuery = String(decoding: try await request.bodyData, as: UTF8.self)
        let form = Dictionary(
            (components.queryItems ?? []).map { ($0.name, $0.value ?? "") },
            uniquingKeysWith: { first, _ in first }
        )
        let authorization = request.headers[.authorization]
        let (status, headers, body) = state.withLock { state in
            state.received.append(Received(path: request.path, authorization: authorization, form: form))
            return answer(to: request.path, form: form, authorization: authorization, state: &state)
        }
        if let delay = answerDelay { try await Task.sleep(for: delay) }
        var fields: HTTPHeaders = [.contentType: "application/json"]
        for (name, value) in headers { fields[HTTPHeader(name)] = value }
        return FlyingFox.HTTPResponse(
            statusCode: HTTPStatusCode(status, phrase: "Fake"),
            headers: fields,
            body: Data(body.utf8)
        )
    }

    private func answer(
        to path: String,
        form: [String: String],
        authorization: String?,
        state: inout State
    ) -> (Int, [String: String], String) {
        if let next = state.nextAnswer {
            state.nextAnswer = nil
            return next
        }
        guard path == "/api/token" else { return (404, [:], #"{"error":{"status":404,"message":"Not found"}}"#) }
        let basic =
            "Basic " + Data("\(TokenServerTests.clientID):\(TokenServerTests.secret)".utf8).base64EncodedString()
        guard authorization == basic else {
            return (400, [:], #"{"error":"invalid_client","error_description":"Invalid client"}"#)
        }
        func tokens(refresh: Bool) -> String {
            state.serial += 1
            var object: [String: Any] = [
                "access_token": "BQ-fake-access-\(state.serial)", "token_type": "Bearer",
                "scope": "user-read-email user-library-read", "expires_in": 3600,
            ]
            if refresh {
                let token = "AQ-fake-refresh-\(state.serial)"
                state.validRefreshTokens.insert(token)
                object["refresh_token"] = token
            }
            let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            return String(decoding: data, as: UTF8.self)
        }
        switch form["grant_type"] {
        case "authorization_code":
            guard form["code"] == Self.validCode, form["redirect_uri"] != nil else {
                return (400, [:], Self.invalidCodeBody)
            }
            return (200, [:], tokens(refresh: true))
        case "refresh_token":
            guard let token = form["refresh_token"], state.validRefreshTokens.contains(token) else {
                return (400, [:], Self.revokedBody)
            }
            if state.rotatesRefreshTokens { state.validRefreshTokens.remove(token) }
            return (200, [:], tokens(refresh: state.rotatesRefreshTokens))
        default:
            return (400, [:], #"{"error":"unsupported_grant_type","error_description":"grant_type is missing"}"#)
        }
    }
}

private struct FakeAccountsHandler: HTTPHandler {
    let body: @Sendable (FlyingFox.HTTPRequest) async throws -> FlyingFox.HTTPResponse

    func handleRequest(_ request: FlyingFox.HTTPRequest) async throws -> FlyingFox.HTTPResponse {
        try await body(request)
    }
}
