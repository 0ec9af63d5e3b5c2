import Foundation
import Synchronization

/// The processor time a tagger's accumulators spent hearing (the mel front end and the network),
/// summed over every thread that tagged with it: what the tagger costs within an analysis.
final class TaggerUsage: Sendable {
    private let nanoseconds = Atomic<Int64>(0)

    /// The time recorded so far, in seconds.
    var seconds: Double { Double(nanoseconds.load(ordering: .relaxed)) / 1e9 }

    /// Runs `body` and adds the processor time the calling thread spent in it.
    func measure<Result>(_ body: () throws -> Result) rethrows -> Result {
        let start = Self.threadNanoseconds()
        defer { nanoseconds.add(Self.threadNanoseconds() - start, ordering: .relaxed) }
        return try body()
    }

    /// The calling thread's processor time, in nanoseconds.
    static func threadNanoseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}
