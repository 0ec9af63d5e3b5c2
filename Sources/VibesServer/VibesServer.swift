import FlyingFox
import FlyingSocks
import Foundation
import Ingest
import Logging

/// The HTTP server of `vibes-analyze serve`: a JSON API over the library store, the
/// Spotify-compatible `/v1/audio-features` and `/v1/recommendations` endpoints, and a small web
/// app that uses only the API.
///
/// It answers over FlyingFox's `HTTPServer`. Every request passes ``RequestGate`` first: its
/// target and body are size-limited, its `Host` must name this server (no DNS rebinding), its
/// `Origin`, when sent, must be this server, a bearer token is required when one is configured,
/// and a request that could change state needs the session's CSRF token. The store is read per
/// request, on threads of a ``BlockingQueue`` rather than Swift's cooperative pool, except the
/// audio-features table and the recommender, which are kept in memory and rebuilt within
/// ``Configuration/pollInterval`` of another program's write.
///
/// ```swift
/// let server = VibesServer(configuration: .init(port: 0), store: try LibraryStore(path: path))
/// try await server.run { url in print("Open \(url)") }
/// ```
public struct VibesServer: Sendable {
    /// The version of every JSON answer's shape, sent as `schema_version`.
    public static let schemaVersion = 1

    public let configuration: Configuration
    let store: LibraryStore
    let library: LibraryCache
    let gate: RequestGate
    /// Where requests read the store, off the cooperative pool.
    let reads = BlockingQueue(label: "vibes.server.reads")
    /// What lets recommendations be computed, as many at once as there are cores.
    let recommending = AdmissionGate(limit: max(1, ProcessInfo.processInfo.activeProcessorCount))
    /// The long jobs (re-clustering) that run one at a time.
    let jobs = ServerJobs()
    let logger: Logger
    /// The Spotify account playlists and orders are pushed to, looked up at each write.
    let spotify: SpotifyAccount?
    /// The Spotify playlists being written, one request each at a time.
    let spotifyWrites = SpotifyWrites()

    /// Creates a server; ``run(onListening:)`` starts it.
    ///
    /// - Parameters:
    ///   - configuration: The address, the optional bearer token and the limits.
    ///   - store: The library it answers about; it only reads it.
    ///   - logger: Receives a line per store reload and per failed request, never a token.
    ///   - spotify: The Spotify account the web app pushes to; `nil` for none.
    public init(
        configuration: Configuration,
        store: LibraryStore,
        logger: Logger = Logger(label: "vibes.server"),
        spotify: SpotifyAccount? = nil
    ) {
        self.configuration = configuration
        self.store = store
        self.logger = logger
        self.spotify = spotify
        self.library = LibraryCache(store: store, logger: logger)
        self.gate = RequestGate(configuration: configuration)
    }

    /// Listens and answers requests until the task is cancelled.
    ///
    /// - Parameter onListening: Called once the server listens, with its base URL (with the real
    ///   port when ``Configuration/port`` is 0).
    /// - Throws: ``VibesServerError`` when the address is not this machine's or the port is taken,
    ///   or the store cannot be read.
    public func run(onListening: @Sendable (URL) async throws -> Void = { _ in }) async throws {
        try await reads.run { [library] in try library.reload() }
        let address: any SocketAddress
        do {
            address =
                configuration.bindAddress.contains(":")
                ? try sockaddr_in6.inet6(ip6: configuration.bindAddress, port: configuration.port)
                : try sockaddr_in.inet(ip4: configuration.bindAddress, port: configuration.port)
        } catch {
            throw VibesServerError.cannotListen(
                address: configuration.bindAddress,
                port: configuration.port,
                reason: "it is not an IPv4 or IPv6 address"
            )
        }
        // FlyingFox reads a body up to its replay size before calling the handler, and streams a
        // longer one: at the body limit, a body too large is refused before any of it is read.
        let server = HTTPServer(
            config: HTTPServer.Configuration(
                address: address,
                // Generous: an answer late on a busy machine is better than a cut one.
                timeout: 120,
                sharedRequestBufferSize: 4_096,
                sharedRequestReplaySize: configuration.maximumBodyBytes,
                pool: ConnectionCap(limit: configuration.maximumIdleConnections, base: HTTPServer.defaultPool()),
                logger: QuietLogger()
            ),
            handler: ClosureHTTPHandler { request in await self.respond(to: request) }
        )
        do {
            try await serve(server, library: library, onListening: onListening)
        } catch {
            if error is CancellationError || Task.isCancelled { return }
            throw error
        }
    }

