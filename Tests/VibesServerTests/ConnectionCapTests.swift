import Foundation
import Testing
import VibesServer
import VibesTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The cap on connections waiting on their client: idle connections beyond it are closed, oldest
/// first, and never keep a request from being answered.
struct ConnectionCapTests {
    /// How many of `descriptors` the server has closed, waiting up to `timeout` for at least
    /// `expected`; on a thread of its own, as ``ServerHarness/send(method:path:headers:body:)``.
    static func closedCount(of descriptors: [Int32], expected: Int, timeout: Duration) async -> Int {
        await withCheckedContinuation { continuation in
            Thread {
                let clock = ContinuousClock()
                let deadline = clock.now + timeout
                var closed = 0
                repeat {
                    closed = descriptors.count { descriptor in
                        var byte: UInt8 = 0
                        // 0: the server closed it; -1 with EAGAIN: still open, nothing to read.
                        return recv(descriptor, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) == 0
                    }
                    if closed >= expected { break }
                    Thread.sleep(forTimeInterval: 0.05)
                } while clock.now < deadline
                continuation.resume(returning: closed)
            }.start()
        }
    }

    @Test func idleConnectionsBeyondTheCapDoNotBlockARequest() async throws {
        let configuration = VibesServer.Configuration(
            port: 0,
            maximumIdleConnections: 4,
            pollInterval: .milliseconds(100)
        )
        try await ServerHarness.withServer(configuration: configuration) { harness async throws in
            // Twelve connections that never send a request: the server keeps the latest 4.
            let idle = try (0..<12).map { _ in try connectToLoopback(port: harness.port) }
            defer { for descriptor in idle { close(descriptor) } }
            #expect(await Self.closedCount(of: idle, expected: 8, timeout: .seconds(60)) == 8)
            // With the cap full of idle connections, a request is still answered.
            let answer = try await harness.get("/api/library")
            #expect(answer.status == 200)
            // Its connection, waiting for its request, may have pushed out one more.
            let closed = await Self.closedCount(of: idle, expected: 8, timeout: .seconds(1))
            #expect((8...9).contains(closed), "\(closed) of 12 idle connections closed")
        }
    }
}
