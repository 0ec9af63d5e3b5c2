import Foundation
import Testing
import VibesTestSupport

@testable import Ingest

struct ImportCommandTests {
    /// The rows of the store's `blocks` snapshot.
    static func blockRows(_ path: String) throws -> Int {
        try LibraryStore(path: path).database.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM snapshots WHERE name = 'blocks'") ?? 0
        }
    }

    @Test func importsAFileAndTheLibraryCountsIt() async throws {
        try await withTemporaryDirectory { folder in
            let db = folder + "/library.sqlite"
            let result = try await CommandLineTool.run([
                "import", "--db", db, Fixtures.path("csv/tidytuesday-excerpt.csv"),
            ])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("tracks: 36 new, 0 updated; features: 36 written; rejected: 0"))
            let again = try await CommandLineTool.run([
                "import", "--db", db, Fixtures.path("csv/tidytuesday-excerpt.csv"),
            ])
            #expect(again.status == 0)
            #expect(again.stdout.contains(": unchanged"))
            let library = try await CommandLineTool.run(["library", "--db", db, "--json"])
            #expect(library.status == 0)
            let summary = try JSONDecoder().decode(LibrarySummary.self, from: Data(library.stdout.utf8))
            #expect(summary.tracks == 36)
            #expect(summary.tracksWithFeatures == 36)
            #expect(summary.topTags.contains { $0.kind == "genre" })
            let text = try await CommandLineTool.run(["library", "--db", db])
            #expect(text.stdout.contains("tracks            36"))
        }
    }

    /// The import builds the similarity blocks' snapshot too, so the first `recommend` from a seed
    /// track reads it; and answers as a store whose blocks the command built.
    @Test func anImportLeavesTheBlocksSnapshotForTheFirstRecommendFromASeed() async throws {
        try await withTemporaryDirectory { folder in
            let csv = Fixtures.path("csv/tidytuesday-excerpt.csv")
            let (imported, built) = (folder + "/imported.sqlite", folder + "/built.sqlite")
            let result = try await CommandLineTool.run(["import", "--db", imported, csv])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try Self.blockRows(imported) > 0)
            _ = try await CommandLineTool.run(["import", "--db", built, "--memory-budget-mb", "0", csv])
            #expect(try Self.blockRows(built) == 0)
            let seed = try #require(try LibraryStore(path: imported).featureTable().trackIDs.first)
            let spotifyID = try #require(try LibraryStore(path: imported).trackSummaries(for: [seed])[seed]?.spotifyID)
            let command = ["recommend", "--seed", spotifyID, "-n", "5", "--json"]
            let first = try await CommandLineTool.run(command + ["--db", built])
            let second = try await CommandLineTool.run(command + ["--db", imported])
            #expect(first.status == 0 && second.status == 0, "\(first.stderr)\(second.stderr)")
            #expect(try Self.blockRows(built) == Self.blockRows(imported))
            // The pool's note ends with the time the search took.
            func untimed(_ text: String) -> String {
                text.replacingOccurrences(of: #"\(\d+ ms\)"#, with: "", options: .regularExpression)
            }
            #expect(untimed(first.stdout) == untimed(second.stdout) && first.stdout.contains("tracks"))
        }
    }

    @Test func anImportPastItsMemoryBudgetLeavesTheSnapshotsToTheNextCommand() async throws {
        func snapshotRows(_ path: String) throws -> Int {
            try LibraryStore(path: path).database.read { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM snapshots") ?? 0
            }
        }
        try await withTemporaryDirectory { folder in
            let csv = Fixtures.path("csv/tidytuesday-excerpt.csv")
            let (lean, full) = (folder + "/lean.sqlite", folder + "/full.sqlite")
            let deferred = try await CommandLineTool.run(["import", "--db", lean, "--memory-budget-mb", "0", csv])
            #expect(deferred.status == 0, "\(deferred.stderr)")
            // 36 tracks at 48 bytes each, rounded up to a megabyte.
            #expect(
                deferred.stdout.contains(
                    "note: the library's snapshots (36 tracks) would take about 1 MB more to build, past the import's 0 MB budget; the next command builds them, once"
                ),
                "\(deferred.stdout)"
            )
            #expect(try snapshotRows(lean) == 0)
            let built = try await CommandLineTool.run(["import", "--db", full, csv])
            #expect(built.status == 0 && !built.stdout.contains("snapshots"), "\(built.stdout)")
            #expect(try snapshotRows(full) > 0)
            // The next command builds them and answers as it does on a store whose import built them.
            for command in [["recommend", "--mood", "chill", "-n", "5"], ["library"]] {
                let first = try await CommandLineTool.run(command + ["--db", lean])
                let second = try await CommandLineTool.run(command + ["--db", full])
                #expect(first.status == 0 && second.status == 0, "\(first.stderr)\(second.stderr)")
                // `library` names its store.
                #expect(first.stdout.replacingOccurrences(of: lean, with: full) == second.stdout, "\(command)")
            }
            // The blocks' snapshot aside, which the import built and only a `recommend` from a seed
            // track builds.
            #expect(try snapshotRows(lean) == snapshotRows(full) - Self.blockRows(full) && Self.blockRows(full) > 0)
            // Under --json, the outcome is a key: no note is printed.
            for (budget, outcome) in [("0", "deferred"), ("300", "prepared")] {
                let path = folder + "/json-\(budget).sqlite"
                let json = try await CommandLineTool.run([
                    "import", "--db", path, "--json", "--memory-budget-mb", budget, csv,
                ])
                let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
                #expect(object?["snapshots"] as? String == outcome, "\(json.stdout)")
                #expect(!json.stdout.contains("note:"))
                let again = try await CommandLineTool.run(["import", "--db", path, "--json", csv])
                let unchanged = try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any]
                #expect(unchanged?["snapshots"] as? String == "unchanged")
            }
            let negative = try await CommandLineTool.run(["import", "--db", lean, "--memory-budget-mb", "-1", csv])
            #expect(negative.status == 64)
        }
    }

    @Test func theDatabaseLocationFollowsTheEnvironment() async throws {
        try await withTemporaryDirectory { folder in
            let result = try await CommandLineTool.run(
                ["import", Fixtures.path("csv/top50-excerpt.csv")],
                environment: ["VIBES_DB": folder + "/env.sqlite"]
            )
            #expect(result.status == 0)
            #expect(FileManager.default.fileExists(atPath: folder + "/env.sqlite"))
            let xdg = try await CommandLineTool.run(
                ["import", Fixtures.path("csv/top50-excerpt.csv")],
                environment: ["VIBES_DB": "", "XDG_DATA_HOME": folder + "/xdg"]
            )
            #expect(xdg.status == 0)
            #expect(FileManager.default.fileExists(atPath: folder + "/xdg/vibes-analyze/library.sqlite"))
        }
    }

    @Test func aBadFileFailsWithItsPlaceAndChangesNothing() async throws {
        try await withTemporaryDirectory { folder in
            let db = folder + "/library.sqlite"
            _ = try await CommandLineTool.run(["import", "--db", db, Fixtures.path("csv/top50-excerpt.csv")])
            let before = try await CommandLineTool.run(["library", "--db", db, "--json"]).stdout
            let bad = Fixtures.path("malformed/wrong-type.csv")
            let result = try await CommandLineTool.run(["import", "--db", db, bad])
            #expect(result.status == 1)
            #expect(result.stderr.contains("error: \(bad):4:"))
            #expect(result.stderr.contains("field \"energy\": expected a number for energy (0–1), found \"loud\""))
            #expect(result.stderr.contains("not imported; the library is unchanged."))
            #expect(try await CommandLineTool.run(["library", "--db", db, "--json"]).stdout == before)

            let missing = try await CommandLineTool.run(["import", "--db", db, folder + "/nope.csv"])
            #expect(missing.status == 1)
            #expect(missing.stderr.contains("nope.csv: no such file"))

            let skipped = try await CommandLineTool.run(["import", "--db", db, "--skip-invalid", bad])
            #expect(skipped.status == 0)
            #expect(skipped.stdout.contains("rejected: 1"))
            #expect(skipped.stdout.contains("rejected rows (first 1 of 1):"))
        }
    }

    @Test func anInterruptedImportLosesNothingCommittedAndCanBeRunAgain() async throws {
        try await withTemporaryDirectory { folder in
            let db = folder + "/library.sqlite"
            let first = try await CommandLineTool.run([
                "import", "--db", db, Fixtures.path("exportify/Liked_Songs.csv"),
            ])
            #expect(first.status == 0)
            let committed = try await CommandLineTool.run(["library", "--db", db, "--json"]).stdout

            // A large file: the excerpt's rows repeated with fresh track IDs.
            let big = folder + "/big.csv"
            try makeLargeFeatureCSV(rows: 60_000, at: big)
            let (process, _, _) = try CommandLineTool.start(["import", "--quiet", "--db", db, big])
            // A short blocking sleep: a Task.sleep could wake late on a busy pool, after the import ended.
            usleep(1_000_000)
            try #require(process.isRunning, "the import finished before it could be interrupted; make the file larger")
            kill(process.processIdentifier, SIGINT)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal)

            // Nothing of the interrupted file, everything of the committed one.
            #expect(try await CommandLineTool.run(["library", "--db", db, "--json"]).stdout == committed)
            let resumed = try await CommandLineTool.run([
                "import", "--db", db, Fixtures.path("exportify/Liked_Songs.csv"), big,
            ])
            #expect(resumed.status == 0)
            #expect(resumed.stdout.contains("Liked_Songs.csv: unchanged"))
            #expect(resumed.stdout.contains("60000 rows"))
        }
    }

    /// Writes `rows` rows cut from the tidytuesday excerpt, each with a fresh track ID.
    private func makeLargeFeatureCSV(rows: Int, at path: String) throws {
        let text = String(decoding: Fixtures.data("csv/tidytuesday-excerpt.csv"), as: UTF8.self)
        var lines = text.split(separator: "\n").map(String.init)
        let header = lines.removeFirst()
        // Only rows without quoted fields, so that the ID is the text before the first comma.
        let plain = lines.filter { !$0.contains("\"") }
        var output = header + "\n"
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        for index in 0..<rows {
            let line = plain[index % plain.count]
            let id = String((0..<22).map { _ in alphabet.randomElement(using: &generator)! })
            output += id + line[line.firstIndex(of: ",")!...] + "\n"
        }
        try Data(output.utf8).write(to: URL(fileURLWithPath: path))
    }
}
