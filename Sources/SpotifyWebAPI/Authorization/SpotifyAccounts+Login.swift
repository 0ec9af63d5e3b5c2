import Foundation

extension SpotifyAccounts {
    /// Signs in with Authorization Code (PKCE without a secret), receiving the redirect on a
    /// one-shot loopback server.
    ///
    /// - Parameters:
    ///   - port: The loopback port; its redirect URI must be registered for the app.
    ///   - scopes: The permissions to ask for.
    ///   - timeout: How long to wait for the user. Defaults to 5 minutes.
    ///   - showDialog: Show Spotify's consent page even if the user approved before (to switch accounts).
    ///   - present: Shows the authorize URL: prints it and opens a browser.
    /// - Returns: The new session; its ``SpotifySession/userID`` is still `nil`.
    public func logIn(
        port: UInt16 = LoopbackCallbackServer.defaultPort,
        scopes: Set<Scope> = Scope.vibesDefault,
        timeout: Duration = .seconds(300),
        showDialog: Bool = false,
        present: @escaping @Sendable (URL) async throws -> Void
    ) async throws -> SpotifySession {
        let attempt = SignInAttempt(
            verifier: credentials.clientSecret == nil ? PKCE.makeCodeVerifier() : nil,
            scopes: scopes,
            showDialog: showDialog
        )
        let (code, redirectURI) = try await LoopbackCallbackServer.waitForCode(
            port: port,
            expectedState: attempt.state,
            timeout: timeout
        ) { redirectURI in
            try await present(authorizationURL(for: attempt, redirectURI: redirectURI))
        }
        return try await exchangeCode(code, redirectURI: redirectURI, codeVerifier: attempt.verifier)
    }

    /// Signs in without a local server: the user opens the authorize URL anywhere and pastes back
    /// the URL the browser was redirected to (which fails to load; that is expected).
    ///
    /// - Parameters:
    ///   - port: The port in the registered redirect URI.
    ///   - present: Shows the authorize URL.
    ///   - readRedirect: Returns the pasted URL.
    public func logInByPasting(
        port: UInt16 = LoopbackCallbackServer.defaultPort,
        scopes: Set<Scope> = Scope.vibesDefault,
        showDialog: Bool = false,
        present: @Sendable (URL) async throws -> Void,
        readRedirect: @Sendable () async throws -> String
    ) async throws -> SpotifySession {
        let attempt = SignInAttempt(
            verifier: credentials.clientSecret == nil ? PKCE.makeCodeVerifier() : nil,
            scopes: scopes,
            showDialog: showDialog
        )
        let redirectURI = LoopbackCallbackServer.redirectURI(port: port)
        try await present(authorizationURL(for: attempt, redirectURI: redirectURI))
        let code = try AuthorizationRedirect.code(fromPastedURL: try await readRedirect(), expectedState: attempt.state)
        return try await exchangeCode(code, redirectURI: redirectURI, codeVerifier: attempt.verifier)
    }

    /// The authorize URL of `attempt`, with the code challenge of its verifier when it has one.
    private func authorizationURL(for attempt: SignInAttempt, redirectURI: String) -> URL {
        makeAuthorizationURL(
            redirectURI: redirectURI,
            codeChallenge: attempt.verifier.map(PKCE.makeCodeChallenge(for:)),
            state: attempt.state,
            scopes: attempt.scopes,
            showDialog: attempt.showDialog
        )
    }
}

/// What one sign-in sends and must get back: the PKCE verifier (none with a client secret), the
/// random state the redirect carries, the scopes and whether to show the consent page again.
private struct SignInAttempt {
    let verifier: String?
    let state = PKCE.makeState()
    let scopes: Set<Scope>
    let showDialog: Bool
}
