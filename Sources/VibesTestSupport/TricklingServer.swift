import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A loopback server that answers every connection with a 200 whose body comes one byte at a
/// time, `interval` apart: a server no per-read timeout catches, and one a client that busy-waits
/// for its answer burns a core on.
public final class TricklingServer: Sendable {
    private final class StopFlag: Sendable {
        private let value = Mutex(false)
        var isSet: Bool { value.withLock { $0 } }
        func set() { value.withLock { $0 = true } }
    }

    public let port: UInt16
    private let listener: Int32
    private let stopped = StopFlag()

    public init(bodyLength: Int, interval: TimeInterval) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, listen(fd, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        let stopped = stopped
        Thread.detachNewThread {
            while !stopped.isSet {
                let connection = accept(fd, nil, nil)
                guard connection >= 0 else { return }
                Thread.detachNewThread {
                    defer { close(connection) }
                    var buffer = [UInt8](repeating: 0, count: 4096)
                    _ = read(connection, &buffer, buffer.count)
                    let head = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: \(bodyLength)\r\n\r\n"
                    guard send(connection, head, head.utf8.count, Int32(MSG_NOSIGNAL)) > 0 else { return }
                    for _ in 0..<bodyLength {
                        if stopped.isSet { return }
                        Thread.sleep(forTimeInterval: interval)
                        guard send(connection, "x", 1, Int32(MSG_NOSIGNAL)) == 1 else { return }
                    }
                }
            }
        }
    }

    public func stop() {
        stopped.set()
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }
}
