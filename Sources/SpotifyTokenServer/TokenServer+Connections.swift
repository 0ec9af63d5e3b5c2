import FlyingFox
import FlyingSocks
import Foundation
import Logging
import VibesHTTP

// The server's own connection loop, in front of FlyingFox's request and response types.
//
// FlyingFox's `HTTPServer` (0.27.1) offers no limit on connections or header sizes, reads header
// lines in time quadratic in their length, times only the handler (not the reading of a request),
// and ends its accept loop at the first accept error, such as EMFILE. This loop uses FlyingSocks'
// sockets and event pool, reads each request with ``HTTPRequestParser`` and answers it with
// ``TokenServer/respond(to:bodyIsTooLarge:)``.

extension TokenServer {
    /// The bytes asked of the socket per read.
    static let readSize = 4_096

    // MARK: - Listening

    /// A socket bound to the configured address and listening, non-blocking.
    ///
    /// - Throws: ``TokenServerError/cannotListen(address:port:reason:)``.
    func makeListener() throws -> Socket {
        let (address, port) = (configuration.bindAddress, configuration.port)
        let notAnAddress = TokenServerError.cannotListen(
            address: address,
            port: port,
            reason: "it is not an IPv4 or IPv6 address"
        )
        let socket: Socket
        do {
            if address.contains(":") {
                guard let socketAddress = try? sockaddr_in6.inet6(ip6: address, port: port) else { throw notAnAddress }
                socket = try Self.makeListeningSocket(at: socketAddress)
            } else {
                guard let socketAddress = try? sockaddr_in.inet(ip4: address, port: port) else { throw notAnAddress }
                socket = try Self.makeListeningSocket(at: socketAddress)
            }
        } catch let error as TokenServerError {
            throw error
        } catch {
            throw TokenServerError.cannotListen(address: address, port: port, reason: Self.reason(for: error))
        }
        return socket
    }

    private static func makeListeningSocket(at address: some SocketAddress) throws -> Socket {
        let socket = try Socket(domain: Int32(type(of: address).family), type: .stream)
        do {
            try socket.setValue(true, for: .localAddressReuse)
            try socket.bind(to: address)
            try socket.listen()
            try socket.setFlags(.nonBlocking)
            return socket
        } catch {
            try? socket.close()
            throw error
        }
    }

    /// The URLs of both endpoints on the listening socket.
    func endpoints(of listener: Socket) throws -> Endpoints {
        let (address, port) = (configuration.bindAddress, configuration.port)
        switch try? listener.sockname() {
        case .ip4(let host, let port): return Endpoints(base: "http://\(host):\(port)")
        case .ip6(let host, let port): return Endpoints(base: "http://[\(host)]:\(port)")
        default: throw TokenServerError.cannotListen(address: address, port: port, reason: "it bound no IP address")
        }
    }

    /// The system's words for a socket error: FlyingSocks says "SocketError. Bind(98): Address
    /// already in use", and this keeps "Address already in use".
    static func reason(for error: any Error) -> String {
        let text = (error as? LocalizedError)?.errorDescription ?? "\(error)"
        guard let separator = text.range(of: "): ") else { return text }
        return String(text[separator.upperBound...])
    }

    // MARK: - Accepting

