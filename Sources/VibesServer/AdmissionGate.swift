import Synchronization

/// Lets at most a fixed number of tasks into a section at once; the others wait their turn, first
/// come first served.
///
/// The server passes each recommendation through one sized to the processor count: a
/// recommendation scans arrays as long as the library, and sixteen at once on two cores only
/// share the caches and memory bandwidth out among them, so that all finish later than they would
/// one after another.
final class AdmissionGate: Sendable {
    /// How many tasks may be inside at once.
    let limit: Int
    private let state: Mutex<(inside: Int, waiting: [CheckedContinuation<Void, Never>])>

    init(limit: Int) {
        precondition(limit >= 1, "At least one task must be let in.")
        self.limit = limit
        state = Mutex((0, []))
    }

    /// Runs `body` once the gate lets the task in, and lets the next one in when it returns.
    func withAdmission<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        await enter()
        defer { leave() }
        return try await body()
    }

    private func enter() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let admitted = state.withLock { state -> Bool in
                guard state.inside < limit else {
                    state.waiting.append(continuation)
                    return false
                }
                state.inside += 1
                return true
            }
            if admitted { continuation.resume() }
        }
    }

    private func leave() {
        // The place passes straight to the longest waiting task, if any.
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.inside -= 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
