import Foundation
import Logging
import VibesHTTP

/// The client ID, and for the confidential flows the secret, of a Spotify app.
///
/// The secret never appears in `description`.
public struct SpotifyAppCredentials: Sendable, Hashable, CustomStringConvertible {
    public var clientID: String
    /// The client secret; `nil` selects Authorization Code with PKCE.
    public var clientSecret: String?

    public init(clientID: String, clientSecret: String? = nil) {
        self.clientID = clientID
        self.clientSecret = clientSecret
    }

    public var description: String {
        "SpotifyAppCredentials(clientID: \(clientID), clientSecret: \(clientSecret == nil ? "none" : "<redacted>"))"
    }
}

/// The Spotify accounts service: authorize URLs and the token endpoint.
public struct SpotifyAccounts: Sendable {
    /// The accounts service; `https://accounts.spotify.com/` in production.
    public let baseURL: URL
    public let credentials: SpotifyAppCredentials
    let transport: any HTTPTransport
    let now: @Sendable () -> Date
    let logger: Logger

    /// The production accounts service.
    public static let productionBaseURL = URL(string: "https://accounts.spotify.com/")!

    /// Creates an accounts client.
    ///
    /// - Parameters:
    ///   - credentials: The app's client ID and optional secret.
    ///   - baseURL: The accounts service; tests pass a local fake.
    ///   - transport: Sends token requests; wrap it in a ``RetryingTransport``.
    ///   - now: The wall clock that dates token expiry.
    public init(
        credentials: SpotifyAppCredentials,
        baseURL: URL = SpotifyAccounts.productionBaseURL,
        transport: any HTTPTransport,
        now: @escaping @Sendable () -> Date = Date.init,
        logger: Logger = Logger(label: "vibes.spotify")
    ) {
        self.credentials = credentials
        self.baseURL = baseURL
        self.transport = transport
        self.now = now
        self.logger = logger
    }

    // MARK: - Authorize URL

    /// Returns the URL the user opens to grant access.
    ///
    /// - Parameters:
    ///   - redirectURI: Such as `http://127.0.0.1:8977/callback`; must be registered for the app.
    ///   - codeChallenge: The S256 challenge for PKCE, or `nil` with a client secret.
    ///   - state: A random value the redirect must carry back.
    ///   - scopes: The permissions to ask for.
    ///   - showDialog: Ask Spotify to show its consent page even when the user approved before
    ///     (`show_dialog=true`), so another account can sign in.
    public func makeAuthorizationURL(
        redirectURI: String,
        codeChallenge: String?,
        state: String,
        scopes: Set<Scope>,
        showDialog: Bool = false
    ) -> URL {
        var components = URLComponents(
            url: baseURL.appendingPathComponent("authorize"),
            resolvingAgainstBaseURL: false
        )!
        var items = [
            URLQueryItem(name: "client_id", value: credentials.clientID),
            URLQueryItem(name: "response_type", value: "code"),
            URLQueryItem(name: "redirect_uri", value: redirectURI),
            URLQueryItem(name: "state", value: state),
            URLQueryItem(name: "scope", value: scopes.sorted().map(\.rawValue).joined(separator: " ")),
        ]
        if let codeChallenge {
            items += [
                URLQueryItem(name: "code_challenge_method", value: "S256"),
                URLQueryItem(name: "code_challenge", value: codeChallenge),
            ]
        }
        if showDialog { items.append(URLQueryItem(name: "show_dialog", value: "true")) }
        components.queryItems = items
        return components.url!
    }

    // MARK: - Token requests

    /// Exchanges an authorization code for a session.
    ///
    /// - Parameters:
    ///   - code: The `code` from the redirect.
    ///   - redirectURI: The same redirect URI the authorize URL used.
    ///   - codeVerifier: The PKCE verifier, or `nil` when the app has a secret.
    /// - Throws: ``SpotifyError/tokenRequestFailed(error:description:status:)``.
    public func exchangeCode(_ code: String, redirectURI: String, codeVerifier: String?) async throws -> SpotifySession
    {
        var form = ["grant_type": "authorization_code", "code": code, "redirect_uri": redirectURI]
        if let codeVerifier { form["code_verifier"] = codeVerifier }
        let grant: GrantType = credentials.clientSecret == nil ? .authorizationCodePKCE : .authorizationCode
        let token = try await requestToken(form: form, isRefresh: false)
        return makeSession(from: token, grant: grant, previous: nil)
    }