    /// Accepts connections on `listener` and serves each until the task is cancelled.
    ///
    /// An accept error never ends it: when the process is out of file descriptors it shuts down the
    /// connection that has waited longest for a request and tries again once that one is closed;
    /// after any other error it tries again after a pause of 5 ms, doubling up to 100 ms.
    func acceptConnections(on listener: Socket, pool: some AsyncSocketPool) async throws {
        let limits = configuration.limits
        let table = ConnectionTable(capacity: limits.maximumConnections)
        let clock = ContinuousClock()
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask {
                // Deadlines are checked a few times per timeout, and at least every quarter second.
                let tick = min(limits.headerTimeout / 4, .milliseconds(250))
                while true {
                    try await clock.sleep(for: tick)
                    table.expire(now: clock.now)
                }
            }
            var pause = Duration.milliseconds(5)
            var lastReport: ContinuousClock.Instant?
            while true {
                try Task.checkCancellation()
                let file: Socket.FileDescriptor
                do {
                    file = try listener.accept().file
                    pause = .milliseconds(5)
                } catch SocketError.blocked {
                    try await pool.suspendSocket(listener, untilReadyFor: .connection)
                    continue
                } catch {
                    let code: Int32? = if case .failed(_, let code, _) = error as? SocketError { code } else { nil }
                    if code == ECONNABORTED || code == EINTR { continue }
                    // Out of descriptors: free the one of the connection that has waited longest,
                    // and try again as soon as its task has closed it.
                    if code == EMFILE || code == ENFILE, table.shedLongestWaiting() {
                        try await clock.sleep(for: .milliseconds(1))
                        continue
                    }
                    if lastReport.map({ $0.duration(to: clock.now) > .seconds(10) }) ?? true {
                        lastReport = clock.now
                        logger.info("token server: accepting a connection failed; retrying: \(Self.reason(for: error))")
                    }
                    try await clock.sleep(for: pause)
                    pause = min(pause * 2, .milliseconds(100))
                    continue
                }
                let socket = Socket(file: file)
                let now = clock.now
                guard let id = table.admit(descriptor: file.rawValue, now: now, deadline: now + limits.headerTimeout)
                else {
                    await refuse(socket)
                    continue
                }
                group.addTask {
                    await self.serveConnection(socket, id: id, table: table, pool: pool)
                }
            }
        }
    }

    /// Answers 503 to a connection the server has no room for, as far as one write goes, and
    /// closes it.
    private func refuse(_ socket: Socket) async {
        let peer = (try? socket.remotePeer()).map(Self.address(of:)) ?? "-"
        var outcome = Self.failure(
            .serviceUnavailable,
            error: "temporarily_unavailable",
            description: "The server is answering as many requests as it can; try again in a second."
        )
        outcome.response.headers[HTTPHeader("Retry-After")] = "1"
        try? socket.setFlags(.nonBlocking)
        _ = try? socket.write(await Self.encode(outcome.response, closes: true, omitsBody: false))
        try? socket.close()
        log(client: peer, method: "-", path: "-", outcome: outcome, duration: .zero)
    }

    // MARK: - Serving a connection

    /// Reads requests from one connection and answers them, until the client closes it, a
    /// request asks to close it, a request is refused, or the table shuts it down.
    private func serveConnection(
        _ socket: Socket,
        id: ConnectionTable.ID,
        table: ConnectionTable,
        pool: some AsyncSocketPool
    ) async {
        let limits = configuration.limits
        let clock = ContinuousClock()
        let peer = try? socket.remotePeer()
        let client = peer.map(Self.address(of:)) ?? "-"
        defer {
            table.remove(id)
            try? socket.close()
        }
        guard let connection = try? AsyncSocket(socket: socket, pool: pool) else { return }
        var parser = HTTPRequestParser(
            limits: HTTPRequestParser.Limits(
                maximumHeaderBytes: limits.maximumHeaderBytes,
                maximumLineBytes: limits.maximumLineBytes,
                maximumBodyBytes: limits.maximumBodyBytes
            )
        )
        var started = clock.now
        while true {
            let event = parser.nextEvent()
            switch event {
            case .needsMoreBytes:
                if parser.takeContinueRequest() {
                    try? await connection.write(Data("HTTP/1.1 100 Continue\r\n\r\n".utf8))
                }
                do {
                    parser.append(try await connection.read(atMost: Self.readSize))
                } catch {
                    // The client closed, the deadline passed, or a new connection took this one's place.
                    if table.remove(id) == .timedOut, parser.hasPartialRequest {
                        let outcome = Self.failure(
                            .requestTimeout,
                            error: "request_timeout",
                            description: "The request did not arrive within \(Self.seconds(limits.headerTimeout))."
                        )
                        _ = try? socket.write(await Self.encode(outcome.response, closes: true, omitsBody: false))
                        log(
                            client: client,
                            method: "-",
                            path: "-",
                            outcome: outcome,
                            duration: started.duration(to: clock.now)
                        )
                    }
                    return
                }
            case .failure(let failure):
                let outcome = Self.outcome(for: failure)
                table.beginWriting(id, now: clock.now, until: clock.now + limits.headerTimeout)
                try? await connection.write(await Self.encode(outcome.response, closes: true, omitsBody: false))
                log(client: client, method: "-", path: "-", outcome: outcome, duration: started.duration(to: clock.now))
                await drain(connection, id: id, table: table)
                return
            case .request(let request):
                guard table.beginAnswering(id, now: clock.now) else { return }
                let response = await respond(
                    to: Self.makeFlyingFoxRequest(request, peer: peer),
                    bodyIsTooLarge: request.isBodyTooLarge
                )
                let closes = !request.keepsAlive || response.headers[.connection]?.lowercased() == "close"
                table.beginWriting(id, now: clock.now, until: clock.now + limits.headerTimeout)
                var data = await Self.encode(response, closes: closes, omitsBody: request.method == "HEAD")
                if !closes, request.version == .http10 { data = Self.addingKeepAlive(to: data) }
                do {
                    try await connection.write(data)
                } catch {
                    return
                }
                if closes {
                    await drain(connection, id: id, table: table)
                    return
                }
                started = clock.now
                guard table.wait(id, now: started, until: started + limits.headerTimeout) else { return }
            }
        }
    }

    /// Ends the answer and reads what the client still sends, for at most a second and 1 MiB,
    /// before the caller closes the connection.
    ///
    /// Closing a socket with unread bytes makes the system reset the connection, and the client
    /// may then lose the answer, such as a 413 to a body it is still sending. Meanwhile the
    /// connection counts as waiting, so a new connection may take its place.
    private func drain(_ connection: AsyncSocket, id: ConnectionTable.ID, table: ConnectionTable) async {
        shutdown(connection.socket.file.rawValue, Int32(SHUT_WR))
        let now = ContinuousClock.now
        guard table.wait(id, now: now, until: now + .seconds(1)) else { return }
        var drained = 0
        while drained < 1 << 20, let bytes = try? await connection.read(atMost: Self.readSize) {
            drained += bytes.count
        }
    }

    /// The request as FlyingFox's handler types hold it.
    static func makeFlyingFoxRequest(
        _ request: HTTPRequestParser.Request,
        peer: Socket.Address?
    ) -> FlyingFox.HTTPRequest {
        var headers = HTTPHeaders()
        for field in request.fields { headers.addValue(field.value, for: HTTPHeader(field.name)) }
        return FlyingFox.HTTPRequest(
            method: FlyingFox.HTTPMethod(request.method),
            version: HTTPVersion(request.version.rawValue),
            path: request.path,
            query: [],
            headers: headers,
            body: HTTPBodySequence(data: request.body),
            remoteAddress: peer.map(FlyingFox.HTTPRequest.Address.make(from:))
        )
    }

    /// The answer to a request the parser refused.
    static func outcome(for failure: HTTPRequestParser.Failure) -> TokenServerOutcome {
        var outcome: TokenServerOutcome
        switch failure {
        case .malformed(let reason):
            outcome = Self.failure(
                .badRequest,
                error: "invalid_request",
                description: "This is not an HTTP/1.1 request: \(reason)."
            )
        case .requestLineTooLong:
            outcome = Self.failure(
                .uriTooLong,
                error: "request_too_large",
                description: "The request line is too long."
            )
        case .headerTooLarge:
            outcome = Self.failure(
                .requestHeaderFieldsTooLarge,
                error: "request_too_large",
                description: "The request's header is too large."
            )
        case .unsupportedVersion:
            outcome = Self.failure(
                .httpVersionNotSupported,
                error: "invalid_request",
                description: "This server speaks HTTP/1.0 and HTTP/1.1."
            )
        case .unsupportedTransferEncoding:
            outcome = Self.failure(
                .notImplemented,
                error: "invalid_request",
                description: "The only transfer coding this server reads is chunked."
            )
        }
        outcome.response.headers[.connection] = "close"
        return outcome
    }

    // MARK: - Writing

    /// The response's bytes: the status line, the header fields (with `Content-Length` and, when
    /// the connection closes after it, `Connection: close`) and the body.
    static func encode(_ response: FlyingFox.HTTPResponse, closes: Bool, omitsBody: Bool) async -> Data {
        // Every response of this server holds its body in memory.
        let body = (try? await response.bodyData) ?? Data()
        func clean(_ text: String) -> String {
            String(text.unicodeScalars.filter { $0 != "\r" && $0 != "\n" })
        }
        var head = "HTTP/1.1 \(response.statusCode.code) \(clean(response.statusCode.phrase))\r\n"
        let framing: Set<HTTPHeader> = [.connection, .contentLength, .transferEncoding]
        for (name, value) in response.headers where !framing.contains(name) {
            head += "\(clean(name.rawValue)): \(clean(value))\r\n"
        }
        head += "Content-Length: \(body.count)\r\n"
        if closes { head += "Connection: close\r\n" }
        head += "\r\n"
        var data = Data(head.utf8)
        if !omitsBody { data.append(body) }
        return data
    }

    private static func addingKeepAlive(to data: Data) -> Data {
        guard let end = data.range(of: Data("\r\n\r\n".utf8)) else { return data }
        var result = Data(data[..<end.lowerBound])
        result.append(Data("\r\nConnection: keep-alive\r\n\r\n".utf8))
        result.append(data[end.upperBound...])
        return result
    }

    // MARK: - Logging

    static func address(of peer: Socket.Address) -> String {
        switch peer {
        case .ip4(let address, _), .ip6(let address, _): address
        case .unix(let path): AccessLogEntry.printable(path, limit: 64)
        }
    }

    private static func seconds(_ duration: Duration) -> String {
        let value = duration / .seconds(1)
        return value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }

    private func log(client: String, method: String, path: String, outcome: TokenServerOutcome, duration: Duration) {
        accessLog(
            AccessLogEntry(
                date: Date(),
                clientAddress: client,
                method: method,
                path: path,
                status: outcome.response.statusCode.code,
                duration: duration,
                error: AccessLogEntry.loggedErrorCode(outcome.error)
            )
        )
    }
}
