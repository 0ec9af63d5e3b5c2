import Features
import Foundation
import GRDB
import Testing
import VibesTestSupport

@testable import Ingest

/// Random inputs for the importers, made by mutating the fixture files: any input may be refused,
/// but none may crash the process, leak Foundation's error text, or put an invalid value in the store.
///
/// `VIBES_FUZZ_SECONDS` sets how long the harness runs (5 s by default, so that `swift test` stays
/// quick; `make fuzz` runs it for 60 s), and `VIBES_FUZZ_SEED` replays a run. Each input is written
/// to `$VIBES_FUZZ_OUT/current-input` (a temporary folder by default) before it is imported, with
/// the seed, iteration and mutations beside it in `current-input.txt`, so that a crash leaves its
/// input on disk: copy it into `Fixtures/fuzz-crashers/` and describe it in the README there.
@Suite(.serialized)
struct ImportFuzzTests {
    /// Folders of seed files, and the size above which a file is too big to mutate quickly.
    static let seedFolders = ["csv", "exportify", "json", "malformed", "spotify"]
    static let maximumSeedSize = 200_000

    /// Numbers that overflow, underflow or are not numbers at all in some reader.
    static let extremeNumbers = [
        "1e300", "-1e308", "1e-400", "9223372036854775807", "-9223372036854775809", "NaN", "inf", "-0", "0x10",
        "1e30", "99999999999999999999", "1e400", "-1", "4.5", "360000001",
    ]

    @Test func mutatedFixturesNeverCrashTheImporters() throws {
        let environment = ProcessInfo.processInfo.environment
        let seconds = environment["VIBES_FUZZ_SECONDS"].flatMap(Double.init) ?? 5
        let seed = environment["VIBES_FUZZ_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        let seeds = try Self.seedFiles()
        try #require(!seeds.isEmpty)

        try withTemporaryDirectory { folder in
            let output = environment["VIBES_FUZZ_OUT"].flatMap { $0.isEmpty ? nil : $0 } ?? folder
            try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
            let inputPath = output + "/current-input"
            print("ImportFuzz: seed \(seed) (replay with VIBES_FUZZ_SEED=\(seed)), \(seconds) s, input in \(inputPath)")
            let store = try LibraryStore(path: folder + "/library.sqlite")
            let clock = ContinuousClock()
            let deadline = clock.now + .seconds(seconds)
            var iteration = 0
            var outcomes: [String: Int] = [:]
            while clock.now < deadline {
                iteration += 1
                let (name, original) = seeds[random.next(below: seeds.count)]
                var bytes = original
                var applied: [String] = []
                for _ in 0...random.next(below: 3) {
                    applied.append(Self.mutate(&bytes, using: &random))
                }
                var options = ImportOptions(force: true)
                options.skipInvalid = iteration % 3 == 0
                if iteration % 4 == 0 {
                    options.format = ImportFormat.allCases[random.next(below: ImportFormat.allCases.count)]
                }
                let note = """
                    seed \(seed) iteration \(iteration) (VIBES_FUZZ_SEED=\(seed))
                    from \(name), \(bytes.count) bytes
                    mutations: \(applied.joined(separator: "; "))
                    options: skipInvalid \(options.skipInvalid), format \(options.format?.rawValue ?? "detected")

                    """
                try Data(note.utf8).write(to: URL(fileURLWithPath: inputPath + ".txt"))
                try Data(bytes).write(to: URL(fileURLWithPath: inputPath))
                outcomes[Self.importOnce(store, path: inputPath, options: options, context: note), default: 0] += 1
            }
            print("ImportFuzz: \(iteration) inputs, outcomes \(outcomes.sorted { $0.key < $1.key })")
            try Self.expectOnlyValidValues(in: store)
        }
    }

    @Test func everySavedCrasherImportsOrFailsCleanly() throws {
        let folder = (Fixtures.path("fuzz-crashers/README.md") as NSString).deletingLastPathComponent
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0 != "README.md" }.sorted()
        #expect(names.count >= 7)
        let readme = String(decoding: Fixtures.data("fuzz-crashers/README.md"), as: UTF8.self)
        try withTemporaryDirectory { directory in
            let store = try LibraryStore(path: directory + "/library.sqlite")
            for name in names {
                #expect(readme.contains("`\(name)`"), "describe \(name) in fuzz-crashers/README.md")
                for skipInvalid in [false, true] {
                    var options = ImportOptions(force: true)
                    options.skipInvalid = skipInvalid
                    _ = Self.importOnce(store, path: folder + "/" + name, options: options, context: name)
                }
            }
            try Self.expectOnlyValidValues(in: store)
        }
    }

