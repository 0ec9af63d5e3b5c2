import Foundation

/// A fresh folder under the system's temporary directory, removed when the closure returns.
public func withTemporaryDirectory<T>(_ body: (String) async throws -> T) async rethrows -> T {
    let path = NSTemporaryDirectory() + "vibes-tests-" + UUID().uuidString
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try await body(path)
}

/// A fresh folder under the system's temporary directory, removed when the closure returns.
public func withTemporaryDirectory<T>(_ body: (String) throws -> T) rethrows -> T {
    let path = NSTemporaryDirectory() + "vibes-tests-" + UUID().uuidString
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try body(path)
}

/// The request timeout for clients that talk to the loopback fakes in this process.
///
/// The fakes run on the same cooperative thread pool as every other test. On a 2-core machine
/// the pool has two threads, and two CPU-bound tests (a k-means fit in a debug build, say) can
/// hold both for tens of seconds; a fake then answers late, though it answers. A short timeout
/// turns that wait into a spurious network error and a retried (duplicated) request, so tests
/// wait this long instead. Three minutes proved too short for a sign-in, whose browser, fake and
/// loopback server each wait their turn on the pool; `make test` also caps how many tests run at
/// once (`SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH`), which bounds that wait.
public let loopbackTimeout: TimeInterval = 600
