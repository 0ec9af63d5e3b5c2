import FlyingFox
import Foundation
import Synchronization
import VibesHTTP

/// A one-shot HTTP server on `127.0.0.1` that receives the OAuth redirect.
///
/// Spotify refuses `localhost` redirect URIs, so the server binds the loopback address
/// explicitly. It answers `GET /callback`: a redirect with the wrong `state` gets 400 and is
/// otherwise ignored; the first with the right `state` ends the wait, with a small "you can close
/// this tab" page for a code and an explanation for an error. Then the server shuts down.
public enum LoopbackCallbackServer {
    /// The default port, fixed so the redirect URI `http://127.0.0.1:8977/callback` can be
    /// registered in the Spotify dashboard once.
    public static let defaultPort: UInt16 = 8977

    /// The callback path.
    public static let path = "/callback"

    /// The redirect URI for `port`.
    public static func redirectURI(port: UInt16) -> String {
        "http://127.0.0.1:\(port)\(path)"
    }

    /// Listens on `127.0.0.1:port` until a redirect with `expectedState` arrives or `timeout` passes.
    ///
    /// - Parameters:
    ///   - port: The port; 0 picks a free one (tests).
    ///   - expectedState: The `state` the authorize URL carries.
    ///   - timeout: How long to wait for the user. Defaults to 5 minutes.
    ///   - onListening: Called once the server listens, with the redirect URI (the real port);
    ///     build and show the authorize URL here.
    /// - Returns: The authorization code and the redirect URI it was sent to.
    /// - Throws: The errors of ``AuthorizationRedirect/code(from:expectedState:)`` for an error
    ///   redirect; ``SpotifyError/authorizationDenied(error:)`` with `timeout` after the timeout.
    public static func waitForCode(
        port: UInt16 = defaultPort,
        expectedState: String,
        timeout: Duration = .seconds(300),
        onListening: @Sendable (String) async throws -> Void
    ) async throws -> (code: String, redirectURI: String) {
        let (results, continuation) = AsyncStream<Result<String, any Error>>.makeStream()
        // A generous request timeout: on a loaded machine the browser's one request can take a while,
        // and a cut-off answer would leave the user a blank page.
        let server = HTTPServer(address: try .inet(ip4: "127.0.0.1", port: port), timeout: 60, logger: .disabled)
        let once = OneShot()
        await server.appendRoute(HTTPRoute(method: .GET, path: path)) { request in
            let items = request.query.map { URLQueryItem(name: $0.name, value: $0.value) }
            let outcome: Result<String, any Error>
            do {
                outcome = .success(try AuthorizationRedirect.code(from: items, expectedState: expectedState))
            } catch SpotifyError.stateMismatch {
                return page(
                    status: .badRequest,
                    title: "Sign-in link not recognised",
                    text: "This redirect does not belong to the sign-in in progress. Nothing was changed."
                )
            } catch {
                outcome = .failure(error)
            }
            guard once.claim() else {
                return page(status: .gone, title: "Already used", text: "This sign-in has already finished.")
            }
            continuation.yield(outcome)
            continuation.finish()
            switch outcome {
            case .success:
                return page(
                    status: .ok,
                    title: "Signed in to Spotify",
                    text: "vibes-analyze is signed in. You can close this tab."
                )
            case .failure(let error):
                return page(
                    status: .ok,
                    title: "Sign-in not completed",
                    text: "\(error) You can close this tab."
                )
            }
        }
        let failure = RunFailure()
        return try await withThrowingTaskGroup(of: String?.self) { group in
            group.addTask {
                do {
                    try await server.run()
                } catch {
                    failure.record(error)
                }
                return nil
            }
            defer { group.cancelAll() }
            // Wait until the server listens, or fails to (such as "address in use").
            var boundPort: UInt16?
            for _ in 0..<250 {
                if case .ip4(_, let port) = await server.listeningAddress {
                    boundPort = port
                    break
                }
                if let reason = failure.reason {
                    throw SpotifyError.callbackServerUnavailable(port: port, reason: reason)
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            guard let boundPort else {
                await server.stop()
                throw SpotifyError.callbackServerUnavailable(
                    port: port,
                    reason: "it did not start listening within 5 seconds"
                )
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw SpotifyError.authorizationDenied(error: "timed out after \(timeout.waitDescription)")
            }
            group.addTask {
                for await result in results { return try result.get() }
                throw CancellationError()
            }
            do {
                try await onListening(redirectURI(port: boundPort))
                while let next = try await group.next() {
                    if let code = next {
                        await server.stop(timeout: 3)
                        return (code, redirectURI(port: boundPort))
                    }
                }
                throw CancellationError()
            } catch {
                continuation.finish()
                await server.stop(timeout: 3)
                throw error
            }
        }
    }

    private static func page(status: HTTPStatusCode, title: String, text: String) -> FlyingFox.HTTPResponse {
        let escaped = text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
        let html = """
            <!doctype html><html><head><meta charset="utf-8"><title>\(title)</title></head>
            <body style="font-family: sans-serif; margin: 3em"><h1>\(title)</h1><p>\(escaped)</p></body></html>
            """
        return FlyingFox.HTTPResponse(
            statusCode: status,
            headers: [.contentType: "text/html; charset=utf-8", .connection: "close"],
            body: Data(html.utf8)
        )
    }
}

/// A flag that can be claimed once, from any thread.
private final class OneShot: Sendable {
    private let isClaimed = Mutex(false)

    /// Returns `true` to the first caller only.
    func claim() -> Bool {
        isClaimed.withLock { claimed in
            defer { claimed = true }
            return !claimed
        }
    }
}

/// The error that ended the server's run, if any.
private final class RunFailure: Sendable {
    private let storage = Mutex<String?>(nil)

    var reason: String? { storage.withLock { $0 } }

    func record(_ error: any Error) {
        storage.withLock { $0 = String(describing: error) }
    }
}
