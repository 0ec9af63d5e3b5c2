import Features
import Foundation
import GRDB
import Testing
import VibesTestSupport

@testable import Ingest

#if canImport(Glibc)
import Glibc
#endif

/// `--out` never replaces what is not a regular file, option values out of range are usage
/// errors, and the store's own failures name the store: the built tool on real files.
struct HostileOutputCommandTests {
    static func importedLibrary(in folder: String) async throws -> String {
        let db = folder + "/library.sqlite"
        let result = try await CommandLineTool.run(["import", "--db", db, StoreSafetyCommandTests.excerpt])
        #expect(result.status == 0, "\(result.stderr)")
        return db
    }

    static func fileType(_ path: String) -> mode_t {
        var info = stat()
        guard lstat(path, &info) == 0 else { return 0 }
        return info.st_mode & S_IFMT
    }

    @Test func aFolderOrALinkToOneIsAUsageErrorAndStaysAsItWas() async throws {
        try await withTemporaryDirectory { folder in
            let db = try await Self.importedLibrary(in: folder)
            let target = folder + "/reports"
            try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: false)
            try FileManager.default.createSymbolicLink(atPath: folder + "/link", withDestinationPath: target)
            for out in [target, folder + "/link"] {
                for command in [["report"], ["playlist", "build", "--mood", "chill", "--export", "m3u"]] {
                    let result = try await CommandLineTool.run(command + ["--db", db, "--out", out])
                    #expect(result.status == 64, "\(command) \(out): \(result.stderr)")
                    #expect(result.stderr.contains("is a folder"), "\(result.stderr)")
                }
            }
            #expect(Self.fileType(target) == S_IFDIR && Self.fileType(folder + "/link") == S_IFLNK)
            #expect(try FileManager.default.contentsOfDirectory(atPath: target).isEmpty)
        }
    }

    @Test func aLinkToARegularFileWritesTheFileAndKeepsTheLink() async throws {
        try await withTemporaryDirectory { folder in
            let db = try await Self.importedLibrary(in: folder)
            let real = folder + "/real.md"
            try "old".write(toFile: real, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: real)
            try FileManager.default.createSymbolicLink(atPath: folder + "/link.md", withDestinationPath: "real.md")
            let result = try await CommandLineTool.run([
                "report", "--db", db, "--format", "markdown", "--out", folder + "/link.md",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(Self.fileType(folder + "/link.md") == S_IFLNK)
            #expect(try String(contentsOfFile: real, encoding: .utf8).hasPrefix("# Mood report"))
            let mode = try FileManager.default.attributesOfItem(atPath: real)[.posixPermissions] as? Int
            #expect(mode == 0o640, "the replaced file keeps its permissions")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder).allSatisfy { !$0.contains("vibes-") })
        }
    }

    @Test func aFIFOIsWrittenInPlaceAndStaysAFIFO() async throws {
        try await withTemporaryDirectory { folder in
            let db = try await Self.importedLibrary(in: folder)
            let fifo = folder + "/pipe"
            #expect(mkfifo(fifo, 0o600) == 0)
            // The reader: everything written to the FIFO, until the writer closes it.
            let reader = Task.detached { () -> Data in
                let handle = FileHandle(forReadingAtPath: fifo)!
                defer { try? handle.close() }
                return handle.readDataToEndOfFile()
            }
            let result = try await CommandLineTool.run([
                "report", "--db", db, "--format", "markdown", "--out", fifo,
            ])
            #expect(result.status == 0, "\(result.stderr)")
            let received = String(decoding: await reader.value, as: UTF8.self)
            #expect(received.hasPrefix("# Mood report"), "the reader got \(received.utf8.count) bytes")
            #expect(Self.fileType(fifo) == S_IFIFO)
        }
    }

    @Test(arguments: ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"])
    func anOpenDescriptorIsWrittenThroughAndNothingIsReplaced(out: String) async throws {
        try await withTemporaryDirectory { folder in
            let db = try await Self.importedLibrary(in: folder)
            let result = try await CommandLineTool.run([
                "report", "--db", db, "--format", "markdown", "--out", out, "--quiet",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            // The command's stdout is a file of the test harness: the report lands in it.
            #expect(result.stdout.hasPrefix("# Mood report"), "\(result.stdout.prefix(200))")
            #expect(Self.fileType("/dev/null") == S_IFCHR)
        }
    }

    @Test func aCharacterDeviceIsWrittenInPlace() async throws {
        try await withTemporaryDirectory { folder in
            let db = try await Self.importedLibrary(in: folder)
            // `/dev/null` itself: the old atomic write replaced it with a regular file when run as root.
            let before = Self.fileType("/dev/null")
            let result = try await CommandLineTool.run(["report", "--db", db, "--out", "/dev/null"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(before == S_IFCHR && Self.fileType("/dev/null") == S_IFCHR)
        }
    }

    @Test(arguments: [
        ["recommend", "--mood", "chill", "--target-energy", "2"],
        ["recommend", "--mood", "chill", "--min-energy", "-0.5"],
        ["recommend", "--mood", "chill", "--max-tempo", "900"],
        ["recommend", "--mood", "chill", "--min-tempo", "150", "--max-tempo", "100"],
        ["playlist", "build", "--mood", "chill", "--min-valence", "1.5"],
        ["playlist", "build", "--mood", "chill", "--target-key", "12"],
    ])
    func anOptionValueOutOfRangeIsAUsageError(arguments: [String]) async throws {
        try await withTemporaryDirectory { folder in
            let db = try await Self.importedLibrary(in: folder)
            let result = try await CommandLineTool.run(arguments + ["--db", db])
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(
                result.stderr.contains("--min-") || result.stderr.contains("--max-")
                    || result.stderr.contains("--target-")
            )
            let json = try await CommandLineTool.run(arguments + ["--db", db, "--json"])
            #expect(json.status == 64)
            let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
            #expect(object?["error"] != nil, "\(json.stdout)")
        }
    }

    @Test func anImportIntoADamagedStoreNamesTheStoreNotTheFile() async throws {
        try await withTemporaryDirectory { folder in
            let db = folder + "/library.sqlite"
            _ = try await CommandLineTool.run(["import", "--db", db, SampleLibrary.path])
            let handle = try FileHandle(forUpdating: URL(fileURLWithPath: db))
            let size = try handle.seekToEnd()
            for offset in stride(from: UInt64(40_960), to: size - 4096, by: 4096 * 3) {
                try handle.seek(toOffset: offset + 100)
                handle.write(Data(repeating: 0xFF, count: 300))
            }
            try handle.close()
            let csv = StoreSafetyCommandTests.excerpt
            let result = try await CommandLineTool.run(["import", "--db", db, csv])
            #expect(result.status == 1 && !result.wasSignalled, "\(result.stderr)")
            #expect(!result.stderr.contains("The library store \(csv)"), "\(result.stderr)")
            #expect(result.stderr.contains(db), "\(result.stderr)")
        }
    }

    /// A store that another process has created but not yet turned into WAL mode: its creator holds
    /// the folder lock and SQLite's write lock. A second command waits for it instead of
    /// failing "busy" at its own switch to WAL mode, as one first open in 80 once did.
    @Test func anOpenDuringAnotherProcesssFirstOpenWaitsItsTurn() async throws {
        try await withTemporaryDirectory { folder in
            let db = folder + "/library.sqlite"
            let lock = open(folder, O_RDONLY | O_DIRECTORY)
            #expect(lock >= 0 && flock(lock, LOCK_EX) == 0)
            // A rollback-journal file with a header, as a new store is before its switch to WAL.
            let creator = try DatabaseQueue(path: db)
            try await creator.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA user_version = 1") }
            let locked = AsyncStream<ContinuousClock.Instant>.makeStream()
            // The creator's write lock (RESERVED), held on a thread of its own for 1.5 s: another
            // connection can still read, but its switch to WAL cannot write, and SQLite does not
            // wait for a lock that a connection already reading asks for.
            let holder = Task.detached {
                try creator.inDatabase { db in
                    try db.execute(sql: "BEGIN IMMEDIATE")
                    locked.continuation.yield(ContinuousClock.now)
                    Thread.sleep(forTimeInterval: 1.5)
                    try db.execute(sql: "COMMIT")
                }
                try creator.close()
                close(lock)  // drops the flock
            }
            // Timed from the lock itself: on a busy machine this task may wake well after it.
            var started = ContinuousClock.now
            for await instant in locked.stream {
                started = instant
                break
            }
            let command = Task {
                try await CommandLineTool.run(["import", "--db", db, StoreSafetyCommandTests.excerpt, "--quiet"])
            }
            try await holder.value
            let result = try await command.value
            #expect(result.status == 0, "\(result.stderr)")
            #expect(ContinuousClock.now - started >= .seconds(1))
            let tracks = try await DatabaseQueue(path: db).read { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM tracks")
            }
            #expect((tracks ?? 0) > 0)
        }
    }

    /// A full disk is called a full disk, by reading commands (which cannot make SQLite's
    /// shared-memory file) and writing ones alike, and the store is left as it was. Needs a small
    /// file system of its own: a tmpfs, which only root may mount.
    @Test func aFullDiskIsCalledAFullDisk() async throws {
        try await withTemporaryDirectory { folder in
            let mountPoint = folder + "/small"
            try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: false)
            guard mount("tmpfs", mountPoint, "tmpfs", 0, "size=8m") == 0 else {
                print(
                    "SKIPPED aFullDiskIsCalledAFullDisk: cannot mount a tmpfs here (\(String(cString: strerror(errno))))"
                )
                return
            }
            defer { umount2(mountPoint, Int32(MNT_DETACH)) }
            let db = mountPoint + "/library.sqlite"
            let imported = try await CommandLineTool.run(["import", "--db", db, SampleLibrary.path])
            #expect(imported.status == 0, "\(imported.stderr)")
            let before = try Data(contentsOf: URL(fileURLWithPath: db))
            // Fill what is left.
            #expect(FileManager.default.createFile(atPath: mountPoint + "/filler", contents: nil))
            let filler = try #require(FileHandle(forWritingAtPath: mountPoint + "/filler"))
            let chunk = Data(repeating: 0, count: 1 << 16)
            while (try? filler.write(contentsOf: chunk)) != nil {}
            try? filler.close()
            for arguments in [["library"], ["report"], ["import", StoreSafetyCommandTests.excerpt]] {
                let result = try await CommandLineTool.run(arguments + ["--db", db])
                #expect(result.status == 1 && !result.wasSignalled, "\(arguments): \(result.stderr)")
                #expect(
                    result.stderr.contains("The disk that holds the library store \(db) is full"),
                    "\(result.stderr)"
                )
                #expect(!result.stderr.contains("permissions"), "\(result.stderr)")
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
        }
    }

    /// A provider that trickles its answer neither hangs `features fetch` (every request has a
    /// whole-request deadline) nor keeps a core busy while it waits: the network waits in the
    /// kernel, as FoundationNetworking's `URLSession` did not (a core at 100 % for the whole wait).
    @Test func aTricklingProviderNeitherHangsNorSpins() async throws {
        try await withTemporaryDirectory { folder in
            let db = folder + "/library.sqlite"
            let store = try LibraryStore(path: db)
            try store.database.write { db in
                let writer = try LibraryWriter(db, runID: nil, fetchedAt: "2026-01-01T00:00:00Z")
                for number in 0..<3 {
                    _ = try writer.write(
                        Track(
                            spotifyID: SpotifyID("T00000000000000000000\(number)"),
                            name: "Song \(number)",
                            artists: ["Band"]
                        )
                    )
                }
            }
            let server = try TricklingServer(bodyLength: 1_000, interval: 0.2)
            defer { server.stop() }
            let started = ContinuousClock.now
            let (status, cpuSeconds) = try spawnMeasuringCPU(
                CommandLineTool.executablePath,
                ["features", "fetch", "--db", db, "--quiet"],
                environment: [
                    "VIBES_RECCOBEATS_API_URL": "http://127.0.0.1:\(server.port)/v1/",
                    "VIBES_HTTP_TIMEOUT": "1",
                ]
            )
            let wall = ContinuousClock.now - started
            #expect(status == 1, "the provider failed, so the command reports it")
            #expect(wall < .seconds(30), "took \(wall)")
            #expect(wall > .seconds(3), "four attempts of a second each, with backoff between them")
            let wallSeconds = Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18
            #expect(cpuSeconds < 0.25 * wallSeconds, "\(cpuSeconds) s of CPU in \(wallSeconds) s")
        }
    }
}

/// Runs `path` with `arguments` (stdout and stderr to /dev/null) and returns its exit status and
/// the CPU time it used, user and system, from `wait4`.
func spawnMeasuringCPU(_ path: String, _ arguments: [String], environment: [String: String]) throws -> (Int32, Double) {
    var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var merged = ProcessInfo.processInfo.environment
    for (key, value) in environment { merged[key] = value }
    let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { for pointer in envp { free(pointer) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, path, &actions, nil, argv, envp)
    guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EINVAL) }
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
    let cpu =
        Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    return ((status >> 8) & 0xFF, cpu)
}
