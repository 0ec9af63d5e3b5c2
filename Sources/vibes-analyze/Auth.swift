import ArgumentParser
import Foundation
import Ingest
import SpotifyWebAPI
import VibesCommandSupport
import VibesHTTP

extension VibesAnalyze {
    /// `vibes-analyze auth login|status|logout`.
    struct Auth: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "auth",
            abstract: "Sign in to Spotify, show the session, or sign out.",
            discussion: """
                Create an app at https://developer.spotify.com/dashboard and register the redirect URI \
                http://127.0.0.1:8977/callback (or the port you choose with --port). Spotify refuses \
                "localhost"; use 127.0.0.1. The session is kept in a file only you can read. The sign-in \
                asks for the scopes every command needs, the playback ones (user-read-playback-state, \
                user-modify-playback-state) included; a session from before they were asked for gets \
                "lacks the scope" from `devices` and `play` until you sign in again.

                Example: vibes-analyze auth login --client-id YOUR_CLIENT_ID
                """,
            subcommands: [Login.self, Status.self, Logout.self]
        )
    }
}

extension VibesAnalyze.Auth {
    struct Login: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "login",
            abstract: "Sign in to Spotify (Authorization Code with PKCE, or with the client secret when one is set).",
            discussion: "Example: vibes-analyze auth login --client-id YOUR_CLIENT_ID"
        )

        @OptionGroup var global: OutputOptions
        @OptionGroup var spotify: SpotifyOptions

        @Option(
            name: .long,
            help:
                "The loopback port of the redirect URI http://127.0.0.1:PORT/callback. Defaults to 8977, or redirect_port in the config file."
        )
        var port: UInt16?

        @Flag(
            name: .long,
            help: "Do not start a browser or a local server; paste the URL the browser was redirected to."
        )
        var noBrowser = false

        @Flag(
            name: .long,
            help: "Get an app-only token with the client secret (Client Credentials): catalogue calls only, no library."
        )
        var clientCredentials = false

        @Option(
            name: .long,
            help:
                "Also ask for this scope. The default set already holds what sync, playlist push and the player commands need. Repeatable."
        )
        var scope: [String] = []

        @Option(name: .long, help: "Seconds to wait for the browser to come back. Defaults to 300.")
        var timeout = 300

        @Flag(
            name: .long,
            help: "Show Spotify's consent page even if you approved before, to sign in as another account."
        )
        var showDialog = false

        func validate() throws {
            for name in scope where Scope(rawValue: name) == nil {
                throw ValidationError(
                    "Unknown scope \"\(name)\". Known scopes: \(Scope.allCases.map(\.rawValue).joined(separator: ", "))."
                )
            }
            guard timeout > 0 else {
                throw ValidationError("Please give a timeout of at least 1 second (got \(timeout)).")
            }
        }

        func run() async throws {
            Console.bootstrapLogging(verbose: global.verbose)
            try await reportingSpotifyErrors {
                let configuration = try spotify.configuration(port: port)
                guard let credentials = configuration.credentials else { throw SpotifyError.missingClientID }
                let accounts = SpotifyAccounts(
                    credentials: credentials,
                    baseURL: configuration.accountsBaseURL,
                    transport: RetryingTransport<SpotifyError>(
                        base: URLSessionTransport(timeout: SpotifyOptions.requestTimeout)
                    )
                )
                let scopes = Scope.vibesDefault.union(scope.compactMap(Scope.init(rawValue:)))
                var session: SpotifySession
                if clientCredentials {
                    session = try await accounts.requestClientCredentials()
                } else if noBrowser {
                    session = try await accounts.logInByPasting(
                        port: configuration.redirectPort,
                        scopes: scopes,
                        showDialog: showDialog
                    ) {
                        url in
                        Console.diagnostic("Open this URL in a browser and allow access:\n\n  \(url.absoluteString)\n")
                        Console.diagnostic(
                            "The browser then fails to load http://127.0.0.1:\(configuration.redirectPort)/callback?…; that is expected. Paste that whole URL here and press Return:"
                        )
                    } readRedirect: {
                        readLine(strippingNewline: true) ?? ""
                    }
                } else {
                    let quiet = global.quiet
                    session = try await accounts.logIn(
                        port: configuration.redirectPort,
                        scopes: scopes,
                        timeout: .seconds(timeout),
                        showDialog: showDialog
                    ) { url in
                        Console.diagnostic(
                            "Opening Spotify's sign-in page. If no browser opens, open this URL:\n\n  \(url.absoluteString)\n"
                        )
                        if !quiet {
                            let redirect =
                                URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?
                                .first { $0.name == "redirect_uri" }?.value ?? "the redirect URI"
                            Console.diagnostic("Waiting for the redirect to \(redirect) …")
                        }
                        openBrowser(url)
                    }
                }
                let tokens = TokenStore(path: configuration.sessionPath, accounts: accounts)
                try await tokens.save(session)
                if session.grant != .clientCredentials {
                    let client = SpotifyClient(
                        tokens: tokens,
                        clientID: credentials.clientID,
                        baseURL: configuration.apiBaseURL
                    )
                    let me = try await client.currentUser()
                    session.userID = me.id
                    session.userName = me.displayName
                    try await tokens.save(session)
                }
                try Status.printSummary(
                    session,
                    path: configuration.sessionPath,
                    json: global.json,
                    heading: "Signed in"
                )
            }
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "Show who is signed in, the scopes granted and when the access token expires.",
            discussion: "Example: vibes-analyze auth status --json"
        )

        @OptionGroup var global: OutputOptions
        @OptionGroup var spotify: SpotifyOptions

        func run() async throws {
            try await reportingSpotifyErrors {
                let configuration = try spotify.configuration()
                guard let session = try await TokenStore(path: configuration.sessionPath, accounts: nil).session()
                else {
                    if global.json {
                        try Console.printJSON(["signed_in": false])
                    } else {
                        print("Not signed in to Spotify. Run `vibes-analyze auth login`.")
                    }
                    throw ExitCode.failure
                }
                try Self.printSummary(session, path: configuration.sessionPath, json: global.json, heading: "Signed in")
            }
        }

        struct Summary: Encodable {
            var signedIn = true
            var userID: String?
            var userName: String?
            var grant: String
            var clientID: String
            var scopes: [String]
            var expiresAt: Date
            var sessionFile: String

            enum CodingKeys: String, CodingKey {
                case signedIn = "signed_in"
                case userID = "user_id"
                case userName = "user_name"
                case grant
                case clientID = "client_id"
                case scopes
                case expiresAt = "expires_at"
                case sessionFile = "session_file"
            }
        }

        static func printSummary(_ session: SpotifySession, path: String, json: Bool, heading: String) throws {
            if json {
                try Console.printJSON(
                    Summary(
                        userID: session.userID,
                        userName: session.userName,
                        grant: session.grant.rawValue,
                        clientID: session.clientID,
                        scopes: session.scopes,
                        expiresAt: session.expiresAt,
                        sessionFile: path
                    )
                )
                return
            }
            let who =
                session.userName.map { "\($0) (\(session.userID ?? "?"))" } ?? session.userID ?? "the app (no user)"
            let remaining = Int(session.expiresAt.timeIntervalSinceNow / 60)
            let expiry =
                remaining > 0
                ? "in \(remaining) min (\(session.expiresAt.formatted(.iso8601)))"
                : "expired; it is refreshed on the next request"
            Swift.print(
                """
                \(heading) as \(who).
                  Grant:         \(session.grant.rawValue)
                  Client ID:     \(session.clientID)
                  Scopes:        \(session.scopes.isEmpty ? "(none)" : session.scopes.joined(separator: " "))
                  Access token:  expires \(expiry)
                  Session file:  \(path)
                """
            )
        }
    }

    struct Logout: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "logout",
            abstract: "Forget the stored Spotify session.",
            discussion: "Example: vibes-analyze auth logout"
        )

        @OptionGroup var global: OutputOptions
        @OptionGroup var spotify: SpotifyOptions

        func run() async throws {
            try await reportingSpotifyErrors {
                let configuration = try spotify.configuration()
                let store = TokenStore(path: configuration.sessionPath, accounts: nil)
                let hadSession = try await store.session() != nil
                try await store.clear()
                if !global.quiet {
                    print(
                        hadSession
                            ? "Signed out; removed \(configuration.sessionPath)." : "Not signed in; nothing to remove."
                    )
                    print(
                        "To revoke the app's access on Spotify's side too, visit https://www.spotify.com/account/apps/."
                    )
                }
            }
        }
    }
}

/// Opens `url` in the user's browser when there is one (`open` on macOS, `xdg-open` elsewhere);
/// does nothing without a display.
func openBrowser(_ url: URL) {
    #if os(macOS)
    let tool = "/usr/bin/open"
    #else
    let environment = ProcessInfo.processInfo.environment
    guard environment["DISPLAY"] != nil || environment["WAYLAND_DISPLAY"] != nil else { return }
    let tool = "/usr/bin/xdg-open"
    #endif
    guard FileManager.default.isExecutableFile(atPath: tool) else { return }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments = [url.absoluteString]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try? process.run()
}
