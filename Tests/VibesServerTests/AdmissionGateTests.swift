import Testing

@testable import VibesServer

/// The gate that admits as many recommendations at once as there are cores.
struct AdmissionGateTests {
    /// How many tasks are inside, the most there were at once, and how many finished; the first
    /// tasks in wait for each other, so that a gate that lets in its limit is seen to.
    actor Counts {
        var inside = 0
        var most = 0
        var done = 0
        private var held: [CheckedContinuation<Void, Never>] = []

        /// Counts the task in, and holds it until `count` tasks have been inside at once.
        func enter(holdingUntil count: Int) async {
            inside += 1
            most = max(most, inside)
            guard most < count else {
                for task in held { task.resume() }
                held = []
                return
            }
            await withCheckedContinuation { held.append($0) }
        }

        func leave() {
            inside -= 1
            done += 1
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func neverLetsMoreInThanItsLimitAndLetsEveryoneInInTheEnd() async throws {
        for limit in 1...3 {
            let gate = AdmissionGate(limit: limit)
            let counts = Counts()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<12 {
                    group.addTask {
                        try await gate.withAdmission {
                            await counts.enter(holdingUntil: limit)
                            await Task.yield()
                            await counts.leave()
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(await counts.done == 12)
            #expect(await counts.most == limit)
            #expect(await counts.inside == 0)
        }
    }

    /// A task cancelled while it waits leaves at once, without running, and takes no place.
    @Test(.timeLimit(.minutes(1)))
    func aCancelledWaiterLeavesTheQueue() async throws {
        let gate = AdmissionGate(limit: 1)
        let (entered, enteredSignal) = AsyncStream.makeStream(of: Void.self)
        let (release, releaseSignal) = AsyncStream.makeStream(of: Void.self)
        let holder = Task {
            try await gate.withAdmission {
                enteredSignal.yield()
                for await _ in release { break }
            }
        }
        for await _ in entered { break }
        let waiter = Task { try await gate.withAdmission { "ran" } }
        while gate.waitingCount == 0 { await Task.yield() }
        waiter.cancel()
        // Answered while the holder is still inside.
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(gate.waitingCount == 0)
        releaseSignal.yield()
        try await holder.value
        #expect(try await gate.withAdmission { "next" } == "next")
    }
}
