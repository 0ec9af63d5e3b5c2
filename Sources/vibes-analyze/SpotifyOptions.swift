import ArgumentParser
import Foundation
import Ingest
import Logging
import SpotifyWebAPI
import VibesCommandSupport
import VibesEngine
import VibesHTTP

/// Options every Spotify command takes: the app's credentials and where the session lives.
struct SpotifyOptions: ParsableArguments {
    @Option(
        name: .long,
        help: "The Spotify app's client ID. Defaults to $SPOTIFY_CLIENT_ID, else client_id in the config file."
    )
    var clientID: String?

    @Option(
        name: .long,
        help:
            "The app's client secret, for Authorization Code with a secret or Client Credentials. Prefer $SPOTIFY_CLIENT_SECRET: flags are visible to other users in the process list."
    )
    var clientSecret: String?

    @Option(name: .long, help: "The Spotify config file. Defaults to $XDG_CONFIG_HOME/vibes-analyze/spotify.json.")
    var config: String?

    @Option(
        name: .long,
        help:
            "The session file (mode 0600). Defaults to $VIBES_SPOTIFY_SESSION, else $XDG_CONFIG_HOME/vibes-analyze/spotify-session.json."
    )
    var sessionFile: String?

    /// The resolved settings.
    func configuration(port: UInt16? = nil) throws -> SpotifyConfiguration {
        try SpotifyConfiguration.resolve(
            clientID: clientID,
            clientSecret: clientSecret,
            redirectPort: port,
            sessionPath: sessionFile,
            configPath: config
        )
    }

    /// A signed-in client over the stored session, reporting retry waits on stderr.
    ///
    /// - Parameter requestBudget: The most requests to send (`sync --max-requests`), or `nil`.
    func makeClient(
        quiet: Bool,
        requestBudget: Int? = nil,
        logger: Logger = Logger(label: "vibes.spotify")
    ) throws -> (SpotifyClient, TokenStore) {
        let configuration = try configuration()
        guard let credentials = configuration.credentials else { throw SpotifyError.missingClientID }
        let onRetry: @Sendable (RetryEvent) -> Void = { event in
            guard !quiet else { return }
            Console.diagnostic(Self.describe(event))
        }
        let network = URLSessionTransport(timeout: Self.requestTimeout)
        let accounts = SpotifyAccounts(
            credentials: credentials,
            baseURL: configuration.accountsBaseURL,
            transport: RetryingTransport<SpotifyError>(base: network, onRetry: onRetry, logger: logger),
            logger: logger
        )
        let tokens = TokenStore(path: configuration.sessionPath, accounts: accounts, logger: logger)
        let client = SpotifyClient(
            tokens: tokens,
            clientID: credentials.clientID,
            baseURL: configuration.apiBaseURL,
            networking: ClientNetworking(network: network, onRetry: onRetry),
            requestBudget: requestBudget.map(RequestBudget.init(limit:)),
            logger: logger
        )
        return (client, tokens)
    }

    /// Seconds to wait for a response: `$VIBES_HTTP_TIMEOUT`, else 30.
    static var requestTimeout: TimeInterval {
        ProcessInfo.processInfo.environment["VIBES_HTTP_TIMEOUT"].flatMap(TimeInterval.init).flatMap {
            $0 > 0 ? $0 : nil
        }
            ?? 30
    }

    /// One line saying why the command pauses.
    static func describe(_ event: RetryEvent) -> String {
        switch event {
        case .rateLimited(let endpoint, let delay, let attempt):
            "Spotify's rate limit: waiting \(format(delay)) before attempt \(attempt) of \(endpoint)."
        case .serverError(let endpoint, let status, let delay, let attempt):
            "Spotify answered \(status) to \(endpoint); retrying in \(format(delay)) (attempt \(attempt))."
        case .networkError(let endpoint, _, let delay, let attempt):
            "No response from Spotify for \(endpoint); retrying in \(format(delay)) (attempt \(attempt))."
        }
    }

    static func format(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return seconds < 10 ? String(format: "%.1f s", seconds) : "\(Int(seconds.rounded())) s"
    }
}

/// Runs `body` and turns a Spotify failure into its message, with what to do next, on stderr and
/// exit code 1.
func reportingSpotifyErrors<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let error as SpotifyError {
        Console.diagnostic("Error: " + SpotifyAdvice.message(for: error))
        throw ExitCode.failure
    } catch let error as SpotifySyncInterruptedError {
        let advice = (error.underlying as? SpotifyError).flatMap(SpotifyAdvice.advice(for:))
        Console.diagnostic(
            "Error: \(error)" + (advice.map { " \($0)" } ?? " Run `vibes-analyze sync` again to continue.")
        )
        throw ExitCode.failure
    } catch let error as PlaylistPushInterruptedError {
        Console.diagnostic("Error: \(error) Run the same `vibes-analyze playlist push` again.")
        throw ExitCode.failure
    } catch let error as SpotifyConfigurationError {
        Console.diagnostic("Error: \(error)")
        throw ExitCode.failure
    }
}

/// What to run next after a Spotify failure: the command-line tool's advice, which the library's
/// errors leave out.
enum SpotifyAdvice {
    /// The error's description followed by the advice, if any.
    static func message(for error: SpotifyError) -> String {
        advice(for: error).map { "\(error) \($0)" } ?? "\(error)"
    }

    static func advice(for error: SpotifyError) -> String? {
        switch error {
        case .http(let status, _, _):
            switch status {
            case 401: "Run `vibes-analyze auth login` again."
            case 403:
                "`vibes-analyze auth status` shows the scopes granted; a new development-mode app also reaches fewer endpoints (see docs/Spotify.md)."
            case 404: "Check the ID."
            case 500...: "Try again later."
            default: nil
            }
        case .rateLimited: "A resumed `vibes-analyze sync` continues where this one stopped."
        case .quotaExceeded:
            "This is the developer account's quota, not the minute-by-minute rate limit: waiting a few minutes does not help. "
                + "Everything fetched so far is saved; run the command again after the reset (`vibes-analyze sync --plan` "
                + "says how many requests a sync needs, and `--max-requests N` keeps one within a budget)."
        case .missingScope(let scope, _):
            scope.map { "`vibes-analyze auth login --scope \($0)` signs in again asking for it." }
                ?? "`vibes-analyze auth login` signs in again with the scopes vibes-analyze needs."
        case .requestBudgetReached: "Run the command again to continue where it stopped."
        case .network: "Check the network connection and try again."
        case .audioFeaturesForbidden: "`vibes-analyze sync` asks ReccoBeats; `vibes-analyze import FILE` reads a file."
        case .notSignedIn: "Run `vibes-analyze auth login` first."
        case .sessionRevoked: "Run `vibes-analyze auth login` again."
        case .authorizationDenied: "Run `vibes-analyze auth login` to try again."
        case .stateMismatch: "Start again with `vibes-analyze auth login`."
        case .playerRefused(let reason, _, _):
            reason == "NO_ACTIVE_DEVICE"
                ? "Open Spotify on a phone, computer or speaker, or name one with --device (`vibes-analyze devices` lists them)."
                : "Playback control works only with a Premium account; everything else works without."
        case .decoding(_, _, _, let endpoint) where endpoint == SpotifyError.sessionFileEndpoint:
            "Run `vibes-analyze auth login` to sign in again."
        case .decoding, .tokenRequestFailed, .malformedRedirect, .callbackServerUnavailable, .missingClientID: nil
        }
    }
}
