import FlyingFox
import Foundation
import Ingest

// `GET /api/tracks/{id}/audio`: the local audio file the store names for a track, for the web
// app's <audio>, with byte ranges for seeking. The path comes from the store by track ID only.

extension VibesServer {
    /// `GET /api/tracks/{id}/audio`: the file `analyze` recorded for the track, whole (200) or
    /// the one byte range a `Range` header asks for (206).
    ///
    /// - Throws: ``APIError`` 400 for an ID that is not a number, 404 for an unknown track, a track
    ///   without a local file or whose file cannot be served (see ``LocalAudioFile``), 416 for a
    ///   range that starts past the end of the file or an empty suffix.
    func audio(_ request: Route.Request) throws -> HTTPResponse {
        guard let id = Int64(request.id) else {
            throw APIError.badRequest(
                "A track is named by its numeric id, as /api/tracks and playlist entries give it (got \"\(request.id)\")."
            )
        }
        guard try !store.trackSummaries(for: [id]).isEmpty else {
            throw APIError.notFound("No track has id \(id).")
        }
        guard let path = try store.localFilePaths(for: [id])[id] else {
            throw APIError(
                status: 404,
                code: "no_audio_file",
                message: "Track \(id) has no audio file on this machine: "
                    + "`vibes-analyze analyze FOLDER` records the files it analyses."
            )
        }
        guard let file = LocalAudioFile(opening: path) else {
            throw APIError(
                status: 404,
                code: "no_audio_file",
                message: "The audio file recorded for track \(id) is gone or is no longer a regular audio file; "
                    + "analyse its folder again."
            )
        }
        var headers = Self.commonHeaders(contentType: file.mediaType)
        headers[.acceptRanges] = "bytes"
        let status: HTTPStatusCode
        let range: Range<Int>
        switch ByteRange.parse(request.http.headers[.range], fileSize: file.size) {
        case .whole:
            (status, range) = (.ok, 0..<file.size)
        case .partial(let part):
            (status, range) = (.partialContent, part)
            headers[.contentRange] = "bytes \(part.lowerBound)-\(part.upperBound - 1)/\(file.size)"
        case .unsatisfiable:
            var response = Self.errorResponse(
                APIError(
                    status: 416,
                    code: "range_not_satisfiable",
                    message: "The range \(request.http.headers[.range] ?? "") is outside the file's \(file.size) bytes."
                )
            )
            response.headers[.contentRange] = "bytes */\(file.size)"
            return response
        }
        return HTTPResponse(
            statusCode: status,
            headers: headers,
            body: HTTPBodySequence(
                from: file.bytes(in: range, readingOn: reads),
                count: range.count,
                suggestedBufferSize: 65_536
            )
        )
    }
}

/// What a `Range` header asks of a file, under RFC 9110: one range of bytes, or the whole file
/// when there is no header, it is not a `bytes` range, is malformed or asks for several ranges
/// (which a server may ignore), or when it asks a suffix of an empty file; or nothing when it
/// starts past the end or asks for an empty suffix (`bytes=-0`).
enum ByteRange: Hashable {
    case whole
    case partial(Range<Int>)
    case unsatisfiable

    /// The range `header` asks of a file of `fileSize` bytes.
    static func parse(_ header: String?, fileSize: Int) -> ByteRange {
        guard let header else { return .whole }
        let text = header.trimmingCharacters(in: .whitespaces)
        guard text.lowercased().hasPrefix("bytes="), !text.contains(",") else { return .whole }
        let spec = text.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        guard let dash = spec.firstIndex(of: "-") else { return .whole }
        let (first, last) = (spec[..<dash], spec[spec.index(after: dash)...])
        guard first.allSatisfy(\.isASCIIDigit), last.allSatisfy(\.isASCIIDigit), !(first.isEmpty && last.isEmpty)
        else { return .whole }
        if first.isEmpty {
            // A suffix: the last N bytes, all of them when the file is shorter (also when N is
            // too large for an `Int`). An empty file has no byte to name, so it is sent whole.
            let length = Int(last) ?? .max
            guard length > 0 else { return .unsatisfiable }
            guard fileSize > 0 else { return .whole }
            return .partial(max(0, fileSize - length)..<fileSize)
        }
        // A start too large for an `Int` is past any file's end (unless the end before it makes
        // the header invalid).
        guard let start = Int(first) else { return Int(last) == nil ? .unsatisfiable : .whole }
        // An end past the file's is its last byte; an end before the start makes the header invalid.
        let end = last.isEmpty ? nil : Int(last) ?? Int.max
        if let end, end < start { return .whole }
        guard start < fileSize else { return .unsatisfiable }
        return .partial(start..<(min(end ?? fileSize - 1, fileSize - 1) + 1))
    }
}

extension Character {
    /// Whether the character is one of the ASCII digits 0–9.
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
