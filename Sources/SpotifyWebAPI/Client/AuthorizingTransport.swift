import Foundation
import VibesHTTP

/// An ``HTTPTransport`` that adds `Authorization: Bearer …` and, when the API answers 401,
/// refreshes the token once and sends the request again.
///
/// A second 401 is returned to the caller, which reports it; the client never loops on 401.
public struct AuthorizingTransport: HTTPTransport {
    let base: any HTTPTransport
    let tokens: any AccessTokenProvider

    public init(base: any HTTPTransport, tokens: any AccessTokenProvider) {
        self.base = base
        self.tokens = tokens
    }

    public func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        let token = try await tokens.accessToken()
        let result = try await base.send(authorized(request, with: token), body: body)
        guard result.0.status == 401 else { return result }
        let fresh = try await tokens.refreshAccessToken(rejecting: token)
        return try await base.send(authorized(request, with: fresh), body: body)
    }

    private func authorized(_ request: HTTPRequest, with token: String) -> HTTPRequest {
        var request = request
        request.headerFields["Authorization"] = "Bearer \(token)"
        return request
    }
}
