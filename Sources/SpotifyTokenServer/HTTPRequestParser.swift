import Foundation

/// Reads HTTP/1.1 requests from the bytes of one connection, within fixed limits and in time
/// linear in the bytes received.
///
/// Give it what the socket reads with ``append(_:)`` and take what it found with ``nextEvent()``:
/// a whole request, a failure that ends the connection, or a wish for more bytes. Every byte is
/// looked at a bounded number of times however the client splits its writes, and the bytes it
/// keeps never exceed the head limit, the body limit and one read.
///
/// ```
/// var parser = HTTPRequestParser(limits: limits)
/// parser.append(try await socket.read(atMost: 4096))
/// switch parser.nextEvent() {
/// case .needsMoreBytes: …            // read again
/// case .request(let request): …      // answer it
/// case .failure(let failure): …      // answer failure.status and close
/// }
/// ```
///
/// It accepts origin-form (`/swap?x=1`), absolute-form and asterisk-form targets, HTTP/1.0 and
/// HTTP/1.1, a body framed by `Content-Length` or `Transfer-Encoding: chunked`, and refuses what
/// RFC 9112 says a server must refuse: a line folded onto the next, white space before a field's
/// colon, control characters, conflicting lengths, a length together with a transfer coding, and an
/// HTTP/1.1 request without exactly one `Host`.
///
/// - Complexity: O(*n*) for *n* bytes appended.
struct HTTPRequestParser: Sendable {
    /// The sizes a request may have.
    struct Limits: Sendable, Hashable {
        /// The request line, the header fields and their line ends; at least 64.
        var maximumHeaderBytes: Int
        /// Any one line of the head, without its line end; at least 16.
        var maximumLineBytes: Int
        /// The number of header fields.
        var maximumHeaderCount: Int
        /// The body, after any chunked framing is removed.
        var maximumBodyBytes: Int

        init(maximumHeaderBytes: Int, maximumLineBytes: Int, maximumHeaderCount: Int = 100, maximumBodyBytes: Int) {
            precondition(maximumHeaderBytes >= 64 && maximumLineBytes >= 16, "A request line needs room.")
            precondition(maximumHeaderCount >= 1 && maximumBodyBytes >= 0, "Limits are not negative.")
            self.maximumHeaderBytes = maximumHeaderBytes
            self.maximumLineBytes = maximumLineBytes
            self.maximumHeaderCount = maximumHeaderCount
            self.maximumBodyBytes = maximumBodyBytes
        }
    }

    /// The HTTP versions served.
    enum Version: String, Sendable, Hashable {
        case http10 = "HTTP/1.0"
        case http11 = "HTTP/1.1"
    }

    /// One header field as the client sent it, its value without surrounding white space.
    struct Field: Sendable, Hashable {
        var name: String
        var value: String
    }

    /// A request whose head and body have arrived.
    struct Request: Sendable, Hashable {
        /// Such as `POST`, as sent (methods are case-sensitive).
        var method: String
        /// The request target as sent, such as `/swap?x=1`.
        var target: String
        /// The target's path, without query: `/swap`.
        var path: String
        var version: Version
        var fields: [Field]
        /// The body; empty when ``isBodyTooLarge``.
        var body: Data
        /// Whether the body was longer than the limit and was not read: the connection cannot carry
        /// another request.
        var isBodyTooLarge: Bool
        /// Whether the connection may carry another request after this one.
        var keepsAlive: Bool

        /// The value of the field `name` (case-insensitive), several fields joined with `, `.
        func value(of name: String) -> String? {
            let values = fields.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
            return values.isEmpty ? nil : values.joined(separator: ", ")
        }
    }

