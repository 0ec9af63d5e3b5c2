import Dispatch

/// Runs blocking work (SQLite reads, the recommender's scans) on threads of its own, off Swift's
/// cooperative pool.
///
/// The cooperative pool has one thread per core, two on a small machine: a request blocked there
/// in a read of a busy store would hold back every other request, the accept loop and the store
/// watch. Here it holds a thread of this queue only, which grows while its work blocks.
///
/// Synchronous work goes through ``run(_:)``. Async work that blocks between its suspensions (a
/// clustering, a push that writes the store between its requests) runs here whole as a task
/// executor: `withTaskExecutorPreference(queue) { … }`.
final class BlockingQueue: TaskExecutor {
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label, attributes: .concurrent)
    }

    /// Runs `body` on the queue and returns what it returns.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result(catching: body)) }
        }
    }

    /// Runs a job of a task that prefers this queue as its executor.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { [self] in job.runSynchronously(on: asUnownedTaskExecutor()) }
    }
}
