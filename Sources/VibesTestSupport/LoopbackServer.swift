import FlyingFox
import FlyingSocks

/// Serves `handler` on `127.0.0.1` at a free port while `body` runs, then stops the server.
///
/// The fakes of the services the tool talks to (`FakeSpotify`, `FakeReccoBeats`) start this way.
///
/// - Parameter body: Receives the port the server listens on.
func withLoopbackServer<T>(handler: some HTTPHandler, _ body: (UInt16) async throws -> T) async throws -> T {
    let server = HTTPServer(
        address: try .inet(ip4: "127.0.0.1", port: 0),
        timeout: loopbackTimeout,  // a request of a loaded test machine may wait long for the CPU
        logger: .disabled,
        handler: handler
    )
    let task = Task { try await server.run() }
    defer { task.cancel() }
    try await server.waitUntilListening(timeout: loopbackTimeout)  // a loaded CI machine starts it slowly
    guard case .ip4(_, let port) = await server.listeningAddress else { fatalError("the loopback server did not bind") }
    do {
        let result = try await body(port)
        await server.stop(timeout: 0.5)
        return result
    } catch {
        await server.stop(timeout: 0.5)
        throw error
    }
}