    /// Why a request was refused; the connection must close after the answer.
    enum Failure: Error, Sendable, Hashable {
        /// Not HTTP/1.x as RFC 9112 frames it.
        case malformed(reason: String)
        /// The request line is longer than ``Limits/maximumLineBytes``.
        case requestLineTooLong
        /// A header line, the head, or the number of fields is over its limit.
        case headerTooLarge
        /// An HTTP version other than 1.0 and 1.1.
        case unsupportedVersion
        /// A transfer coding other than `chunked`.
        case unsupportedTransferEncoding

        /// The status to answer with: 400, 414, 431, 505 or 501.
        var status: Int {
            switch self {
            case .malformed: 400
            case .requestLineTooLong: 414
            case .headerTooLarge: 431
            case .unsupportedVersion: 505
            case .unsupportedTransferEncoding: 501
            }
        }
    }

    /// What ``nextEvent()`` found.
    enum Event: Sendable, Hashable {
        case needsMoreBytes
        case request(Request)
        case failure(Failure)
    }

    let limits: Limits

    private enum Phase: Sendable {
        case head
        case fixedBody(end: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
        /// After a failure or a request that closes the connection: bytes are dropped.
        case done
    }

    private struct Head: Sendable {
        var method: String
        var target: String
        var path: String
        var version: Version
        var fields: [Field]
        var keepsAlive: Bool
    }

    private var buffer: [UInt8] = []
    /// The first byte not yet scanned.
    private var position = 0
    /// The first byte of the line being read.
    private var lineStart = 0
    /// The first byte of the request being read.
    private var requestStart = 0
    /// The lines of the head so far, without line ends.
    private var lines: [Range<Int>] = []
    private var head: Head?
    private var body: [UInt8] = []
    /// The bytes of chunk-size lines, chunk ends and trailers of the body being read.
    private var framingBytes = 0
    private var phase = Phase.head
    private var continueRequested = false

    init(limits: Limits) {
        self.limits = limits
    }

    // MARK: - Feeding

    /// Adds bytes read from the connection.
    mutating func append(_ bytes: some Collection<UInt8>) {
        if case .done = phase { return }
        compact()
        buffer.append(contentsOf: bytes)
    }

    /// Whether a request has begun: some of its bytes arrived but not all.
    var hasPartialRequest: Bool {
        switch phase {
        case .head: buffer[requestStart...].contains { $0 != 0x0D && $0 != 0x0A }
        case .done: false
        default: true
        }
    }

    /// Whether the client asked with `Expect: 100-continue` to be told to send the body; true once
    /// per such request, when its head has arrived and its body is not refused.
    mutating func takeContinueRequest() -> Bool {
        defer { continueRequested = false }
        return continueRequested
    }

    /// Drops the bytes no phase needs any more, when they are at least half the buffer (so each
    /// byte moves a bounded number of times).
    private mutating func compact() {
        let needed: Int
        switch phase {
        case .head: needed = requestStart
        case .chunkSize, .chunkDataEnd, .trailers: needed = lineStart
        case .fixedBody, .chunkData, .done: needed = position
        }
        guard needed > 0, needed * 2 >= buffer.count else { return }
        buffer.removeFirst(needed)
        position -= needed
        lineStart -= needed
        requestStart -= needed
        lines = lines.map { ($0.lowerBound - needed)..<($0.upperBound - needed) }
        if case .fixedBody(let end) = phase { phase = .fixedBody(end: end - needed) }
    }

    // MARK: - Parsing