    // MARK: - Importing

    /// Imports `path`, checks any error's text, and names the outcome.
    private static func importOnce(
        _ store: LibraryStore,
        path: String,
        options: ImportOptions,
        context: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> String {
        do {
            let summary = try store.importFile(at: path, options: options)
            return "imported " + summary.format.rawValue
        } catch let error as ImportError {
            let text = error.description
            for foreign in ["Error Domain", "NSCocoaErrorDomain", "couldn’t be read", "couldn't be read"] {
                #expect(!text.contains(foreign), "\(context)\(text)", sourceLocation: sourceLocation)
            }
            #expect(text.count < 2000, "\(context)a \(text.count)-character message", sourceLocation: sourceLocation)
            return "refused"
        } catch {
            return "failed \(type(of: error))"
        }
    }

    /// Nothing the store holds is invalid, whatever was imported.
    private static func expectOnlyValidValues(
        in store: LibraryStore,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let valid = Track.validDurationMS
        var checks = [
            "SELECT count(*) FROM tracks WHERE duration_ms NOT BETWEEN \(valid.lowerBound) AND \(valid.upperBound)",
            "SELECT count(*) FROM plays WHERE ms_played NOT BETWEEN \(valid.lowerBound) AND \(valid.upperBound)",
        ]
        for feature in AudioFeature.all {
            let range = feature.validRange
            checks.append(
                "SELECT count(*) FROM audio_features WHERE \(feature.rawValue) NOT BETWEEN \(range.lowerBound) AND \(range.upperBound)"
            )
        }
        for sql in checks {
            #expect(try count(store, sql) == 0, "\(sql)", sourceLocation: sourceLocation)
        }
        let integrity = try store.database.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") }
        #expect(integrity == "ok", sourceLocation: sourceLocation)
    }

    // MARK: - Inputs

    private static func seedFiles() throws -> [(name: String, bytes: [UInt8])] {
        let root = (Fixtures.path("csv/tidytuesday-excerpt.csv") as NSString).deletingLastPathComponent
        let fixtures = (root as NSString).deletingLastPathComponent
        var seeds: [(String, [UInt8])] = []
        for folder in seedFolders {
            let directory = fixtures + "/" + folder
            for name in try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
            where name.hasSuffix(".csv") || name.hasSuffix(".json") {
                guard let data = FileManager.default.contents(atPath: directory + "/" + name),
                    data.count < maximumSeedSize
                else { continue }
                seeds.append((folder + "/" + name, [UInt8](data)))
            }
        }
        return seeds
    }

    /// Applies one random mutation to `bytes`; returns its description.
    static func mutate(_ bytes: inout [UInt8], using random: inout SplitMix64) -> String {
        func position(inclusive: Bool = false) -> Int {
            random.next(below: bytes.count + (inclusive || bytes.isEmpty ? 1 : 0))
        }
        // Out of 20: most mutations keep the file readable, so that rows reach the writer; a few
        // (truncation, nesting, a huge header) break it at once.
        switch random.next(below: 20) {
        case 0, 1:
            guard !bytes.isEmpty else { return "nothing to flip" }
            let at = position()
            let bit = UInt8(1) << UInt8(random.next(below: 8))
            bytes[at] ^= bit
            return "flip bit \(bit) at \(at)"
        case 2:
            guard !bytes.isEmpty else { return "nothing to delete" }
            let at = position()
            let length = Swift.min(1 + random.next(below: 16), bytes.count - at)
            bytes.removeSubrange(at..<(at + length))
            return "delete \(length) at \(at)"
        case 3, 4:
            let token = extremeNumbers[random.next(below: extremeNumbers.count)]
            let at = position(inclusive: true)
            bytes.insert(contentsOf: token.utf8, at: at)
            return "insert \(token) at \(at)"
        case 5, 6, 7, 8, 9, 10, 11:
            // Replace a whole number in the file, where a reader expects one.
            let token = extremeNumbers[random.next(below: extremeNumbers.count)]
            let starts = bytes.indices.filter { index in
                isNumberByte(bytes[index]) && (index == 0 || !isNumberByte(bytes[index - 1]))
            }
            guard !starts.isEmpty else { return "no number to replace" }
            let start = starts[random.next(below: starts.count)]
            var end = start
            while end < bytes.count, isNumberByte(bytes[end]) { end += 1 }
            bytes.replaceSubrange(start..<end, with: token.utf8)
            return "replace number at \(start) with \(token)"
        case 12:
            let at = position(inclusive: true)
            bytes.removeSubrange(at...)
            return "truncate at \(at)"
        case 13, 14:
            let target = [UInt8(ascii: ","), UInt8(ascii: "\"")][random.next(below: 2)]
            let places = bytes.indices.filter { bytes[$0] == target }
            guard !places.isEmpty else { return "no \(Character(Unicode.Scalar(target))) to change" }
            let at = places[random.next(below: places.count)]
            if random.next(below: 2) == 0 {
                bytes.remove(at: at)
                return "remove \(Character(Unicode.Scalar(target))) at \(at)"
            }
            bytes.insert(target, at: at)
            return "duplicate \(Character(Unicode.Scalar(target))) at \(at)"
        case 15, 16:
            // A control character inside a name: just after an opening quote or a comma.
            let control: [UInt8] = [0x1B, 0x07, 0x0D, 0x00, 0x0A, 0x7F]
            let byte = control[random.next(below: control.count)]
            let places = bytes.indices.filter { bytes[$0] == UInt8(ascii: "\"") || bytes[$0] == UInt8(ascii: ",") }
            let at = places.isEmpty ? position(inclusive: true) : places[random.next(below: places.count)] + 1
            bytes.insert(byte, at: at)
            return "insert control 0x\(String(byte, radix: 16)) at \(at)"
        case 17:
            let depth = 1 + random.next(below: 100_000)
            let opener: [UInt8] = random.next(below: 2) == 0 ? Array("[".utf8) : Array(#"{"a":"#.utf8)
            bytes.insert(contentsOf: Array([[UInt8]](repeating: opener, count: depth).joined()), at: 0)
            return "prefix \(depth) × \(String(decoding: opener, as: UTF8.self))"
        case 18:
            // A header with many columns, some of them feature names.
            let columns = 1 + random.next(below: 50_000)
            let names = ["danceability", "energy", "key", "tempo", "duration_ms", "Track URI", "x"]
            var header = (0..<columns).map { index in
                names[index % names.count] + (index < names.count ? "" : "\(index)")
            }
            .joined(separator: ",")
            header += "\n"
            let firstLineEnd = bytes.firstIndex(of: 0x0A).map { $0 + 1 } ?? bytes.count
            bytes.replaceSubrange(0..<firstLineEnd, with: header.utf8)
            return "header of \(columns) columns"
        default:
            // A line repeated: duplicate keys, rows and IDs.
            guard let start = bytes.indices.randomElement(using: &random) else { return "no line to repeat" }
            let lineStart = bytes[..<start].lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
            let lineEnd = bytes[start...].firstIndex(of: 0x0A).map { $0 + 1 } ?? bytes.count
            let line = Array(bytes[lineStart..<lineEnd])
            let times = 1 + random.next(below: 3)
            for _ in 0..<times { bytes.insert(contentsOf: line, at: lineEnd) }
            return "repeat the line at \(lineStart) \(times) times"
        }
    }

    private static func isNumberByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: ".")
            || byte == UInt8(ascii: "-")
    }
}
