import Foundation
import VibesHTTP

extension TokenServer {
    /// One request as the access log records it: who, what, the outcome and how long it took.
    ///
    /// It holds no token, code, verifier or secret: only the method, the path, the status and an
    /// OAuth error code. The method and an unknown path come from the client, so they are cut to
    /// printable ASCII and a few dozen characters.
    public struct AccessLogEntry: Sendable, Hashable, CustomStringConvertible {
        /// When the request arrived.
        public var date: Date
        /// The client's IP address (the proxy's, unless ``Configuration/trustsForwardedFor``).
        public var clientAddress: String
        /// Such as `POST`.
        public var method: String
        /// Such as `/swap`.
        public var path: String
        /// The HTTP status answered.
        public var status: Int
        /// From the request's arrival to the response.
        public var duration: Duration
        /// The OAuth `error` code answered, such as `invalid_grant` from Spotify or `invalid_token`
        /// from this server; `nil` on success.
        public var error: String?

        public init(
            date: Date,
            clientAddress: String,
            method: String,
            path: String,
            status: Int,
            duration: Duration,
            error: String? = nil
        ) {
            self.date = date
            self.clientAddress = clientAddress
            self.method = method
            self.path = path
            self.status = status
            self.duration = duration
            self.error = error
        }

        /// `2025-06-01T12:00:00Z 203.0.113.9 POST /swap 200 182ms`, with ` error=invalid_grant` after
        /// a failure.
        public var description: String {
            let milliseconds = Int((duration / .milliseconds(1)).rounded())
            var line =
                "\(date.formatted(.iso8601)) \(clientAddress) \(method) \(path) \(status) \(milliseconds)ms"
            if let error { line += " error=\(error)" }
            return line
        }
    }
}

// MARK: - Making entries safe

extension TokenServer.AccessLogEntry {
    /// `text` cut to `limit` printable ASCII characters other than space, or `-` when none is left.
    static func printable(_ text: some StringProtocol, limit: Int) -> String {
        let kept = String(decoding: text.utf8.filter { (0x21...0x7E).contains($0) }.prefix(limit), as: UTF8.self)
        return kept.isEmpty ? "-" : kept
    }

    /// A path for the log: the endpoints as they are, anything else cut, redacted and made printable.
    static func loggedPath(_ path: String) -> String {
        if path == TokenServer.swapPath || path == TokenServer.refreshPath { return path }
        return printable(Redaction.redact(path), limit: 64)
    }

    /// An OAuth error code for the log: letters, digits, `_`, `-` and `.`, at most 40.
    static func loggedErrorCode(_ code: String?) -> String? {
        guard let code else { return nil }
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.".utf8)
        let kept = String(decoding: code.utf8.filter(allowed.contains).prefix(40), as: UTF8.self)
        return kept.isEmpty ? "-" : kept
    }
}
