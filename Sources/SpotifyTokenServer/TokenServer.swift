import FlyingFox
import FlyingSocks
import Foundation
import Logging
import SpotifyWebAPI
import VibesHTTP

/// The token swap and refresh service that Spotify's mobile SDKs call, so that an app never holds
/// the client secret.
///
/// It answers two endpoints, both `POST` with an `application/x-www-form-urlencoded` body:
///
/// - `/swap` takes `code` (and `code_verifier` when the app used PKCE), exchanges it at the
///   accounts service with the client secret and the configured redirect URI, and returns
///   Spotify's JSON with `refresh_token` sealed by a ``RefreshTokenSealer``.
/// - `/refresh` takes that sealed `refresh_token`, opens it, refreshes, and returns Spotify's JSON;
///   when Spotify sends a new refresh token it comes back sealed, and otherwise there is none.
///
/// Spotify's error statuses and bodies pass through unchanged. The server's own errors are JSON in
/// the OAuth shape, `{"error": "invalid_token", "error_description": "…"}`: `invalid_request` (400)
/// for a missing form field, `invalid_token` (400) for a sealed token it cannot open (which never
/// reaches Spotify), `request_too_large` (413), `too_many_requests` (429, with `Retry-After`),
/// `not_found` (404), `method_not_allowed` (405), `server_error` (502) when Spotify cannot be
/// reached or answers with more than ``Limits/maximumUpstreamBodyBytes``, and (504) when the answer
/// takes longer than ``Limits/requestTimeout``. Every request is reported to `accessLog` without
/// tokens, codes or secrets.
///
/// One client cannot take the server from the others (see ``Limits``): a request must arrive whole
/// within ``Limits/headerTimeout``; its head and lines are bounded, and read in time linear in
/// their length; at most ``Limits/maximumConnections`` connections are open, and beyond that a new
/// one takes the place of the connection that has waited longest for its request, or gets 503
/// (`temporarily_unavailable`) when every connection is being answered. An error accepting a
/// connection (such as running out of file descriptors) never stops the server. Requests it cannot
/// read get 400 (`invalid_request`), 408 (`request_timeout`), 414 or 431 (`request_too_large`),
/// 501 or 505.
///
/// ```swift
/// let server = TokenServer(
///     configuration: .init(clientID: id, clientSecret: secret, redirectURI: "myapp://callback"),
///     sealer: try RefreshTokenSealer(keyFile: "token-key", clientID: id),
///     transport: URLSessionTransport(timeout: 20)
/// ) { entry in print(entry) }
/// try await server.run { endpoints in print("Listening on \(endpoints.swapURL)") }
/// ```
public struct TokenServer: Sendable {
    /// The path of the swap endpoint.
    public static let swapPath = "/swap"
    /// The path of the refresh endpoint.
    public static let refreshPath = "/refresh"

    public let configuration: Configuration
    let sealer: RefreshTokenSealer
    let transport: any HTTPTransport
    let accessLog: @Sendable (AccessLogEntry) -> Void
    let limiter: RateLimiter<ContinuousClock>
    let logger: Logger

    /// Creates a server; ``run(onListening:)`` starts it.
    ///
    /// - Parameters:
    ///   - configuration: The app, the redirect URI, the address and the limits.
    ///   - sealer: Seals and opens refresh tokens; its client ID must be the configuration's.
    ///   - transport: Sends requests to the accounts service. Give it a timeout shorter than
    ///     ``Limits/requestTimeout``, and no retries: the app retries if it wants to.
    ///     Give it a body limit of ``Limits/maximumUpstreamBodyBytes`` too: the server refuses a
    ///     longer answer, but only the transport can stop reading it.
    ///   - logger: Receives an `info` line when accepting connections fails (at most every 10 s).
    ///   - accessLog: Called once per request, after the response is made.
    public init(
        configuration: Configuration,
        sealer: RefreshTokenSealer,
        transport: any HTTPTransport,
        logger: Logger = Logger(label: "vibes.token-server"),
        accessLog: @escaping @Sendable (AccessLogEntry) -> Void = { _ in }
    ) {
        precondition(
            sealer.clientID == configuration.clientID,
            "The sealer must bind tokens to the server's client ID."
        )
        self.configuration = configuration
        self.sealer = sealer
        self.transport = transport
        self.accessLog = accessLog
        self.logger = logger
        self.limiter = RateLimiter(
            requestsPerMinute: configuration.limits.requestsPerMinute,
            burst: configuration.limits.burst,
            clock: ContinuousClock()
        )
    }

