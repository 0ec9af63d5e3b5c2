import FlyingFox
import Foundation
import Ingest

// The server's answers: the gate, the routes, and JSON with `schema_version`.

extension VibesServer {
    /// Answers `request`: the gate's refusal, a route's answer, or a JSON error; never throws.
    func respond(to request: HTTPRequest) async -> HTTPResponse {
        if let refusal = gate.refusal(of: request) {
            return Self.errorResponse(refusal)
        }
        do {
            // A body is at most the gate's limit, and read whole before routing.
            let body = request.method == .POST ? try await request.bodyData : Data()
            let (route, parameters) = try Self.route(for: request)
            let routed = Route.Request(http: request, body: body, parameters: parameters)
            switch route.answer {
            case .blocking(let answer) where route.path == "/v1/recommendations":
                // As many at once as there are cores: see AdmissionGate.
                return try await recommending.withAdmission { try await reads.run { try answer(self, routed) } }
            case .blocking(let answer):
                // Routes read the store and run the recommender: blocking work, done off the pool.
                return try await reads.run { try answer(self, routed) }
            case .awaiting(let answer):
                return try await answer(self, routed)
            }
        } catch let error as APIError {
            return Self.errorResponse(error)
        } catch {
            logger.info("\(request.method.rawValue) \(request.path) failed: \(error)")
            return Self.errorResponse(
                APIError(status: 500, code: "internal_error", message: "The library could not be read: \(error)")
            )
        }
    }

    /// The route of ``routes`` that `request` names, and the values of its `{…}` segments.
    ///
    /// - Throws: ``APIError`` 404 for a path no route has, 405 for a route asked with another
    ///   method.
    static func route(for request: HTTPRequest) throws -> (Route, [String]) {
        let segments = request.path.split(separator: "/", omittingEmptySubsequences: true)
        var matches = routes.compactMap { route in route.parameters(matching: segments).map { (route, $0) } }
        // A literal segment beats a `{…}` one: /api/vibes/cluster is not the vibe "cluster".
        let specific = matches.map(\.0.literalCount).max() ?? 0
        matches.removeAll { $0.0.literalCount < specific }
        guard !matches.isEmpty else {
            throw APIError.notFound("No such endpoint: \(request.path). See docs/api.md for the API.")
        }
        guard let match = matches.first(where: { $0.0.method == request.method }) else {
            let methods = matches.map(\.0.method.rawValue)
            let allowed = methods.count == 1 ? "\(methods[0]) only" : methods.joined(separator: " and ")
            throw APIError(status: 405, code: "method_not_allowed", message: "\(request.path) answers \(allowed).")
        }
        return match
    }

    // MARK: - JSON

    /// `value` as JSON with `schema_version` beside its own keys.
    static func json(_ value: some Encodable, status: HTTPStatusCode = .ok) throws -> HTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return HTTPResponse(
            statusCode: status,
            headers: Self.commonHeaders(contentType: "application/json; charset=utf-8"),
            body: try encoder.encode(Versioned(value: value))
        )
    }

    /// The JSON answer for `error`, with its status.
    static func errorResponse(_ error: APIError) -> HTTPResponse {
        let body =
            (try? json(error, status: HTTPStatusCode(error.status, phrase: error.code)))
            ?? HTTPResponse(statusCode: .internalServerError)
        var response = body
        if error.status == 401 { response.headers[HTTPHeader("WWW-Authenticate")] = "Bearer" }
        if let seconds = error.retryAfterSeconds { response.headers[HTTPHeader("Retry-After")] = String(seconds) }
        // The rest of a refused body is not read: the connection cannot carry another request.
        if [411, 413].contains(error.status) { response.headers[.connection] = "close" }
        return response
    }

    /// Headers every answer carries: no caching of library data, no framing by other sites, no
    /// sniffing, and a policy that lets a page load nothing from elsewhere.
    static func commonHeaders(contentType: String) -> HTTPHeaders {
        [
            .contentType: contentType,
            .cacheControl: "no-store",
            HTTPHeader("X-Content-Type-Options"): "nosniff",
            HTTPHeader("X-Frame-Options"): "DENY",
            HTTPHeader("Referrer-Policy"): "no-referrer",
            HTTPHeader("Content-Security-Policy"):
                "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; "
                + "media-src 'self'; "
                + "base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
        ]
    }
}

/// A value encoded with `schema_version` added to its keys.
struct Versioned<Value: Encodable>: Encodable {
    var value: Value

    enum CodingKeys: String, CodingKey {
        case schemaVersion = "schema_version"
    }

    func encode(to encoder: any Encoder) throws {
        try value.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(VibesServer.schemaVersion, forKey: .schemaVersion)
    }
}

/// `GET /api/session`: what the web app needs before it changes anything.
struct Session: Encodable {
    var csrfToken: String

    enum CodingKeys: String, CodingKey {
        case csrfToken = "csrf_token"
    }
}
