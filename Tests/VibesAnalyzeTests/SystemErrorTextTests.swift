import Foundation
import Testing
import VibesCommandSupport
import VibesTestSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Real Foundation failures become sentences naming the file or host and the cause.
struct SystemErrorTextTests {
    @Test func aFileThatCannotBeWrittenOrReadIsNamedWithTheCause() throws {
        try withTemporaryDirectory { folder in
            let target = folder + "/no/such/folder/report.html"
            do {
                try Data("x".utf8).write(to: URL(fileURLWithPath: target))
                Issue.record("the write succeeded")
            } catch {
                let message = Console.message(for: error)
                #expect(message.contains(target) && message.contains("no such"), "\(message)")
                #expect(!message.contains("NSCocoaErrorDomain") && !message.contains("Error Domain="), "\(message)")
            }
            let missing = folder + "/missing.csv"
            do {
                _ = try String(contentsOfFile: missing, encoding: .utf8)
                Issue.record("the read succeeded")
            } catch {
                let message = Console.message(for: error)
                #expect(message.hasPrefix("Could not read \(missing): "), "\(message)")
            }
        }
    }

    @Test func aHostThatRefusesIsNamedWithTheCause() async throws {
        // A port nothing listens on: bound once to learn a free one, then closed.
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        try withUnsafeMutablePointer(to: &address) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                try #require(bind(socket, raw, length) == 0 && getsockname(socket, raw, &length) == 0)
            }
        }
        close(socket)
        let port = Int(UInt16(bigEndian: address.sin_port))
        do {
            _ = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/v1/me")!)
            Issue.record("the request succeeded")
        } catch {
            let message = Console.message(for: error)
            #expect(message == "Could not reach 127.0.0.1:\(port): the connection was refused (is it running?).")
        }
    }
}
