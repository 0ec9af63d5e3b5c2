import FlyingFox
import Foundation

/// One endpoint of the server: a method, a path pattern, and what answers it.
///
/// A pattern's segments in braces (`{id}`) take any one segment of a request's path, handed to
/// the answer in order; where a request matches patterns of both kinds (`/api/vibes/cluster` and
/// `/api/vibes/{id}`), the one with more literal segments wins. ``VibesServer/routes`` lists
/// every route; `docs/openapi.json` describes each, and a test checks that the two agree.
struct Route: Sendable {
    /// A request as a route sees it.
    struct Request: Sendable {
        var http: HTTPRequest
        /// The body, read whole; empty for a GET.
        var body: Data
        /// The path's segments that matched the pattern's `{…}` segments, in order.
        var parameters: [String]

        /// The first `{…}` segment's value.
        var id: String { parameters.first ?? "" }
    }

    /// How a route answers.
    enum Answer: Sendable {
        /// Reads the store or runs the recommender: blocking work, run on the server's
        /// ``BlockingQueue``.
        case blocking(@Sendable (VibesServer, Request) throws -> HTTPResponse)
        /// Awaits work of its own (re-clustering), on the cooperative pool.
        case awaiting(@Sendable (VibesServer, Request) async throws -> HTTPResponse)
    }

    var method: HTTPMethod
    /// The path pattern, such as `/api/playlists/{id}`.
    var path: String
    var answer: Answer

    init(
        _ method: HTTPMethod,
        _ path: String,
        answer: @escaping @Sendable (VibesServer, Request) throws -> HTTPResponse
    ) {
        self.init(method, path, .blocking(answer))
    }

    init(_ method: HTTPMethod, _ path: String, _ answer: Answer) {
        self.method = method
        self.path = path
        self.answer = answer
    }

    /// The number of segments of the pattern that are not `{…}`.
    var literalCount: Int { path.split(separator: "/").count { $0.first != "{" } }

    /// The values of the pattern's `{…}` segments when `segments` (a request path's non-empty
    /// segments) match it, or `nil` when they do not.
    func parameters(matching segments: [Substring]) -> [String]? {
        let pattern = path.split(separator: "/")
        guard pattern.count == segments.count else { return nil }
        var parameters: [String] = []
        for (expected, segment) in zip(pattern, segments) {
            if expected.first == "{" {
                parameters.append(String(segment))
            } else if expected != segment {
                return nil
            }
        }
        return parameters
    }
}

extension VibesServer {
    /// Every endpoint the server answers, in the order `docs/api.md` lists them.
    static let routes: [Route] = [
        Route(.GET, "/") { _, _ in WebApp.response(for: .page) },
        Route(.GET, "/app.js") { _, _ in WebApp.response(for: .script) },
        Route(.GET, "/app.css") { _, _ in WebApp.response(for: .styles) },
        Route(.GET, "/api/session") { server, _ in try json(Session(csrfToken: server.gate.csrfToken)) },
        Route(.GET, "/api/library") { server, _ in try json(try server.store.summary()) },
        Route(.GET, "/api/playlists") { server, _ in try server.playlists() },
        Route(.POST, "/api/playlists") { server, request in try server.savePlaylist(body: request.body) },
        Route(.GET, "/api/playlists/{id}") { server, request in try server.playlist(id: request.id) },
        Route(
            .GET,
            "/api/playlists/{id}/order",
            .awaiting { server, request in try await server.orderPreview(playlist: request.id, request.http) }
        ),
        Route(
            .POST,
            "/api/playlists/{id}/order",
            .awaiting { server, request in try await server.saveOrder(playlist: request.id, body: request.body) }
        ),
        Route(.GET, "/api/vibes") { server, _ in try server.vibes() },
        Route(.GET, "/api/vibes/{id}") { server, request in try server.vibe(request.id) },
        Route(
            .POST,
            "/api/vibes/cluster",
            .awaiting { server, request in try await server.cluster(body: request.body) }
        ),
        Route(.GET, "/api/moods") { server, _ in try server.moods() },
        Route(.GET, "/api/mood-path") { server, request in try server.moodPath(request.http) },
        Route(.GET, "/api/report") { server, request in try server.report(request.http) },
        Route(.GET, "/api/tracks") { server, request in try server.tracks(request.http) },
        Route(.GET, "/api/tracks/{id}/audio") { server, request in try server.audio(request) },
        Route(.GET, "/api/points") { server, request in try server.points(request.http) },
        Route(.GET, "/api/points/facets") { server, _ in try server.pointFacets() },
        Route(.POST, "/api/exports") { server, request in try server.export(body: request.body) },
        Route(.GET, "/api/spotify", .awaiting { server, _ in try await server.spotifyStatus() }),
        Route(
            .POST,
            "/api/playlists/{id}/push",
            .awaiting { server, request in try await server.pushToSpotify(playlist: request.id) }
        ),
        Route(.GET, "/v1/audio-features") { server, request in try server.audioFeatures(request.http) },
        Route(.GET, "/v1/audio-features/{id}") { server, request in try server.audioFeatures(id: request.id) },
        Route(.GET, "/v1/recommendations") { server, request in try server.recommendations(request.http) },
    ]

    /// Every endpoint the server answers, as its method and path pattern (`GET`,
    /// `/api/playlists/{id}`); `docs/openapi.json` describes each.
    public static var endpoints: [(method: String, path: String)] {
        routes.map { ($0.method.rawValue, $0.path) }
    }
}
