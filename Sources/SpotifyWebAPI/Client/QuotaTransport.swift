import Foundation
import SpotifyWebModel
import Synchronization
import VibesHTTP

/// Spotify's answers that no retry can help, told apart below the retrying transport: a 429 whose
/// body says `"reason": "QUOTA_EXCEEDED"` (the developer account's quota, with a `Retry-After` of
/// hours) becomes ``SpotifyError/quotaExceeded(retryAfter:resetsAt:endpoint:)`` at once, so the
/// client neither waits hours nor calls it an ordinary rate limit.
struct QuotaTransport: HTTPTransport {
    let base: any HTTPTransport
    let now: @Sendable () -> Date

    func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        let (response, data) = try await base.send(request, body: body)
        guard response.status == 429, Self.isQuotaExceeded(data) else { return (response, data) }
        let retryAfter = parseRetryAfter(response[headerField: "Retry-After"], now: now())
        throw SpotifyError.quotaExceeded(
            retryAfter: retryAfter,
            resetsAt: retryAfter.map { now().addingTimeInterval(Double($0.components.seconds)) },
            endpoint: request.endpoint
        )
    }

    /// Whether a 429 body is the quota's: `{"error": {"status": 429, "reason": "QUOTA_EXCEEDED"}}`.
    static func isQuotaExceeded(_ data: Data) -> Bool {
        (try? JSONDecoder().decode(SpotifyErrorEnvelope.self, from: data))?.error.reason == SpotifyError.quotaReason
    }
}

/// A limit on the requests one command sends (`sync --max-requests`), retries included.
///
/// Past it, nothing more is sent: the request that would exceed it throws
/// ``SpotifyError/requestBudgetReached(limit:endpoint:)``, and the command stops where it is with
/// everything it fetched saved.
public final class RequestBudget: Sendable {
    /// The most requests to send.
    public let limit: Int
    private let counts = Mutex((sent: 0, refused: 0))

    public init(limit: Int) {
        self.limit = max(0, limit)
    }

    /// The requests sent within the budget.
    public var sent: Int { counts.withLock { $0.sent } }
    /// The requests refused for the budget (not sent).
    public var refused: Int { counts.withLock { $0.refused } }
    /// Whether a request was refused.
    public var isSpent: Bool { refused > 0 }

    /// Takes one request from the budget, or returns `false` when none is left.
    func take() -> Bool {
        counts.withLock { counts in
            guard counts.sent < limit else {
                counts.refused += 1
                return false
            }
            counts.sent += 1
            return true
        }
    }
}

/// Sends a request only while the ``RequestBudget`` has one left.
struct BudgetTransport: HTTPTransport {
    let base: any HTTPTransport
    let budget: RequestBudget

    func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        guard budget.take() else {
            throw SpotifyError.requestBudgetReached(limit: budget.limit, endpoint: request.endpoint)
        }
        return try await base.send(request, body: body)
    }
}
