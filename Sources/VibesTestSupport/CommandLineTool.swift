import Foundation

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
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("vibes-analyze").path,
            Bundle.main.bundleURL.appendingPathComponent("vibes-analyze").path,
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("vibes-analyze").path,
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[0]
    }()

    /// Starts the tool with `arguments`; the caller waits for it.
    public static func start(_ arguments: [String], environment: [String: String] = [:]) throws -> (Process, Pipe, Pipe) {
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
    public static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Result {
        let (process, out, err) = try start(arguments, environment: environment)
        // Read both pipes while the process runs so that a full pipe cannot block it.
        let stdout = Mutexed<Data>()
        let group = DispatchGroup()
        group.enter()
        Thread.detachNewThread {
            stdout.set(out.fileHandleForReading.readDataToEndOfFile())
            group.leave()
        }
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: stdout.get() ?? Data(), as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self), wasSignalled: process.terminationReason == .uncaughtSignal)
    }
}

import Synchronization

/// A value handed from one thread to another.
final class Mutexed<Value: Sendable>: Sendable {
    private let storage = Mutex<Value?>(nil)
    func set(_ value: Value) { storage.withLock { $0 = value } }
    func get() -> Value? { storage.withLock { $0 } }
}
