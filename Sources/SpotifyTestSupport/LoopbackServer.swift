import FlyingFox
import FlyingSocks
import Foundation
import VibesTestSupport

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

/// A loopback port where nothing ever answers: a socket bound to it and never listening, kept for
/// the whole test run, so a connection is refused at once and no other test's server can be given
/// the same port (a port merely closed can be handed to the next server that binds port 0).
public enum UnreachableLoopback {
    /// The bound socket; kept open until the process ends.
    private static let socket: Socket = {
        do {
            let socket = try Socket(domain: AF_INET, type: .stream)
            try socket.bind(to: sockaddr_in.inet(ip4: "127.0.0.1", port: 0))
            return socket
        } catch {
            fatalError("cannot bind a loopback socket: \(error)")
        }
    }()

    /// The port.
    public static let port: UInt16 = {
        guard case .ip4(_, let port) = try? socket.sockname() else { fatalError("no port") }
        return port
    }()

    /// `http://127.0.0.1:PORT/` followed by `path`.
    public static func url(path: String = "") -> URL {
        URL(string: "http://127.0.0.1:\(port)/\(path)")!
    }
}
