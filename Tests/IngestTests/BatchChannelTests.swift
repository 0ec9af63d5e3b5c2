import Foundation
import Synchronization
import Testing

@testable import Ingest

/// The hand-over between an import's parsing thread and its writer.
struct BatchChannelTests {
    @Test(.timeLimit(.minutes(1)))
    func batchesArriveInOrderAndTheProducerWaitsForRoom() throws {
        let channel = BatchChannel<Int>(capacity: 2)
        let pushed = Mutex(0)
        let finished = DispatchSemaphore(value: 0)
        Thread {
            for start in stride(from: 0, to: 1000, by: 10) {
                _ = channel.push(Array(start..<start + 10))
                pushed.withLock { $0 += 1 }
            }
            channel.finish()
            finished.signal()
        }.start()
        // Nothing is taken yet: the producer stops once two batches wait (given time to start on
        // a busy machine, and then time to go further if it could).
        let deadline = Date().addingTimeInterval(30)
        while pushed.withLock({ $0 }) < 2 && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        Thread.sleep(forTimeInterval: 0.2)
        #expect(pushed.withLock { $0 } == 2)
        var received: [Int] = []
        while let batch = channel.pop() { received += batch }
        finished.wait()
        #expect(received == Array(0..<1000))
        #expect(channel.pop() == nil)
    }

    @Test(.timeLimit(.minutes(1)))
    func cancellingReleasesAWaitingProducerAndEndsTheConsumer() throws {
        let channel = BatchChannel<Int>(capacity: 1)
        #expect(channel.push([1]))
        let result = Mutex<Bool?>(nil)
        let finished = DispatchSemaphore(value: 0)
        Thread {
            let added = channel.push([2])  // waits: the one place is taken
            result.withLock { $0 = added }
            finished.signal()
        }.start()
        Thread.sleep(forTimeInterval: 0.1)
        #expect(result.withLock { $0 } == nil)
        channel.cancel()
        finished.wait()
        #expect(result.withLock { $0 } == false)
        #expect(channel.pop() == nil, "a cancelled channel hands over nothing, even what waited")
        #expect(!channel.push([3]))
    }

    /// The threads (`pthread_self()`) instances of ``Freed`` were freed on.
    final class FreeLog: Sendable {
        let threads = Mutex<[UInt]>([])
    }

    /// Records the thread it is freed on.
    final class Freed: Sendable {
        let log: FreeLog
        init(into log: FreeLog) { self.log = log }
        deinit {
            let thread = UInt(pthread_self())
            log.threads.withLock { $0.append(thread) }
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func batchesGivenBackAreFreedOnTheProducersThread() throws {
        let channel = BatchChannel<Freed>(capacity: 2)
        let log = FreeLog()
        let consumed = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let producerThread = Mutex<UInt>(0)
        Thread {
            producerThread.withLock { $0 = UInt(pthread_self()) }
            for _ in 0..<50 {
                _ = channel.push((0..<10).map { _ in Freed(into: log) })
                _ = channel.takeSpent()
            }
            channel.finish()
            consumed.wait()
            _ = channel.takeSpent()
            finished.signal()
        }.start()
        var received = 0
        while channel.next({ batch in received += batch.count }) {}
        consumed.signal()
        finished.wait()
        #expect(received == 500)
        let producer = producerThread.withLock { $0 }
        let threads = log.threads.withLock { $0 }
        #expect(threads.count == 500)
        #expect(UInt(pthread_self()) != producer)
        #expect(
            threads.allSatisfy { $0 == producer },
            "\(threads.filter { $0 != producer }.count) of \(threads.count) freed on another thread"
        )
    }
}
