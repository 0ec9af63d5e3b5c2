import Foundation
import Testing

@testable import SpotifyTokenServer

/// The token server's request parser on byte strings: what it accepts, what it refuses with which
/// status, and that its cost grows linearly with the bytes however they are split.
struct TokenServerRequestParserTests {
    static let limits = HTTPRequestParser.Limits(
        maximumHeaderBytes: 16_384,
        maximumLineBytes: 8_192,
        maximumBodyBytes: 16_384
    )

    // MARK: - Accepted

    @Test func aFormPostIsReadWithItsBody() throws {
        let events = Self.events(
            "POST /swap?x=1 HTTP/1.1\r\nHost: a\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                + "Content-Length: 11\r\n\r\ncode=AQC-12"
        )
        let request = try #require(events.first?.request)
        #expect(events.count == 1)
        #expect(request.method == "POST" && request.target == "/swap?x=1" && request.path == "/swap")
        #expect(request.version == .http11 && request.keepsAlive && !request.isBodyTooLarge)
        #expect(request.value(of: "content-type") == "application/x-www-form-urlencoded")
        #expect(request.body == Data("code=AQC-12".utf8))
    }

    @Test func pipelinedRequestsComeOneAfterTheOther() {
        let one = "POST /swap HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc"
        let two = "GET /refresh HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"
        let events = Self.events(one + two + "GARBAGE AFTER CLOSE")
        #expect(events.map(\.request?.path) == ["/swap", "/refresh"])
        #expect(events.map(\.request?.keepsAlive) == [true, false])
    }

    @Test func aChunkedBodyIsJoinedAndItsTrailersDropped() throws {
        let events = Self.events(
            "POST /swap HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5;ext=1\r\ncode=\r\n3\r\nabc\r\n0\r\nX-Trailer: t\r\n\r\n"
        )
        let request = try #require(events.first?.request)
        #expect(request.body == Data("code=abc".utf8))
    }

    @Test func http10ClosesUnlessAskedToKeepAlive() {
        #expect(Self.events("GET / HTTP/1.0\r\n\r\n").first?.request?.keepsAlive == false)
        #expect(Self.events("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").first?.request?.keepsAlive == true)
    }

    @Test(arguments: [
        ("http://example.com/swap?a=b", "/swap"), ("https://h:1", "/"), ("http://h?q", "/"), ("*", "*"),
        ("/a/b#frag", "/a/b"),
    ])
    func targetsInEveryFormHaveAPath(target: String, path: String) {
        #expect(HTTPRequestParser.path(of: target) == path)
    }

