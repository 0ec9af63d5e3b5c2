import Foundation

/// Batches handed from one thread to another in order, at most `capacity` waiting: the reader of
/// a file runs ahead of its writer by that much and no more, so memory stays bounded whatever the
/// file's size.
///
/// Written here because the standard library and Foundation have no blocking queue for threads
/// (an `AsyncStream` would move the store's synchronous writes onto the cooperative pool, which the
/// database work must not block), and `NSCondition` is all it takes.
final class BatchChannel<Item>: @unchecked Sendable {
    private let condition = NSCondition()
    private var batches: [[Item]] = []
    /// Batches the consumer is done with, for the producer to free (``giveBack(_:)``).
    private var spent: [[Item]] = []
    private var isFinished = false
    private var isCancelled = false
    private let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Adds a batch, waiting while `capacity` batches wait; returns `false`, without adding it,
    /// once the channel is cancelled.
    func push(_ batch: [Item]) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while batches.count >= capacity && !isCancelled { condition.wait() }
        guard !isCancelled else { return false }
        batches.append(batch)
        condition.broadcast()
        return true
    }

    /// Says that no batch will follow.
    func finish() {
        condition.lock()
        isFinished = true
        condition.broadcast()
        condition.unlock()
    }

    /// The next batch, waiting for one; `nil` once the channel is finished and empty, or cancelled.
    func pop() -> [Item]? {
        condition.lock()
        defer { condition.unlock() }
        while batches.isEmpty && !isFinished && !isCancelled { condition.wait() }
        guard !isCancelled, !batches.isEmpty else { return nil }
        condition.broadcast()
        return batches.removeFirst()
    }

    /// Calls `body` with the next batch, waiting for one, then keeps the batch for the producer to
    /// free at its next ``takeSpent()``; returns `false`, without calling `body`, once the channel
    /// is finished and empty, or cancelled.
    ///
    /// An import's rows are made on the parsing thread and freed where their batch is released;
    /// released by the writer, the frees (the strings of a million rows) took about a tenth of the
    /// writer's time in a profile of the import, on the thread every other step waits for, where
    /// the parser has time to spare. `body` only borrows the batch, so the channel holds the last
    /// reference to it.
    func next(_ body: (borrowing [Item]) throws -> Void) rethrows -> Bool {
        guard let batch = pop() else { return false }
        try body(batch)
        condition.lock()
        spent.append(consume batch)
        condition.unlock()
        return true
    }

    /// The batches given back since the last call, for the producer to let go of on its thread.
    func takeSpent() -> [[Item]] {
        condition.lock()
        defer { condition.unlock() }
        let taken = spent
        spent = []
        return taken
    }

    /// Stops both sides: a waiting or later `push` returns `false`, and `pop` returns `nil`.
    func cancel() {
        condition.lock()
        isCancelled = true
        condition.broadcast()
        condition.unlock()
    }
}
