import ArgumentParser
import Foundation
import Ingest
import SpotifyTokenServer
import SpotifyWebAPI
import VibesCommandSupport
import VibesHTTP

extension VibesAnalyze {
    /// `vibes-analyze token-server`: the token swap and refresh service for a mobile app.
    struct TokenServerCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "token-server",
            abstract: "Serve the token swap and refresh endpoints that Spotify's iOS and Android SDKs call.",
            discussion: """
                Your app signs in with Spotify and sends the authorization code to POST /swap; the server \
                exchanges it with your client secret, which never leaves the server, and returns Spotify's \
                answer with the refresh token encrypted. POST /refresh takes that encrypted token. Make the \
                key once with --new-key FILE. The server listens on 127.0.0.1: put a TLS proxy in front of it. \
                Each request is logged to stderr without tokens, codes or secrets. Ctrl-C stops it.

                Example: vibes-analyze token-server --new-key key.bin
                """
        )

        @Option(help: ArgumentHelp("The TCP port; 0 picks a free one.", valueName: "port"))
        var port: UInt16 = TokenServer.Configuration.defaultPort

        @Option(
            help: ArgumentHelp(
                "The IPv4 or IPv6 address to listen on: 127.0.0.1 for a proxy on this machine, 0.0.0.0 for every interface.",
                valueName: "address"
            )
        )
        var bind = "127.0.0.1"

        @Option(
            help: ArgumentHelp(
                "The Spotify app's client ID. Defaults to $SPOTIFY_CLIENT_ID, else client_id in the config file.",
                valueName: "id"
            )
        )
        var clientID: String?

        @Option(
            help: ArgumentHelp(
                "A file holding the app's client secret on one line, readable only by you (chmod 600).",
                valueName: "file"
            )
        )
        var clientSecretFile: String?

        @Option(
            help: ArgumentHelp(
                "The redirect URI your app uses and registered in the Spotify dashboard, such as myapp://spotify-login-callback.",
                valueName: "uri"
            )
        )
        var redirectURI: String?

        @Option(
            help: ArgumentHelp(
                "The key that encrypts refresh tokens: a file with 64 hexadecimal characters, made by --new-key.",
                valueName: "file"
            )
        )
        var keyFile: String?

        @Option(help: ArgumentHelp("Write a new random key to a new file (mode 0600) and exit.", valueName: "file"))
        var newKey: String?

        @Option(
            help: ArgumentHelp(
                "How many requests a minute one client address may send, in bursts of as many.",
                valueName: "count"
            )
        )
        var requestsPerMinute = 30

        @Flag(
            help:
                "Take the client address from the last X-Forwarded-For entry, which the proxy in front sets. Use only behind a proxy."
        )
        var trustForwardedFor = false

        func validate() throws {
            guard newKey == nil else { return }
            var missing: [String] = []
            if clientSecretFile == nil { missing.append("--client-secret-file FILE") }
            if redirectURI == nil { missing.append("--redirect-uri URI") }
            if keyFile == nil { missing.append("--key-file FILE") }
            guard missing.isEmpty else {
                throw ValidationError(
                    "Please give \(missing.joined(separator: ", ")). Make a key with `vibes-analyze token-server --new-key FILE`."
                )
            }
            if let redirectURI, URL(string: redirectURI)?.scheme == nil {
                throw ValidationError(
                    "Please give the redirect URI with its scheme, such as myapp://spotify-login-callback (got \"\(redirectURI)\")."
                )
            }
            guard requestsPerMinute >= 1 else {
                throw ValidationError("Please allow at least 1 request per minute (got \(requestsPerMinute)).")
            }
        }

        /// Seconds to wait for the accounts service: `$VIBES_HTTP_TIMEOUT`, else 20.
        var accountsTimeout: Double {
            ProcessInfo.processInfo.environment["VIBES_HTTP_TIMEOUT"].flatMap(Double.init).flatMap {
                $0 > 0 && $0 <= 3_600 ? $0 : nil
            } ?? 20
        }

        func run() async throws {
            do {
                if let newKey {
                    try RefreshTokenSealer.writeNewKey(toFile: newKey)
                    Console.write(
                        "Wrote a new 256-bit key to \(newKey) (mode 0600). Start the server with --key-file \(newKey)."
                    )
                    return
                }
                try await serve()
            } catch let error as TokenServerError {
                throw CommandFailure(Self.message(for: error))
            } catch let error as SpotifyConfigurationError {
                throw CommandFailure(error.description)
            }
        }

        private func serve() async throws {
            let spotify = try SpotifyConfiguration.resolve(clientID: clientID)
            guard let clientID = spotify.credentials?.clientID else {
                throw CommandFailure(
                    "No client ID: give --client-id, or set SPOTIFY_CLIENT_ID, or client_id in \(SpotifyConfiguration.defaultConfigPath())."
                )
            }
            // `validate()` made sure these were given.
            guard let clientSecretFile, let redirectURI, let keyFile else { throw ExitCode.validationFailure }
            let secret = try TokenServer.loadClientSecret(fromFile: clientSecretFile)
            let sealer: RefreshTokenSealer
            do {
                sealer = try RefreshTokenSealer(keyFile: keyFile, clientID: clientID)
            } catch TokenServerError.malformedFile(let path, let reason) {
                throw CommandFailure(
                    "\(TokenServerError.malformedFile(path: path, reason: reason)) Make a key with `vibes-analyze token-server --new-key FILE`."
                )
            }
            // Each connection may hold two descriptors (its socket and a call to Spotify), and the
            // runtime needs some of its own: libdispatch stops the process when it cannot open a
            // file to watch its threads. So the connections stay within what the limit leaves.
            let fileLimit = Self.raiseOpenFileLimit(toAtLeast: Self.defaultConnections * 2 + Self.reservedFiles)
            let limits = TokenServer.Limits(
                requestsPerMinute: requestsPerMinute,
                burst: requestsPerMinute,
                requestTimeout: .seconds(accountsTimeout + 10),
                maximumConnections: max(1, min(Self.defaultConnections, (fileLimit - Self.reservedFiles) / 2))
            )
            let server = TokenServer(
                configuration: TokenServer.Configuration(
                    clientID: clientID,
                    clientSecret: secret,
                    redirectURI: redirectURI,
                    accountsBaseURL: spotify.accountsBaseURL,
                    bindAddress: bind,
                    port: port,
                    limits: limits,
                    trustsForwardedFor: trustForwardedFor
                ),
                sealer: sealer,
                // Shorter than the server's request limit, no retries (the app retries), no
                // redirects (the client secret goes to the accounts service only), and no more of
                // an answer than the server accepts.
                transport: URLSessionTransport(
                    timeout: accountsTimeout,
                    redirects: .never,
                    maximumBodyBytes: limits.maximumUpstreamBodyBytes
                )
            ) { entry in
                Console.diagnostic(entry.description)
            }
            try await server.run { endpoints in
                Console.write(
                    "Token server listening: swap \(endpoints.swapURL.absoluteString), refresh \(endpoints.refreshURL.absoluteString)"
                )
                fflush(nil)  // A script or a supervisor reading a pipe sees the line now.
            }
        }

        /// Raises the soft limit of open files towards `count`, as far as the hard limit allows, so
        /// that the server's connections and their calls to Spotify fit (macOS starts at 256).
        /// Below it the server still runs: it sheds idle connections when it runs out.
        ///
        /// - Returns: The soft limit in force afterwards.
        @discardableResult
        static func raiseOpenFileLimit(toAtLeast count: Int) -> Int {
            var limit = rlimit()
            guard getrlimit(RLIMIT_NOFILE_CODE, &limit) == 0 else { return count }
            if limit.rlim_cur < rlim_t(count) {
                limit.rlim_cur = min(rlim_t(count), limit.rlim_max)
                _ = setrlimit(RLIMIT_NOFILE_CODE, &limit)
                _ = getrlimit(RLIMIT_NOFILE_CODE, &limit)
            }
            return Int(clamping: limit.rlim_cur)
        }

        /// The connections the server keeps open when the file limit allows.
        static let defaultConnections = 256
        /// Descriptors left to the runtime, the listener, standard streams and the key files.
        static let reservedFiles = 32

        /// The error's description followed by what to do about it.
        static func message(for error: TokenServerError) -> String {
            switch error {
            case .fileNotPrivate(let path, _):
                return "\(error) Run `chmod 600 \(path)`."
            case .fileExists:
                return "\(error) Choose another file name: replacing a key in use makes every app sign in again."
            case .cannotListen:
                return "\(error) Choose another --port, or an address of this machine with --bind."
            default:
                return error.description
            }
        }
    }
}

#if canImport(Glibc)
private let RLIMIT_NOFILE_CODE = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
#else
private let RLIMIT_NOFILE_CODE = RLIMIT_NOFILE
#endif
