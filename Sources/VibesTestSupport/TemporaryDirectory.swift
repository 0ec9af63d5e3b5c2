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
