import Foundation
import Logging
import SpotifyWebAPI
import Synchronization
import Testing
import VibesHTTP
import VibesTestSupport

/// A client signed in to `fake`, with a clock that does not really sleep.
public struct SignedInClient: Sendable {
    public var client: SpotifyClient
    public var tokens: TokenStore
    public var clock: TestClock
    public var accounts: SpotifyAccounts
}

/// Signs in to `fake` directly (tokens issued by the fake) and returns a client on it.
///
/// - Parameters:
///   - sessionPath: Where the token store keeps the session; `nil` for memory only.
///   - policy: The retry policy; jitter is off so waits can be compared exactly.
public func makeSignedInClient(
    _ fake: FakeSpotify,
    sessionPath: String? = nil,
    policy: RetryPolicy = RetryPolicy(usesJitter: false),
    expiresIn: TimeInterval = 3600,
    now: @escaping @Sendable () -> Date = Date.init,
    scopes: Set<String> = FakeSpotifyState.allScopes,
    requestBudget: RequestBudget? = nil,
    logger: Logger = Logger(label: "vibes.tests")
) async throws -> SignedInClient {
    let clock = TestClock()
    let accounts = SpotifyAccounts(
        credentials: SpotifyAppCredentials(clientID: "fake-client-id"),
        baseURL: fake.accountsBaseURL,
        transport: RetryingTransport<SpotifyError>(
            base: URLSessionTransport(timeout: loopbackTimeout),
            policy: policy,
            clock: clock,
            logger: logger
        ),
        now: now,
        logger: logger
    )
    let tokens = TokenStore(path: sessionPath, accounts: accounts, now: now, logger: logger)
    let (access, refresh) = await fake.state.issueTokens(scopes: scopes)
    try await tokens.save(
        SpotifySession(
            accessToken: access,
            refreshToken: refresh,
            expiresAt: now().addingTimeInterval(expiresIn),
            scopes: ["user-library-read"],
            grant: .authorizationCodePKCE,
            clientID: "fake-client-id"
        )
    )
    let client = SpotifyClient(
        tokens: tokens,
        clientID: "fake-client-id",
        baseURL: fake.apiBaseURL,
        networking: ClientNetworking(
            network: URLSessionTransport(timeout: loopbackTimeout),
            retryPolicy: policy,
            clock: clock,
            now: now
        ),
        requestBudget: requestBudget,
        logger: logger
    )
    return SignedInClient(client: client, tokens: tokens, clock: clock, accounts: accounts)
}

/// Runs `body`, which must throw a ``SpotifyError``, and returns that error.
public func spotifyError(
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Void
) async -> SpotifyError? {
    do {
        try await body()
        Issue.record("Expected a SpotifyError, but nothing was thrown", sourceLocation: sourceLocation)
        return nil
    } catch let error as SpotifyError {
        return error
    } catch {
        Issue.record("Expected a SpotifyError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// Expects that none of the tokens `fake` issued appears in `text`.
public func expectNoTokens(
    in text: String,
    issuedBy fake: FakeSpotify,
    sourceLocation: SourceLocation = #_sourceLocation
) async {
    let tokens = await fake.state.issuedTokens
    #expect(!tokens.isEmpty, sourceLocation: sourceLocation)
    for token in tokens {
        #expect(!text.contains(token), "a token leaked into: \(text)", sourceLocation: sourceLocation)
    }
}

/// Collects every log line, at every level, for leak checks.
public final class LogCapture: Sendable {
    private let storage = Mutex<[String]>([])

    public init() {}

    /// A logger at `trace` level that writes here.
    public var logger: Logger {
        var logger = Logger(label: "vibes.tests") { _ in Handler(capture: self) }
        logger.logLevel = .trace
        return logger
    }

    /// The lines logged so far, with their metadata.
    public var lines: [String] { storage.withLock { $0 } }

    fileprivate func append(_ line: String) { storage.withLock { $0.append(line) } }

    private struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            capture.append("\(event.level) \(event.message) \(event.metadata ?? [:]) \(metadata)")
        }
    }
}
