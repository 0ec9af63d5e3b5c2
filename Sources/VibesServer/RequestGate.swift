import FlyingFox
import Foundation
import Synchronization

/// The checks every request passes before it reaches a route, in order: the size of its target
/// (414) and body (413, 411), its `Host` (403), its `Origin` (403), the bearer token when one is
/// configured (401), and the CSRF token for a method that could change state (403).
final class RequestGate: Sendable {
    /// The header a state-changing request carries the session's CSRF token in.
    static let csrfHeader = HTTPHeader("X-CSRF-Token")

    let configuration: VibesServer.Configuration
    /// The token `GET /api/session` hands out; 256 random bits, made once per server.
    let csrfToken: String
    /// The port actually listened on, known once the server listens.
    private let port = Mutex<UInt16>(0)

    init(configuration: VibesServer.Configuration) {
        self.configuration = configuration
        var generator = SystemRandomNumberGenerator()
        csrfToken = (0..<4).map { _ in String(format: "%016llx", generator.next() as UInt64) }.joined()
        port.withLock { $0 = configuration.port }
    }

    func setPort(_ value: UInt16) {
        port.withLock { $0 = value }
    }

    /// Whether `address` listens on every interface.
    static func isWildcard(_ address: String) -> Bool {
        address == "0.0.0.0" || address == "::" || address == "[::]"
    }

    /// Refuses `request` with an error, or lets it through with `nil`.
    func refusal(of request: HTTPRequest) -> APIError? {
        if request.target.rawValue.utf8.count > configuration.maximumTargetBytes {
            return APIError(
                status: 414,
                code: "uri_too_long",
                message: "The request's path and query are longer than \(configuration.maximumTargetBytes) bytes."
            )
        }
        if request.headers[.transferEncoding] != nil {
            return APIError(status: 411, code: "length_required", message: "Send a body with Content-Length.")
        }
        if let length = request.headers[.contentLength], (Int(length) ?? .max) > configuration.maximumBodyBytes {
            return APIError(
                status: 413,
                code: "body_too_large",
                message: "The request body is larger than \(configuration.maximumBodyBytes) bytes."
            )
        }
        guard let host = request.headers[.host], isAllowedHost(host) else {
            return .forbidden(
                "forbidden_host",
                "The Host header does not name this server; open it at http://127.0.0.1:\(port.withLock { $0 })/."
            )
        }
        if let origin = request.headers[HTTPHeader("Origin")], origin.lowercased() != "http://" + host.lowercased() {
            return .forbidden("forbidden_origin", "Requests from other sites are refused.")
        }
        if let token = configuration.bearerToken {
            let sent = request.headers[.authorization].flatMap { value -> String? in
                value.hasPrefix("Bearer ") ? String(value.dropFirst("Bearer ".count)) : nil
            }
            guard let sent, Self.constantTimeEqual(sent, token) else {
                return APIError(
                    status: 401,
                    code: "unauthorized",
                    message:
                        "Send the server's token as Authorization: Bearer TOKEN (the token is in the file given with --token-file)."
                )
            }
        }
        if ![HTTPMethod.GET, .HEAD, .OPTIONS].contains(request.method) {
            guard let sent = request.headers[Self.csrfHeader], Self.constantTimeEqual(sent, csrfToken) else {
                return .forbidden(
                    "csrf_token_missing",
                    "A request that changes something needs the X-CSRF-Token header from GET /api/session."
                )
            }
        }
        return nil
    }

    /// Whether `host` (a `Host` header: name or address, and port) names this server: a loopback
    /// name or the bound address, with the port listened on. On a wildcard address any IP literal
    /// is allowed, which no DNS name can rebind to.
    func isAllowedHost(_ host: String) -> Bool {
        let port = String(port.withLock { $0 })
        let value = host.lowercased()
        guard let colon = value.lastIndex(of: ":"), value[value.index(after: colon)...] == port else { return false }
        let name = String(value[..<colon])
        let bound =
            configuration.bindAddress.contains(":") ? "[\(configuration.bindAddress)]" : configuration.bindAddress
        if ["127.0.0.1", "localhost", "[::1]", bound.lowercased()].contains(name) { return true }
        guard Self.isWildcard(configuration.bindAddress) else { return false }
        if name.hasPrefix("["), name.hasSuffix("]") {
            var address = in6_addr()
            return inet_pton(AF_INET6, String(name.dropFirst().dropLast()), &address) == 1
        }
        var address = in_addr()
        return inet_pton(AF_INET, name, &address) == 1
    }

    /// Compares two strings in time that depends only on their lengths.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