    /// Reads the client secret from a file that holds it on one line and that only its owner may
    /// read (mode 0600 or 0400).
    ///
    /// - Throws: ``TokenServerError/fileNotPrivate(path:mode:)`` when group or others have any
    ///   permission on the file; ``TokenServerError/malformedFile(path:reason:)`` when it is empty
    ///   or has more than one line; ``TokenServerError/cannotReadFile(path:reason:)``.
    public static func loadClientSecret(fromFile path: String) throws -> String {
        try PrivateFile.readLine(atPath: path)
    }

    // MARK: - Running

    /// Listens and answers requests until the task is cancelled.
    ///
    /// - Parameter onListening: Called once the server listens, with the URLs of both endpoints
    ///   (with the real port when ``Configuration/port`` is 0).
    /// - Throws: ``TokenServerError/cannotListen(address:port:reason:)`` when the address is not
    ///   one of this machine's or the port is taken; an error of `onListening`.
    public func run(onListening: @Sendable (Endpoints) async throws -> Void = { _ in }) async throws {
        // The access log's first date loads time-zone and locale data from files: load it now,
        // before connections can take every descriptor the process may open.
        _ = Date().formatted(.iso8601)
        let listener = try makeListener()
        defer { try? listener.close() }
        let endpoints = try endpoints(of: listener)
        let pool = SocketPool.make()
        do {
            try await pool.prepare()
        } catch {
            throw TokenServerError.cannotListen(
                address: configuration.bindAddress,
                port: configuration.port,
                reason: Self.reason(for: error)
            )
        }
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await pool.run() }
                group.addTask { try await acceptConnections(on: listener, pool: pool) }
                defer { group.cancelAll() }
                try await onListening(endpoints)
                // Both run until cancelled; either ending is an error.
                try await group.next()
            }
        } catch {
            if error is CancellationError || Task.isCancelled { return }
            throw error
        }
    }
}

// MARK: - Configuration

extension TokenServer {
    /// What the server serves and where.
    ///
    /// The client secret never appears in `description`.
    public struct Configuration: Sendable, CustomStringConvertible {
        /// The Spotify app's client ID.
        public var clientID: String
        /// The Spotify app's client secret, sent to the accounts service with HTTP Basic.
        public var clientSecret: String
        /// The redirect URI the app registered and used in its authorize request, such as
        /// `myapp://spotify-login-callback`; sent with every code exchange.
        public var redirectURI: String
        /// The accounts service; `https://accounts.spotify.com/` in production.
        public var accountsBaseURL: URL
        /// The IPv4 or IPv6 address to listen on. Defaults to `127.0.0.1`, for a TLS proxy on the
        /// same machine; `0.0.0.0` listens on every interface.
        public var bindAddress: String
        /// The TCP port; 0 picks a free one. Defaults to 8080.
        public var port: UInt16
        /// The size, rate and time limits.
        public var limits: Limits
        /// Whether the client address is the last entry of `X-Forwarded-For`, as a proxy in front
        /// sets it. Off by default, since a client could otherwise choose its own address (and so
        /// its own rate limit).
        public var trustsForwardedFor: Bool

        /// The default port.
        public static let defaultPort: UInt16 = 8080

        public init(
            clientID: String,
            clientSecret: String,
            redirectURI: String,
            accountsBaseURL: URL = SpotifyAccounts.productionBaseURL,
            bindAddress: String = "127.0.0.1",
            port: UInt16 = Configuration.defaultPort,
            limits: Limits = Limits(),
            trustsForwardedFor: Bool = false
        ) {
            self.clientID = clientID
            self.clientSecret = clientSecret
            self.redirectURI = redirectURI
            self.accountsBaseURL = accountsBaseURL
            self.bindAddress = bindAddress
            self.port = port
            self.limits = limits
            self.trustsForwardedFor = trustsForwardedFor
        }

        public var description: String {
            "TokenServer.Configuration(clientID: \(clientID), clientSecret: <redacted>, redirectURI: \(redirectURI), "
                + "accountsBaseURL: \(accountsBaseURL.absoluteString), bindAddress: \(bindAddress), port: \(port))"
        }
    }

