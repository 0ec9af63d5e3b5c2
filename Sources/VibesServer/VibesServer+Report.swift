import Analytics
import FlyingFox
import Foundation
import Ingest
import VibesEngine

// The mood report's sections (`GET /api/report`).

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
}