    /// Parses what has arrived as far as it goes.
    mutating func nextEvent() -> Event {
        while true {
            switch phase {
            case .done:
                return .needsMoreBytes
            case .head:
                switch nextLine(limit: limits.maximumLineBytes) {
                case .incomplete:
                    if buffer.count - requestStart > limits.maximumHeaderBytes { return fail(.headerTooLarge) }
                    return .needsMoreBytes
                case .tooLong:
                    return fail(lines.isEmpty ? .requestLineTooLong : .headerTooLarge)
                case .line(let line):
                    if position - requestStart > limits.maximumHeaderBytes { return fail(.headerTooLarge) }
                    if !line.isEmpty {
                        guard lines.count <= limits.maximumHeaderCount else { return fail(.headerTooLarge) }
                        lines.append(line)
                        continue
                    }
                    // Empty lines before the request line are ignored (RFC 9112 §2.2).
                    if lines.isEmpty { continue }
                    switch parseHead() {
                    case .failure(let failure): return fail(failure)
                    case .success(let (head, length)):
                        self.head = head
                        lines = []
                        if let event = beginBody(length: length) { return event }
                    }
                }
            case .fixedBody(let end):
                guard buffer.count >= end else { return .needsMoreBytes }
                body = Array(buffer[position..<end])
                position = end
                return finishRequest()
            case .chunkSize:
                switch nextLine(limit: 1_024) {
                case .incomplete: return .needsMoreBytes
                case .tooLong: return fail(.malformed(reason: "a chunk size line is too long"))
                case .line(let line):
                    framingBytes += position - line.lowerBound
                    if let event = checkFraming() { return event }
                    guard let size = Self.chunkSize(buffer[line]) else {
                        return fail(.malformed(reason: "a chunk size is not hexadecimal"))
                    }
                    if size == 0 {
                        phase = .trailers
                    } else if size > limits.maximumBodyBytes - body.count {
                        return bodyTooLarge()
                    } else {
                        phase = .chunkData(remaining: size)
                    }
                }
            case .chunkData(let remaining):
                let count = min(remaining, buffer.count - position)
                guard count > 0 else { return .needsMoreBytes }
                body.append(contentsOf: buffer[position..<(position + count)])
                position += count
                lineStart = position
                phase = count == remaining ? .chunkDataEnd : .chunkData(remaining: remaining - count)
            case .chunkDataEnd:
                switch nextLine(limit: 0) {
                case .incomplete: return .needsMoreBytes
                case .tooLong: return fail(.malformed(reason: "a chunk is longer than its size"))
                case .line(let line):
                    framingBytes += position - line.lowerBound
                    phase = .chunkSize
                }
            case .trailers:
                switch nextLine(limit: limits.maximumLineBytes) {
                case .incomplete: return .needsMoreBytes
                case .tooLong: return fail(.headerTooLarge)
                case .line(let line):
                    framingBytes += position - line.lowerBound
                    if let event = checkFraming() { return event }
                    // Trailer fields are read and dropped: nothing here needs them.
                    if line.isEmpty { return finishRequest() }
                }
            }
        }
    }

    private enum LineResult {
        case line(Range<Int>)
        case incomplete
        case tooLong
    }

    /// The next line from `lineStart`, without its CR LF (or bare LF), scanning only bytes not
    /// scanned before.
    private mutating func nextLine(limit: Int) -> LineResult {
        guard let end = buffer[position...].firstIndex(of: 0x0A) else {
            position = buffer.count
            // A line of `limit` bytes may still be followed by its CR.
            return buffer.count - lineStart > limit + 1 ? .tooLong : .incomplete
        }
        var line = lineStart..<end
        if end > lineStart, buffer[end - 1] == 0x0D { line = lineStart..<(end - 1) }
        position = end + 1
        lineStart = position
        return line.count > limit ? .tooLong : .line(line)
    }

    private mutating func fail(_ failure: Failure) -> Event {
        phase = .done
        buffer = []
        return .failure(failure)
    }

    /// Chunked framing may add at most as many bytes as the body limit, so that a body sent one
    /// byte per chunk cannot make the server read without end.
    private mutating func checkFraming() -> Event? {
        framingBytes > max(limits.maximumBodyBytes, limits.maximumHeaderBytes) ? bodyTooLarge() : nil
    }