    /// How much one client may ask of the server.
    ///
    /// Keep ``maximumConnections`` well below the process's limit of open files (`ulimit -n`):
    /// each connection being answered may hold a second descriptor for the call to Spotify.
    public struct Limits: Sendable, Hashable {
        /// The largest request body accepted, in bytes; larger ones get 413. Defaults to 16 KiB,
        /// far more than a code or a sealed token needs.
        public var maximumBodyBytes: Int
        /// The steady number of requests per minute one client address may send; more get 429.
        /// Defaults to 30.
        public var requestsPerMinute: Int
        /// How many requests a client that has been quiet may send at once. Defaults to 30.
        public var burst: Int
        /// How long one request may take, the call to Spotify included; a slower answer is 504.
        /// Defaults to 30 seconds.
        public var requestTimeout: Duration
        /// The most connections open at once. Beyond it, a new connection takes the place of the
        /// one that has waited longest for its request, or is answered 503 when every connection
        /// is being answered. Defaults to 256.
        public var maximumConnections: Int
        /// The largest request head (request line and header fields) accepted, in bytes; larger
        /// ones get 431. Defaults to 16 KiB.
        public var maximumHeaderBytes: Int
        /// The longest line of a request head, in bytes; a longer request line gets 414 and a
        /// longer header field 431. Defaults to 8 KiB.
        public var maximumLineBytes: Int
        /// How long a client may take to send a whole request, from the connection (or the
        /// previous answer on it) to the end of the body, and to take the answer. A connection
        /// idle that long is closed; one that sent part of a request gets 408. Defaults to 10
        /// seconds.
        public var headerTimeout: Duration
        /// The largest answer accepted from the accounts service, in bytes; a larger one is 502.
        /// Defaults to 64 KiB, far more than a token answer or an error page needs.
        public var maximumUpstreamBodyBytes: Int

        /// Creates limits.
        ///
        /// - Parameters:
        ///   - maximumBodyBytes: At least 1,024.
        ///   - requestsPerMinute: At least 1.
        ///   - burst: At least 1.
        ///   - requestTimeout: More than zero.
        ///   - maximumConnections: At least 1.
        ///   - maximumHeaderBytes: At least 1,024.
        ///   - maximumLineBytes: At least 256, and at most `maximumHeaderBytes`.
        ///   - headerTimeout: More than zero.
        ///   - maximumUpstreamBodyBytes: At least 1,024.
        public init(
            maximumBodyBytes: Int = 16_384,
            requestsPerMinute: Int = 30,
            burst: Int = 30,
            requestTimeout: Duration = .seconds(30),
            maximumConnections: Int = 256,
            maximumHeaderBytes: Int = 16_384,
            maximumLineBytes: Int = 8_192,
            headerTimeout: Duration = .seconds(10),
            maximumUpstreamBodyBytes: Int = 65_536
        ) {
            precondition(maximumBodyBytes >= 1_024, "The body limit must leave room for a token request.")
            precondition(requestsPerMinute >= 1 && burst >= 1, "A rate limit allows at least one request.")
            precondition(requestTimeout > .zero, "A request needs time to be answered.")
            precondition(maximumConnections >= 1, "A server holds at least one connection.")
            precondition(
                maximumHeaderBytes >= 1_024 && (256...maximumHeaderBytes).contains(maximumLineBytes),
                "The header limits must leave room for a request line and a few fields."
            )
            precondition(headerTimeout > .zero, "A request needs time to arrive.")
            precondition(maximumUpstreamBodyBytes >= 1_024, "The upstream limit must leave room for a token answer.")
            self.maximumBodyBytes = maximumBodyBytes
            self.requestsPerMinute = requestsPerMinute
            self.burst = burst
            self.requestTimeout = requestTimeout
            self.maximumConnections = maximumConnections
            self.maximumHeaderBytes = maximumHeaderBytes
            self.maximumLineBytes = maximumLineBytes
            self.headerTimeout = headerTimeout
            self.maximumUpstreamBodyBytes = maximumUpstreamBodyBytes
        }
    }

    /// The URLs the apps call.
    public struct Endpoints: Sendable, Hashable {
        /// `http://ADDRESS:PORT/swap`: the iOS SDK's `tokenSwapURL`.
        public var swapURL: URL
        /// `http://ADDRESS:PORT/refresh`: the iOS SDK's `tokenRefreshURL`.
        public var refreshURL: URL

        /// `base` is `http://HOST:PORT`, with an IPv6 host in brackets.
        init(base: String) {
            swapURL = URL(string: base + TokenServer.swapPath)!
            refreshURL = URL(string: base + TokenServer.refreshPath)!
        }
    }
}
