import Foundation
import SpotifyTestSupport
import SpotifyWebAPI
import Testing
import VibesHTTP
import VibesTestSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How long these sign-ins wait for the "browser": as long as a request to a fake may take (see
/// `loopbackTimeout`). The wait itself is tested with a short timeout (`signInTimesOutWhenNobodyComes`).
private let signInWait: Duration = .seconds(loopbackTimeout)

struct SpotifyAuthorizationTests {
    // MARK: - PKCE

    @Test func codeChallengeMatchesRFC7636AppendixB() {
        #expect(
            PKCE.makeCodeChallenge(for: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
                == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        )
    }

    @Test func verifiersAndStatesAreRandomAndUnreserved() {
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        let verifiers = (0..<20).map { _ in PKCE.makeCodeVerifier() }
        #expect(Set(verifiers).count == 20)
        #expect(verifiers.allSatisfy { $0.count == 64 && $0.allSatisfy(unreserved.contains) })
        #expect(PKCE.makeState() != PKCE.makeState())
    }

    @Test func authorizationURLCarriesTheS256Challenge() throws {
        let accounts = SpotifyAccounts(
            credentials: SpotifyAppCredentials(clientID: "abc"),
            transport: URLSessionTransport()
        )
        let url = accounts.makeAuthorizationURL(
            redirectURI: "http://127.0.0.1:8977/callback",
            codeChallenge: "CH",
            state: "ST",
            scopes: [.userTopRead, .userLibraryRead]
        )
        let items = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems)
        let query = Dictionary(uniqueKeysWithValues: items.map { ($0.name, $0.value ?? "") })
        #expect(url.absoluteString.hasPrefix("https://accounts.spotify.com/authorize?"))
        #expect(query["client_id"] == "abc" && query["response_type"] == "code")
        #expect(query["redirect_uri"] == "http://127.0.0.1:8977/callback")
        #expect(query["code_challenge_method"] == "S256" && query["code_challenge"] == "CH")
        #expect(query["state"] == "ST" && query["scope"] == "user-library-read user-top-read")
        #expect(query["show_dialog"] == nil)

        let switching = accounts.makeAuthorizationURL(
            redirectURI: "http://127.0.0.1:8977/callback",
            codeChallenge: "CH",
            state: "ST",
            scopes: [],
            showDialog: true
        )
        #expect(switching.query?.contains("show_dialog=true") == true)
    }

    // MARK: - Redirects

    @Test func pastedRedirectsAreCheckedForState() throws {
        let url = "http://127.0.0.1:8977/callback?code=AQC123&state=s1"
        #expect(try AuthorizationRedirect.code(fromPastedURL: "  \(url)\n", expectedState: "s1") == "AQC123")
        #expect(try AuthorizationRedirect.code(fromPastedURL: "code=AQC123&state=s1", expectedState: "s1") == "AQC123")
        #expect(throws: SpotifyError.stateMismatch) {
            try AuthorizationRedirect.code(fromPastedURL: url, expectedState: "s2")
        }
        #expect(throws: SpotifyError.authorizationDenied(error: "access_denied")) {
            try AuthorizationRedirect.code(
                fromPastedURL: "http://127.0.0.1:8977/callback?error=access_denied&state=s1",
                expectedState: "s1"
            )
        }
        #expect(throws: SpotifyError.stateMismatch) {
            try AuthorizationRedirect.code(fromPastedURL: "http://127.0.0.1:8977/callback?code=x", expectedState: "s1")
        }
    }

    // MARK: - Full sign-in through the loopback server

    @Test func pkceSignInThroughTheLoopbackCallback() async throws {
        try await FakeSpotify.withServer { fake in
            let accounts = SpotifyAccounts(
                credentials: SpotifyAppCredentials(clientID: "fake-client-id"),
                baseURL: fake.accountsBaseURL,
                transport: URLSessionTransport(timeout: loopbackTimeout)
            )
            let pages = PageLog()
            let session = try await accounts.logIn(port: 0, timeout: signInWait) { authorizeURL in
                let query = try #require(URLComponents(url: authorizeURL, resolvingAgainstBaseURL: false)?.queryItems)
                let redirect = try #require(query.first { $0.name == "redirect_uri" }?.value)
                #expect(redirect.hasPrefix("http://127.0.0.1:") && redirect.hasSuffix("/callback"))
                // A forged redirect with another state is refused and does not end the login.
                let forged = try await get(URL(string: redirect + "?code=stolen&state=wrong")!)
                await pages.append(forged)
                // The "browser": the fake's authorize page redirects to the loopback server.
                let page = try await get(authorizeURL)
                await pages.append(page)
            }
            let seen = await pages.pages
            #expect(seen.map(\.status) == [400, 200])
            #expect(seen[1].body.contains("You can close this tab"))
            #expect(session.grant == .authorizationCodePKCE && session.refreshToken != nil)
            #expect(session.scopes.contains("user-library-read"))
            let tokenRequest = try #require(await fake.state.requests(to: "/accounts/api/token").first)
            let form = String(decoding: tokenRequest.body, as: UTF8.self)
            #expect(form.contains("code_verifier=") && form.contains("client_id=fake-client-id"))
            #expect(tokenRequest.authorization == nil)
        }
    }

    @Test func withASecretTheCodeFlowUsesBasicCredentialsAndNoPKCE() async throws {
        try await FakeSpotify.withServer { fake in
            let accounts = SpotifyAccounts(
                credentials: SpotifyAppCredentials(clientID: "id", clientSecret: "s3cret"),
                baseURL: fake.accountsBaseURL,
                transport: URLSessionTransport(timeout: loopbackTimeout)
            )
            let session = try await accounts.logIn(port: 0, timeout: signInWait) { authorizeURL in
                #expect(!authorizeURL.absoluteString.contains("code_challenge"))
                _ = try await get(authorizeURL)
            }
            #expect(session.grant == .authorizationCode)
            let refreshed = try await accounts.refresh(session)
            #expect(refreshed.accessToken != session.accessToken && refreshed.grant == .authorizationCode)
            let requests = await fake.state.requests(to: "/accounts/api/token")
            #expect(requests.count == 2)
            for request in requests {
                let form = String(decoding: request.body, as: UTF8.self)
                #expect(request.authorization == "Basic " + Data("id:s3cret".utf8).base64EncodedString())
                #expect(!form.contains("code_verifier") && !form.contains("client_id"))
            }
        }
    }

    @Test func anErrorRedirectEndsTheSignIn() async throws {
        try await FakeSpotify.withServer { fake in
            await fake.state.configure { $0.deniesAuthorization = true }
            let accounts = SpotifyAccounts(
                credentials: SpotifyAppCredentials(clientID: "fake-client-id"),
                baseURL: fake.accountsBaseURL,
                transport: URLSessionTransport(timeout: loopbackTimeout)
            )
            let error = await spotifyError {
                _ = try await accounts.logIn(port: 0, timeout: signInWait) { authorizeURL in
                    let page = try await get(authorizeURL)
                    #expect(page.body.contains("access_denied"))
                }
            }
            #expect(error == .authorizationDenied(error: "access_denied"))
            #expect(await fake.state.requests(to: "/accounts/api/token").isEmpty)
        }
    }

    @Test func signInTimesOutWhenNobodyComes() async throws {
        let accounts = SpotifyAccounts(
            credentials: SpotifyAppCredentials(clientID: "id"),
            transport: URLSessionTransport(timeout: 1)
        )
        let error = await spotifyError {
            _ = try await accounts.logIn(port: 0, timeout: .milliseconds(200)) { _ in }
        }
        guard case .authorizationDenied(let reason) = error else {
            Issue.record("expected a timeout, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("timed out"))
    }

    @Test func aBusyPortIsReportedWithTheWayOut() async throws {
        try await FakeSpotify.withServer { fake in
            let accounts = SpotifyAccounts(
                credentials: SpotifyAppCredentials(clientID: "id"),
                transport: URLSessionTransport(timeout: 1)
            )
            let error = await spotifyError {
                _ = try await accounts.logIn(port: fake.port, timeout: .seconds(5)) { _ in
                    Issue.record("the authorize URL must not be shown when the server cannot listen")
                }
            }
            guard case .callbackServerUnavailable(let port, _) = error else {
                Issue.record("expected callbackServerUnavailable, got \(String(describing: error))")
                return
            }
            #expect(port == fake.port)
            #expect(
                error?.description.contains("--port") == true && error?.description.contains("--no-browser") == true
            )
        }
    }

    @Test func pasteModeSignsIn() async throws {
        try await FakeSpotify.withServer { fake in
            let accounts = SpotifyAccounts(
                credentials: SpotifyAppCredentials(clientID: "fake-client-id"),
                baseURL: fake.accountsBaseURL,
                transport: URLSessionTransport(timeout: loopbackTimeout)
            )
            let location = PageLog()
            let session = try await accounts.logInByPasting(port: 8977) { authorizeURL in
                // Do not follow the redirect: nothing listens on 8977. Read the Location instead.
                let (page, _) = try await noRedirect(authorizeURL)
                await location.append(page)
            } readRedirect: {
                await location.pages[0].location ?? ""
            }
            #expect(session.accessToken.hasPrefix("BQ-fake-access-"))
        }
    }

    // MARK: - Confidential flows

    @Test func clientCredentialsNeedTheSecret() async throws {
        try await FakeSpotify.withServer { fake in
            let withSecret = SpotifyAccounts(
                credentials: SpotifyAppCredentials(clientID: "id", clientSecret: "s3cret-value"),
                baseURL: fake.accountsBaseURL,
                transport: URLSessionTransport(timeout: loopbackTimeout)
            )
            let session = try await withSecret.requestClientCredentials()
            #expect(session.grant == .clientCredentials && session.refreshToken == nil)
            let request = try #require(await fake.state.requests(to: "/accounts/api/token").first)
            #expect(request.authorization == "Basic " + Data("id:s3cret-value".utf8).base64EncodedString())
            #expect(!withSecret.credentials.description.contains("s3cret"))

            let withoutSecret = SpotifyAccounts(
                credentials: SpotifyAppCredentials(clientID: "id"),
                baseURL: fake.accountsBaseURL,
                transport: URLSessionTransport(timeout: loopbackTimeout)
            )
            let error = await spotifyError { _ = try await withoutSecret.requestClientCredentials() }
            guard case .tokenRequestFailed = error else {
                Issue.record("expected tokenRequestFailed, got \(String(describing: error))")
                return
            }
        }
    }

    @Test func aWrongCodeIsRefused() async throws {
        try await FakeSpotify.withServer { fake in
            let accounts = SpotifyAccounts(
                credentials: SpotifyAppCredentials(clientID: "id"),
                baseURL: fake.accountsBaseURL,
                transport: URLSessionTransport(timeout: loopbackTimeout)
            )
            let error = await spotifyError {
                _ = try await accounts.exchangeCode(
                    "AQC-made-up",
                    redirectURI: "http://127.0.0.1:1/callback",
                    codeVerifier: "v"
                )
            }
            #expect(
                error
                    == .tokenRequestFailed(
                        error: "invalid_grant",
                        description: "Invalid authorization code",
                        status: 400
                    )
            )
            #expect(error?.description.contains("AQC-made-up") == false)
        }
    }
}

// MARK: - A tiny browser

struct Page: Sendable {
    var status: Int
    var body: String
    var location: String?
}

actor PageLog {
    var pages: [Page] = []
    func append(_ page: Page) { pages.append(page) }
}

/// GETs `url`, following redirects, as a browser would.
func get(_ url: URL) async throws -> Page {
    let (data, response) = try await URLSession(configuration: .loopback).data(from: url)
    let http = response as! HTTPURLResponse
    return Page(status: http.statusCode, body: String(decoding: data, as: UTF8.self), location: nil)
}

/// GETs `url` without following a redirect.
func noRedirect(_ url: URL) async throws -> (Page, Data) {
    let answer = try await fetchWithoutRedirect(url)
    return (
        Page(status: answer.status, body: String(decoding: answer.body, as: UTF8.self), location: answer.location),
        answer.body
    )
}
