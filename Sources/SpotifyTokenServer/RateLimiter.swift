import Synchronization

/// A token bucket per client: each holds up to `capacity` requests and refills at
/// `refillPerSecond`, so a client may send a burst and then a steady rate.
///
/// The table of buckets is bounded: past `maximumClients` entries, full buckets (clients that have
/// been quiet long enough to have their whole allowance back) are forgotten first, then the
/// longest-quiet ones.
final class RateLimiter<C: Clock>: Sendable where C.Duration == Duration {
    private struct Bucket {
        var tokens: Double
        var updated: C.Instant
    }

    let capacity: Double
    let refillPerSecond: Double
    let maximumClients: Int
    private let clock: C
    private let buckets = Mutex<[String: Bucket]>([:])

    /// Creates a limiter.
    ///
    /// - Parameters:
    ///   - requestsPerMinute: The steady rate each client may keep up; more than 0.
    ///   - burst: How many requests a quiet client may send at once; at least 1.
    ///   - maximumClients: How many clients to remember.
    ///   - clock: The clock that refills the buckets.
    init(requestsPerMinute: Int, burst: Int, maximumClients: Int = 10_000, clock: C) {
        precondition(requestsPerMinute > 0 && burst > 0, "A rate limit allows at least one request.")
        self.capacity = Double(burst)
        self.refillPerSecond = Double(requestsPerMinute) / 60
        self.maximumClients = maximumClients
        self.clock = clock
    }

    /// Takes one request from `client`'s allowance.
    ///
    /// - Returns: `nil` when the request may go ahead; otherwise how long until it could.
    func acquire(for client: String) -> Duration? {
        let now = clock.now
        return buckets.withLock { buckets in
            var bucket = buckets[client].map { refilled($0, at: now) } ?? Bucket(tokens: capacity, updated: now)
            defer {
                buckets[client] = bucket
                if buckets.count > maximumClients { prune(&buckets, at: now) }
            }
            guard bucket.tokens >= 1 else {
                return .milliseconds(Int64(((1 - bucket.tokens) / refillPerSecond * 1000).rounded(.up)))
            }
            bucket.tokens -= 1
            return nil
        }
    }

    /// The clients remembered, sorted.
    var trackedClients: [String] {
        buckets.withLock { $0.keys.sorted() }
    }

    private func refilled(_ bucket: Bucket, at now: C.Instant) -> Bucket {
        let elapsed = bucket.updated.duration(to: now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        return Bucket(tokens: min(capacity, bucket.tokens + max(0, seconds) * refillPerSecond), updated: now)
    }

    private func prune(_ buckets: inout [String: Bucket], at now: C.Instant) {
        buckets = buckets.filter { refilled($0.value, at: now).tokens < capacity }
        let excess = buckets.count - maximumClients
        guard excess > 0 else { return }
        for client in buckets.sorted(by: { $0.value.updated < $1.value.updated }).prefix(excess).map(\.key) {
            buckets[client] = nil
        }
    }
}
