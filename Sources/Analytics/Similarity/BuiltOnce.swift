import Synchronization

/// A value built by its closure the first time it is read, then kept; safe to read from any thread
/// (a second reader waits for the first build rather than building again).
final class BuiltOnce<Value: Sendable>: Sendable {
    private let state: Mutex<Value?> = Mutex(nil)
    private let build: @Sendable () -> Value

    init(_ build: @escaping @Sendable () -> Value) {
        self.build = build
    }

    /// The value, built now if this is the first read.
    var value: Value {
        state.withLock { stored in
            if let stored { return stored }
            let built = build()
            stored = built
            return built
        }
    }
}
