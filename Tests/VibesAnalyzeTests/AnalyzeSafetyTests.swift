import Foundation
import GRDB
import Testing
import VibesTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `vibes-analyze analyze` on hostile input, through the built tools: streams the audio libraries
/// refuse, special files, names that are not UTF-8, and a store another program is writing. No
/// run may crash or hang, and one bad file never costs the others.
@Suite struct AnalyzeSafetyTests {
    /// How one bounded run ended.
    struct Run {
        var status: Int32
        var wasSignalled: Bool
        var timedOut: Bool
        var stdout: String
        var stderr: String
    }

    /// `vibes-analyze-audio`, built beside `vibes-analyze`.
    static var audioToolPath: String {
        (CommandLineTool.executablePath as NSString).deletingLastPathComponent + "/vibes-analyze-audio"
    }

    /// Runs `executable` with arguments given as bytes (`Process` can only pass UTF-8), killing it
    /// after `timeout`.
    static func run(
        _ executable: String = CommandLineTool.executablePath,
        _ arguments: [[UInt8]],
        timeout: Duration = .seconds(120)
    ) async throws -> Run {
        let base = NSTemporaryDirectory() + "vibes-safety-" + UUID().uuidString
        defer {
            unlink(base + ".out")
            unlink(base + ".err")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, base + ".out", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, base + ".err", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = ([Array(executable.utf8)] + arguments).map { bytes in
            strdup(bytes.map { CChar(bitPattern: $0) } + [0])
        }
        var variables = ProcessInfo.processInfo.environment
        variables["NO_COLOR"] = "1"
        let environment = variables.map { key, value -> UnsafeMutablePointer<CChar>? in strdup("\(key)=\(value)") }
        defer { for pointer in argv + environment { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv + [nil], environment + [nil])
        try #require(spawned == 0, "posix_spawn: \(String(cString: strerror(spawned)))")

        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var status: Int32 = 0
        var timedOut = false
        while waitpid(pid, &status, WNOHANG) == 0 {
            if clock.now > deadline {
                timedOut = true
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                break
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        let read = { (path: String) in
            String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
        }
        let signal = status & 0x7F
        return Run(
            status: signal == 0 ? (status >> 8) & 0xFF : 128 + signal,
            wasSignalled: signal != 0,
            timedOut: timedOut,
            stdout: read(base + ".out"),
            stderr: read(base + ".err")
        )
    }

    static func run(_ arguments: [String], timeout: Duration = .seconds(120)) async throws -> Run {
        try await run(CommandLineTool.executablePath, arguments.map { Array($0.utf8) }, timeout: timeout)
    }

    private func files(in json: String) throws -> [[String: Any]] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        return try #require(object["files"] as? [[String: Any]])
    }

    private func storedPaths(in db: String) throws -> [String] {
        try DatabaseQueue(path: db).read { db in
            try String.fetchAll(db, sql: "SELECT path FROM local_files WHERE error IS NULL ORDER BY path")
        }
    }

    // MARK: - Streams the libraries refuse

    @Test func unsupportedRatesAndChannelsFailOnlyTheirFile() async throws {
        try await withTemporaryDirectory { directory in
            let db = directory + "/library.sqlite"
            try TestSignals.writeWAV([Float](repeating: 0.2, count: 8), sampleRate: 1, to: directory + "/1hz.wav")
            try TestSignals.writeWAV(
                [Float](repeating: 0.2, count: 100_000),
                sampleRate: 10_000_000,
                to: directory + "/10mhz.wav"
            )
            try TestSignals.writeWAV([Float](repeating: 0.2, count: 100), channels: 0, to: directory + "/none.wav")
            try TestSignals.writeWAV(
                TestSignals.clicks(bpm: 120, seconds: 1, sampleRate: 8_000),
                sampleRate: 8_000,
                channels: 100,
                to: directory + "/100ch.wav"
            )
            try TestSignals.writeWAV(TestSignals.clicks(bpm: 120, seconds: 4), to: directory + "/good.wav")
            // The good file comes last: a crash on any bad one would lose it.
            let names = ["1hz.wav", "10mhz.wav", "none.wav", "100ch.wav", "good.wav"]
            let result = try await Self.run(
                ["analyze", "--db", db, "--json", "--jobs", "1"] + names.map { directory + "/" + $0 }
            )
            #expect(!result.timedOut)
            #expect(!result.wasSignalled, "crashed: \(result.stderr)")
            #expect(result.status == 1, "stderr: \(result.stderr)")
            let files = try files(in: result.stdout)
            #expect(files.count == names.count)
            func error(of name: String) -> String? {
                files.first { ($0["path"] as? String) == directory + "/" + name }?["error"] as? String
            }
            #expect(error(of: "1hz.wav") == "the sample rate 1 Hz is not supported (expected 4000 to 768000 Hz)")
            #expect(
                error(of: "10mhz.wav") == "the sample rate 10000000 Hz is not supported (expected 4000 to 768000 Hz)"
            )
            #expect(error(of: "100ch.wav") == "100 channels are not supported (expected 1 to 64)")
            #expect(error(of: "none.wav")?.isEmpty == false)
            let good = try #require(files.first { ($0["path"] as? String) == directory + "/good.wav" })
            #expect(good["error"] is NSNull)
            #expect((good["track_id"] as? String)?.hasPrefix("local:") == true)
            #expect(try storedPaths(in: db) == [directory + "/good.wav"])
        }
    }

    // MARK: - Special files

    @Test func aFIFOAndADeviceNamedOnTheCommandLineAreRefusedBeforeOpening() async throws {
        try await withTemporaryDirectory { directory in
            let db = directory + "/library.sqlite"
            let fifo = directory + "/pipe.wav"
            try #require(mkfifo(fifo, 0o600) == 0)
            let good = directory + "/good.wav"
            try TestSignals.writeWAV(TestSignals.clicks(bpm: 120, seconds: 4), to: good)
            // Before: the FIFO blocked in open() and /dev/zero was hashed forever.
            let result = try await Self.run(
                ["analyze", "--db", db, "--jobs", "1", fifo, "/dev/zero", good],
                timeout: .seconds(60)
            )
            #expect(!result.timedOut, "hung: \(result.stdout)")
            #expect(result.status == 1, "stderr: \(result.stderr)")
            #expect(result.stdout.contains("✗ \(fifo): a FIFO (named pipe), not a regular file"), "\(result.stdout)")
            #expect(result.stdout.contains("✗ /dev/zero: a character device, not a regular file"))
            #expect(result.stdout.contains("Analysed 1 of 3 files"))
            #expect(result.stdout.contains("2 failed"))
            #expect(try storedPaths(in: db) == [good])
        }
    }

    // MARK: - Names that are not UTF-8

    @Test func namesThatAreNotUTF8AreAnalysedAndShownEscaped() async throws {
        try await withTemporaryDirectory { directory in
            let db = directory + "/library.sqlite"
            let folder = directory + "/Music"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try TestSignals.writeWAV(TestSignals.clicks(bpm: 100, seconds: 4), to: folder + "/plain.wav")
            // "café.wav" in Latin-1: the byte 0xE9 alone is not UTF-8.
            let name = Array(folder.utf8) + Array("/caf".utf8) + [0xE9] + Array(".wav".utf8)
            let scratch = directory + "/scratch.wav"
            try TestSignals.writeWAV(TestSignals.clicks(bpm: 130, seconds: 4), to: scratch)
            try #require(rename(scratch, name.map { CChar(bitPattern: $0) } + [0]) == 0)
            defer { unlink(name.map { CChar(bitPattern: $0) } + [0]) }
            let escaped = folder + "/caf\\xE9.wav"

            let inFolder = try await Self.run(["analyze", "--db", db, folder])
            #expect(inFolder.status == 0, "stderr: \(inFolder.stderr)")
            #expect(inFolder.stdout.contains("Analysed 2 of 2 files"), "\(inFolder.stdout)")
            #expect(inFolder.stdout.contains("✓ \(escaped): "))
            #expect(try storedPaths(in: db) == [escaped, folder + "/plain.wav"])

            // Named directly, as its bytes, to `vibes-analyze analyze`, which hands its raw
            // arguments to the program that analyses, and to that program itself.
            for (tool, prefix) in [
                (CommandLineTool.executablePath, [Array("analyze".utf8)]), (Self.audioToolPath, []),
            ] {
                let named = try await Self.run(
                    tool,
                    prefix + [Array("--db".utf8), Array(db.utf8), Array("--force".utf8), name]
                )
                #expect(named.status == 0, "\(tool) stderr: \(named.stderr)")
                #expect(named.stdout.contains("✓ \(escaped): "), "\(tool): \(named.stdout)")
                #expect(named.stdout.contains("Analysed 1 of 1 files"))
                #expect(!named.stderr.contains("no such file"))
            }
        }
    }

    // MARK: - A busy store

    /// Holds the store's write lock from this process as an import does, with the note an import
    /// leaves beside the store, until `release` is called.
    final class StoreLock: Sendable {
        let queue: DatabaseQueue
        let db: String

        init(db: String) throws {
            self.db = db
            var configuration = Configuration()
            configuration.allowsUnsafeTransactions = true
            queue = try DatabaseQueue(path: db, configuration: configuration)
            // An import has written before: a write-ahead log that is not empty, without which
            // opening the store would itself need the write lock (GRDB makes the log at open).
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "CREATE TABLE test_lock (id INTEGER); DROP TABLE test_lock")
                try db.execute(sql: "BEGIN IMMEDIATE")
            }
            let note = #"{"activity":"import","pid":\#(getpid())}"#
            try Data(note.utf8).write(to: URL(fileURLWithPath: db + "-writer"))
        }

        func release() throws {
            unlink(db + "-writer")
            try queue.writeWithoutTransaction { try $0.execute(sql: "COMMIT") }
        }
    }

