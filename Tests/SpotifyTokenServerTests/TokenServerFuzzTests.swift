import Features
import Foundation
import Testing
import VibesTestSupport

@testable import SpotifyTokenServer

/// Random requests for the token server's request parser, made by mutating well-formed ones and
/// given in random pieces, as a client's writes arrive: any input may be refused, but none may
/// crash, break a limit, or parse differently when split differently.
///
/// `VIBES_FUZZ_SECONDS` sets how long it runs (3 s by default; `make fuzz` runs it for a minute)
/// and `VIBES_FUZZ_SEED` replays a run. Each input is written to
/// `$VIBES_FUZZ_OUT/token-server-input` (a temporary folder by default) before it is parsed, with
/// the seed and iteration beside it in `token-server-input.txt`, so that a crash leaves it on disk.
struct TokenServerFuzzTests {
    static let limits = HTTPRequestParser.Limits(
        maximumHeaderBytes: 1_024,
        maximumLineBytes: 256,
        maximumHeaderCount: 16,
        maximumBodyBytes: 512
    )

    static let seeds: [String] = [
        "POST /swap HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Type: application/x-www-form-urlencoded\r\n"
            + "Content-Length: 33\r\n\r\ncode=AQC-fake&code_verifier=v-123",
        "POST /refresh HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "e\r\nrefresh_token=\r\n5;x=y\r\nv1.ab\r\n0\r\nTrailer: t\r\n\r\n",
        "GET /swap HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /refresh HTTP/1.1\r\nHost: a\r\n\r\n",
        "POST http://h:1/swap?q=1 HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\ncode"
            + "POST /swap HTTP/1.1\r\nHost: h\r\nConnection: close\r\nContent-Length: 1\r\n\r\nx",
        "\r\nOPTIONS * HTTP/1.1\r\nHost: h\r\nX-Forwarded-For: 1.2.3.4, 5.6.7.8\r\n\r\n",
    ]

    /// Fragments that steer the parser into its corners.
    static let fragments: [String] = [
        "\r\n", "\n", "\r", "\r\n\r\n", ":", " ", "\t", "\0", "Content-Length: 5\r\n",
        "Content-Length: 99999999999\r\n",
        "Transfer-Encoding: chunked\r\n", "Transfer-Encoding: gzip\r\n", "Host: x\r\n", "Connection: close\r\n",
        "0\r\n\r\n", "ffffffffffffffff\r\n", "1\r\na\r\n", "HTTP/1.1", "HTTP/9.9", "%", "\u{80}", "\u{FF}",
    ]

    @Test func randomRequestsNeverBreakTheParser() throws {
        let environment = ProcessInfo.processInfo.environment
        let seconds = environment["VIBES_FUZZ_SECONDS"].flatMap(Double.init) ?? 3
        let seed = environment["VIBES_FUZZ_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        try withTemporaryDirectory { folder in
            let output = environment["VIBES_FUZZ_OUT"].flatMap { $0.isEmpty ? nil : $0 } ?? folder
            try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
            let inputPath = output + "/token-server-input"
            print(
                "TokenServerFuzz: seed \(seed) (replay with VIBES_FUZZ_SEED=\(seed)), \(seconds) s, input in \(inputPath)"
            )
            let clock = ContinuousClock()
            let deadline = clock.now + .seconds(seconds)
            var iteration = 0
            var outcomes: [String: Int] = [:]
            while clock.now < deadline {
                iteration += 1
                var bytes = Array(Self.seeds[random.next(below: Self.seeds.count)].utf8)
                for _ in 0...random.next(below: 4) { Self.mutate(&bytes, using: &random) }
                // Written every 64 inputs (and the iteration is what replays it): the harness
                // stays fast, and a crash leaves an input from the same seed on disk.
                if iteration % 64 == 1 {
                    let note = "seed \(seed) iteration \(iteration) (VIBES_FUZZ_SEED=\(seed)), \(bytes.count) bytes\n"
                    try Data(note.utf8).write(to: URL(fileURLWithPath: inputPath + ".txt"))
                    try Data(bytes).write(to: URL(fileURLWithPath: inputPath))
                }
                let whole = TokenServerRequestParserTests.events(bytes, pieces: [bytes.count], limits: Self.limits)
                let pieces = (0..<8).map { _ in 1 + random.next(below: 1 + random.next(below: 64)) }
                let split = TokenServerRequestParserTests.events(bytes, pieces: pieces, limits: Self.limits)
                #expect(whole == split, "seed \(seed) iteration \(iteration): pieces \(pieces) changed the result")
                for event in whole { Self.expectWithinLimits(event, seed: seed, iteration: iteration) }
                let outcome = whole.last.map { $0.failure.map { "\($0.status)" } ?? "request" } ?? "incomplete"
                outcomes[outcome, default: 0] += 1
                if whole != split { break }
            }
            print("TokenServerFuzz: \(iteration) inputs, outcomes \(outcomes.sorted { $0.key < $1.key })")
            #expect(outcomes.count >= 3, "the mutations reach only \(outcomes.keys.sorted())")
        }
    }

    private static func expectWithinLimits(_ event: HTTPRequestParser.Event, seed: UInt64, iteration: Int) {
        guard let request = event.request else { return }
        let context = Comment(rawValue: "seed \(seed) iteration \(iteration)")
        #expect(request.body.count <= limits.maximumBodyBytes, context)
        #expect(request.fields.count <= limits.maximumHeaderCount, context)
        #expect(!request.isBodyTooLarge || (request.body.isEmpty && !request.keepsAlive), context)
        #expect(request.path == "*" || request.path.hasPrefix("/"), context)
        #expect(request.method.utf8.allSatisfy { (0x21...0x7E).contains($0) }, context)
        for field in request.fields {
            #expect(!field.name.isEmpty && !field.value.contains("\r") && !field.value.contains("\n"), context)
        }
    }

    private static func mutate(_ bytes: inout [UInt8], using random: inout SplitMix64) {
        let position = random.next(below: bytes.count + 1)
        switch random.next(below: 7) {
        case 0 where !bytes.isEmpty:
            bytes[min(position, bytes.count - 1)] = UInt8(truncatingIfNeeded: random.next())
        case 1:
            bytes.insert(contentsOf: Array(fragments[random.next(below: fragments.count)].utf8), at: position)
        case 2 where position < bytes.count:
            bytes.removeSubrange(position..<min(bytes.count, position + 1 + random.next(below: 16)))
        case 3 where position < bytes.count:
            let end = min(bytes.count, position + 1 + random.next(below: 40))
            bytes.insert(contentsOf: Array(bytes[position..<end]), at: position)
        case 4:
            // A long run: a line or a head over its limit.
            let count = random.next(below: 2) == 0 ? 200 + random.next(below: 120) : 900 + random.next(below: 400)
            bytes.insert(contentsOf: [UInt8](repeating: UInt8(ascii: "a"), count: count), at: position)
        case 5:
            let digits = String(random.next(below: 2_000), radix: random.next(below: 2) == 0 ? 10 : 16)
            bytes.insert(contentsOf: Array(digits.utf8), at: position)
        default:
            bytes.insert(contentsOf: Array(fragments[random.next(below: fragments.count)].utf8), at: position)
        }
    }
}
