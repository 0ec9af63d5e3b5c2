import FlyingSocks
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The server's socket pool: FlyingFox's own, with a cap on the connections waiting on their
/// client.
///
/// A connection waits on its client when it is open between requests, or its client sends a
/// request or reads an answer slowly. FlyingFox waits on every socket without a thread, so an idle
/// connection costs a file descriptor and a little memory only, but without a cap a client could
/// open connections until the process runs out of descriptors, and then nothing is answered. When
/// one more connection starts waiting than ``limit`` allows, the one that has waited longest is
/// shut down: its wait ends as if the client had closed it, and FlyingFox closes it. Connections
/// whose request is being answered do not count, and the listening socket never does, so idle
/// connections beyond the cap never keep a request from being answered.
final class ConnectionCap: AsyncSocketPool {
    /// The most connections waiting on their client at once.
    let limit: Int
    private let base: any AsyncSocketPool
    /// The waiting connections by descriptor, with the order they started waiting in; and the
    /// descriptors known to listen.
    private let state = Mutex<(next: UInt64, waiting: [Int32: UInt64], listening: Set<Int32>)>((0, [:], []))

    init(limit: Int, base: any AsyncSocketPool) {
        precondition(limit >= 1, "At least one connection must be able to wait.")
        self.limit = limit
        self.base = base
    }

    /// How many connections wait on their client now.
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    func prepare() async throws {
        try await base.prepare()
    }

    func run() async throws {
        try await base.run()
    }

    func suspendSocket(_ socket: Socket, untilReadyFor events: Socket.Events) async throws {
        let file = socket.file.rawValue
        guard !isListening(file) else {
            return try await base.suspendSocket(socket, untilReadyFor: events)
        }
        let ticket = startWaiting(file)
        defer { stopWaiting(file, ticket: ticket) }
        try await base.suspendSocket(socket, untilReadyFor: events)
    }

    /// Notes that `file` waits, and shuts down the connection that has waited longest when that
    /// makes one too many.
    private func startWaiting(_ file: Int32) -> UInt64 {
        state.withLock { state in
            let ticket = state.next
            state.next += 1
            state.waiting[file] = ticket
            if state.waiting.count > limit,
                let oldest = state.waiting.filter({ $0.key != file }).min(by: { $0.value < $1.value })?.key
            {
                // Still waiting, so its connection is open: the descriptor is not reused yet.
                state.waiting[oldest] = nil
                _ = shutdown(oldest, Int32(SHUT_RDWR))
            }
            return ticket
        }
    }

    private func stopWaiting(_ file: Int32, ticket: UInt64) {
        state.withLock { state in
            if state.waiting[file] == ticket { state.waiting[file] = nil }
        }
    }

    /// Whether `file` is a listening socket (its waits are for connections, not on a client).
    private func isListening(_ file: Int32) -> Bool {
        if state.withLock({ $0.listening.contains(file) }) { return true }
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(file, SOL_SOCKET, SO_ACCEPTCONN, &value, &length) == 0, value != 0 else { return false }
        state.withLock { _ = $0.listening.insert(file) }
        // The connections it accepts from now on inherit TCP_NODELAY: FlyingFox writes an answer's
        // head and body apart, and without it the body waits for the client's delayed
        // acknowledgement of the head, about 40 ms on Linux, on every answer of a kept-alive
        // connection.
        var noDelay: Int32 = 1
        _ = setsockopt(file, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        return true
    }
}
