import FlyingFox
import Foundation
import Synchronization
import Testing
import VibesHTTP
import VibesTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The network transport every client shares: redirects never carry credentials to another
/// origin, the whole request has a deadline, and answers have a size cap. Real servers on
/// 127.0.0.1; each test fails when its guard is taken out of `URLSessionTransport`.
struct CurlTransportTests {
    static let secret = "Basic c2VjcmV0LWFwcDpzZWNyZXQtc2VjcmV0"

    /// A failed exchange is told in a sentence that names the host and the cause, not in
    /// libcurl's own words.
    @Test(arguments: [
        ("http://127.0.0.1:9/v1/ping", "127.0.0.1 port 9 refused the connection"),
        ("bogus://127.0.0.1:9/v1/ping", "is not an address this program can reach"),
    ])
    func aFailedExchangeIsASentenceNamingTheHost(url: String, words: String) async throws {
        let request = VibesHTTP.HTTPRequest(method: .get, url: URL(string: url)!, headerFields: [:])
        let error = await #expect(throws: HTTPTransportError.self) {
            _ = try await CurlTransport(timeout: 60).send(request, body: nil)
        }
        guard case .unreachable(_, let reason) = error else {
            Issue.record("expected an unreachable host, got \(String(describing: error))")
            return
        }
        #expect(reason.contains(words), "\(reason)")
        #expect(!reason.contains("Couldn't") && !reason.contains("after 0 ms"), "\(reason)")
    }

    @Test func aRedirectToAnotherPortIsRefusedAndTheCredentialNeverLeaves() async throws {
        try await RecordingServer.with { elsewhere in
            try await RecordingServer.with(redirectingTo: "http://127.0.0.1:\(elsewhere.port)/stolen") { home in
                let transport = CurlTransport(timeout: 60)
                let request = VibesHTTP.HTTPRequest(
                    method: .post,
                    url: URL(string: "http://127.0.0.1:\(home.port)/api/token")!,
                    headerFields: ["Authorization": Self.secret]
                )
                let error = await #expect(throws: HTTPTransportError.self) {
                    _ = try await transport.send(request, body: Data("grant_type=refresh_token".utf8))
                }
                guard case .redirectRefused(let endpoint, let location) = error else {
                    Issue.record("expected a refused redirect, got \(String(describing: error))")
                    return
                }
                #expect(endpoint == "POST /api/token")
                #expect(location == "http://127.0.0.1:\(elsewhere.port)")
                #expect(home.received.count == 1)
                #expect(elsewhere.received.isEmpty, "the other port got \(elsewhere.received)")
            }
        }
    }

    @Test func aRedirectToAnotherHostNameOnTheSamePortIsRefused() async throws {
        try await RecordingServer.with { home in
            // `localhost` is another origin than `127.0.0.1`, though the same socket answers.
            home.redirect = "http://localhost:\(home.port)/stolen"
            let transport = CurlTransport(timeout: 60)
            let request = VibesHTTP.HTTPRequest(
                method: .get,
                url: URL(string: "http://127.0.0.1:\(home.port)/v1/me/player/recently-played")!,
                headerFields: ["Authorization": "Bearer BQ-user-token"]
            )
            await #expect(throws: HTTPTransportError.self) { _ = try await transport.send(request, body: nil) }
            #expect(home.received.map(\.path) == ["/v1/me/player/recently-played"])
        }
    }

    @Test func aRedirectWithinTheOriginIsFollowedWithItsHeaders() async throws {
        try await RecordingServer.with { home in
            home.redirect = "http://127.0.0.1:\(home.port)/moved"
            let transport = CurlTransport(timeout: 60)
            let request = VibesHTTP.HTTPRequest(
                method: .get,
                url: URL(string: "http://127.0.0.1:\(home.port)/first")!,
                headerFields: ["Authorization": "Bearer BQ-user-token"]
            )
            let (response, body) = try await transport.send(request, body: nil)
            #expect(response.status == 200)
            #expect(String(decoding: body, as: UTF8.self) == "answer from /moved")
            #expect(home.received.map(\.path) == ["/first", "/moved"])
            #expect(home.received.last?.authorization == "Bearer BQ-user-token")
        }
    }

    @Test func theNeverPolicyRefusesEvenARedirectWithinTheOrigin() async throws {
        try await RecordingServer.with { home in
            home.redirect = "http://127.0.0.1:\(home.port)/moved"
            let transport = CurlTransport(timeout: 10, redirects: .never)
            let request = VibesHTTP.HTTPRequest(
                method: .post,
                url: URL(string: "http://127.0.0.1:\(home.port)/api/token")!,
                headerFields: ["Authorization": Self.secret]
            )
            await #expect(throws: HTTPTransportError.self) {
                _ = try await transport.send(request, body: Data("grant_type=authorization_code".utf8))
            }
            #expect(home.received.map(\.path) == ["/api/token"])
        }
    }

    @Test func theRetryingClientReportsARefusedRedirectWithoutRetrying() async throws {
        try await RecordingServer.with { elsewhere in
            try await RecordingServer.with(redirectingTo: "http://127.0.0.1:\(elsewhere.port)/x") { home in
                let transport = RetryingTransport<ServiceFailure>(
                    base: CurlTransport(timeout: 60),
                    clock: TestClock()
                )
                let request = VibesHTTP.HTTPRequest(
                    method: .get,
                    url: URL(string: "http://127.0.0.1:\(home.port)/v1/me/tracks")!,
                    headerFields: ["Authorization": "Bearer BQ-user-token"]
                )
                let error = await #expect(throws: ServiceFailure.self) {
                    _ = try await transport.send(request, body: nil)
                }
                #expect(String(describing: error).contains("redirected GET /v1/me/tracks to http://127.0.0.1:"))
                #expect(home.received.count == 1)
                #expect(elsewhere.received.isEmpty)
            }
        }
    }

    @Test func anAnswerPastTheCapIsCutOff() async throws {
        try await RecordingServer.with { home in
            home.bodySize = 3 << 20
            let request = VibesHTTP.HTTPRequest(method: .get, url: URL(string: "http://127.0.0.1:\(home.port)/big")!)
            let capped = CurlTransport(timeout: 10, maximumBodyBytes: 1 << 20)
            await #expect(throws: HTTPTransportError.responseTooLarge(endpoint: "GET /big", limit: 1 << 20)) {
                _ = try await capped.send(request, body: nil)
            }
            // Under the default cap the same answer arrives whole.
            let (_, body) = try await CurlTransport(timeout: 60).send(request, body: nil)
            #expect(body.count == 3 << 20)
        }
    }

    @Test func aTricklingAnswerMeetsTheWholeRequestDeadline() async throws {
        // One byte every 300 ms of a 100-byte body: 30 s in all, though no gap reaches the timeout.
        let server = try TricklingServer(bodyLength: 100, interval: 0.3)
        defer { server.stop() }
        let transport = CurlTransport(timeout: 1.5)
        let request = VibesHTTP.HTTPRequest(method: .get, url: URL(string: "http://127.0.0.1:\(server.port)/slow")!)
        let start = ContinuousClock.now
        await #expect(throws: HTTPTransportError.deadlineExceeded(endpoint: "GET /slow", seconds: 1.5)) {
            _ = try await transport.send(request, body: nil)
        }
        let elapsed = ContinuousClock.now - start
        #expect(elapsed < .seconds(15), "took \(elapsed)")
    }

    @Test func cancellingTheTaskEndsTheRequest() async throws {
        // The body would take 120 s to arrive; a cancelled request ends long before, even on a
        // machine whose every core runs other tests.
        let server = try TricklingServer(bodyLength: 400, interval: 0.3)
        defer { server.stop() }
        let transport = CurlTransport(timeout: 300)
        let request = VibesHTTP.HTTPRequest(method: .get, url: URL(string: "http://127.0.0.1:\(server.port)/slow")!)
        let task = Task { try await transport.send(request, body: nil) }
        try await Task.sleep(for: .milliseconds(500))
        let start = ContinuousClock.now
        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
        #expect(ContinuousClock.now - start < .seconds(30))
    }
}

