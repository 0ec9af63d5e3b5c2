import Foundation
import Ingest
import Testing
import VibesTestSupport

struct BenchCommandTests {
    /// Options that keep a run short in a debug build: one tiny configuration, a small probe.
    private let quick = ["--k", "3", "--threads", "1", "--iterations", "2", "--repeats", "1", "--probe-megabytes", "8"]

    private func withLibrary<T>(perGroup: Int = 40, _ body: (String) async throws -> T) async throws -> T {
        try await withTemporaryDirectory { folder in
            let path = folder + "/library.sqlite"
            let store = try LibraryStore(path: path)
            if perGroup > 0 {
                try LibrarySeeding.insert(
                    LibrarySeeding.syntheticTracks(perGroup: perGroup),
                    into: store,
                    folder: folder
                )
            }
            return try await body(path)
        }
    }

    /// The CSV's data rows as fields, by metric.
    private func csvRows(_ text: String) -> [[String]] {
        text.split(separator: "\n").dropFirst().map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
    }

    @Test func aTinyRunPrintsVersionedJSON() async throws {
        let result = try await CommandLineTool.run([
            "bench", "--n", "2000", "--k", "4", "--threads", "1", "--iterations", "3", "--repeats", "1", "--format",
            "json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["version"] as? Int == 1)
        #expect(object["busy"] is Bool)
        #expect(
            object["command"] as? String
                == "vibes-analyze bench --n 2000 --k 4 --threads 1 --iterations 3 --repeats 1 --format json"
        )
        let configurations = try #require(object["configurations"] as? [[String: Any]])
        #expect(configurations.count == 1)
        #expect(configurations.first?["n"] as? Int == 2_000)
        #expect(configurations.first?["d"] as? Int == 12)
        #expect(configurations.first?["cluster_count"] as? Int == 4)
        #expect(configurations.first?["threads"] as? Int == 1)
        #expect((configurations.first?["inertia"] as? [String: Double])?["median"].map { $0 > 0 } == true)
        #expect((object["searches"] as? [Any])?.count == 1)
        let machine = try #require(object["machine"] as? [String: Any])
        #expect((machine["rooflines"] as? [[String: Any]])?.map { $0["threads"] as? Int } == [1])
        // No progress bar into a pipe.
        #expect(!result.stderr.contains("\r"))
    }

    @Test func theLibraryIsBenchmarkedWholeOrDrawnFrom() async throws {
        try await withLibrary { db in
            let whole = try await CommandLineTool.run(
                ["bench", "--db", db, "--data", "library", "--format", "csv", "--verbose"] + quick
            )
            #expect(whole.status == 0, "\(whole.stderr)")
            let rows = csvRows(whole.stdout)
            #expect(!rows.isEmpty)
            #expect(rows.allSatisfy { $0.count == 11 && $0[1] == "120" })
            #expect(rows.contains { $0[0] == "kmeans" && $0[5] == "lloyd_per_iteration" })
            #expect(rows.contains { $0[0] == "cosine" && $0[5] == "queries_per_second" })
            #expect(whole.stderr.contains("running N=120 k=3 threads=1"))

            let drawn = try await CommandLineTool.run(
                ["bench", "--db", db, "--data", "library", "--n", "1k", "--format", "csv"] + quick
            )
            #expect(drawn.status == 0, "\(drawn.stderr)")
            #expect(csvRows(drawn.stdout).allSatisfy { $0[1] == "1000" })

            let tooMany = try await CommandLineTool.run([
                "bench", "--db", db, "--data", "library", "--k", "500", "--threads", "1",
            ])
            #expect(tooMany.status == 1)  // the library is too small: a runtime failure, no usage text
            #expect(tooMany.stderr.contains("--k 500 needs at least 500 tracks"))
            #expect(!tooMany.stderr.contains("Usage"))
        }
    }

    @Test func anEmptyLibraryIsARuntimeFailure() async throws {
        try await withLibrary(perGroup: 0) { db in
            let result = try await CommandLineTool.run(["bench", "--db", db, "--data", "library"] + quick)
            #expect(result.status == 1 && !result.stderr.contains("Usage"))
            #expect(result.stderr.contains("has no tracks with audio features; run `vibes-analyze import FILE` first"))
        }
    }

    @Test func theTableTheChartAndThePageAreWritten() async throws {
        try await withTemporaryDirectory { folder in
            let result = try await CommandLineTool.run(
                ["bench", "--n", "500,1000", "--svg", folder + "/chart.svg", "--html", folder + "/out/bench.html"]
                    + quick
            )
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("Lloyd per iteration"))
            #expect(result.stdout.contains("roofline  1 thread: read "))
            #expect(result.stdout.contains("1,000  12  3"))
            let svg = try String(contentsOfFile: folder + "/chart.svg", encoding: .utf8)
            #expect(svg.hasPrefix("<?xml") && svg.contains("data-chart=\"lloyd-time\""))
            let html = try String(contentsOfFile: folder + "/out/bench.html", encoding: .utf8)
            #expect(html.contains("<table>") && html.contains("data-chart=\"lloyd-time\""))
            #expect(result.stderr.contains("Wrote the SVG chart to \(folder)/chart.svg."))
        }
    }

    @Test(arguments: [
        (["--n", "abc"], "--n"), (["--n", "0"], "--n"), (["--n", "1.5"], "--n"), (["--n", "100", "--k", "200"], "--k"),
        (["--threads", "0"], "--threads"), (["--k", "4,x"], "--k"), (["--iterations", "0"], "iteration"),
        (["--repeats", "0"], "repeat"), (["--d", "0"], "--d"), (["--data", "disk"], "--data"),
    ])
    func badOptionsAreUsageErrorsNamingTheOption(arguments: [String], option: String) async throws {
        let result = try await CommandLineTool.run(["bench"] + arguments)
        #expect(result.status == 64, "\(arguments): \(result.stderr)")
        #expect(result.stderr.contains(option), "\(arguments): \(result.stderr)")
    }
}
