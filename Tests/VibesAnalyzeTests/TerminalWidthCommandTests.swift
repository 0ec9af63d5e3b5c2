import Foundation
import Ingest
import Testing
import VibesTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Tables on a real pseudo-terminal of a given width, and the same commands piped.
@Suite(.serialized)
struct TerminalWidthCommandTests {
    /// Runs the built tool with standard output on a new pseudo-terminal `columns` wide, and
    /// returns what it printed there (line ends as `\n`) with its exit status.
    ///
    /// The tool inherits this process's environment without `COLUMNS` and `NO_COLOR`, plus
    /// `environment` (by default `NO_COLOR=1`).
    static func runInTerminal(
        _ arguments: [String],
        columns: Int,
        standardErrorToo: Bool = false,
        environment: [String: String] = ["NO_COLOR": "1"]
    ) throws -> (status: Int32, output: String) {
        // posix_openpt and friends are in the C library but not in Swift's Glibc module.
        let library = dlopen(nil, RTLD_NOW)
        func function<T>(_ name: String, as type: T.Type) throws -> T {
            unsafeBitCast(try #require(dlsym(library, name), "no \(name)"), to: type)
        }
        let openPrimary = try function("posix_openpt", as: (@convention(c) (Int32) -> Int32).self)
        let grant = try function("grantpt", as: (@convention(c) (Int32) -> Int32).self)
        let unlock = try function("unlockpt", as: (@convention(c) (Int32) -> Int32).self)
        let secondaryName = try function(
            "ptsname",
            as: (@convention(c) (Int32) -> UnsafeMutablePointer<CChar>?).self
        )
        let primary = openPrimary(O_RDWR | O_NOCTTY)
        try #require(primary >= 0 && grant(primary) == 0 && unlock(primary) == 0)
        defer { close(primary) }
        let name = String(cString: try #require(secondaryName(primary)))
        let secondary = open(name, O_RDWR | O_NOCTTY)
        try #require(secondary >= 0)
        var size = winsize(ws_row: 60, ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        try #require(ioctl(secondary, UInt(TIOCSWINSZ), &size) == 0)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLineTool.executablePath)
        process.arguments = arguments
        var inherited = ProcessInfo.processInfo.environment
        inherited["COLUMNS"] = nil
        inherited["NO_COLOR"] = nil
        process.environment = inherited.merging(environment) { _, given in given }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle(fileDescriptor: secondary, closeOnDealloc: false)
        process.standardError =
            standardErrorToo ? FileHandle(fileDescriptor: secondary, closeOnDealloc: false) : FileHandle.nullDevice
        try process.run()
        close(secondary)
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(primary, &buffer, buffer.count)
            if count <= 0 { break }  // EIO once the tool has exited and closed its side
            bytes += buffer[0..<count]
        }
        process.waitUntilExit()
        let text = String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
        return (process.terminationStatus, text)
    }

    /// A store with the bundled sample and one clustering run (`cluster --k 6`), in `folder`,
    /// made through the library: what these tests run through the built tool is what they print.
    static func sampleStore(in folder: String) async throws -> String {
        let db = folder + "/library.sqlite"
        let store = try LibraryStore(path: db)
        _ = try store.importFile(at: SampleLibrary.path)
        try await PlaylistsCommandTests.cluster(store, k: 6)
        return db
    }

    @Test func everyTableFitsEightyColumnsOnATerminalAndIsWholeWhenPiped() async throws {
        try await withTemporaryDirectory { folder in
            let db = try await TerminalWidthCommandTests.sampleStore(in: folder)
            let commands = [
                ["recommend", "--db", db, "--mood", "chill", "-n", "15"],
                ["recommend", "--db", db, "--mood", "chill", "--mood", "energetic", "-n", "15"],
                ["playlist", "build", "--db", db, "--mood", "energetic", "-n", "15"],
                ["vibes", "--db", db],
                ["vibes", "--list", "--db", db],
                ["report", "--db", db],
                ["library", "--db", db],
                ["features", "status", "--db", db],
                ["eval", "--db", db, "--sample", "200", "--resamples", "50", "--clusters", "3"],
                ["eval", "--db", db, "--ordering", "--resamples", "50"],
            ]
            for arguments in commands {
                let terminal = try TerminalWidthCommandTests.runInTerminal(arguments, columns: 80)
                #expect(terminal.status == 0, "\(arguments)")
                let lines = terminal.output.split(separator: "\n")
                #expect(
                    lines.count >= (arguments[0] == "vibes" && arguments[1] == "--list" ? 1 : 3),
                    "\(arguments): \(terminal.output)"
                )
                for line in lines {
                    #expect(line.count <= 80, "\(arguments): \(line.count) columns: \(line)")
                }
                let piped = try await CommandLineTool.run(arguments)
                #expect(piped.status == 0)
                // The report writes ranges as "a … b" itself; no other output has an ellipsis.
                if arguments[0] != "report" {
                    #expect(!piped.stdout.contains("…"), "\(arguments): piped output was shortened")
                } else {
                    #expect(
                        piped.stdout.split(separator: "\n").contains { $0.count > 80 },
                        "the report was cut when piped"
                    )
                }
            }
            // The reasons a track was picked appear when piped or with --wide, not on 80 columns.
            let recommend = ["recommend", "--db", db, "--mood", "chill", "-n", "15"]
            #expect(try await CommandLineTool.run(recommend).stdout.contains("σ ("))
            #expect(!(try TerminalWidthCommandTests.runInTerminal(recommend, columns: 80).output.contains("σ (")))
            let wide = try TerminalWidthCommandTests.runInTerminal(recommend + ["--wide"], columns: 80)
            #expect(wide.output.contains("σ ("))
            #expect(wide.output.split(separator: "\n").contains { $0.count > 80 })
        }
    }

