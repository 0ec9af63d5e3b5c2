import Synchronization

/// Lets at most a fixed number of tasks into a section at once; the others wait their turn, first
/// come first served. A waiting task that is cancelled leaves the queue at once.
///
/// The server passes each recommendation through one sized to the processor count: a
/// recommendation scans arrays as long as the library, and sixteen at once on two cores only
/// share the caches and memory bandwidth out among them, so that all finish later than they would
/// one after another.
final class AdmissionGate: Sendable {
    /// A task waiting for its turn.
    private struct Waiter {
        var id: UInt64
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var inside = 0
        var waiting: [Waiter] = []
        var nextID: UInt64 = 0
    }

    /// How many tasks may be inside at once.
    let limit: Int
    private let state = Mutex(State())

    /// How many tasks wait for their turn.
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    init(limit: Int) {
        precondition(limit >= 1, "At least one task must be let in.")
        self.limit = limit
    }

    /// Runs `body` once the gate lets the task in, and lets the next one in when it returns.
    ///
    /// - Throws: `CancellationError` when the task is cancelled before it is let in, or what
    ///   `body` throws.
    func withAdmission<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        try await enter()
        defer { leave() }
        return try await body()
    }

    private func enter() async throws {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Read under the lock: a cancellation either is seen here, or finds the waiter
                // in the queue.
                let admitted = state.withLock { state -> Bool? in
                    guard !Task.isCancelled else { return nil }
                    guard state.inside < limit else {
                        state.waiting.append(Waiter(id: id, continuation: continuation))
                        return false
                    }
                    state.inside += 1
                    return true
                }
                switch admitted {
                case nil: continuation.resume(throwing: CancellationError())
                case true?: continuation.resume()
                case false?: break
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiting.remove(at: index)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    private func leave() {
        // The place passes straight to the longest waiting task, if any.
        let next = state.withLock { state -> Waiter? in
            guard !state.waiting.isEmpty else {
                state.inside -= 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.continuation.resume()
    }
}
