import Foundation
import Synchronization

/// The built `vibes-analyze` executable, run as a user runs it.
public enum CommandLineTool {
    /// What one run printed and how it ended.
    public struct Result: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
        /// Whether the process ended through a signal rather than `exit`.
        public var wasSignalled: Bool
    }

    /// The path of the executable that `swift test` built beside the test bundle.
    public static let executablePath: String = {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
                "vibes-analyze"
            ).path,
            Bundle.main.bundleURL.appendingPathComponent("vibes-analyze").path,
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("vibes-analyze").path,
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[0]
    }()

    /// Starts the tool with `arguments`; the caller waits for it.
    public static func start(_ arguments: [String], environment: [String: String] = [:]) throws -> (Process, Pipe, Pipe)
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executablePath)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["NO_COLOR"] = "1"
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return (process, out, err)
    }

    /// Runs the tool with `arguments` to completion.
    ///
    /// Output goes to temporary files and the exit is awaited through `terminationHandler`, so no
    /// thread of the cooperative pool blocks while the tool runs: the loopback fakes other tests
    /// run in this process keep answering.
    ///
    /// - Parameters:
    ///   - environment: Variables set on top of this process's environment, or, when
    ///     `inheritsEnvironment` is false, the whole environment (with `NO_COLOR=1` either way).
    ///   - outputBase: Where the output files go (`.out`, `.err`), so a test can watch stderr while
    ///     the tool runs; a temporary path by default.
    ///   - executablePath: The program run: the built tool by default.
    public static func run(
        _ arguments: [String],
        environment: [String: String] = [:],
        inheritsEnvironment: Bool = true,
        outputBase: String? = nil,
        executablePath: String = CommandLineTool.executablePath
    ) async throws -> Result {
        let base = outputBase ?? NSTemporaryDirectory() + "vibes-cli-" + UUID().uuidString
        _ = FileManager.default.createFile(atPath: base + ".out", contents: nil)
        _ = FileManager.default.createFile(atPath: base + ".err", contents: nil)
        defer {
            try? FileManager.default.removeItem(atPath: base + ".out")
            try? FileManager.default.removeItem(atPath: base + ".err")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executablePath)
        process.arguments = arguments
        var env = inheritsEnvironment ? ProcessInfo.processInfo.environment : [:]
        env["NO_COLOR"] = "1"
        for (key, value) in environment { env[key] = value }
        process.environment = env
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: base + ".out"))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: base + ".err"))
        process.standardInput = FileHandle.nullDevice
        let (status, signalled): (Int32, Bool) = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = {
                continuation.resume(returning: ($0.terminationStatus, $0.terminationReason == .uncaughtSignal))
            }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        let read = { (path: String) in
            String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
        }
        return Result(status: status, stdout: read(base + ".out"), stderr: read(base + ".err"), wasSignalled: signalled)
    }
}

/// A value handed from one thread to another.
final class Mutexed<Value: Sendable>: Sendable {
    private let storage = Mutex<Value?>(nil)
    func set(_ value: Value) { storage.withLock { $0 = value } }
    func get() -> Value? { storage.withLock { $0 } }
}
