import Foundation
import GRDB
import Testing
import VibesTestSupport

@testable import Ingest

/// The store against extreme values, concurrent commands, damage and hostile names, through the
/// built tool as a user runs it.
/// Serialized: each test runs several tool processes, and a 2-core CI machine shares them with
/// every other suite.
@Suite(.serialized, .timeLimit(.minutes(10)))
struct StoreSafetyCommandTests {
    static let excerpt = Fixtures.path("csv/tidytuesday-excerpt.csv")

    /// The excerpt with `column` of data row `row` (1-based) set to `value`.
    static func excerpt(setting column: String, ofRow row: Int, to value: String) throws -> String {
        var lines = try String(contentsOfFile: excerpt, encoding: .utf8).split(separator: "\n").map(String.init)
        let header = lines[0].split(separator: ",").map(String.init)
        let index = try #require(header.firstIndex(of: column))
        var fields = lines[row].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        fields[index] = value
        lines[row] = fields.joined(separator: ",")
        return lines.joined(separator: "\n") + "\n"
    }

    static func trackCount(_ db: String) throws -> Int {
        try count(db, "SELECT count(*) FROM tracks")
    }

    /// The first column of the first row of `sql` on the store at `db`, read outside the tool.
    static func count(_ db: String, _ sql: String) throws -> Int {
        try DatabaseQueue(path: db).read { try Int.fetchOne($0, sql: sql) ?? -1 }
    }

    /// Writes to the store at `db` outside the tool (as another version would have).
    static func write(_ db: String, _ body: (Database) throws -> Void) throws {
        let queue = try DatabaseQueue(path: db)
        try queue.write { try body($0) }
        try queue.close()
    }

    /// Reads from the store at `db` outside the tool.
    static func read(_ db: String, _ body: (Database) throws -> Void) throws {
        try DatabaseQueue(path: db).read { try body($0) }
    }

    /// Whether `text` holds a control character other than newline and tab.
    static func hasControlCharacters(_ text: String) -> Bool {
        text.unicodeScalars.contains {
            ($0.value < 0x20 && $0 != "\n" && $0 != "\t") || (0x7F...0x9F).contains($0.value)
        }
    }

    // MARK: - Extreme values

