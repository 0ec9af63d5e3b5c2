import Foundation
import Testing
import VibesTestSupport

/// `vibes-analyze eval` run as a user runs it, on the bundled sample of real tidytuesday tracks.
struct EvalCommandTests {
    private func run(
        _ arguments: [String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> CommandLineTool.Result {
        let result = try await CommandLineTool.run(arguments)
        #expect(result.status == 0, "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
        return result
    }

    @Test func evalPrintsTheBaselinesWithConfidenceIntervals() async throws {
        try await withTemporaryDirectory { folder in
            let db = folder + "/library.sqlite"
            try await run(["import", "--db", db, "--quiet", SampleLibrary.path])
            let arguments = [
                "eval", "--db", db, "--label", "genre", "--sample", "300", "--resamples", "200", "--clusters", "0",
                "--seed", "9",
            ]
            let text = try await run(arguments).stdout
            let lines = text.split(separator: "\n").map(String.init)
            #expect(lines.contains { $0.hasPrefix("precision@10: ") })
            #expect(text.contains("paired bootstrap 95 % CI (200 resamples over seeds, seed 9)"))
            for name in [
                "this tool", "z-score cosine, 11 features", "z-score cosine, no key/mode",
                "z-score Euclidean, no key/mode", "same artist, then z-score cosine", "naive sum: artist + z-score",
                "random (exact expectation)",
            ] {
                #expect(lines.contains { $0.hasPrefix("  " + name) }, "no line for \(name) in:\n\(text)")
            }
            // The tags derive genres, so the tool leaves them out and so do the baselines.
            #expect(!text.contains("tag TF-IDF") && !text.contains("+ tags"), "\(text)")
            // Every baseline line carries a difference and its interval, "difference +0.0123 [-0.0040,
            // +0.0290]", and beside it the same beyond the seed's artist.
            let differences = lines.filter { $0.contains(" difference ") }
            #expect(differences.count == 6)
            for line in differences {
                for interval in line.split(separator: "difference ").dropFirst() {
                    let numbers = interval.split { " [],".contains($0) }.prefix(3).compactMap { Double($0) }
                    try #require(numbers.count == 3, "\(line)")
                    #expect(numbers[1] <= numbers[0] && numbers[0] <= numbers[2], "\(line)")
                }
            }
            #expect(differences.filter { $0.contains("beyond the seed's artist") }.count == 5)
            #expect(lines.contains { $0.hasPrefix("this tool ") && $0.contains("the best naive baseline") })
            #expect(lines.contains { $0.hasPrefix("beyond the seed's artist, this tool ") })

            // The same seed prints the same figures; JSON holds them as numbers.
            #expect(try await run(arguments).stdout == text)
            let json = try await run(arguments + ["--json"]).stdout
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
            let comparison = try #require(object["baselines"] as? [String: Any])
            let baselines = try #require(comparison["baselines"] as? [[String: Any]])
            #expect(baselines.count == 5)
            for baseline in baselines {
                #expect(baseline["beyond_artist_precision_at_k"] is Double, "\(baseline)")
                #expect(baseline["beyond_artist_difference"] is [String: Any], "\(baseline)")
            }
            #expect(comparison["beyond_artist_precision_at_k"] is Double)
            let difference = try #require(baselines.first?["difference"] as? [String: Any])
            #expect(difference["resample_count"] as? Int == 200)
            #expect(comparison["bootstrap_seed"] as? Int == 9)
        }
    }

    /// On the bundled sample of real tracks, every seed searched, the default space finds at least
    /// as many same-genre neighbours as each naive z-score space, and clearly more than z-scores of
    /// all eleven features.
    @Test func theDefaultSpaceMatchesOrBeatsTheNaiveBaselinesOnTheSample() async throws {
        try await withTemporaryDirectory { folder in
            let db = folder + "/library.sqlite"
            try await run(["import", "--db", db, "--quiet", SampleLibrary.path])
            let json = try await run([
                "eval", "--db", db, "--label", "genre", "--resamples", "200", "--clusters", "0", "--json",
            ]).stdout
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
            let comparison = try #require(object["baselines"] as? [String: Any])
            let evaluation = try #require(comparison["evaluation"] as? [String: Any])
            let tool = try #require(evaluation["precision_at_k"] as? Double)
            #expect(evaluation["seed_count"] as? Int == 2950)
            let baselines = try #require(comparison["baselines"] as? [[String: Any]])
            #expect(baselines.count == 5)
            // The audio-only baselines; those that know the artist are compared in Benchmarks/quality.
            for baseline in baselines where (baseline["name"] as? String)?.hasPrefix("z-score") == true {
                let name = try #require(baseline["name"] as? String)
                let precision = try #require(baseline["precision_at_k"] as? Double)
                #expect(tool >= precision, "\(name): \(precision) against \(tool)")
                if name == "z-score cosine, 11 features" {
                    let difference = try #require(baseline["difference"] as? [String: Any])
                    #expect(try #require(difference["lower"] as? Double) > 0, "\(difference)")
                }
            }
        }
    }
}

/// `eval --ordering` on the bundled sample's real playlists.
struct EvalOrderingCommandTests {
    @Test func orderingComparesFlowWithGreedyAndRandomOnThePlaylists() async throws {
        try await withTemporaryDirectory { folder in
            let db = folder + "/library.sqlite"
            let imported = try await CommandLineTool.run(["import", "--db", db, "--quiet", SampleLibrary.path])
            #expect(imported.status == 0, "\(imported.stderr)")
            let arguments = ["eval", "--db", db, "--ordering", "--resamples", "200", "--seed", "3"]
            let result = try await CommandLineTool.run(arguments)
            #expect(result.status == 0, "\(result.stderr)")
            let text = result.stdout
            #expect(text.contains("paired bootstrap 95 % CI (200 resamples over playlists, seed 3)"), "\(text)")
            #expect(text.contains("flow is smoother than the greedy baseline"), "\(text)")

            let json = try await CommandLineTool.run(arguments + ["--json"])
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            let ordering = try #require(object["ordering"] as? [String: Any])
            let playlists = try #require(ordering["playlists"] as? [[String: Any]])
            #expect(playlists.count >= 10)
            // Every playlist has 10 to 500 tracks, and flow never costs more than greedy on any.
            var (lower, equal) = (0, 0)
            for playlist in playlists {
                let count = try #require(playlist["track_count"] as? Int)
                #expect((10...500).contains(count))
                let flow = try #require(playlist["flow"] as? Double)
                let greedy = try #require(playlist["greedy"] as? Double)
                let random = try #require(playlist["random"] as? Double)
                #expect(flow <= greedy)
                #expect(greedy < random)
                if flow < greedy { lower += 1 } else { equal += 1 }
            }
            // Printed with 6 significant digits, a difference below that shows as equal.
            #expect((ordering["lower"] as? Int ?? -1) >= lower)
            #expect((ordering["lower"] as? Int ?? 0) + (ordering["equal"] as? Int ?? 0) == lower + equal)
            #expect(ordering["higher"] as? Int == 0)
            let difference = try #require(ordering["flow_minus_greedy"] as? [String: Any])
            let mean =
                playlists.reduce(0.0) { $0 + ($1["flow"] as! Double) - ($1["greedy"] as! Double) }
                / Double(playlists.count)
            // Printed with 6 significant digits.
            #expect(abs((difference["estimate"] as? Double ?? .nan) - mean) <= abs(mean) * 1e-5)
            #expect((difference["upper"] as? Double ?? 0) < 0)
        }
    }

    /// What the engine's failures tell the user (`LibraryStoreEvaluationTests` tests when they happen).
    @Test func aLibraryOfLikedSongsAloneFailsWithAdvice() async throws {
        try await withTemporaryDirectory { folder in
            let db = folder + "/library.sqlite"
            let imported = try await CommandLineTool.run([
                "import", "--db", db, "--quiet", Fixtures.path("exportify/Liked_Songs.csv"),
            ])
            #expect(imported.status == 0, "\(imported.stderr)")
            let labels = try await CommandLineTool.run(["eval", "--db", db, "--clusters", "0"])
            #expect(labels.status == 1)
            #expect(labels.stderr.contains("genre label; import a file with genre labels"), "\(labels.stderr)")
            let ordering = try await CommandLineTool.run(["eval", "--db", db, "--ordering"])
            #expect(ordering.status == 1)
            #expect(
                ordering.stderr.contains("No imported playlist has 10 to 500 tracks with features"),
                "\(ordering.stderr)"
            )
        }
    }
}