    @Test func anOversizeBodyIsNotReadAndEndsTheConnection() throws {
        let fixed = try #require(
            Self.events("POST /swap HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999\r\n\r\nabc").first?.request
        )
        #expect(fixed.isBodyTooLarge && !fixed.keepsAlive && fixed.body.isEmpty)
        let chunked = try #require(
            Self.events("POST /swap HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5000\r\n").first?.request
        )
        #expect(chunked.isBodyTooLarge && !chunked.keepsAlive)
        // Chunks of one byte: the framing would cost six times the body.
        let tiny = String(repeating: "1\r\na\r\n", count: 10_000)
        let framed = try #require(
            Self.events("POST /swap HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n" + tiny).first?.request
        )
        #expect(framed.isBodyTooLarge)
    }

    @Test func expectContinueIsReportedOnceTheHeadHasArrived() {
        var parser = HTTPRequestParser(limits: Self.limits)
        parser.append(Array("POST /swap HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n".utf8))
        #expect(parser.nextEvent() == .needsMoreBytes)
        let first = parser.takeContinueRequest()
        let second = parser.takeContinueRequest()
        #expect(first && !second)
        parser.append(Array("code".utf8))
        #expect(parser.nextEvent().request?.body == Data("code".utf8))
    }

    // MARK: - Refused

    @Test(arguments: [
        ("GET /  HTTP/1.1\r\nHost: a\r\n\r\n", 400),  // two spaces
        ("GET / HTTP/1.1\r\n\r\n", 400),  // no Host
        ("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost : a\r\n\r\n", 400),  // space before the colon
        ("GET / HTTP/1.1\r\nHost: a\u{01}b\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\rb\r\n\r\n", 400),  // bare CR
        ("G(T / HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        ("GET swap HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501),
        ("GET / HTTP/2.0\r\nHost: a\r\n\r\n", 505),
        ("GET / HTTP/1.1x\r\nHost: a\r\n\r\n", 400),
    ])
    func malformedRequestsGetTheirStatus(text: String, status: Int) {
        #expect(Self.events(text).last?.failure?.status == status, "\(text.debugDescription)")
    }

    @Test func longLinesAndLargeHeadsAreRefusedAsSoonAsTheyPassTheLimit() {
        var parser = HTTPRequestParser(limits: Self.limits)
        parser.append(Array("GET /".utf8) + Array(repeating: UInt8(ascii: "a"), count: 8_200))
        #expect(parser.nextEvent() == .failure(.requestLineTooLong))

        parser = HTTPRequestParser(limits: Self.limits)
        parser.append(Array("GET / HTTP/1.1\r\nX: ".utf8) + Array(repeating: UInt8(ascii: "a"), count: 8_200))
        #expect(parser.nextEvent() == .failure(.headerTooLarge))

        let fields = (0..<20).map { "X-\($0): " + String(repeating: "v", count: 1_000) + "\r\n" }.joined()
        #expect(Self.events("GET / HTTP/1.1\r\nHost: a\r\n" + fields + "\r\n").last?.failure == .headerTooLarge)
        let many = (0..<150).map { "X-\($0): v\r\n" }.joined()
        #expect(Self.events("GET / HTTP/1.1\r\nHost: a\r\n" + many + "\r\n").last?.failure == .headerTooLarge)
    }

    @Test func afterAFailureBytesAreDropped() {
        var parser = HTTPRequestParser(limits: Self.limits)
        parser.append(Array("BAD\r\n\r\n".utf8))
        #expect(parser.nextEvent().failure != nil)
        parser.append(Array(repeating: 0x41, count: 100_000))
        #expect(parser.nextEvent() == .needsMoreBytes)
        #expect(!parser.hasPartialRequest)
    }

    // MARK: - Cost

    /// A 1 MiB header line given one byte at a time: each byte is scanned once, where the
    /// FlyingFox decoder took 49 s for a quarter of it. Quadratic work would take hours here.
    @Test func aLongLineByteByByteCostsLinearTime() {
        let wide = HTTPRequestParser.Limits(
            maximumHeaderBytes: 4 << 20,
            maximumLineBytes: 2 << 20,
            maximumBodyBytes: 16_384
        )
        var parser = HTTPRequestParser(limits: wide)
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            parser.append(Array("GET /swap HTTP/1.1\r\nHost: a\r\nX-Long: ".utf8))
            #expect(parser.nextEvent() == .needsMoreBytes)
            for _ in 0..<(1 << 20) {
                parser.append(CollectionOfOne(UInt8(ascii: "a")))
                guard parser.nextEvent() == .needsMoreBytes else { break }
            }
            parser.append(Array("\r\n\r\n".utf8))
            #expect(parser.nextEvent().request?.value(of: "X-Long")?.utf8.count == 1 << 20)
        }
        #expect(elapsed < .seconds(5), "took \(elapsed)")
    }

    // MARK: - Helpers

    /// The events of `text` given all at once, up to the first failure.
    static func events(_ text: String) -> [HTTPRequestParser.Event] {
        events(Array(text.utf8), pieces: [text.utf8.count])
    }

    /// The events of `bytes` given in pieces of the sizes in `pieces` (the rest in one piece),
    /// up to the first failure or the request that ends the connection.
    static func events(
        _ bytes: [UInt8],
        pieces: [Int],
        limits: HTTPRequestParser.Limits = limits
    )
        -> [HTTPRequestParser.Event]
    {
        var parser = HTTPRequestParser(limits: limits)
        var events: [HTTPRequestParser.Event] = []
        var offset = 0
        var sizes = pieces[...]
        while offset < bytes.count {
            let size = min(max(1, sizes.popFirst() ?? bytes.count), bytes.count - offset)
            parser.append(bytes[offset..<(offset + size)])
            offset += size
            while true {
                let event = parser.nextEvent()
                if event == .needsMoreBytes { break }
                events.append(event)
                if event.failure != nil || event.request?.keepsAlive == false { return events }
            }
        }
        return events
    }
}

extension HTTPRequestParser.Event {
    var request: HTTPRequestParser.Request? {
        if case .request(let request) = self { request } else { nil }
    }

    var failure: HTTPRequestParser.Failure? {
        if case .failure(let failure) = self { failure } else { nil }
    }
}
