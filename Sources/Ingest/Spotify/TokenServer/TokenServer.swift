import FlyingFox
import Foundation

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
/// `not_found` (404), `method_not_allowed` (405) and `server_error` (502) when Spotify cannot be
/// reached. Every request is reported to `accessLog` without tokens, codes or secrets.
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

    /// Creates a server; ``run(onListening:)`` starts it.
    ///
    /// - Parameters:
    ///   - configuration: The app, the redirect URI, the address and the limits.
    ///   - sealer: Seals and opens refresh tokens; its client ID must be the configuration's.
    ///   - transport: Sends requests to the accounts service. Give it a timeout shorter than
    ///     ``Limits/requestTimeout``, and no retries: the app retries if it wants to.
    ///   - accessLog: Called once per request, after the response is made.
    public init(
        configuration: Configuration,
        sealer: RefreshTokenSealer,
        transport: any HTTPTransport,
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
        let server = try makeHTTPServer()
        let (address, port) = (configuration.bindAddress, configuration.port)
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await server.run()
                return false
            }
            group.addTask {
                try await server.waitUntilListening(timeout: 30)
                return true
            }
            do {
                guard try await group.next() == true else {
                    throw TokenServerError.cannotListen(address: address, port: port, reason: "the server stopped")
                }
            } catch let error as TokenServerError {
                throw error
            } catch {
                if error is CancellationError || Task.isCancelled { return }
                throw TokenServerError.cannotListen(address: address, port: port, reason: Self.reason(for: error))
            }
            let endpoints: Endpoints
            switch await server.listeningAddress {
            case .ip4(let host, let port): endpoints = Endpoints(base: "http://\(host):\(port)")
            case .ip6(let host, let port): endpoints = Endpoints(base: "http://[\(host)]:\(port)")
            default:
                throw TokenServerError.cannotListen(address: address, port: port, reason: "it bound no IP address")
            }
            do {
                try await onListening(endpoints)
                _ = try await group.next()
            } catch {
                await server.stop(timeout: 1)
                // Cancelled: FlyingFox ends its accept loop with `CancellationError` or `disconnected`.
                if error is CancellationError || Task.isCancelled { return }
                throw error
            }
            await server.stop(timeout: 1)
        }
    }

    private func makeHTTPServer() throws -> HTTPServer {
        let (address, port) = (configuration.bindAddress, configuration.port)
        let limits = configuration.limits
        let timeout = limits.requestTimeout / .seconds(1)
        // Bodies up to the limit are read at once; larger ones are never read, only refused.
        let config: HTTPServer.Configuration
        do {
            config =
                address.contains(":")
                ? HTTPServer.Configuration(
                    address: try .inet6(ip6: address, port: port),
                    timeout: timeout,
                    sharedRequestBufferSize: limits.maximumBodyBytes,
                    sharedRequestReplaySize: limits.maximumBodyBytes,
                    logger: .disabled
                )
                : HTTPServer.Configuration(
                    address: try .inet(ip4: address, port: port),
                    timeout: timeout,
                    sharedRequestBufferSize: limits.maximumBodyBytes,
                    sharedRequestReplaySize: limits.maximumBodyBytes,
                    logger: .disabled
                )
        } catch {
            throw TokenServerError.cannotListen(
                address: address,
                port: port,
                reason: "it is not an IPv4 or IPv6 address"
            )
        }
        return HTTPServer(config: config, handler: Handler(server: self))
    }

    /// The system's words for a socket error: FlyingFox says "SocketError. Bind(98): Address
    /// already in use", and this keeps "Address already in use".
    private static func reason(for error: any Error) -> String {
        let text = (error as? LocalizedError)?.errorDescription ?? "\(error)"
        guard let separator = text.range(of: "): ") else { return text }
        return String(text[separator.upperBound...])
    }

    /// The FlyingFox handler: answers every request, logs it, and never throws.
    private struct Handler: HTTPHandler {
        let server: TokenServer

        func handleRequest(_ request: FlyingFox.HTTPRequest) async throws -> FlyingFox.HTTPResponse {
            await server.respond(to: request)
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
    public struct Limits: Sendable, Hashable {
        /// The largest request body accepted, in bytes; larger ones get 413. Defaults to 16 KiB,
        /// far more than a code or a sealed token needs.
        public var maximumBodyBytes: Int
        /// The steady number of requests per minute one client address may send; more get 429.
        /// Defaults to 30.
        public var requestsPerMinute: Int
        /// How many requests a client that has been quiet may send at once. Defaults to 30.
        public var burst: Int
        /// How long one request may take, the call to Spotify included. Defaults to 30 seconds.
        public var requestTimeout: Duration

        /// Creates limits.
        ///
        /// - Parameters:
        ///   - maximumBodyBytes: At least 1,024.
        ///   - requestsPerMinute: At least 1.
        ///   - burst: At least 1.
        ///   - requestTimeout: More than zero.
        public init(
            maximumBodyBytes: Int = 16_384,
            requestsPerMinute: Int = 30,
            burst: Int = 30,
            requestTimeout: Duration = .seconds(30)
        ) {
            precondition(maximumBodyBytes >= 1_024, "The body limit must leave room for a token request.")
            precondition(requestsPerMinute >= 1 && burst >= 1, "A rate limit allows at least one request.")
            precondition(requestTimeout > .zero, "A request needs time to be answered.")
            self.maximumBodyBytes = maximumBodyBytes
            self.requestsPerMinute = requestsPerMinute
            self.burst = burst
            self.requestTimeout = requestTimeout
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
