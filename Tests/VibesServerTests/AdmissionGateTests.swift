import Testing

@testable import VibesServer

/// The gate that admits as many recommendations at once as there are cores.
struct AdmissionGateTests {
    /// How many tasks are inside, the most there were at once, and how many finished.
    actor Counts {
        var inside = 0
        var most = 0
        var done = 0

        func enter() {
            inside += 1
            most = max(most, inside)
        }

        func leave() {
            inside -= 1
            done += 1
        }
    }

    @Test func neverLetsMoreInThanItsLimitAndLetsEveryoneInInTheEnd() async throws {
        for limit in 1...3 {
            let gate = AdmissionGate(limit: limit)
            let counts = Counts()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<12 {
                    group.addTask {
                        try await gate.withAdmission {
                            await counts.enter()
                            try await Task.sleep(for: .milliseconds(20))
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
}