    /// Everything a command prints on a terminal, stdout and stderr, progress redraws included,
    /// fits 80 columns: playlists, a cluster's closing lines, import totals, eval's progress.
    @Test func everyLineOnATerminalFitsItsWidthDiagnosticsAndProgressToo() async throws {
        try await withTemporaryDirectory { folder in
            let db = try await TerminalWidthCommandTests.sampleStore(in: folder)
            let commands = [
                [
                    "import", "--db", db, Fixtures.path("exportify/Liked_Songs.csv"),
                    Fixtures.path("exportify/Older_Layout.csv"),
                ],
                ["cluster", "--db", db, "--k", "5"],
                ["playlists", "--db", db],
                ["playlists", "show", "liked", "--db", db],
                ["vibes", "1", "--db", db],
                ["vibes", "--list", "--db", db],
                ["eval", "--db", db, "--sample", "300", "--resamples", "50", "--clusters", "0"],
            ]
            var printed: [String: String] = [:]
            for arguments in commands {
                let terminal = try TerminalWidthCommandTests.runInTerminal(
                    arguments,
                    columns: 80,
                    standardErrorToo: true
                )
                #expect(terminal.status == 0, "\(arguments): \(terminal.output)")
                let lines = terminal.output.replacingOccurrences(of: "\u{1B}[K", with: "")
                    .split(whereSeparator: { $0 == "\n" || $0 == "\r" })
                #expect(!lines.isEmpty, "\(arguments)")
                for line in lines {
                    #expect(line.count <= 80, "\(arguments): \(line.count) columns: \(line)")
                }
                printed[
                    arguments[0] + (arguments.count > 1 && !arguments[1].hasPrefix("-") ? " " + arguments[1] : "")
                ] =
                    terminal.output
            }
            #expect(printed["import"]?.contains("Total: 2 of 2 files imported") == true, "\(printed["import"] ?? "")")
            #expect(printed["cluster"]?.contains("Saved run 2 of the library.") == true)
            #expect(printed["playlists"]?.contains("Liked Songs") == true)
            #expect(printed["playlists show"]?.contains("Playlist 'Liked Songs'") == true)
            // `vibes N` once meant run N: a note says so when N is also a run.
            #expect(printed["vibes 1"]?.contains("note: `vibes 1` shows vibe 1 of the current run") == true)
            #expect(printed["eval"]?.contains("ETA") == true)
            // The list marks the current run and says what each run was made of.
            #expect(printed["vibes"]?.contains("*2  ") == true && printed["vibes"]?.contains("  library  k=5") == true)
        }
    }

    @Test func aNarrowerTerminalShortensNamesWithAnEllipsis() async throws {
        try await withTemporaryDirectory { folder in
            let db = try await TerminalWidthCommandTests.sampleStore(in: folder)
            let arguments = ["recommend", "--db", db, "--mood", "chill", "-n", "20"]
            let narrow = try TerminalWidthCommandTests.runInTerminal(arguments, columns: 50)
            let lines = narrow.output.split(separator: "\n")
            #expect(lines.count == 20)
            #expect(lines.allSatisfy { $0.count <= 50 }, "\(narrow.output)")
            #expect(lines.contains { $0.contains("…") })
            // The same tracks in the same order as the wide listing.
            let piped = try await CommandLineTool.run(arguments)
            let ranks = { (text: String) in text.split(separator: "\n").map { $0.prefix(5) } }
            #expect(ranks(narrow.output) == ranks(piped.stdout))
        }
    }

    /// Long steps draw a progress line with rate and ETA on a terminal's stderr, and nothing when
    /// piped or with --quiet.
    @Test func longStepsShowProgressOnATerminalOnly() async throws {
        try await withTemporaryDirectory { folder in
            let db = try await TerminalWidthCommandTests.sampleStore(in: folder)
            let steps: [(arguments: [String], label: String)] = [
                (["cluster", "--db", db, "--k", "auto", "--max-k", "5", "--seed", "1"], "Choosing k ["),
                (["eval", "--db", db, "--sample", "300", "--resamples", "50", "--clusters", "0"], "Searching"),
                (["eval", "--db", db, "--ordering", "--resamples", "50"], "Ordering playlists (tracks) ["),
            ]
            for (arguments, label) in steps {
                let terminal = try TerminalWidthCommandTests.runInTerminal(
                    arguments,
                    columns: 120,
                    standardErrorToo: true
                )
                #expect(terminal.status == 0, "\(arguments)")
                #expect(terminal.output.contains(label) && terminal.output.contains("/s  ETA "), "\(arguments)")
                let quiet = try TerminalWidthCommandTests.runInTerminal(
                    arguments + ["--quiet"],
                    columns: 120,
                    standardErrorToo: true
                )
                #expect(!quiet.output.contains("ETA"), "\(arguments) --quiet")
                let piped = try await CommandLineTool.run(arguments)
                #expect(piped.status == 0)
                #expect(!piped.stderr.contains("ETA") && !piped.stderr.contains("\r"), "\(arguments) piped")
            }
        }
    }
}
