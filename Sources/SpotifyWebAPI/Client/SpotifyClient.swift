import Foundation
import Logging
import SpotifyWebModel
import Synchronization
import VibesHTTP

/// An async client for the Spotify Web API.
///
/// The client sends every request through an injected ``HTTPTransport`` chain:
/// ``AuthorizingTransport`` (bearer token, one refresh on 401) over ``RetryingTransport``
/// (429 `Retry-After`, 5xx and network backoff) over the network transport. It maps error
/// statuses to ``SpotifyError`` with Spotify's message, and decoding failures to
/// ``SpotifyError/decoding(reason:status:body:endpoint:)`` with the redacted body.
///
/// ```swift
/// let client = SpotifyClient(tokens: store)
/// let me = try await client.currentUser()
/// let page = try await client.savedTracks(offset: 0)
/// ```
public final class SpotifyClient: Sendable {
    /// The API root; `https://api.spotify.com/v1/` in production.
    public let baseURL: URL
    /// Counts every request sent, retries included.
    public let requestCounter: RequestCounter
    /// The app's client ID, recorded with capabilities such as audio-features access.
    public let clientID: String?
    /// The most requests this client may send, when the command set a budget.
    public let budget: RequestBudget?
    /// Which deprecated or newer paths this API refused, so later calls skip them.
    let fallbacks = Mutex(Fallbacks())
    let transport: any HTTPTransport
    let logger: Logger

    /// The production API root.
    public static let productionBaseURL = URL(string: "https://api.spotify.com/v1/")!

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - tokens: Supplies and refreshes access tokens (a ``TokenStore``).
    ///   - baseURL: The API root; tests pass a local fake.
    ///   - networking: The transport below, retry budgets, clocks and the retry hook.
    ///   - requestBudget: The most requests to send (retries included); past it a request throws
    ///     ``SpotifyError/requestBudgetReached(limit:endpoint:)`` unsent. `nil` for no limit.
    public init(
        tokens: any AccessTokenProvider,
        clientID: String? = nil,
        baseURL: URL = SpotifyClient.productionBaseURL,
        networking: ClientNetworking = ClientNetworking(),
        requestBudget: RequestBudget? = nil,
        logger: Logger = Logger(label: "vibes.spotify")
    ) {
        let counter = RequestCounter()
        // Below the retries: a quota answer is never retried, and a budget counts every attempt.
        var bottom: any HTTPTransport = QuotaTransport(base: networking.network, now: networking.now)
        if let requestBudget { bottom = BudgetTransport(base: bottom, budget: requestBudget) }
        let retrying = networking.retrying(over: bottom, counter: counter, logger: logger, failing: SpotifyError.self)
        self.transport = AuthorizingTransport(base: retrying, tokens: tokens)
        self.baseURL = baseURL.absoluteString.hasSuffix("/") ? baseURL : baseURL.appendingPathComponent("")
        self.requestCounter = counter
        self.clientID = clientID
        self.budget = requestBudget
        self.logger = logger
    }

    // MARK: - Requests

    /// Builds the URL of `path` (relative to ``baseURL``, no leading slash) with `query`.
    func makeURL(_ path: String, query: [(String, String)] = []) -> URL {
        var components = URLComponents(url: baseURL.appendingPathComponent(path), resolvingAgainstBaseURL: false)!
        if !query.isEmpty {
            components.queryItems = query.map { URLQueryItem(name: $0.0, value: $0.1) }
        }
        return components.url!
    }

    /// Sends a request and returns the response, throwing ``SpotifyError`` for error statuses.
    ///
    /// - Returns: The status and body of a 2xx response.
    func perform(
        _ method: HTTPMethod,
        _ path: String,
        query: [(String, String)] = [],
        json body: Data? = nil
    ) async throws -> (status: Int, data: Data, endpoint: String) {
        var request = HTTPRequest(
            method: method,
            url: makeURL(path, query: query),
            headerFields: ["Accept": "application/json"]
        )
        if body != nil { request.headerFields["Content-Type"] = "application/json" }
        logger.debug("\(request.endpoint)")
        let (response, data) = try await transport.send(request, body: body)
        guard response.isSuccess else {
            if response.status == 429 {
                throw SpotifyError.rateLimited(retryAfter: nil, retryAt: nil, endpoint: request.endpoint)
            }
            let envelope = try? JSONDecoder().decode(SpotifyErrorEnvelope.self, from: data)
            if response.status == 403, envelope?.error.message == SpotifyError.insufficientScopeMessage {
                throw SpotifyError.missingScope(
                    scope: Self.requiredScope(method: method, path: path)?.rawValue,
                    endpoint: request.endpoint
                )
            }
            if let reason = envelope?.error.reason, SpotifyError.playerReasons.contains(reason) {
                throw SpotifyError.playerRefused(
                    reason: reason,
                    message: envelope?.error.message.map(Redaction.redact),
                    endpoint: request.endpoint
                )
            }
            throw SpotifyError.http(
                status: response.status,
                message: envelope?.error.message.map(Redaction.redact),
                endpoint: request.endpoint
            )
        }
        return (response.status, data, request.endpoint)
    }

    /// Sends a request and decodes a 2xx body as `T`.
    func decode<T: Decodable>(
        _ type: T.Type,
        _ path: String,
        method: HTTPMethod = .get,
        query: [(String, String)] = [],
        json body: Data? = nil
    ) async throws -> T {
        let (status, data, endpoint) = try await perform(method, path, query: query, json: body)
        return try decode(type, from: data, status: status, endpoint: endpoint)
    }

    func decode<T: Decodable>(_ type: T.Type, from data: Data, status: Int, endpoint: String) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw SpotifyError.decoding(
                reason: describeDecodingError(error),
                status: status,
                body: redactedBody(data),
                endpoint: endpoint
            )
        }
    }

    /// The scope an endpoint needs, by method and path (relative to ``baseURL``), as Spotify's
    /// reference lists it; `nil` for endpoints that need none or that the client does not know.
    public static func requiredScope(method: HTTPMethod, path: String) -> Scope? {
        let parts = path.split(separator: "/").map(String.init)
        switch (method, parts.first ?? "", parts.count) {
        case (.get, "me", 2) where parts[1] == "tracks": return .userLibraryRead
        case (.get, "me", 3) where parts[1] == "top": return .userTopRead
        case (_, "me", 3) where parts[1] == "player":
            switch parts[2] {
            case "recently-played": return .userReadRecentlyPlayed
            case "currently-playing": return .userReadCurrentlyPlaying
            case "devices": return .userReadPlaybackState
            default: return .userModifyPlaybackState
            }
        case (.post, "me", 2) where parts[1] == "playlists": return .playlistModifyPrivate
        case (.post, "playlists", 3), (.put, "playlists", 3), (.delete, "playlists", 3): return .playlistModifyPrivate
        default: return nil
        }
    }

    /// Encodes `value` as a JSON request body.
    static func jsonBody(_ value: some Encodable) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try! encoder.encode(value)
    }
}

/// Paths the API turned out not to serve, remembered for the client's lifetime.
struct Fallbacks: Sendable {
    /// `/playlists/{id}/items` answered 404, so `/playlists/{id}/tracks` is used.
    var usesLegacyPlaylistItemsPath = false
    /// Batch `/tracks?ids=` was refused, so tracks are fetched one by one.
    var fetchesTracksSingly = false
    /// Batch `/artists?ids=` was refused, so artists are fetched one by one.
    var fetchesArtistsSingly = false
}