// MARK: - Servers

/// A loopback HTTP server that records what it receives and answers 200, or a 307 to `redirect`
/// for any path but the redirect's own.
private final class RecordingServer: Sendable {
    struct Received: Sendable, Equatable {
        var path: String
        var authorization: String?
    }

    private struct State {
        var received: [Received] = []
        var redirect: String?
        var bodySize = 0
        var port: UInt16 = 0
    }

    private let state = Mutex(State())

    var received: [Received] { state.withLock { $0.received } }
    var port: UInt16 { state.withLock { $0.port } }
    var redirect: String? {
        get { state.withLock { $0.redirect } }
        set { state.withLock { $0.redirect = newValue } }
    }
    var bodySize: Int {
        get { state.withLock { $0.bodySize } }
        set { state.withLock { $0.bodySize = newValue } }
    }

    static func with<T>(
        redirectingTo redirect: String? = nil,
        _ body: (RecordingServer) async throws -> T
    ) async throws -> T {
        let recorder = RecordingServer()
        recorder.redirect = redirect
        let server = HTTPServer(
            address: try .inet(ip4: "127.0.0.1", port: 0),
            timeout: loopbackTimeout,
            logger: .disabled,
            handler: Handler(recorder: recorder)
        )
        let task = Task { try await server.run() }
        defer { task.cancel() }
        try await server.waitUntilListening(timeout: loopbackTimeout)
        guard case .ip4(_, let port) = await server.listeningAddress else { throw CancellationError() }
        recorder.state.withLock { $0.port = port }
        do {
            let result = try await body(recorder)
            await server.stop(timeout: 0.5)
            return result
        } catch {
            await server.stop(timeout: 0.5)
            throw error
        }
    }

    private struct Handler: HTTPHandler {
        let recorder: RecordingServer

        func handleRequest(_ request: FlyingFox.HTTPRequest) async throws -> FlyingFox.HTTPResponse {
            _ = try await request.bodyData
            let (redirect, size) = recorder.state.withLock { state in
                state.received.append(Received(path: request.path, authorization: request.headers[.authorization]))
                return (state.redirect, state.bodySize)
            }
            if let redirect, let target = URL(string: redirect), target.path != request.path {
                return FlyingFox.HTTPResponse(
                    statusCode: .temporaryRedirect,
                    headers: [.location: redirect],
                    body: Data()
                )
            }
            let body = size > 0 ? Data(repeating: 0x61, count: size) : Data("answer from \(request.path)".utf8)
            return FlyingFox.HTTPResponse(statusCode: .ok, headers: [.contentType: "text/plain"], body: body)
        }
    }
}

/// What a service's client reports when retrying gave up, as `SpotifyError` and `ReccoBeatsError` do.
enum ServiceFailure: RetryFailure {
    case rateLimited(retryAfter: Duration?, retryAt: Date?, endpoint: String)
    case network(reason: String, attempts: Int, endpoint: String)
}
