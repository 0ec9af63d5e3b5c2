import Foundation

/// An HTTP method the Spotify client uses.
public enum HTTPMethod: String, Sendable, Hashable {
    case get = "GET"
    case post = "POST"
    case put = "PUT"
    case delete = "DELETE"

    /// Whether repeating the request cannot change the outcome, so a lost response may be retried.
    ///
    /// `POST` (create a playlist, add items) is not: a retry after a dropped connection could add
    /// the items twice.
    public var isIdempotent: Bool { self != .post }
}

/// An HTTP request without its body: method, absolute URL and header fields.
public struct HTTPRequest: Sendable, Hashable {
    public var method: HTTPMethod
    public var url: URL
    /// Header fields by name. Names are compared case-insensitively by servers; keep them canonical.
    public var headerFields: [String: String]

    public init(method: HTTPMethod, url: URL, headerFields: [String: String] = [:]) {
        self.method = method
        self.url = url
        self.headerFields = headerFields
    }

    /// `GET /v1/me/tracks`: the method and path, for messages. The query is left out because it can
    /// be long, and the host because it is always the configured base URL.
    public var endpoint: String {
        "\(method.rawValue) \(url.path)"
    }
}

/// The head of an HTTP response: status code and header fields.
public struct HTTPResponse: Sendable, Hashable {
    /// The status code, such as 200 or 429.
    public var status: Int
    /// Header fields keyed by lower-cased name.
    public var headerFields: [String: String]

    public init(status: Int, headerFields: [String: String] = [:]) {
        self.status = status
        self.headerFields = Dictionary(
            headerFields.map { ($0.key.lowercased(), $0.value) },
            uniquingKeysWith: { first, _ in first }
        )
    }

    /// The value of a header field, looked up case-insensitively.
    public subscript(headerField name: String) -> String? {
        headerFields[name.lowercased()]
    }

    /// Whether the status is in the 2xx range.
    public var isSuccess: Bool { (200..<300).contains(status) }
}

/// Sends HTTP requests: the seam between the Spotify client and the network.
///
/// The client composes transports like middleware: ``URLSessionTransport`` talks to the network,
/// ``RetryingTransport`` retries rate limits and server errors, and ``AuthorizingTransport`` adds
/// the access token. Tests put a fake server or fault injection underneath.
public protocol HTTPTransport: Sendable {
    /// Sends `request` with an optional body and returns the response head and body.
    ///
    /// A transport returns every response the server sent, including 4xx and 5xx; it throws only
    /// when no response arrived (connection refused, dropped, timed out).
    func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data)
}
