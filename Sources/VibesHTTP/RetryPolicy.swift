import Foundation

/// How the client responds to rate limits, server errors and lost connections.
///
/// Spotify publishes no numeric rate limits and asks clients to honour `Retry-After`, whose value
/// has been seen missing, `0` and almost four hours (`13749`). The policy waits as long as Spotify
/// asks within ``rateLimitBudget`` and fails fast beyond it with the time to retry, so a command
/// never sleeps silently for hours.
public struct RetryPolicy: Sendable, Hashable {
    /// The most attempts per request, the first included. Defaults to 6.
    public var maxAttempts: Int
    /// The most time one request may spend waiting on `Retry-After`, summed over its retries.
    /// Defaults to 60 seconds. A single wait longer than what is left fails at once.
    public var rateLimitBudget: Duration
    /// The wait when a 429 has no usable `Retry-After` (missing, unreadable), doubled on each
    /// further attempt. Defaults to 2 seconds.
    public var rateLimitFallback: Duration
    /// The shortest wait after a 429, applied to `Retry-After: 0` so a busy loop cannot form.
    /// Defaults to 1 second.
    public var minimumRateLimitWait: Duration
    /// The first backoff after a 5xx or a network error, doubled on each further attempt.
    /// Defaults to 0.5 seconds.
    public var baseBackoff: Duration
    /// The longest backoff after a 5xx or a network error. Defaults to 8 seconds.
    public var maxBackoff: Duration
    /// Whether backoffs are drawn at random from the upper half of their range ("equal jitter"),
    /// so clients that failed together do not retry together. Defaults to `true`.
    public var usesJitter: Bool

    public init(
        maxAttempts: Int = 6,
        rateLimitBudget: Duration = .seconds(60),
        rateLimitFallback: Duration = .seconds(2),
        minimumRateLimitWait: Duration = .seconds(1),
        baseBackoff: Duration = .milliseconds(500),
        maxBackoff: Duration = .seconds(8),
        usesJitter: Bool = true
    ) {
        precondition(maxAttempts >= 1, "maxAttempts must be at least 1")
        self.maxAttempts = maxAttempts
        self.rateLimitBudget = rateLimitBudget
        self.rateLimitFallback = rateLimitFallback
        self.minimumRateLimitWait = minimumRateLimitWait
        self.baseBackoff = baseBackoff
        self.maxBackoff = maxBackoff
        self.usesJitter = usesJitter
    }

    /// The default policy.
    public static let `default` = RetryPolicy()

    /// The backoff before attempt `attempt + 1` after a 5xx or network error:
    /// `baseBackoff · 2^(attempt − 1)`, at most `maxBackoff`, and with jitter a random value in the
    /// upper half of that.
    ///
    /// - Parameter attempt: The attempt that just failed, counting from 1.
    public func backoff(afterAttempt attempt: Int) -> Duration {
        let exponent = min(attempt - 1, 20)
        let full = min(baseBackoff * (1 << exponent), maxBackoff)
        guard usesJitter else { return full }
        let half = full / 2
        return half + half * Double.random(in: 0...1)
    }

    /// Whether a response status is worth retrying for a request of `method`.
    ///
    /// 429 and 503 mean the request was not processed, so any method is retried. 500, 502 and 504
    /// might follow a processed request, so only idempotent methods are.
    func isRetryable(status: Int, method: HTTPMethod) -> Bool {
        switch status {
        case 429, 503: true
        case 500, 502, 504: method.isIdempotent
        default: false
        }
    }
}

/// Reads a `Retry-After` value: delay-seconds (`"120"`, also `"1.5"`) or an HTTP date.
///
/// - Returns: The delay, at least zero and at most a year, or `nil` when the value is missing or
///   unreadable.
package func parseRetryAfter(_ value: String?, now: Date) -> Duration? {
    guard let text = value?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
    let year = 365.0 * 24 * 3600
    if let seconds = Double(text), seconds.isFinite {
        return .seconds(min(max(seconds, 0), year))
    }
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
    guard let date = formatter.date(from: text) else { return nil }
    return .seconds(min(max(date.timeIntervalSince(now), 0), year))
}

extension Duration {
    /// A wait for messages: `3 s`, `2 min 5 s`, `3 h 49 min`.
    package var waitDescription: String {
        let seconds = Int(components.seconds)
        if seconds < 60 { return "\(seconds) s" }
        if seconds < 3600 { return "\(seconds / 60) min" + (seconds % 60 == 0 ? "" : " \(seconds % 60) s") }
        return "\(seconds / 3600) h" + ((seconds % 3600) / 60 == 0 ? "" : " \((seconds % 3600) / 60) min")
    }
}
