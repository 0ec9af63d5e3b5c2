import Analytics
import FlyingFox
import Foundation
import Ingest
import VibesEngine

// The mood report's sections (`GET /api/report`), and the routes of the vibes, mood path,
// ordering and report views.

extension VibesServer {
    /// `GET /api/report[?time_zone=Europe/Berlin]`: the mood report of the library with the vibes
    /// of the current run, as `vibes-analyze report --json` computes it (without its track list),
    /// under `report`; listening history is bucketed in `time_zone`, the server's zone by default.
    func report(_ request: HTTPRequest) throws -> HTTPResponse {
        var zone = TimeZone.current
        if let name = request.query["time_zone"] {
            guard let named = TimeZone(identifier: name) else {
                throw APIError.badRequest("time_zone must be an IANA zone such as Europe/Berlin (got \"\(name)\").")
            }
            zone = named
        }
        let (input, _) = try answeringEngineErrors { try store.moodReportInput(runID: nil, timeZone: zone) }
        let report = try MoodReport(input)
        // The report's own JSON, as the command writes it, inside the API's envelope.
        let json = try report.renderedJSON().trimmingCharacters(in: .whitespacesAndNewlines)
        let body = "{\"report\":\(json),\"schema_version\":\(Self.schemaVersion)}"
        return HTTPResponse(
            statusCode: .ok,
            headers: Self.commonHeaders(contentType: "application/json; charset=utf-8"),
            body: Data(body.utf8)
        )
    }

    /// The answer of a route of the vibes, mood path, ordering and report views, or `nil` for
    /// any other path.
    func viewRoute(_ request: HTTPRequest, body: Data) throws -> HTTPResponse? {
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard parts.first == "api", parts.count >= 2 else { return nil }
        let method = request.method
        func only(_ allowed: HTTPMethod, _ answer: () throws -> HTTPResponse) throws -> HTTPResponse {
            guard method == allowed else {
                throw APIError(
                    status: 405,
                    code: "method_not_allowed",
                    message: "\(request.path) answers \(allowed.rawValue) only."
                )
            }
            return try answer()
        }
        switch (parts.count, parts[1]) {
        case (2, "moods"): return try only(.GET) { try moods() }
        case (2, "mood-path"): return try only(.GET) { try moodPath(request) }
        case (2, "report"): return try only(.GET) { try report(request) }
        case (3, "vibes") where parts[2] != "cluster": return try only(.GET) { try vibe(parts[2]) }
        case (4, "playlists") where parts[3] == "order":
            switch method {
            case .GET: return try orderPreview(playlist: parts[2], request)
            case .POST: return try saveOrder(playlist: parts[2], body: body)
            default:
                throw APIError(
                    status: 405,
                    code: "method_not_allowed",
                    message: "\(request.path) answers GET and POST."
                )
            }
        default: return nil
        }
    }

    /// The answer of a route that awaits more than a store read (re-clustering), or `nil` for
    /// any other path.
    func longRoute(_ request: HTTPRequest, body: Data) async throws -> HTTPResponse? {
        guard request.path == "/api/vibes/cluster" else { return nil }
        guard request.method == .POST else {
            throw APIError(status: 405, code: "method_not_allowed", message: "\(request.path) answers POST only.")
        }
        return try await cluster(body: body)
    }
}