    /// Runs `server` and the store watch until either fails or the task is cancelled.
    private func serve(
        _ server: HTTPServer,
        library: LibraryCache,
        onListening: @Sendable (URL) async throws -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    // Cancelling closes the listening socket and the connections.
                    try await withTaskCancellationHandler {
                        try await server.run()
                    } onCancel: {
                        Task { await server.stop() }
                    }
                } catch is CancellationError {
                } catch {
                    throw VibesServerError.cannotListen(
                        address: configuration.bindAddress,
                        port: configuration.port,
                        reason: Self.reason(for: error)
                    )
                }
            }
            group.addTask { try await library.watch(every: configuration.pollInterval, reads: reads) }
            defer { group.cancelAll() }
            do {
                try await server.waitUntilListening(timeout: 10)
            } catch {
                // The server task failed to listen: its error says why.
                try await group.next()
                throw error
            }
            let port: UInt16 =
                switch await server.listeningAddress {
                case .ip4(_, let port), .ip6(_, let port): port
                default: configuration.port
                }
            gate.setPort(port)
            let host =
                configuration.bindAddress.contains(":") ? "[\(configuration.bindAddress)]" : configuration.bindAddress
            let shownHost = RequestGate.isWildcard(configuration.bindAddress) ? "127.0.0.1" : host
            try await onListening(URL(string: "http://\(shownHost):\(port)/")!)
            try await group.next()
        }
    }

    /// The system's words for a socket error ("Address already in use").
    static func reason(for error: any Error) -> String {
        let text = (error as? LocalizedError)?.errorDescription ?? "\(error)"
        guard let separator = text.range(of: "): ") else { return text }
        return String(text[separator.upperBound...])
    }
}

// MARK: - Configuration

extension VibesServer {
    /// Where the server listens and what it lets in.
    ///
    /// The bearer token never appears in `description`.
    public struct Configuration: Sendable, CustomStringConvertible {
        /// The IPv4 or IPv6 address to listen on. Defaults to `127.0.0.1`.
        public var bindAddress: String
        /// The TCP port; 0 picks a free one. Defaults to 8765.
        public var port: UInt16
        /// The token every request must send as `Authorization: Bearer …`; `nil` asks for none,
        /// which `vibes-analyze serve` allows only on a loopback address.
        public var bearerToken: String?
        /// The longest request target (path and query) accepted, in bytes; longer ones get 414.
        /// Defaults to 8 KiB: room for 100 Spotify IDs, percent-encoded.
        public var maximumTargetBytes: Int
        /// The largest request body accepted, in bytes, at least 4 KiB; larger ones get 413, before
        /// any of the body is read. Defaults to 64 KiB.
        public var maximumBodyBytes: Int
        /// The most connections left waiting on their client at once (open between requests, or
        /// sending or reading slowly); when one more starts waiting, the one that has waited
        /// longest is closed. Connections being answered do not count. Defaults to 64.
        public var maximumIdleConnections: Int
        /// How often the store is asked whether another program changed it. Defaults to 0.5 s.
        public var pollInterval: Duration

        /// The default port.
        public static let defaultPort: UInt16 = 8765

        public init(
            bindAddress: String = "127.0.0.1",
            port: UInt16 = Configuration.defaultPort,
            bearerToken: String? = nil,
            maximumTargetBytes: Int = 8_192,
            maximumBodyBytes: Int = 65_536,
            maximumIdleConnections: Int = 64,
            pollInterval: Duration = .milliseconds(500)
        ) {
            precondition(
                maximumTargetBytes >= 256 && maximumBodyBytes >= 4_096,
                "The limits must leave room for a request."
            )
            precondition(pollInterval > .zero, "The store must be polled at some interval.")
            precondition(maximumIdleConnections >= 1, "At least one connection must be able to wait.")
            self.bindAddress = bindAddress
            self.port = port
            self.bearerToken = bearerToken
            self.maximumTargetBytes = maximumTargetBytes
            self.maximumBodyBytes = maximumBodyBytes
            self.maximumIdleConnections = maximumIdleConnections
            self.pollInterval = pollInterval
        }

        public var description: String {
            "VibesServer.Configuration(bindAddress: \(bindAddress), port: \(port), "
                + "bearerToken: \(bearerToken == nil ? "none" : "<redacted>"))"
        }
    }
}

/// Why the server cannot run.
public enum VibesServerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The address is not one of this machine's, or the port is taken.
    case cannotListen(address: String, port: UInt16, reason: String)

    public var description: String {
        switch self {
        case .cannotListen(let address, let port, let reason):
            "Cannot listen on \(address) port \(port): \(reason)."
        }
    }
}

/// FlyingFox's log would print every request line, query strings and all: the server logs
/// through its own `Logger` instead.
struct QuietLogger: FlyingSocks.Logging {
    func logDebug(_ debug: @autoclosure () -> String) {}
    func logInfo(_ info: @autoclosure () -> String) {}
    func logWarning(_ warning: @autoclosure () -> String) {}
    func logError(_ error: @autoclosure () -> String) {}
    func logCritical(_ critical: @autoclosure () -> String) {}
}
