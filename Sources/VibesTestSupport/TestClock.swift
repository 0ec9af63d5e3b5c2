import Synchronization

/// A clock whose `sleep` returns at once, recording each requested duration and advancing `now`.
///
/// Retry and backoff code runs at full speed in tests while the waits it asked for can be checked.
public final class TestClock: Clock, Sendable {
    /// An instant: the time slept since the clock was made.
    public struct Instant: InstantProtocol, Sendable {
        public var offset: Duration

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let state = Mutex<(now: Instant, sleeps: [Duration])>((Instant(offset: .zero), []))

    public init() {}

    public var now: Instant { state.withLock { $0.now } }
    public var minimumResolution: Duration { .zero }

    /// Every duration slept, in order.
    public var sleeps: [Duration] { state.withLock { $0.sleeps } }

    /// The total time slept.
    public var totalSlept: Duration { sleeps.reduce(.zero, +) }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        state.withLock { state in
            state.sleeps.append(state.now.duration(to: deadline))
            if state.now < deadline { state.now = deadline }
        }
    }
}