    private mutating func beginBody(length: BodyLength) -> Event? {
        guard let head else { return nil }
        switch length {
        case .chunked:
            body = []
            framingBytes = 0
            phase = .chunkSize
            lineStart = position
            continueRequested = Self.expectsContinue(head)
            return nil
        case .fixed(let count) where count > limits.maximumBodyBytes:
            return bodyTooLarge()
        case .fixed(0):
            body = []
            return finishRequest()
        case .fixed(let count):
            phase = .fixedBody(end: position + count)
            continueRequested = Self.expectsContinue(head)
            return nil
        }
    }

    private mutating func bodyTooLarge() -> Event {
        guard let head else { return fail(.malformed(reason: "no head")) }
        phase = .done
        buffer = []
        continueRequested = false
        return .request(
            Request(
                method: head.method,
                target: head.target,
                path: head.path,
                version: head.version,
                fields: head.fields,
                body: Data(),
                isBodyTooLarge: true,
                keepsAlive: false
            )
        )
    }

    private mutating func finishRequest() -> Event {
        guard let head else { return fail(.malformed(reason: "no head")) }
        let request = Request(
            method: head.method,
            target: head.target,
            path: head.path,
            version: head.version,
            fields: head.fields,
            body: Data(body),
            isBodyTooLarge: false,
            keepsAlive: head.keepsAlive
        )
        self.head = nil
        body = []
        lines = []
        continueRequested = false
        requestStart = position
        lineStart = position
        phase = head.keepsAlive ? .head : .done
        if !head.keepsAlive { buffer = [] }
        return .request(request)
    }

    // MARK: - The head

    private enum BodyLength {
        case fixed(Int)
        case chunked
    }

    private func parseHead() -> Result<(Head, BodyLength), Failure> {
        let requestLine = buffer[lines[0]]
        let parts = requestLine.split(separator: 0x20, omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty }) else {
            return .failure(.malformed(reason: "the request line is not METHOD TARGET VERSION"))
        }
        guard parts[0].allSatisfy(Self.isTokenByte) else {
            return .failure(.malformed(reason: "the method is not a token"))
        }
        guard parts[1].allSatisfy({ (0x21...0x7E).contains($0) }) else {
            return .failure(.malformed(reason: "the target has characters that must be escaped"))
        }
        let version: Version
        switch String(decoding: parts[2], as: UTF8.self) {
        case Version.http11.rawValue: version = .http11
        case Version.http10.rawValue: version = .http10
        case let other where Self.looksLikeHTTPVersion(other): return .failure(.unsupportedVersion)
        default: return .failure(.malformed(reason: "the version is not HTTP/1.x"))
        }
        let target = String(decoding: parts[1], as: UTF8.self)
        guard let path = Self.path(of: target) else {
            return .failure(.malformed(reason: "the target is not a path or an http URL"))
        }

        var fields: [Field] = []
        fields.reserveCapacity(lines.count - 1)
        for line in lines.dropFirst() {
            let bytes = buffer[line]
            guard let first = bytes.first, first != 0x20, first != 0x09 else {
                return .failure(.malformed(reason: "a header line is folded"))
            }
            guard let colon = bytes.firstIndex(of: 0x3A), colon > bytes.startIndex,
                bytes[..<colon].allSatisfy(Self.isTokenByte)
            else {
                return .failure(.malformed(reason: "a header line is not NAME: VALUE"))
            }
            var value = bytes[(colon + 1)...]
            while let byte = value.first, byte == 0x20 || byte == 0x09 { value = value.dropFirst() }
            while let byte = value.last, byte == 0x20 || byte == 0x09 { value = value.dropLast() }
            guard value.allSatisfy({ $0 == 0x09 || (0x20...0x7E).contains($0) || $0 >= 0x80 }) else {
                return .failure(.malformed(reason: "a header value has a control character"))
            }
            fields.append(
                Field(
                    name: String(decoding: bytes[..<colon], as: UTF8.self),
                    value: String(decoding: value, as: UTF8.self)
                )
            )
        }

