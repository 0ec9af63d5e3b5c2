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
        let verifier = credentials.clientSecret == nil ? PKCE.makeCodeVerifier() : nil
        let state = PKCE.makeState()
        let (code, redirectURI) = try await LoopbackCallbackServer.waitForCode(
            port: port,
            expectedState: state,
            timeout: timeout
        ) { redirectURI in
            try await present(
                makeAuthorizationURL(
                    redirectURI: redirectURI,
                    verifier: verifier,
                    state: state,
                    scopes: scopes,
                    showDialog: showDialog
                )
            )
        }
        return try await exchangeCode(code, redirectURI: redirectURI, codeVerifier: verifier)
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
        let verifier = credentials.clientSecret == nil ? PKCE.makeCodeVerifier() : nil
        let state = PKCE.makeState()
        let redirectURI = LoopbackCallbackServer.redirectURI(port: port)
        try await present(
            makeAuthorizationURL(
                redirectURI: redirectURI,
                verifier: verifier,
                state: state,
                scopes: scopes,
                showDialog: showDialog
            )
        )
        let code = try AuthorizationRedirect.code(fromPastedURL: try await readRedirect(), expectedState: state)
        return try await exchangeCode(code, redirectURI: redirectURI, codeVerifier: verifier)
    }

    /// The authorize URL for a sign-in, with the code challenge of `verifier` when there is one.
    private func makeAuthorizationURL(
        redirectURI: String,
        verifier: String?,
        state: String,
        scopes: Set<Scope>,
        showDialog: Bool
    ) -> URL {
        makeAuthorizationURL(
            redirectURI: redirectURI,
            codeChallenge: verifier.map(PKCE.makeCodeChallenge(for:)),
            state: state,
            scopes: scopes,
            showDialog: showDialog
        )
    }
}
