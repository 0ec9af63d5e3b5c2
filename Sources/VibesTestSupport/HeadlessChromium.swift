import Foundation
import Testing

/// Debian's `chromium`, run headless to load a page and print its DOM once its scripts have run.
///
/// Browser tests take `.enabled(if: HeadlessChromium.isAvailable, HeadlessChromium.skipReason)`,
/// so where no Chromium is installed they are reported as skipped, with the reason. CI installs
/// the `chromium` package, so it runs them.
public enum HeadlessChromium {
    /// The Chromium executable: `$CHROMIUM` when set, else `chromium` or `chromium-browser` on
    /// `PATH`.
    public static let executable: String? = {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["CHROMIUM"], FileManager.default.isExecutableFile(atPath: path) { return path }
        let folders = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        for name in ["chromium", "chromium-browser"] {
            for folder in folders where FileManager.default.isExecutableFile(atPath: folder + "/" + name) {
                return folder + "/" + name
            }
        }
        return nil
    }()

    /// Whether a Chromium executable was found.
    public static var isAvailable: Bool { executable != nil }

    /// The reason shown for a skipped browser test.
    public static let skipReason: Comment =
        "no chromium or chromium-browser on PATH (apt-get install -y --no-install-recommends chromium): browser test skipped"

    /// A failure to run Chromium.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Loads the file at `path` and returns the serialised DOM.
    ///
    /// Chromium runs with a fresh profile in a temporary folder and a virtual time budget, so
    /// timers and animation frames of the page run to completion quickly and deterministically;
    /// the process is awaited without blocking a thread, and ended if it outlives `timeout`.
    ///
    /// - Parameters:
    ///   - path: An absolute path of an HTML file.
    ///   - virtualTimeBudget: Milliseconds of page time before the DOM is dumped.
    ///   - timeout: How long the process may take in real time; generous, as the CI host is slow.
    /// - Returns: The DOM as HTML text.
    /// - Throws: ``Failure`` when Chromium is missing, fails or times out.
    public static func dumpDOM(
        ofFileAt path: String,
        virtualTimeBudget: Int = 30_000,
        timeout: Duration = .seconds(240)
    ) async throws -> String {
        try await dumpDOM(ofPageAt: URL(fileURLWithPath: path), virtualTimeBudget: virtualTimeBudget, timeout: timeout)
    }

    /// Loads the page at `url` (a file, or a server on 127.0.0.1) and returns the serialised DOM,
    /// as ``dumpDOM(ofFileAt:virtualTimeBudget:timeout:)`` does.
    public static func dumpDOM(
        ofPageAt url: URL,
        virtualTimeBudget: Int = 30_000,
        timeout: Duration = .seconds(240)
    ) async throws -> String {
        guard let executable else { throw Failure(description: "Chromium is not installed") }
        let base = NSTemporaryDirectory() + "vibes-chromium-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: base + "-profile", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: base + ".out", contents: nil)
        _ = FileManager.default.createFile(atPath: base + ".err", contents: nil)
        defer {
            try? FileManager.default.removeItem(atPath: base + "-profile")
            try? FileManager.default.removeItem(atPath: base + ".out")
            try? FileManager.default.removeItem(atPath: base + ".err")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        // Chromium's sandbox needs user namespaces that a root user in a container lacks.
        process.arguments =
            (geteuid() == 0 ? ["--no-sandbox"] : []) + [
                "--headless", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--no-default-browser-check", "--disable-extensions", "--user-data-dir=\(base)-profile",
                "--virtual-time-budget=\(virtualTimeBudget)", "--dump-dom", url.absoluteString,
            ]
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: base + ".out"))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: base + ".err"))
        process.standardInput = FileHandle.nullDevice
        let watchdog = Task {
            try await Task.sleep(for: timeout)
            if process.isRunning { process.terminate() }
        }
        defer { watchdog.cancel() }
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        let read = { (file: String) in
            String(decoding: FileManager.default.contents(atPath: file) ?? Data(), as: UTF8.self)
        }
        let output = read(base + ".out")
        guard status == 0, !output.isEmpty else {
            let errors = read(base + ".err").split(separator: "\n").suffix(20).joined(separator: "\n")
            throw Failure(description: "chromium exited with status \(status) and printed:\n\(errors)")
        }
        return output
    }
}
