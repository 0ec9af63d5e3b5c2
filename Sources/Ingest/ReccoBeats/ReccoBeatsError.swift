import Foundation
import VibesHTTP

/// An error from the ReccoBeats API, with the request it answered and ReccoBeats' own error code.
///
/// ReccoBeats' bodies carry numeric codes: 4001 missing parameter, 4002 malformed request, 4004
/// validation error, 4041 not found, 4042 wrong path, 4291 too many requests. Descriptions say
/// what happened and where; advice on what to run next is the caller's to give.
public enum ReccoBeatsError: Error, Sendable, Hashable {
    /// ReccoBeats answered with an error status.
    case http(status: Int, code: Int?, message: String?, endpoint: String)
    /// ReccoBeats asked to wait longer than the retry budget allows, or kept refusing.
    case rateLimited(retryAfter: Duration?, retryAt: Date?, endpoint: String)
    /// No response arrived (connection refused or dropped, timeout), after `attempts` tries.
    case network(reason: String, attempts: Int, endpoint: String)
    /// A 2xx body that is not the documented shape. `body` is cut to 2,000 characters.
    case malformedResponse(reason: String, status: Int, body: String, endpoint: String)

    /// The request that failed, such as `GET /v1/audio-features`.
    public var endpoint: String {
        switch self {
        case .http(_, _, _, let endpoint), .rateLimited(_, _, let endpoint), .network(_, _, let endpoint),
            .malformedResponse(_, _, _, let endpoint):
            endpoint
        }
    }

    /// Whether the service could not be reached at all (as opposed to answering badly).
    public var isUnreachable: Bool {
        if case .network = self { return true }
        return false
    }
}

extension ReccoBeatsError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .http(let status, let code, let message, let endpoint):
            let codeText = code.map { " (code \($0)\(Self.meaning(of: $0).map { ": \($0)" } ?? ""))" } ?? ""
            let detail = message.map { ": \(Redaction.redact($0))" } ?? ""
            var text = "ReccoBeats answered \(status)\(codeText) to \(endpoint)\(detail)."
            if status == 404 && code != 4041 {
                // Not its "not found" about the tracks: the address answers for something else.
                text +=
                    " That is not an answer about the tracks: the address does not serve ReccoBeats' API"
                    + " (a mistyped URL or a proxy's page), so nothing was recorded."
            }
            return text
        case .rateLimited(let retryAfter, let retryAt, let endpoint):
            var text = "ReccoBeats' rate limit stopped \(endpoint)"
            if let retryAfter {
                text += ": it asked to wait \(retryAfter.waitDescription)"
            } else {
                text += " and did not say for how long"
            }
            if let retryAt { text += "; try again after \(retryAt.formatted(.iso8601)) (UTC)" }
            return text + "."
        case .network(let reason, let attempts, let endpoint):
            return "ReccoBeats unreachable for \(endpoint) after \(attempts) attempt\(attempts == 1 ? "" : "s") "
                + "(\(Redaction.redact(reason)))."
        case .malformedResponse(let reason, let status, let body, let endpoint):
            return "ReccoBeats' answer to \(endpoint) (status \(status)) is not the documented shape: \(reason). "
                + "Nothing from this request was stored. Body: \(body)"
        }
    }

    /// What ReccoBeats' documented error codes mean.
    static func meaning(of code: Int) -> String? {
        switch code {
        case 4001: "missing parameter"
        case 4002: "malformed request"
        case 4004: "validation error"
        case 4041: "not found"
        case 4042: "wrong path"
        case 4291: "too many requests"
        default: nil
        }
    }
}

extension ReccoBeatsError: RetryFailure {}

extension ReccoBeatsError: LocalizedError {
    public var errorDescription: String? { description }
}