    /// Three click tracks in `directory`, the first already analysed into a new library there.
    static func libraryWithOneOfThreeSongs(in directory: String) async throws -> (db: String, songs: [String]) {
        let db = directory + "/library.sqlite"
        let songs = (0..<3).map { directory + "/song-\($0).wav" }
        for (index, song) in songs.enumerated() {
            try TestSignals.writeWAV(TestSignals.clicks(bpm: 100 + Double(index) * 10, seconds: 3), to: song)
        }
        let first = try await Self.run(["analyze", "--db", db, songs[0]])
        try #require(first.status == 0, "stderr: \(first.stderr)")
        return (db, songs)
    }

    @Test func aBusyStoreIsSaidAsEveryCommandSaysItAndNoFileCountsAsFailed() async throws {
        try await withTemporaryDirectory { directory in
            let (db, songs) = try await Self.libraryWithOneOfThreeSongs(in: directory)

            let lock = try StoreLock(db: db)
            let refused = try await Self.run(["analyze", "--db", db, "--no-wait", songs[1], songs[2]])
            let waitedOut = try await Self.run([
                "analyze", "--db", db, "--wait", "1", "--jobs", "1", songs[1], songs[2],
            ])
            try lock.release()
            // Waiting a second and giving up is the same: a busy store, no failed file.
            #expect(waitedOut.status == 1)
            #expect(waitedOut.stderr.contains("is busy: another vibes-analyze (import, pid \(getpid()))"))
            #expect(!waitedOut.stdout.contains("failed"), "\(waitedOut.stdout)")
            #expect(waitedOut.stdout.contains("2 not stored because the library store is busy"))
            #expect(refused.status == 1)
            #expect(!refused.stderr.contains("SQLite error"), "\(refused.stderr)")
            #expect(
                refused.stderr.contains(
                    "Error: The library store \(db) is busy: another vibes-analyze (import, pid \(getpid())) is writing to it. Try again when it has finished, or give --wait SECONDS."
                ),
                "\(refused.stderr)"
            )
            #expect(!refused.stdout.contains("failed"), "\(refused.stdout)")
            #expect(refused.stdout.contains("2 not stored because the library store is busy"), "\(refused.stdout)")
            #expect(try storedPaths(in: db) == [songs[0]])
        }
    }

    @Test func aFileThatOnlyWaitedForTheStoreIsStored() async throws {
        try await withTemporaryDirectory { directory in
            let (db, songs) = try await Self.libraryWithOneOfThreeSongs(in: directory)

            let lock = try StoreLock(db: db)
            let base = NSTemporaryDirectory() + "vibes-wait-" + UUID().uuidString
            let waiting = Task {
                try await CommandLineTool.run(
                    ["analyze", "--db", db, "--wait", "30", "--jobs", "1", songs[1], songs[2]],
                    outputBase: base
                )
            }
            // Released once the tool says it waits (after about a second), well before its limit.
            let clock = ContinuousClock()
            let deadline = clock.now + .seconds(60)
            var sawWait = false
            while clock.now < deadline {
                let stderr = FileManager.default.contents(atPath: base + ".err").map {
                    String(decoding: $0, as: UTF8.self)
                }
                if stderr?.contains("Waiting for another vibes-analyze (import, pid \(getpid()))") == true {
                    sawWait = true
                    break
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            try lock.release()
            let result = try await waiting.value
            #expect(sawWait, "the tool never said it waited: \(result.stderr)")
            #expect(result.status == 0, "stdout: \(result.stdout)\nstderr: \(result.stderr)")
            #expect(result.stdout.contains("Analysed 2 of 2 files"), "\(result.stdout)")
            #expect(!result.stdout.contains("failed"))
            #expect(try storedPaths(in: db) == songs)
        }
    }
}
