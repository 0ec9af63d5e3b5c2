import Foundation
import Logging
import Synchronization

/// Something that happened while retrying, reported so a command can tell the user why it waits.
public enum RetryEvent: Sendable, Hashable {
    /// The service answered 429; the client waits `delay` before attempt `nextAttempt`.
    case rateLimited(endpoint: String, delay: Duration, nextAttempt: Int)
    /// The service answered `status` (5xx); the client backs off.
    case serverError(endpoint: String, status: Int, delay: Duration, nextAttempt: Int)
    /// No response arrived; the client backs off.
    case networkError(endpoint: String, reason: String, delay: Duration, nextAttempt: Int)
}

/// The error a service's client reports when retrying gave up, such as `SpotifyError`.
///
/// An enum conforms with two cases of these names and labels. ``RetryingTransport`` throws them,
/// and passes an error of this type from the transport below on at once, never retrying it (an
/// answer the client already judged, such as a spent quota).
public protocol RetryFailure: Error {
    /// The service asked to wait longer than the retry budget allows, or kept refusing.
    ///
    /// - Parameters:
    ///   - retryAfter: The `Retry-After` value, or `nil` when the service sent none.
    ///   - retryAt: The earliest time worth trying again, when known.
    static func rateLimited(retryAfter: Duration?, retryAt: Date?, endpoint: String) -> Self
    /// No response arrived (connection refused or dropped, timeout), after `attempts` tries.
    static func network(reason: String, attempts: Int, endpoint: String) -> Self
}

/// An ``HTTPTransport`` that retries rate limits, server errors and lost connections by a
/// ``RetryPolicy``, sleeping on an injected clock.
///
/// Every attempt is counted in ``RequestCounter``. A 429 whose `Retry-After` exceeds the policy's
/// remaining budget throws ``RetryFailure/rateLimited(retryAfter:retryAt:endpoint:)`` at once; a
/// request that exhausts its attempts returns the last response (so the caller reports the
/// status) or throws ``RetryFailure/network(reason:attempts:endpoint:)``, as the service's own
/// error type `Failure`.
public struct RetryingTransport<Failure: RetryFailure>: HTTPTransport {
    let base: any HTTPTransport
    let policy: RetryPolicy
    let clock: any Clock<Duration>
    let now: @Sendable () -> Date
    let counter: RequestCounter
    let onRetry: (@Sendable (RetryEvent) -> Void)?
    let logger: Logger

    /// Wraps `base`.
    ///
    /// - Parameters:
    ///   - base: The transport that sends each attempt.
    ///   - policy: Attempts, budgets and backoffs.
    ///   - clock: The clock to sleep on; tests pass one that returns at once.
    ///   - now: The wall clock, for the "try again after" time in errors.
    ///   - counter: Counts every attempt sent.
    ///   - onRetry: Called before each wait, so a command can print why it pauses.
    ///   - logger: Receives one `info` line per retry.
    public init(
        base: any HTTPTransport,
        policy: RetryPolicy = .default,
        clock: any Clock<Duration> = ContinuousClock(),
        now: @escaping @Sendable () -> Date = Date.init,
        counter: RequestCounter = RequestCounter(),
        onRetry: (@Sendable (RetryEvent) -> Void)? = nil,
        logger: Logger = Logger(label: "vibes.spotify")
    ) {
        self.base = base
        self.policy = policy
        self.clock = clock
        self.now = now
        self.counter = counter
        self.onRetry = onRetry
        self.logger = logger
    }

