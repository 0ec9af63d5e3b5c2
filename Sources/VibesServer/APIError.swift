import FlyingFox

/// An error the server answers with: an HTTP status and `{"error": {"status", "code", "message"}}`.
///
/// `code` is a stable machine word (`not_found`, `forbidden_host`, …); `message` is a sentence for
/// people and never holds a token; `status` repeats the HTTP status, as Spotify's own errors do,
/// so that Spotify clients read it too.
public struct APIError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The HTTP status.
    public var status: Int
    /// The machine-readable code.
    public var code: String
    /// What went wrong and what to do, for people.
    public var message: String
    /// For a 429, the seconds after which a retry can succeed: sent as `Retry-After`.
    public var retryAfterSeconds: Int?

    public init(status: Int, code: String, message: String, retryAfterSeconds: Int? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.retryAfterSeconds = retryAfterSeconds
    }

    public var description: String { "\(status) \(code): \(message)" }

    static func badRequest(_ message: String) -> APIError {
        APIError(status: 400, code: "bad_request", message: message)
    }

    static func notFound(_ message: String) -> APIError {
        APIError(status: 404, code: "not_found", message: message)
    }

    static func forbidden(_ code: String, _ message: String) -> APIError {
        APIError(status: 403, code: code, message: message)
    }
}

extension APIError: Encodable {
    enum CodingKeys: String, CodingKey {
        case error
    }

    enum BodyKeys: String, CodingKey {
        case status, code, message
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        var body = container.nestedContainer(keyedBy: BodyKeys.self, forKey: .error)
        try body.encode(status, forKey: .status)
        try body.encode(code, forKey: .code)
        try body.encode(message, forKey: .message)
    }
}
