import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A headless Chromium driven over the Chrome DevTools Protocol, for browser tests that click,
/// drag and read the page as a person would.
///
/// Chromium runs with `--remote-debugging-pipe`: it reads protocol messages from its descriptor 3
/// and writes answers and events to descriptor 4, each a JSON object ended by a NUL byte. No port
/// is opened. The session attaches to one page and sends its commands there.
///
/// ```swift
/// try await ChromiumSession.withSession { browser in
///     try await browser.open(url)
///     try await browser.waitUntil("document.querySelector('#explorer canvas') !== null")
///     try await browser.drag(through: [(100, 100), (300, 120), (200, 300)])
///     let count = try await browser.evaluate("document.querySelectorAll('#staging li').length", as: Int.self)
/// }
/// ```
///
/// Tests take `.enabled(if: HeadlessChromium.isAvailable, HeadlessChromium.skipReason)`, so they
/// are reported as skipped where no Chromium is installed.
public final class ChromiumSession: Sendable {
    /// A failure of the browser, of a command, or of the page's script.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String

        public init(description: String) {
            self.description = description
        }
    }

    /// A mouse button state change or move, as `Input.dispatchMouseEvent` names it.
    public enum MouseEventType: String, Sendable {
        case pressed = "mousePressed"
        case moved = "mouseMoved"
        case released = "mouseReleased"
    }

    private struct State {
        var nextID = 1
        var pending: [Int: CheckedContinuation<Data, any Error>] = [:]
        var pageErrors: [String] = []
        var consoleMessages: [String] = []
        var isClosed = false
        var hasExited = false
        /// Whether ``close()`` has begun: it runs once.
        var isClosing = false
    }

    /// The browser's process ID, leader of its own process group (its renderers and helpers join it).
    public let processID: pid_t
    /// Where commands are written (the browser's descriptor 3).
    private let commands: Int32
    private let profile: String
    private let errorLog: String
    private let sessionID: Mutex<String?> = Mutex(nil)
    private let state = Mutex(State())
    /// How long one command may take before it fails.
    private let commandTimeout: Duration

    /// The uncaught exceptions the page has thrown so far, as "message (url:line)".
    public var pageErrors: [String] { state.withLock { $0.pageErrors } }

    /// What the page has written with `console.*`, as "type: text".
    public var consoleMessages: [String] { state.withLock { $0.consoleMessages } }

    /// Starts Chromium with a blank page, runs `body` with the session and closes the browser
    /// however `body` ends.
    ///
    /// - Parameters:
    ///   - width: The viewport width in CSS pixels.
    ///   - height: The viewport height in CSS pixels.
    ///   - commandTimeout: How long any one command may take; generous, as the CI host is slow.
    ///   - body: The test's steps.
    /// - Throws: ``Failure`` when Chromium is missing or fails, or whatever `body` throws.
    public static func withSession<T>(
        width: Int = 1_280,
        height: Int = 900,
        commandTimeout: Duration = .seconds(120),
        _ body: (ChromiumSession) async throws -> T
    ) async throws -> T {
        // One browser at a time per test process: on a 2-core machine running the rest of the
        // suite beside them, several Chromiums at once starved each other past their timeouts.
        await turns.enter()
        defer { turns.leave() }
        let session = try await ChromiumSession(width: width, height: height, commandTimeout: commandTimeout)
        let result: Result<T, any Error>
        do {
            result = .success(try await body(session))
        } catch {
            result = .failure(error)
        }
        await session.close()
        return try result.get()
    }

    private init(width: Int, height: Int, commandTimeout: Duration) async throws {
        guard let executable = HeadlessChromium.executable else {
            throw Failure(description: "Chromium is not installed")
        }
        self.commandTimeout = commandTimeout
        let base = NSTemporaryDirectory() + "vibes-cdp-" + UUID().uuidString
        profile = base + "-profile"
        errorLog = base + ".err"
        try FileManager.default.createDirectory(atPath: profile, withIntermediateDirectories: true)
        let channels: (toBrowser: (ours: Int32, theirs: Int32), fromBrowser: (ours: Int32, theirs: Int32))
        do {
            let toBrowser = try Self.makeChannel()
            do {
                channels = (toBrowser, try Self.makeChannel())
            } catch {
                Glibc.close(toBrowser.ours)
                Glibc.close(toBrowser.theirs)
                throw error
            }
        } catch {
            try? FileManager.default.removeItem(atPath: profile)
            throw error
        }
        let (toBrowser, fromBrowser) = channels
        // Chromium's sandbox needs user namespaces that a root user in a container lacks.
        let arguments =
            [executable] + (geteuid() == 0 ? ["--no-sandbox"] : []) + [
                "--headless", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
                "--disable-sync", "--disable-component-update", "--mute-audio", "--hide-scrollbars",
                "--user-data-dir=\(profile)", "--window-size=\(width),\(height)", "--remote-debugging-pipe",
                "about:blank",
            ]
        let spawned = Self.spawn(arguments, input: toBrowser.theirs, output: fromBrowser.theirs, errorLog: errorLog)
        Glibc.close(toBrowser.theirs)
        Glibc.close(fromBrowser.theirs)
        guard case .success(let pid) = spawned else {
            Glibc.close(toBrowser.ours)
            Glibc.close(fromBrowser.ours)
            try? FileManager.default.removeItem(atPath: profile)
            if case .failure(let error) = spawned { throw error }
            throw Failure(description: "chromium could not be started")
        }
        processID = pid
        commands = toBrowser.ours
        let reader = Thread { [self] in readMessages(from: fromBrowser.ours) }
        reader.stackSize = 1 << 20
        reader.start()
        do {
            try await attachToPage()
        } catch {
            await close()
            throw error
        }
    }

    // MARK: - Page

    /// Opens `url` in the page and waits until its document has loaded.
    public func open(_ url: URL, timeout: Duration = .seconds(120)) async throws {
        try await send("Page.navigate", ["url": url.absoluteString])
        try await waitUntil("document.readyState === 'complete' && location.href !== 'about:blank'", timeout: timeout)
    }

    /// Evaluates the JavaScript `expression` in the page, awaiting it when it is a promise, and
    /// returns its value decoded as `type`.
    ///
    /// The value travels as JSON: numbers, strings, Booleans, arrays and plain objects.
    ///
    /// - Throws: ``Failure`` with the exception's text when the expression throws or rejects.
    public func evaluate<T: Decodable>(_ expression: String, as type: T.Type) async throws -> T {
        let result = try await evaluateValue(expression)
        do {
            return try JSONDecoder().decode(T.self, from: result)
        } catch {
            throw Failure(
                description: "\(expression) gave \(String(decoding: result, as: UTF8.self)), not a \(T.self)"
            )
        }
    }

    /// Evaluates the JavaScript `expression` in the page for its effect, awaiting it when it is a
    /// promise.
    public func evaluate(_ expression: String) async throws {
        _ = try await evaluateValue(expression)
    }

    /// Waits until the JavaScript `condition` is truthy in the page, checking every 50 ms.
    ///
    /// - Throws: ``Failure`` naming the condition, with the page's errors, when `timeout` passes.
    public func waitUntil(_ condition: String, timeout: Duration = .seconds(120)) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            if (try? await evaluate("Boolean(\(condition))", as: Bool.self)) == true { return }
            guard clock.now < deadline else {
                let errors = pageErrors + consoleMessages.filter { $0.hasPrefix("error") }
                throw Failure(
                    description: "\(condition) did not hold within \(timeout)"
                        + (errors.isEmpty ? "" : "; the page reported: " + errors.joined(separator: " | "))
                )
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Lets the page download files, saving them in `folder` under their own names.
    public func allowDownloads(into folder: String) async throws {
        try await send("Browser.setDownloadBehavior", ["behavior": "allow", "downloadPath": folder], toPage: false)
    }

    // MARK: - Mouse

    /// Sends one mouse event at the viewport point (`x`, `y`), in CSS pixels, with the left
    /// button held for presses and moves, as a real mouse does.
    public func mouse(_ type: MouseEventType, x: Double, y: Double, isButtonDown: Bool = true) async throws {
        try await send(
            "Input.dispatchMouseEvent",
            [
                "type": type.rawValue, "x": x, "y": y, "button": type == .moved && !isButtonDown ? "none" : "left",
                "buttons": isButtonDown && type != .released ? 1 : 0, "clickCount": type == .moved ? 0 : 1,
            ]
        )
    }

    /// Presses the left button at the first point, moves through the others in `steps` moves per
    /// segment, and releases it at the last: a drag, a box or a lasso.
    public func drag(through points: [(x: Double, y: Double)], steps: Int = 4) async throws {
        precondition(points.count >= 2, "A drag needs a start and an end.")
        try await mouse(.moved, x: points[0].x, y: points[0].y, isButtonDown: false)
        try await mouse(.pressed, x: points[0].x, y: points[0].y)
        for (from, to) in zip(points, points.dropFirst()) {
            for step in 1...steps {
                let t = Double(step) / Double(steps)
                try await mouse(.moved, x: from.x + (to.x - from.x) * t, y: from.y + (to.y - from.y) * t)
            }
        }
        try await mouse(.released, x: points[points.count - 1].x, y: points[points.count - 1].y)
    }

    /// Clicks the left button at (`x`, `y`).
    public func click(x: Double, y: Double) async throws {
        try await mouse(.moved, x: x, y: y, isButtonDown: false)
        try await mouse(.pressed, x: x, y: y)
        try await mouse(.released, x: x, y: y)
    }

    /// Clicks the element `selector` at its centre as a person would, once the page has settled.
    ///
    /// A page still loading moves its elements: a point read before a list above a button has
    /// rendered misses the button. So the click waits until `settled` holds, the element (scrolled
    /// into view) keeps the same box over two animation frames, and the element is the one at its
    /// centre.
    ///
    /// - Throws: ``Failure`` naming the element when that does not happen within `timeout`.
    public func click(
        _ selector: String,
        whenSettled settled: String = "true",
        timeout: Duration = .seconds(120)
    ) async throws {
        let quoted = String(decoding: try JSONEncoder().encode(selector), as: UTF8.self)
        let steady = """
            (async () => {
              if (!(\(settled))) return null;
              const node = document.querySelector(\(quoted));
              if (!node) return null;
              node.scrollIntoView({ block: 'center' });
              const frame = () => new Promise(resolve => requestAnimationFrame(() => resolve()));
              const before = node.getBoundingClientRect();
              await frame(); await frame();
              const after = node.getBoundingClientRect();
              if (!(\(settled)) || before.x !== after.x || before.y !== after.y
                || before.width !== after.width || before.height !== after.height || !after.width || !after.height) return null;
              const x = after.x + after.width / 2, y = after.y + after.height / 2;
              const hit = document.elementFromPoint(x, y);
              return hit && (hit === node || node.contains(hit)) ? [x, y] : null;
            })()
            """
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        // A page between documents cannot evaluate: such errors are retried, and the last one is
        // named if the element never becomes clickable.
        var lastError: (any Error)?
        while true {
            var point: [Double]?
            do {
                point = try await evaluate(steady, as: [Double]?.self)
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                lastError = error
            }
            if let point, point.count == 2 {
                try await click(x: point[0], y: point[1])
                return
            }
            guard clock.now < deadline else {
                throw Failure(
                    description: "\(selector) was not steady and clickable within \(timeout)"
                        + (lastError.map { "; the last evaluation failed: \($0)" } ?? "")
                )
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Sends a mouse wheel turn at (`x`, `y`): a negative `deltaY` scrolls up (zooms in, in most
    /// maps).
    public func wheel(x: Double, y: Double, deltaY: Double) async throws {
        try await send(
            "Input.dispatchMouseEvent",
            ["type": "mouseWheel", "x": x, "y": y, "deltaX": 0, "deltaY": deltaY]
        )
    }

    // MARK: - Keyboard

    /// A key ``press(_:)`` can send.
    public enum Key: String, Sendable {
        case enter = "Enter"
        case tab = "Tab"
        case escape = "Escape"
        case arrowLeft = "ArrowLeft"
        case arrowRight = "ArrowRight"
        case arrowUp = "ArrowUp"
        case arrowDown = "ArrowDown"

        var keyCode: Int {
            switch self {
            case .enter: 13
            case .tab: 9
            case .escape: 27
            case .arrowLeft: 37
            case .arrowUp: 38
            case .arrowRight: 39
            case .arrowDown: 40
            }
        }
    }

    /// Presses and releases `key` in the focused element, as a keyboard does: Enter on a focused
    /// button clicks it, Tab moves the focus.
    public func press(_ key: Key) async throws {
        var down: [String: any Sendable] = [
            "type": "keyDown", "key": key.rawValue, "code": key.rawValue, "windowsVirtualKeyCode": key.keyCode,
        ]
        if key == .enter { down["text"] = "\r" }
        try await send("Input.dispatchKeyEvent", down)
        try await send(
            "Input.dispatchKeyEvent",
            ["type": "keyUp", "key": key.rawValue, "code": key.rawValue, "windowsVirtualKeyCode": key.keyCode]
        )
    }

    // MARK: - Protocol

    /// Sends the command `method` with `parameters` to the page (or to the browser before a page
    /// is attached) and returns its `result` object as JSON.
    @discardableResult
    public func send(_ method: String, _ parameters: [String: any Sendable] = [:]) async throws -> Data {
        try await send(method, parameters, toPage: true)
    }

    private func send(_ method: String, _ parameters: [String: any Sendable], toPage: Bool) async throws -> Data {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        var message: [String: Any] = ["id": id, "method": method, "params": parameters]
        if toPage, let sessionID = sessionID.withLock({ $0 }) { message["sessionId"] = sessionID }
        let bytes = try JSONSerialization.data(withJSONObject: message) + [0]
        let timeout = commandTimeout
        let watchdog = Task { [self] in
            try await Task.sleep(for: timeout)
            resume(id, with: .failure(Failure(description: "\(method) got no answer within \(timeout)")))
        }
        defer { watchdog.cancel() }
        // A cancelled test stops waiting at once; the answer, if it comes, finds no one waiting.
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let isClosed = state.withLock { state in
                    if !state.isClosed { state.pending[id] = continuation }
                    return state.isClosed
                }
                guard !isClosed else {
                    continuation.resume(throwing: Failure(description: "the browser has closed; \(method) not sent"))
                    return
                }
                // Cancelled before the continuation was stored: the handler found nothing to resume.
                if Task.isCancelled {
                    resume(id, with: .failure(CancellationError()))
                    return
                }
                let written = bytes.withUnsafeBytes { buffer in Self.writeAll(buffer, to: commands) }
                if !written {
                    resume(id, with: .failure(Failure(description: "could not send \(method) to the browser")))
                }
            }
        } onCancel: {
            resume(id, with: .failure(CancellationError()))
        }
    }

    private func resume(_ id: Int, with result: Result<Data, any Error>) {
        state.withLock { $0.pending.removeValue(forKey: id) }?.resume(with: result)
    }

    private func evaluateValue(_ expression: String) async throws -> Data {
        let answer = try await send(
            "Runtime.evaluate",
            ["expression": expression, "awaitPromise": true, "returnByValue": true, "userGesture": true]
        )
        let object = try JSONSerialization.jsonObject(with: answer) as? [String: Any] ?? [:]
        if let exception = object["exceptionDetails"] as? [String: Any] {
            let thrown = (exception["exception"] as? [String: Any])?["description"] as? String
            throw Failure(description: "\(expression) threw: \(thrown ?? exception["text"] as? String ?? "?")")
        }
        let value = (object["result"] as? [String: Any])?["value"] ?? NSNull()
        return try JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed])
    }

    /// Opens a page target, attaches to it, and turns on the domains the session listens to.
    private func attachToPage() async throws {
        let targets = try await send("Target.getTargets", [:], toPage: false)
        let infos = (try JSONSerialization.jsonObject(with: targets) as? [String: Any])?["targetInfos"]
        let page = (infos as? [[String: Any]])?.first { $0["type"] as? String == "page" }?["targetId"] as? String
        let targetID: String
        if let page {
            targetID = page
        } else {
            let created = try await send("Target.createTarget", ["url": "about:blank"], toPage: false)
            targetID = (try JSONSerialization.jsonObject(with: created) as? [String: Any])?["targetId"] as? String ?? ""
        }
        let attached = try await send(
            "Target.attachToTarget",
            ["targetId": targetID, "flatten": true],
            toPage: false
        )
        guard let id = (try JSONSerialization.jsonObject(with: attached) as? [String: Any])?["sessionId"] as? String
        else { throw Failure(description: "could not attach to the page") }
        sessionID.withLock { $0 = id }
        try await send("Page.enable")
        try await send("Runtime.enable")
    }

    // MARK: - Reading

    /// Reads NUL-ended messages until the browser closes its end, then reaps the process.
    /// Runs on a thread of its own.
    private func readMessages(from descriptor: Int32) {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var message: [UInt8] = []
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            var start = 0
            for index in 0..<count where buffer[index] == 0 {
                message += buffer[start..<index]
                handle(Data(message))
                message.removeAll(keepingCapacity: true)
                start = index + 1
            }
            message += buffer[start..<count]
        }
        Glibc.close(descriptor)
        var status: Int32 = 0
        while waitpid(processID, &status, 0) < 0, errno == EINTR {}
        let pending = state.withLock { state in
            state.isClosed = true
            state.hasExited = true
            defer { state.pending = [:] }
            return state.pending
        }
        for continuation in pending.values {
            continuation.resume(throwing: Failure(description: "the browser exited: \(recentErrors())"))
        }
    }

    private func handle(_ data: Data) {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return }
        if let id = object["id"] as? Int {
            if let error = object["error"] as? [String: Any] {
                resume(
                    id,
                    with: .failure(Failure(description: "DevTools: \(error["message"] as? String ?? "\(error)")"))
                )
            } else {
                let result = (try? JSONSerialization.data(withJSONObject: object["result"] ?? [:])) ?? Data("{}".utf8)
                resume(id, with: .success(result))
            }
            return
        }
        let parameters = object["params"] as? [String: Any] ?? [:]
        switch object["method"] as? String {
        case "Runtime.exceptionThrown":
            let details = parameters["exceptionDetails"] as? [String: Any] ?? [:]
            let text =
                (details["exception"] as? [String: Any])?["description"] as? String ?? details["text"] as? String
                ?? "?"
            let place = "\(details["url"] as? String ?? ""):\(details["lineNumber"] as? Int ?? 0)"
            state.withLock { $0.pageErrors.append("\(text) (\(place))") }
        case "Runtime.consoleAPICalled":
            let type = parameters["type"] as? String ?? "log"
            let words = (parameters["args"] as? [[String: Any]] ?? []).map { argument in
                argument["value"].map { "\($0)" } ?? argument["description"] as? String ?? ""
            }
            state.withLock { $0.consoleMessages.append(type + ": " + words.joined(separator: " ")) }
        default:
            break
        }
    }

    // MARK: - Closing

    /// Asks the browser to close, ends its process group if it has not exited within 15 s,
    /// waits until no process of the group is left, and removes its profile. Later calls return
    /// at once.
    public func close() async {
        let isClosing = state.withLock { state in
            defer { state.isClosing = true }
            return state.isClosing
        }
        guard !isClosing else { return }
        // Not awaited: the browser may exit before it answers.
        sendWithoutAnswer("Browser.close")
        if await !hasExited(within: .seconds(15)) {
            kill(-processID, SIGKILL)
            kill(processID, SIGKILL)
            _ = await hasExited(within: .seconds(30))
        }
        // Renderers and helpers share the browser's process group and leave with it; any that
        // lingers is ended, and the group awaited until it is empty.
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(10)
        while kill(-processID, 0) == 0, clock.now < deadline {
            if clock.now > deadline - .seconds(5) { kill(-processID, SIGKILL) }
            try? await Task.sleep(for: .milliseconds(50))
        }
        Glibc.close(commands)
        try? FileManager.default.removeItem(atPath: profile)
        try? FileManager.default.removeItem(atPath: errorLog)
    }

    /// Whether the browser process exited (and was reaped by the reading thread) within
    /// `timeout`.
    private func hasExited(within timeout: Duration) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while !state.withLock({ $0.hasExited }) {
            guard clock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return true
    }

    /// Sends the browser command `method` and forgets it: its answer, if any, is dropped.
    private func sendWithoutAnswer(_ method: String) {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        guard let bytes = try? JSONSerialization.data(withJSONObject: ["id": id, "method": method]) else { return }
        (bytes + [0]).withUnsafeBytes { _ = Self.writeAll($0, to: commands) }
    }

    private func recentErrors() -> String {
        let text = String(decoding: FileManager.default.contents(atPath: errorLog) ?? Data(), as: UTF8.self)
        return text.split(separator: "\n").suffix(10).joined(separator: "\n")
    }

    // MARK: - Processes and pipes

    /// A connected pair of Unix sockets, one end for this process and one for the browser, numbered
    /// 10 or above and closed on exec, so that the browser inherits only the descriptors it is
    /// given. A socket rather than a pipe: writing to it after the browser died fails with `EPIPE`
    /// instead of raising `SIGPIPE` in the test process.
    private static func makeChannel() throws -> (ours: Int32, theirs: Int32) {
        var ends: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0 else {
            throw Failure(description: "socketpair failed: errno \(errno)")
        }
        let moved = ends.map { end in
            defer { Glibc.close(end) }
            return fcntl(end, F_DUPFD_CLOEXEC, 10)
        }
        guard moved.allSatisfy({ $0 >= 0 }) else {
            let error = errno
            // The end that did move is closed too.
            for end in moved where end >= 0 { Glibc.close(end) }
            throw Failure(description: "fcntl failed: errno \(error)")
        }
        return (moved[0], moved[1])
    }

    /// Starts `arguments` in a process group of its own, with `input` as descriptor 3, `output`
    /// as descriptor 4, no standard input, standard output discarded and standard error to
    /// `errorLog`.
    private static func spawn(
        _ arguments: [String],
        input: Int32,
        output: Int32,
        errorLog: String
    ) -> Result<
        pid_t, Failure
    > {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errorLog, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, input, 3)
        posix_spawn_file_actions_adddup2(&actions, output, 4)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        var argv = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, arguments[0], &actions, &attributes, &argv, environ)
        guard status == 0 else {
            return .failure(Failure(description: "could not start \(arguments[0]): error \(status)"))
        }
        return .success(pid)
    }

    /// Writes all of `buffer` to `descriptor`, retrying short writes.
    private static func writeAll(_ buffer: UnsafeRawBufferPointer, to descriptor: Int32) -> Bool {
        var offset = 0
        while offset < buffer.count {
            let written = Glibc.send(
                descriptor,
                buffer.baseAddress! + offset,
                buffer.count - offset,
                Int32(MSG_NOSIGNAL)
            )
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }
}

/// Turns for the browser: at most one session runs at a time, the others wait, first come first
/// served.
private let turns = BrowserTurns()

private final class BrowserTurns: Sendable {
    private let state = Mutex<(busy: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    func enter() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let admitted = state.withLock { state -> Bool in
                guard state.busy else {
                    state.busy = true
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if admitted { continuation.resume() }
        }
    }

    func leave() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.busy = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