        func values(_ name: String) -> [String] {
            fields.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
        }
        let hosts = values("Host")
        guard hosts.count == 1 || (version == .http10 && hosts.isEmpty) else {
            return .failure(.malformed(reason: "an HTTP/1.1 request needs one Host field"))
        }
        let connection = Set(
            values("Connection").flatMap { $0.split(separator: ",") }
                .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        )
        var keepsAlive = version == .http11 ? !connection.contains("close") : connection.contains("keep-alive")

        let lengths = values("Content-Length")
        let codings = values("Transfer-Encoding")
        let length: BodyLength
        if !codings.isEmpty {
            guard lengths.isEmpty else {
                return .failure(.malformed(reason: "Content-Length and Transfer-Encoding are both given"))
            }
            guard version == .http11 else {
                return .failure(.malformed(reason: "HTTP/1.0 has no transfer codings"))
            }
            let tokens = codings.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
                .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard tokens == ["chunked"] else { return .failure(.unsupportedTransferEncoding) }
            length = .chunked
        } else if let first = lengths.first {
            guard lengths.allSatisfy({ $0 == first }), let count = Self.decimal(first) else {
                return .failure(.malformed(reason: "the Content-Length is not one decimal number"))
            }
            length = .fixed(count)
        } else {
            length = .fixed(0)
        }
        if case .fixed(let count) = length, count > limits.maximumBodyBytes { keepsAlive = false }
        let head = Head(
            method: String(decoding: parts[0], as: UTF8.self),
            target: target,
            path: path,
            version: version,
            fields: fields,
            keepsAlive: keepsAlive
        )
        return .success((head, length))
    }

    private static func expectsContinue(_ head: Head) -> Bool {
        head.version == .http11
            && head.fields.contains {
                $0.name.caseInsensitiveCompare("Expect") == .orderedSame
                    && $0.value.caseInsensitiveCompare("100-continue") == .orderedSame
            }
    }

    /// RFC 9110 `tchar`: the characters of a method or a field name.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    private static func looksLikeHTTPVersion(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.count == 8 && text.hasPrefix("HTTP/") && bytes[6] == UInt8(ascii: ".")
            && [bytes[5], bytes[7]].allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// The path of an origin-form (`/a?b`), absolute-form (`http://host/a?b`) or asterisk-form
    /// (`*`) target; `nil` for anything else.
    static func path(of target: String) -> String? {
        if target == "*" { return "*" }
        var rest = Substring(target)
        if !rest.hasPrefix("/") {
            let lower = rest.prefix(8).lowercased()
            guard let scheme = ["http://", "https://"].first(where: lower.hasPrefix) else { return nil }
            rest = rest.dropFirst(scheme.count)
            guard let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) else { return "/" }
            guard slash > rest.startIndex else { return nil }
            rest = rest[slash...]
            if rest.hasPrefix("?") { return "/" }
        }
        return String(rest.prefix { $0 != "?" && $0 != "#" })
    }

    /// A Content-Length: 1 to 18 decimal digits.
    private static func decimal(_ text: String) -> Int? {
        guard (1...18).contains(text.utf8.count), text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            return nil
        }
        return Int(text)
    }

    /// A chunk-size line's size: 1 to 15 hexadecimal digits, then optional white space and
    /// extensions after `;`, which are ignored.
    private static func chunkSize(_ line: ArraySlice<UInt8>) -> Int? {
        let digits = line.prefix { $0 != UInt8(ascii: ";") && $0 != 0x20 && $0 != 0x09 }
        let rest = line[digits.endIndex...].drop { $0 == 0x20 || $0 == 0x09 }
        guard (1...15).contains(digits.count), rest.isEmpty || rest.first == UInt8(ascii: ";"),
            rest.allSatisfy({ $0 == 0x09 || (0x20...0x7E).contains($0) })
        else { return nil }
        return Int(String(decoding: digits, as: UTF8.self), radix: 16)
    }
}