    public func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        var attempt = 0
        var rateLimitWaited = Duration.zero
        while true {
            attempt += 1
            try Task.checkCancellation()
            counter.increment()
            let result: (HTTPResponse, Data)
            do {
                result = try await base.send(request, body: body)
            } catch let error as Failure {
                throw error
            } catch is CancellationError {
                throw CancellationError()
            } catch let error as HTTPTransportError where !error.isRetryable {
                // A refused redirect or an oversized answer would come again.
                throw Failure.network(reason: error.description, attempts: attempt, endpoint: request.endpoint)
            } catch {
                let reason = Redaction.redact(String(describing: error))
                guard request.method.isIdempotent, attempt < policy.maxAttempts else {
                    throw Failure.network(reason: reason, attempts: attempt, endpoint: request.endpoint)
                }
                let delay = policy.backoff(afterAttempt: attempt)
                report(
                    .networkError(endpoint: request.endpoint, reason: reason, delay: delay, nextAttempt: attempt + 1)
                )
                try await clock.sleep(for: delay)
                continue
            }
            let (response, data) = result
            guard policy.isRetryable(status: response.status, method: request.method) else { return result }

            if response.status == 429 {
                let retryAfter = parseRetryAfter(response[headerField: "Retry-After"], now: now())
                let delay = max(
                    retryAfter ?? policy.rateLimitFallback * (1 << min(attempt - 1, 20)),
                    policy.minimumRateLimitWait
                )
                let remaining = policy.rateLimitBudget - rateLimitWaited
                guard delay <= remaining, attempt < policy.maxAttempts else {
                    let retryAt = now().addingTimeInterval(Double(delay.components.seconds) + 1)
                    throw Failure.rateLimited(
                        retryAfter: retryAfter,
                        retryAt: retryAfter == nil ? nil : retryAt,
                        endpoint: request.endpoint
                    )
                }
                rateLimitWaited += delay
                report(.rateLimited(endpoint: request.endpoint, delay: delay, nextAttempt: attempt + 1))
                try await clock.sleep(for: delay)
            } else {
                guard attempt < policy.maxAttempts else { return (response, data) }
                let delay = policy.backoff(afterAttempt: attempt)
                report(
                    .serverError(
                        endpoint: request.endpoint,
                        status: response.status,
                        delay: delay,
                        nextAttempt: attempt + 1
                    )
                )
                try await clock.sleep(for: delay)
            }
        }
    }

    private func report(_ event: RetryEvent) {
        logger.info("Retrying: \(event)")
        onRetry?(event)
    }
}

/// Counts the HTTP requests sent, for the "made N requests" line of a sync.
public final class RequestCounter: Sendable {
    private let count = Mutex(0)

    public init() {}

    /// The number of requests sent so far, retries included.
    public var value: Int { count.withLock { $0 } }

    package func increment() { count.withLock { $0 += 1 } }
}

/// How a service client sends and retries its requests: the transport below, the retry budgets,
/// the clocks and what to tell before a retry. The Spotify and ReccoBeats clients take one.
public struct ClientNetworking: Sendable {
    /// The bottom transport.
    public var network: any HTTPTransport
    /// Retry budgets and backoffs.
    public var retryPolicy: RetryPolicy
    /// The clock retries sleep on; tests pass one that does not really sleep.
    public var clock: any Clock<Duration>
    /// The wall clock, for "try again after" times.
    public var now: @Sendable () -> Date
    /// Called before each retry wait, so a command can say why it pauses.
    public var onRetry: (@Sendable (RetryEvent) -> Void)?

    public init(
        network: any HTTPTransport = URLSessionTransport(),
        retryPolicy: RetryPolicy = .default,
        clock: any Clock<Duration> = ContinuousClock(),
        now: @escaping @Sendable () -> Date = Date.init,
        onRetry: (@Sendable (RetryEvent) -> Void)? = nil
    ) {
        self.network = network
        self.retryPolicy = retryPolicy
        self.clock = clock
        self.now = now
        self.onRetry = onRetry
    }

    /// The retrying transport over `base` (by default ``network``), counting each attempt in
    /// `counter`, its errors of the service's type `Failure`.
    public func retrying<Failure: RetryFailure>(
        over base: (any HTTPTransport)? = nil,
        counter: RequestCounter,
        logger: Logger,
        failing: Failure.Type = Failure.self
    ) -> RetryingTransport<Failure> {
        RetryingTransport<Failure>(
            base: base ?? network,
            policy: retryPolicy,
            clock: clock,
            now: now,
            counter: counter,
            onRetry: onRetry,
            logger: logger
        )
    }
}