    @Test(arguments: [
        ("tempo", "1e300", "from 0 to 1000 BPM"), ("duration_ms", "1e30", "from 0 to 360000000 ms"),
        ("key", "1e300", "from -1 to 11 (whole numbers)"), ("loudness", "-1e308", "from -100 to 20 dB"),
        ("energy", "1.5", "from 0 to 1"),
    ])
    func anOutOfRangeNumberIsRefusedWithItsPlace(column: String, value: String, range: String) async throws {
        try await withTemporaryDirectory { folder in
            let db = folder + "/library.sqlite"
            let file = folder + "/extreme.csv"
            try StoreSafetyCommandTests.excerpt(setting: column, ofRow: 5, to: value)
                .write(toFile: file, atomically: true, encoding: .utf8)
            let refused = try await CommandLineTool.run(["import", "--db", db, file])
            #expect(refused.status == 1 && !refused.wasSignalled, "\(refused.stderr)")
            #expect(refused.stderr.contains("\(file):6:"), "\(refused.stderr)")  // data row 5 is line 6
            #expect(refused.stderr.contains("field \"\(column)\": expected"), "\(refused.stderr)")
            #expect(refused.stderr.contains(range), "\(refused.stderr)")
            #expect(try StoreSafetyCommandTests.trackCount(db) == 0)

            let kept = try await CommandLineTool.run(["import", "--db", db, "--skip-invalid", file])
            #expect(kept.status == 0, "\(kept.stderr)")
            #expect(
                kept.stdout.contains("invalid values kept as missing (--skip-invalid): \(column) 1"),
                "\(kept.stdout)"
            )
            #expect(kept.stdout.contains("rejected: 0"))
            #expect(try StoreSafetyCommandTests.trackCount(db) == 36)
            // The whole report and a clustering use every feature; the next test runs every
            // command on stored extreme values.
            for arguments in [["report", "--format", "html"], ["cluster", "--k", "3"]] {
                let result = try await CommandLineTool.run(arguments + ["--db", db])
                #expect(result.status == 0 && !result.wasSignalled, "\(arguments): \(result.stderr)")
            }
        }
    }

    @Test func aStoreHoldingExtremeValuesStillAnswersEveryCommand() async throws {
        try await withTemporaryDirectory { folder in
            let db = folder + "/library.sqlite"
            let imported = try await CommandLineTool.run(["import", "--db", db, StoreSafetyCommandTests.excerpt])
            #expect(imported.status == 0)
            // What versions without range checks stored: values written behind the importer's back.
            try StoreSafetyCommandTests.write(db) { db in
                // A code column keeps a REAL as it is; the feature's own column is generated from it.
                try db.execute(sql: "UPDATE audio_features SET tempo_code = 1e300 WHERE track_id = 1")
                try db.execute(
                    sql: "UPDATE audio_features SET loudness_code = -1e308, key = 1000000000 WHERE track_id = 2"
                )
                try db.execute(sql: "UPDATE tracks SET duration_ms = 9223372036854775807 WHERE id = 3")
                for (index, ms) in ["9223372036854775807", "-5", "200000", "1e30"].enumerated() {
                    try db.execute(
                        sql: """
                            INSERT INTO plays (played_at, ms_played, track_id, track_name, artist_name, match_key, source)
                            VALUES ('2024-01-0\(index + 1)T10:00:00Z', \(ms), 1, 'x', 'y', 'y␟x', 'test')
                            """
                    )
                }
            }
            for arguments in [
                ["report"], ["report", "--format", "html"], ["report", "--format", "markdown"],
                ["cluster", "--k", "3"], ["recommend", "--mood", "chill", "-n", "5"],
                ["playlist", "build", "--mood", "chill", "--duration", "1h"], ["library"],
            ] {
                let result = try await CommandLineTool.run(arguments + ["--db", db])
                #expect(result.status == 0 && !result.wasSignalled, "\(arguments): \(result.stderr)")
            }
        }
    }

    /// A store of the version before range checks (`v7`), holding what it let in, upgraded by the
    /// tool through every later migration.
    @Test func theMigrationTurnsStoredInvalidValuesIntoMissingOnes() async throws {
        try await withTemporaryDirectory { folder in
            let db = folder + "/library.sqlite"
            try writeEarlierStore(at: db, migratedUpTo: "v7-packed-assignments") { db in
                for id in 1...3 {
                    try db.execute(
                        sql: "INSERT INTO tracks (id, name, match_key, duration_ms) VALUES (?, ?, ?, ?)",
                        arguments: [id, "Song \(id)", "s\(id)", id == 3 ? 1e30 : 200_000]
                    )
                }
                let rows: [(track: Int, tempo: Double, key: Double, valence: Double)] = [
                    (1, 1e300, 7, 0.5), (2, 120.5, 1_000_000_000, 0.25), (3, 99.25, 2, 0.75),
                ]
                for row in rows {
                    try db.execute(
                        sql: """
                            INSERT INTO audio_features (track_id, source, priority, fetched_at, energy, tempo, key, valence)
                            VALUES (?, 'file:features-csv', 80, '2025-03-01T10:00:00Z', 0.5, ?, ?, ?)
                            """,
                        arguments: [row.track, row.tempo, row.key, row.valence]
                    )
                }
            }
            let library = try await CommandLineTool.run(["library", "--db", db])
            #expect(library.status == 0, "\(library.stderr)")
            var values: [String: Double?] = [:]
            try StoreSafetyCommandTests.read(db) { db in
                for (name, sql) in [
                    ("tempo 1", "SELECT tempo FROM audio_features WHERE track_id = 1"),
                    ("key 1", "SELECT key FROM audio_features WHERE track_id = 1"),
                    ("key 2", "SELECT key FROM audio_features WHERE track_id = 2"),
                    ("tempo 2", "SELECT tempo FROM audio_features WHERE track_id = 2"),
                    ("valence 2", "SELECT valence FROM audio_features WHERE track_id = 2"),
                    ("duration 3", "SELECT duration_ms FROM tracks WHERE id = 3"),
                ] {
                    values[name] = try Double?.fetchOne(db, sql: sql)
                }
            }
            #expect(values["tempo 1"] == .some(nil))
            #expect(values["key 1"] == .some(7))
            #expect(values["key 2"] == .some(nil))
            #expect(values["tempo 2"] == .some(120.5))
            #expect(values["valence 2"] == .some(0.25))
            #expect(values["duration 3"] == .some(nil))
        }
    }

    // MARK: - Concurrent commands

    /// Holds the write lock of the store at `db` the way a long import does, with its note.
    final class LockHolder {
        let queue: DatabaseQueue
        let notePath: String

        init(db: String) throws {
            var configuration = Configuration()
            configuration.allowsUnsafeTransactions = true  // the transaction stays open between calls
            queue = try DatabaseQueue(path: db, configuration: configuration)
            // A vibes-analyze process leaves a non-empty WAL as it opens the store (GRDB's pool
            // writes one); so does this holder, so that others open without writing, as they would.
            try queue.inDatabase { try $0.execute(sql: "CREATE TABLE lock_holder (x); DROP TABLE lock_holder") }
            try queue.inDatabase { try $0.execute(sql: "BEGIN IMMEDIATE") }
            notePath = db + "-writer"
            let note = "{\"activity\":\"import\",\"pid\":\(getpid())}"
            try note.write(toFile: notePath, atomically: true, encoding: .utf8)
        }

        func release() throws {
            try queue.inDatabase { try $0.execute(sql: "COMMIT") }
            try? FileManager.default.removeItem(atPath: notePath)
        }
    }

    @Test func aWriterWaitsForAnotherAndSaysForWhom() async throws {
        try await withTemporaryDirectory { folder in
            let db = folder + "/library.sqlite"
            _ = try await CommandLineTool.run(["import", "--db", db, StoreSafetyCommandTests.excerpt])
            let holder = try LockHolder(db: db)
            let base = folder + "/cluster"
            let clustering = Task {
                try await CommandLineTool.run(["cluster", "--db", db, "--k", "3"], outputBase: base)
            }
            // A second import and a saved playlist wait their turn too.
            let importing = Task {
                try await CommandLineTool.run(["import", "--db", db, Fixtures.path("exportify/Liked_Songs.csv")])
            }
            let saving = Task {
                try await CommandLineTool.run([
                    "playlist", "build", "--db", db, "--mood", "chill", "-n", "5", "--name", "Waited", "--save",
                ])
            }
            var said = ""
            for _ in 0..<200 {
                said = String(decoding: FileManager.default.contents(atPath: base + ".err") ?? Data(), as: UTF8.self)
                if said.contains("Waiting for") { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(said.contains("Waiting for another vibes-analyze (import, pid \(getpid()))"), "\(said)")
            try holder.release()
            let result = try await clustering.value
            #expect(result.status == 0, "\(result.stderr)")
            let imported = try await importing.value
            #expect(imported.status == 0, "\(imported.stderr)")
            let saved = try await saving.value
            #expect(saved.status == 0, "\(saved.stderr)")
            #expect(try StoreSafetyCommandTests.count(db, "SELECT count(*) FROM clustering_runs") == 1)
            #expect(try StoreSafetyCommandTests.count(db, "SELECT count(*) FROM playlists WHERE name = 'Waited'") == 1)
            #expect(try StoreSafetyCommandTests.count(db, "SELECT count(*) FROM import_runs") == 2)
        }
    }

    @Test func aClusterThatCannotSaveKeepsItsRunInAFile() async throws {
        try await withTemporaryDirectory { folder in
            let db = folder + "/library.sqlite"
            _ = try await CommandLineTool.run(["import", "--db", db, StoreSafetyCommandTests.excerpt])
            let holder = try LockHolder(db: db)
            let busy = try await CommandLineTool.run(["cluster", "--db", db, "--k", "3", "--wait", "1"])
            let refused = try await CommandLineTool.run(["cluster", "--db", db, "--k", "3", "--no-wait"])
            try holder.release()
            #expect(busy.status == 1, "\(busy.stderr)")
            #expect(busy.stderr.contains("is busy: another vibes-analyze (import, pid \(getpid()))"), "\(busy.stderr)")
            #expect(refused.status == 1 && refused.stderr.contains("kept in"), "\(refused.stderr)")
            let kept = try #require(
                busy.stderr.split(separator: " ").first { $0.hasSuffix(".json;") }.map { String($0.dropLast()) }
            )
            let mode = try FileManager.default.attributesOfItem(atPath: kept)[.posixPermissions] as? Int
            #expect(mode == 0o600)
            let restored = try await CommandLineTool.run(["cluster", "--db", db, "--restore", kept])
            #expect(restored.status == 0, "\(restored.stderr)")
            #expect(restored.stdout.contains("Run 1 (library): 3 vibes from 35 tracks"), "\(restored.stdout)")
            #expect(!FileManager.default.fileExists(atPath: kept))
            let runs = try StoreSafetyCommandTests.count(db, "SELECT count(*) FROM clustering_runs")
            #expect(runs == 1)
        }
    }

    @Test func manyFirstOpensAtOnceMakeOneStore() async throws {
        try await withTemporaryDirectory { folder in
            let db = folder + "/new/library.sqlite"
            let results = try await withThrowingTaskGroup(of: CommandLineTool.Result.self) { group in
                for _ in 0..<8 {  // eight processes race for the first open as well as 24 did, in a third of the time
                    group.addTask {
                        try await CommandLineTool.run(["import", "--db", db, StoreSafetyCommandTests.excerpt])
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            for result in results { #expect(result.status == 0, "\(result.stderr)") }
            let mode = try FileManager.default.attributesOfItem(atPath: db)[.posixPermissions] as? Int
            #expect(mode == 0o600)
            let folderMode =
                try FileManager.default.attributesOfItem(atPath: folder + "/new")[.posixPermissions] as? Int
            #expect(folderMode == 0o700)
        }
    }

    @Test func readingCommandsNeverCreateFilesOrFolders() async throws {
        try await withTemporaryDirectory { folder in
            let typo = folder + "/typo/library.sqlite"
            for arguments in [
                ["library"], ["vibes"], ["report"], ["cluster"], ["recommend", "--mood", "chill"],
                ["features", "status"],
                ["playlist", "build", "--mood", "chill"],
            ] {
                let result = try await CommandLineTool.run(arguments + ["--db", typo])
                #expect(result.status == 1, "\(arguments): \(result.stderr)")
                #expect(result.stderr.contains("There is no library at \(typo); nothing was created."), "\(arguments)")
                #expect(!result.stderr.contains("Usage"))
            }
            #expect(!FileManager.default.fileExists(atPath: folder + "/typo"))

            let db = folder + "/library.sqlite"
            _ = try await CommandLineTool.run(["import", "--db", db, StoreSafetyCommandTests.excerpt])
            let report = try await CommandLineTool.run(["report", "--db", db, "--out", folder + "/no/such/x.html"])
            #expect(
                report.status == 1 && report.stderr.contains("does not exist; nothing was written"),
                "\(report.stderr)"
            )
            #expect(!FileManager.default.fileExists(atPath: folder + "/no"))
        }
    }

    // MARK: - Hostile names and damaged files

    @Test func hostileNamesNeverReachTheTerminal() async throws {
        try await withTemporaryDirectory { folder in
            let db = folder + "/library.sqlite"
            var lines = try String(contentsOfFile: StoreSafetyCommandTests.excerpt, encoding: .utf8)
                .split(separator: "\n").map(String.init)
            for row in stride(from: 1, to: lines.count, by: 3) where !lines[row].contains("\"") {
                var fields = lines[row].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                fields[1] = "\"Evil\u{1B}[2J\u{07}Song\r\(row)\""  // quoted, as a CR would end the row
                fields[2] = "Bad\u{1B}]0;owned\u{07}Artist\u{9B}"
                fields[7] = "Play\u{1B}[8mlist"
                lines[row] = fields.joined(separator: ",")
            }
            let file = folder + "/hostile.csv"
            try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
            var outputs: [String] = []
            for arguments in [
                ["import", file], ["cluster", "--k", "3"], ["vibes"], ["recommend", "--mood", "chill", "-n", "20"],
                ["recommend", "--seed", "Evil", "-n", "5"], ["report"], ["report", "--format", "markdown"], ["library"],
                ["playlist", "build", "--mood", "chill", "-n", "20"],
            ] {
                let result = try await CommandLineTool.run(arguments + ["--db", db])
                #expect(result.status == 0, "\(arguments): \(result.stderr)")
                #expect(!StoreSafetyCommandTests.hasControlCharacters(result.stdout), "\(arguments)")
                #expect(!StoreSafetyCommandTests.hasControlCharacters(result.stderr), "\(arguments)")
                outputs.append(result.stdout)
            }
            // The names are still shown, without their control characters.
            #expect(outputs.contains { $0.contains("Evil[2JSong") })
        }
    }

    @Test func aDamagedStoreIsNamedInTheError() async throws {
        try await withTemporaryDirectory { folder in
            let db = folder + "/library.sqlite"
            _ = try await CommandLineTool.run(["import", "--db", db, SampleLibrary.path])
            let handle = try FileHandle(forUpdating: URL(fileURLWithPath: db))
            let size = try handle.seekToEnd()
            for offset in stride(from: UInt64(40_960), to: size - 4096, by: 4096 * 7) {
                try handle.seek(toOffset: offset + 100)
                handle.write(Data(repeating: 0xFF, count: 200))
            }
            try handle.close()
            let result = try await CommandLineTool.run(["library", "--db", db])
            #expect(result.status == 1 && !result.wasSignalled)
            #expect(result.stderr.contains(db), "\(result.stderr)")
            #expect(result.stderr.contains("damaged"), "\(result.stderr)")
            #expect(!result.stderr.contains("Usage"))
        }
    }

    @Test func aHugeHeaderGivesAShortError() async throws {
        try await withTemporaryDirectory { folder in
            let db = folder + "/library.sqlite"
            let file = folder + "/wide.csv"
            let header = ["energy", "valence", "tempo"] + (0..<200_000).map { "column\($0)" }
            try (header.joined(separator: ",") + "\n0.5,0.5,120\n").write(
                toFile: file,
                atomically: true,
                encoding: .utf8
            )
            let result = try await CommandLineTool.run(["import", "--db", db, file])
            #expect(result.status == 1 && !result.wasSignalled)
            #expect(result.stderr.utf8.count < 2_000, "\(result.stderr.utf8.count) bytes")
            #expect(result.stderr.contains("and 199993 more"), "\(result.stderr)")
        }
    }

    @Test func helpUsageErrorsAndFailuresKeepTheirExitCodes() async throws {
        for arguments in [["--help"], ["help", "cluster"], ["cluster", "--help"], ["--version"]] {
            let result = try await CommandLineTool.run(arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(!result.stdout.isEmpty && !result.stdout.contains("Error"), "\(arguments)")
        }
        let usage = try await CommandLineTool.run(["cluster", "--k", "many"])
        #expect(usage.status == 64)
        #expect(usage.stderr.contains("Usage: vibes-analyze cluster"))
        try await withTemporaryDirectory { folder in
            _ = try LibraryStore(path: folder + "/library.sqlite")  // an empty library
            let failure = try await CommandLineTool.run([
                "cluster", "--db", folder + "/library.sqlite", "--restore", "x.json",
            ])
            #expect(failure.status == 1)
            #expect(failure.stderr == "Error: x.json: no such file (expected a run kept by `vibes-analyze cluster`).\n")
            // Commands on an empty library fail at run time: exit 1, one line, no usage.
            for arguments in [
                ["recommend", "--mood", "chill"], ["eval", "--label", "genre"],
                ["playlist", "build", "--mood", "chill"],
            ] {
                let result = try await CommandLineTool.run(arguments + ["--db", folder + "/library.sqlite"])
                #expect(result.status == 1, "\(arguments): \(result.stderr)")
                #expect(!result.stderr.contains("Usage"), "\(arguments)")
            }
        }
    }
}
