import Foundation

/// How a session was obtained, which decides how it is refreshed.
public enum GrantType: String, Sendable, Hashable, Codable {
    /// Authorization Code with PKCE: no client secret; refreshed with the client ID.
    case authorizationCodePKCE = "authorization_code_pkce"
    /// Authorization Code with the client secret; refreshed with HTTP Basic credentials.
    case authorizationCode = "authorization_code"
    /// Client Credentials: no user, catalogue calls only; "refreshed" by asking again.
    case clientCredentials = "client_credentials"
}

/// A signed-in session: the tokens, when the access token expires, and who granted what.
///
/// The tokens never appear in `description`, `debugDescription` or `dump`.
public struct SpotifySession: Sendable, Hashable, Codable {
    /// The bearer token for API calls, valid for about an hour.
    public var accessToken: String
    /// The token that obtains new access tokens; `nil` for Client Credentials.
    public var refreshToken: String?
    /// When ``accessToken`` expires.
    public var expiresAt: Date
    /// The scopes granted, sorted.
    public var scopes: [String]
    public var grant: GrantType
    /// The client ID the tokens belong to.
    public var clientID: String
    /// The Spotify user ID, filled in after sign-in by a call to `/v1/me`.
    public var userID: String?
    /// The user's display name, when Spotify has one.
    public var userName: String?

    public init(
        accessToken: String,
        refreshToken: String?,
        expiresAt: Date,
        scopes: [String],
        grant: GrantType,
        clientID: String,
        userID: String? = nil,
        userName: String? = nil
    ) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
        self.scopes = scopes.sorted()
        self.grant = grant
        self.clientID = clientID
        self.userID = userID
        self.userName = userName
    }

    /// Whether the access token has expired, or will within `tolerance`.
    public func accessTokenIsExpired(tolerance: Duration = .seconds(120), now: Date = Date()) -> Bool {
        expiresAt.timeIntervalSince(now) <= Double(tolerance.components.seconds)
    }

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case refreshToken = "refresh_token"
        case expiresAt = "expires_at"
        case scopes, grant
        case clientID = "client_id"
        case userID = "user_id"
        case userName = "user_name"
    }
}

// MARK: - Descriptions without secrets

extension SpotifySession: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        "SpotifySession(user: \(userID ?? "-"), grant: \(grant.rawValue), expires: \(expiresAt), scopes: \(scopes.joined(separator: " ")), tokens: <redacted>)"
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "userID": userID as Any, "grant": grant, "expiresAt": expiresAt, "scopes": scopes,
                "clientID": clientID,
            ]
        )
    }
}

/// The body of a successful token response.
struct TokenResponse: Decodable {
    var accessToken: String
    var tokenType: String?
    var scope: String?
    var expiresIn: Int
    var refreshToken: String?

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case tokenType = "token_type"
        case scope
        case expiresIn = "expires_in"
        case refreshToken = "refresh_token"
    }
}

/// The body of a failed token request: `{"error": "invalid_grant", "error_description": "…"}`.
struct TokenErrorResponse: Decodable {
    var error: String
    var errorDescription: String?

    enum CodingKeys: String, CodingKey {
        case error
        case errorDescription = "error_description"
    }
}
