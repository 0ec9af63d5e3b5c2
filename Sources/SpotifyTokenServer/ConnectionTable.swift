import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The open connections of a token server: how many there are, which are waiting for a request and
/// until when, and which give way when the server is full.
///
/// A connection is *waiting* while it reads a request (or idles between two) and *busy* while the
/// server answers it. The table holds at most `capacity` connections. A new one beyond that takes
/// the place of the connection that has waited longest, which is shut down for reading; when every
/// connection is busy, the new one is refused. So idle or slow clients can never keep a client that
/// sends its request at once from being served.
///
/// Connections are shut down, never closed, from here: the file descriptor stays theirs until the
/// task that serves it removes it from the table and closes it, so a number reused by the system
/// can never be shut down by mistake.
final class ConnectionTable: Sendable {
    /// Identifies one connection in the table.
    typealias ID = Int

    /// Why the table shut a connection down.
    enum Closing: Sendable, Hashable {
        /// Its request did not arrive before the deadline.
        case timedOut
        /// A new connection took its place.
        case evicted
    }

    private enum Phase {
        case waiting(deadline: ContinuousClock.Instant)
        case busy
        case writing(deadline: ContinuousClock.Instant)
    }

    private struct Entry {
        var descriptor: Int32
        var phase: Phase
        /// When the current phase began: the longest-waiting connection is evicted first.
        var since: ContinuousClock.Instant
        var closing: Closing?
    }

    private struct State {
        var entries: [ID: Entry] = [:]
        var nextID = 0
        /// Entries not yet shut down by the table.
        var liveCount = 0
    }

    /// The most connections held open at once.
    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        precondition(capacity >= 1, "A server holds at least one connection.")
        self.capacity = capacity
    }

    /// The number of connections the table has not shut down.
    var count: Int { state.withLock { $0.liveCount } }

    /// Adds a connection that waits for its first request until `deadline`, making room by
    /// shutting down the connection that has waited longest when the table is full.
    ///
    /// - Returns: The connection's ID, or `nil` when every connection is busy and it must be refused.
    func admit(descriptor: Int32, now: ContinuousClock.Instant, deadline: ContinuousClock.Instant) -> ID? {
        state.withLock { state in
            if state.liveCount >= capacity {
                guard Self.shutDownLongestWaiting(in: &state) else { return nil }
            }
            let id = state.nextID
            state.nextID += 1
            state.entries[id] = Entry(
                descriptor: descriptor,
                phase: .waiting(deadline: deadline),
                since: now,
                closing: nil
            )
            state.liveCount += 1
            return id
        }
    }

    /// Shuts down the connection that has waited longest for a request, to free its descriptor
    /// when the process has run out of them.
    ///
    /// - Returns: Whether there was one.
    @discardableResult
    func shedLongestWaiting() -> Bool {
        state.withLock { Self.shutDownLongestWaiting(in: &$0) }
    }

    /// Marks `id` as waiting for a request until `deadline`.
    ///
    /// - Returns: `false` when the table has shut it down.
    @discardableResult
    func wait(_ id: ID, now: ContinuousClock.Instant, until deadline: ContinuousClock.Instant) -> Bool {
        update(id) {
            $0.phase = .waiting(deadline: deadline)
            $0.since = now
        }
    }

    /// Marks `id` as busy: its request has arrived and is being answered, and it is not evicted.
    ///
    /// - Returns: `false` when the table has shut it down.
    func beginAnswering(_ id: ID, now: ContinuousClock.Instant) -> Bool {
        update(id) {
            $0.phase = .busy
            $0.since = now
        }
    }

    /// Marks `id` as writing an answer, which the client must take before `deadline`.
    func beginWriting(_ id: ID, now: ContinuousClock.Instant, until deadline: ContinuousClock.Instant) {
        _ = update(id) {
            $0.phase = .writing(deadline: deadline)
            $0.since = now
        }
    }

    /// Removes `id`; its task closes the descriptor next.
    ///
    /// - Returns: Why the table shut it down, if it did.
    @discardableResult
    func remove(_ id: ID) -> Closing? {
        state.withLock { state in
            guard let entry = state.entries.removeValue(forKey: id) else { return nil }
            if entry.closing == nil { state.liveCount -= 1 }
            return entry.closing
        }
    }

    /// Shuts down the connections whose deadline has passed: for reading when they wait for a
    /// request (so that they can still answer 408), for both directions when they write.
    ///
    /// - Returns: How many were shut down.
    @discardableResult
    func expire(now: ContinuousClock.Instant) -> Int {
        state.withLock { state in
            var expired = 0
            for (id, entry) in state.entries where entry.closing == nil {
                switch entry.phase {
                case .waiting(let deadline) where deadline <= now:
                    shutdown(entry.descriptor, Int32(SHUT_RD))
                case .writing(let deadline) where deadline <= now:
                    shutdown(entry.descriptor, Int32(SHUT_RDWR))
                default:
                    continue
                }
                state.entries[id]?.closing = .timedOut
                state.liveCount -= 1
                expired += 1
            }
            return expired
        }
    }

    private func update(_ id: ID, _ change: (inout Entry) -> Void) -> Bool {
        state.withLock { state in
            guard var entry = state.entries[id], entry.closing == nil else { return false }
            change(&entry)
            state.entries[id] = entry
            return true
        }
    }

    private static func shutDownLongestWaiting(in state: inout State) -> Bool {
        var oldest: (id: ID, since: ContinuousClock.Instant)?
        for (id, entry) in state.entries where entry.closing == nil {
            guard case .waiting = entry.phase else { continue }
            if oldest.map({ entry.since < $0.since }) ?? true { oldest = (id, entry.since) }
        }
        guard let oldest, let entry = state.entries[oldest.id] else { return false }
        shutdown(entry.descriptor, Int32(SHUT_RD))
        state.entries[oldest.id]?.closing = .evicted
        state.liveCount -= 1
        return true
    }
}