    /// Obtains a new access token for `session`.
    ///
    /// Spotify may or may not send a new refresh token; the old one is kept when it does not.
    ///
    /// - Throws: ``SpotifyError/sessionRevoked(description:)`` when Spotify answers
    ///   `invalid_grant`; ``SpotifyError/tokenRequestFailed(error:description:status:)`` otherwise.
    public func refresh(_ session: SpotifySession) async throws -> SpotifySession {
        if session.grant == .clientCredentials {
            return try await requestClientCredentials()
        }
        guard let refreshToken = session.refreshToken else { throw SpotifyError.sessionRevoked(description: nil) }
        let token = try await requestToken(
            form: ["grant_type": "refresh_token", "refresh_token": refreshToken],
            isRefresh: true
        )
        return makeSession(from: token, grant: session.grant, previous: session)
    }

    /// Obtains an app-only token with the Client Credentials flow (catalogue calls only).
    public func requestClientCredentials() async throws -> SpotifySession {
        guard credentials.clientSecret != nil else {
            throw SpotifyError.tokenRequestFailed(
                error: "missing_client_secret",
                description: "Client Credentials needs a client secret",
                status: 0
            )
        }
        let token = try await requestToken(form: ["grant_type": "client_credentials"], isRefresh: false)
        return makeSession(from: token, grant: .clientCredentials, previous: nil)
    }

    private func makeSession(from token: TokenResponse, grant: GrantType, previous: SpotifySession?) -> SpotifySession {
        SpotifySession(
            accessToken: token.accessToken,
            refreshToken: token.refreshToken ?? previous?.refreshToken,
            expiresAt: now().addingTimeInterval(TimeInterval(token.expiresIn)),
            scopes: token.scope.map { $0.split(separator: " ").map(String.init) } ?? previous?.scopes ?? [],
            grant: grant,
            clientID: credentials.clientID,
            userID: previous?.userID,
            userName: previous?.userName
        )
    }

    private func requestToken(form: [String: String], isRefresh: Bool) async throws -> TokenResponse {
        var form = form
        var request = HTTPRequest(
            method: .post,
            url: baseURL.appendingPathComponent("api/token"),
            headerFields: ["Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"]
        )
        if let secret = credentials.clientSecret {
            let basic = Data("\(credentials.clientID):\(secret)".utf8).base64EncodedString()
            request.headerFields["Authorization"] = "Basic \(basic)"
        } else {
            form["client_id"] = credentials.clientID
        }
        let body = Data(Self.formEncode(form).utf8)
        logger.debug("Token request \(form["grant_type"] ?? "?") to \(request.endpoint)")
        let (response, data) = try await transport.send(request, body: body)
        guard response.isSuccess else {
            let failure = try? JSONDecoder().decode(TokenErrorResponse.self, from: data)
            if isRefresh, failure?.error == "invalid_grant" {
                throw SpotifyError.sessionRevoked(description: failure?.errorDescription)
            }
            if response.status == 429 {
                throw SpotifyError.rateLimited(retryAfter: nil, retryAt: nil, endpoint: request.endpoint)
            }
            throw SpotifyError.tokenRequestFailed(
                error: failure?.error ?? "http_\(response.status)",
                description: failure?.errorDescription,
                status: response.status
            )
        }
        do {
            return try JSONDecoder().decode(TokenResponse.self, from: data)
        } catch {
            throw SpotifyError.decoding(
                reason: String(describing: error),
                status: response.status,
                body: redactedBody(data),
                endpoint: request.endpoint
            )
        }
    }

    /// `application/x-www-form-urlencoded`, keys sorted so requests are reproducible.
    package static func formEncode(_ form: [String: String]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return form.sorted { $0.key < $1.key }
            .map { key, value in
                "\(key)=\(value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")"
            }
            .joined(separator: "&")
    }
}
