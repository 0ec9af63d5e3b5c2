import Features
import Foundation
import Logging
import VibesHTTP

/// An async client for ReccoBeats, the keyless API that serves Spotify's own audio-feature values
/// by Spotify track ID or ISRC.
///
/// It sends requests through the same ``HTTPTransport`` chain as the Spotify client, without the
/// authorizing layer: ``RetryingTransport`` honours `Retry-After` within the ``RetryPolicy``'s
/// budget and backs off on 5xx and network errors. Failures are ``ReccoBeatsError`` values.
///
/// ```swift
/// let client = ReccoBeatsClient(baseURL: ReccoBeatsClient.baseURL())
/// let items = try await client.audioFeatures(ids: ["4uLU6hMCjMI75M1A2tKUQC"])
/// ```
public final class ReccoBeatsClient: Sendable {
    /// The production API root.
    public static let productionBaseURL = URL(string: "https://api.reccobeats.com/v1/")!
    /// The most IDs one request takes; ReccoBeats drops extras without an error.
    public static let batchSize = 40

    /// The API root.
    public let baseURL: URL
    /// Counts every request sent, retries included.
    public let requestCounter: RequestCounter
    let transport: any HTTPTransport
    let logger: Logger

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - baseURL: The API root; ``baseURL(environment:)`` reads the override.
    ///   - networking: The transport below, retry budgets, clocks and the retry hook.
    ///   - logger: Receives one line per retry.
    public init(
        baseURL: URL = ReccoBeatsClient.productionBaseURL,
        networking: ClientNetworking = ClientNetworking(),
        logger: Logger = Logger(label: "vibes.reccobeats")
    ) {
        let counter = RequestCounter()
        self.transport = networking.retrying(counter: counter, logger: logger, failing: ReccoBeatsError.self)
        self.baseURL = baseURL.absoluteString.hasSuffix("/") ? baseURL : baseURL.appendingPathComponent("")
        self.requestCounter = counter
        self.logger = logger
    }

    /// The API root: `$VIBES_RECCOBEATS_API_URL` when set, else production.
    public static func baseURL(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        environment["VIBES_RECCOBEATS_API_URL"].flatMap { $0.isEmpty ? nil : URL(string: $0) } ?? productionBaseURL
    }

    // MARK: - Endpoints

    /// Audio features for up to ``batchSize`` Spotify track IDs or ISRCs (`GET /audio-features?ids=`).
    ///
    /// Unknown IDs are left out of the answer, and its order is not documented: map items back by
    /// ``ReccoBeatsAudioFeaturesObject/spotifyID`` or `isrc`, never by position. Empty input makes
    /// no request.
    ///
    /// - Throws: ``ReccoBeatsError``.
    public func audioFeatures(ids: [String]) async throws -> [ReccoBeatsAudioFeaturesObject] {
        precondition(ids.count <= Self.batchSize, "ReccoBeats takes at most \(Self.batchSize) IDs per request")
        guard !ids.isEmpty else { return [] }
        return try await content(ReccoBeatsAudioFeaturesObject.self, path: "audio-features", ids: ids)
    }

    /// Track metadata (title, artists, duration) for up to ``batchSize`` ReccoBeats UUIDs or Spotify
    /// IDs (`GET /track?ids=`). Empty input makes no request.
    ///
    /// - Throws: ``ReccoBeatsError``.
    public func tracks(ids: [String]) async throws -> [ReccoBeatsTrackObject] {
        precondition(ids.count <= Self.batchSize, "ReccoBeats takes at most \(Self.batchSize) IDs per request")
        guard !ids.isEmpty else { return [] }
        return try await content(ReccoBeatsTrackObject.self, path: "track", ids: ids)
    }

    // MARK: - Requests

    private func content<Item: Decodable>(_ type: Item.Type, path: String, ids: [String]) async throws -> [Item] {
        var components = URLComponents(url: baseURL.appendingPathComponent(path), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "ids", value: ids.joined(separator: ","))]
        let request = HTTPRequest(method: .get, url: components.url!, headerFields: ["Accept": "application/json"])
        let endpoint = request.endpoint
        logger.debug("\(endpoint) (\(ids.count) IDs)")
        // The retrying transport gives up with a ReccoBeatsError of its own.
        let (response, data) = try await transport.send(request, body: nil)
        guard response.isSuccess else {
            if response.status == 429 {
                throw ReccoBeatsError.rateLimited(retryAfter: nil, retryAt: nil, endpoint: endpoint)
            }
            let body = try? JSONDecoder().decode(ReccoBeatsErrorBody.self, from: data)
            throw ReccoBeatsError.http(
                status: response.status,
                code: body?.code,
                message: body?.message ?? body?.error,
                endpoint: endpoint
            )
        }
        do {
            return try JSONDecoder().decode(ReccoBeatsContent<Item>.self, from: data).content
        } catch {
            throw ReccoBeatsError.malformedResponse(
                reason: describeDecodingError(error),
                status: response.status,
                body: redactedBody(data),
                endpoint: endpoint
            )
        }
    }
}
