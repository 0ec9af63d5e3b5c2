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
            if let answer = try await longRoute(request, body: body) { return answer }
            // Routes read the store and run the recommender: blocking work, done off the pool.
            return try await reads.run { try self.route(request, body: body) }
        } catch let error as APIError {
            return Self.errorResponse(error)
        } catch {
            logger.info("\(request.method.rawValue) \(request.path) failed: \(error)")
            return Self.errorResponse(
                APIError(status: 500, code: "internal_error", message: "The library could not be read: \(error)")
            )
        }
    }

    /// The route `request` names. A path with no route is 404, a route asked with another method
    /// 405.
    func route(_ request: HTTPRequest, body: Data) throws -> HTTPResponse {
        if request.path == "/api/playlists", request.method == .POST { return try savePlaylist(body: body) }
        if let answer = try explorerRoute(request, body: body) { return answer }
        if let answer = try viewRoute(request, body: body) { return answer }
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        let isRead = request.method == .GET
        // The last part of a path that ends in an ID, and the path with "{id}" in its place.
        let id = parts.count == 3 ? parts[2] : ""
        let shape = parts.count == 3 ? parts[0..<2].joined(separator: "/") + "/{id}" : parts.joined(separator: "/")
        let answer: (() throws -> HTTPResponse)? =
            switch shape {
            case "": { WebApp.response(for: .page) }
            case "app.js": { WebApp.response(for: .script) }
            case "app.css": { WebApp.response(for: .styles) }
            case "api/session": { try Self.json(Session(csrfToken: gate.csrfToken)) }
            case "api/library": { try Self.json(try store.summary()) }
            case "api/playlists": { try playlists() }
            case "api/playlists/{id}": { try playlist(id: id) }
            case "api/vibes": { try vibes() }
            case "api/tracks": { try tracks(request) }
            case "v1/audio-features": { try audioFeatures(request) }
            case "v1/audio-features/{id}": { try audioFeatures(id: id) }
            case "v1/recommendations": { try recommendations(request) }
            default: nil
            }
        guard let answer else {
            throw APIError.notFound("No such endpoint: \(request.path). See docs/api.md for the API.")
        }
        guard isRead else {
            let methods = shape == "api/playlists" ? "GET and POST" : "GET only"
            throw APIError(status: 405, code: "method_not_allowed", message: "\(request.path) answers \(methods).")
        }
        return try answer()
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
