import Foundation
import Testing
import VibesTestSupport

/// `vibes-analyze weights` and `--no-personal`, run as a user runs them on the bundled sample of
/// real tidytuesday tracks and its real playlists, in a real SQLite store.
struct WeightsCommandTests {
    private func run(
        _ arguments: [String],
        status: Int32 = 0,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> CommandLineTool.Result {
        let result = try await CommandLineTool.run(arguments)
        #expect(result.status == status, "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
        return result
    }

    @Test func learnStoresWeightsThatRecommendUsesUnlessNoPersonal() async throws {
        try await withTemporaryDirectory { folder in
            let db = folder + "/library.sqlite"
            try await run(["import", "--db", db, "--quiet", SampleLibrary.path])
            #expect(try await run(["weights", "show", "--db", db]).stdout.hasPrefix("Default weights"))
            let recommend = ["recommend", "--db", db, "--seed", "75FpbthrwQmzHlBJLuGdC7", "--json", "-n", "20"]
            // The picks and their scores, without the timings the JSON also holds.
            func picks(_ arguments: [String]) async throws -> [String] {
                let json = try await run(arguments).stdout
                let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
                let items = try #require(object["tracks"] as? [[String: Any]])
                return items.map { "\($0["track_id"] ?? "") \($0["score"] ?? "")" }
            }
            let before = try await picks(recommend)
            #expect(!before.isEmpty)

            let learned = try await run(["weights", "learn", "--db", db, "--quiet"]).stdout
            #expect(learned.hasPrefix("Personal weights"), "\(learned)")
            #expect(learned.contains("held-out playlists ("), "\(learned)")
            let json = try await run(["weights", "show", "--db", db, "--json"]).stdout
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
            #expect(object["personal"] as? Bool == true)
            // (That the same seed learns the same weights, bit for bit, WeightLearningTests checks
            // on the library: a second learn here doubled the test's time.)

            // --no-personal gives the result from before learning.
            #expect(try await picks(recommend + ["--no-personal"]) == before)

            #expect(try await run(["weights", "clear", "--db", db]).stdout.hasPrefix("Cleared"))
            #expect(try await picks(recommend) == before)
            #expect(try await run(["weights", "clear", "--db", db]).stdout.hasPrefix("There were no"))
        }
    }

    @Test func tooFewPlaylistsSaySoAndKeepTheDefaults() async throws {
        try await withTemporaryDirectory { folder in
            let db = folder + "/library.sqlite"
            let store = try makeStore(in: folder, songs: TidyTuesdaySongs.Song.synthetic(count: 80))
            _ = store
            let result = try await run(["weights", "learn", "--db", db, "--quiet"], status: 1)
            #expect(result.stderr.contains("learning weights needs 5"), "\(result.stderr)")
            #expect(result.stderr.contains("The default weights stay"))
            #expect(try await run(["weights", "show", "--db", db]).stdout.hasPrefix("Default weights"))
        }
    }

    @Test func evalOnPlaylistsGradesCoMembershipAndPersonalWeightsOnHeldOutPlaylists() async throws {
        try await withTemporaryDirectory { folder in
            let db = folder + "/library.sqlite"
            try await run(["import", "--db", db, "--quiet", SampleLibrary.path])
            let text = try await run([
                "eval", "--db", db, "--label", "playlist", "--clusters", "0", "--resamples", "200", "--quiet",
            ]).stdout
            #expect(text.contains("held-out playlists: "), "\(text)")
            #expect(text.contains("personal weights (learned on the other folds)"))
            // The dataset's genre tags are given per playlist: left out of a playlist figure.
            #expect(text.contains("the tags block"), "\(text)")
            #expect(text.contains("genre_tags"), "\(text)")
            let genre = try await run([
                "eval", "--db", db, "--label", "genre", "--clusters", "0", "--resamples", "200", "--quiet",
            ]).stdout
            #expect(genre.contains("the co_membership block"), "\(genre)")
            #expect(genre.contains("`eval --label playlist` grades them on held-out playlists"))
        }
    }
}
