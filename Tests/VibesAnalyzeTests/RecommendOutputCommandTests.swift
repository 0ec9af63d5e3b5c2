import Foundation
import GRDB
import Testing
import VibesTestSupport

/// What `recommend`, `playlist build` and `playlist extend` print, through the built tool.
struct RecommendOutputCommandTests {
    /// Tracks from the reference pool (`import --reference`) say `"in_library": false` in the JSON
    /// of `recommend`, `playlist build` and `playlist extend`, and are marked "new" in their
    /// tables; the user's own tracks say `true` and carry no mark. Run through the built tool.
    @Test func referencePoolTracksAreMarkedNew() async throws {
        try await PlaylistsCommandTests.withPlaylistLibrary { path, _ in
            let folder = (path as NSString).deletingLastPathComponent
            func tool(_ arguments: [String]) async throws -> String {
                let result = try await CommandLineTool.run(arguments + ["--db", path], environment: ["HOME": folder])
                #expect(result.status == 0, "\(arguments): \(result.stderr)")
                return result.stdout
            }
            _ = try await tool(["import", "--quiet", "--reference", Fixtures.path("csv/tidytuesday-excerpt.csv")])
            let queue = try DatabaseQueue(path: path)
            /// Each listed track's `in_library` beside the store's own column.
            func membership(_ tracks: [[String: Any]]) throws -> [Bool] {
                try tracks.map { track in
                    let id = try #require(track["track_id"] as? Int64)
                    let printed = try #require(track["in_library"] as? Bool, "\(track)")
                    let stored = try queue.read { db in
                        try Bool.fetchOne(db, sql: "SELECT in_library FROM tracks WHERE id = ?", arguments: [id])
                    }
                    #expect(printed == stored, "track \(id)")
                    return printed
                }
            }
            func objects(_ json: String, _ key: String) throws -> [[String: Any]] {
                let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
                return try #require(object[key] as? [[String: Any]])
            }

            let recommended = try membership(
                objects(try await tool(["recommend", "--mood", "chill", "-n", "100", "--json"]), "tracks")
            )
            #expect(recommended.contains(true) && recommended.contains(false))
            let table = try await tool(["recommend", "--mood", "chill", "-n", "100"]).split(separator: "\n")
            #expect(table.count == recommended.count)
            for (line, inLibrary) in zip(table, recommended) {
                #expect(
                    (line.range(of: #"sim -?[0-9.]+  new( |$)"#, options: .regularExpression) != nil) == !inLibrary,
                    "\(line)"
                )
            }

            let built = try membership(
                objects(try await tool(["playlist", "build", "--mood", "chill", "-n", "60", "--json"]), "tracks")
            )
            #expect(built.contains(true) && built.contains(false))
            let listing = try await tool(["playlist", "build", "--mood", "chill", "-n", "60"]).split(separator: "\n")
            // A title line, then one line per track in the same order.
            #expect(listing.count == built.count + 1)
            for (line, inLibrary) in zip(listing.dropFirst(), built) {
                #expect(line.hasSuffix("  new") == !inLibrary, "\(line)")
            }

            let added = try membership(
                objects(
                    try await tool(["playlist", "extend", "Road Trip", "-n", "20", "--dry-run", "--json"]),
                    "added"
                )
            )
            #expect(added.count == 20 && added.contains(false))
            let extended = try await tool(["playlist", "extend", "Road Trip", "-n", "20", "--dry-run"])
                .split(separator: "\n").dropFirst()
            #expect(zip(extended, added).allSatisfy { line, inLibrary in line.hasSuffix("  new") == !inLibrary })
        }
    }

    /// Default titles say what was asked ("Like mood chill", "Calm → energetic, 30 min",
    /// "Target energy 0.8"), once; a list's first number is the one it is sorted by, and a list of
    /// targets alone shows no similarity. Run through the built tool.
    @Test func titlesAndNumbersSayWhatWasAsked() async throws {
        try await PlaylistsCommandTests.withPlaylistLibrary { path, _ in
            func tool(_ arguments: [String]) async throws -> String {
                let result = try await CommandLineTool.run(arguments + ["--db", path])
                #expect(result.status == 0, "\(arguments): \(result.stderr)")
                return result.stdout
            }
            func named(_ arguments: [String]) async throws -> (name: String, description: String) {
                let json = try await tool(["playlist", "build", "--json"] + arguments)
                let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
                return (try #require(object["name"] as? String), try #require(object["description"] as? String))
            }
            let chill = try await named(["--mood", "chill", "-n", "3"])
            #expect(chill == ("Like mood chill", "Like mood chill, ordered flow (vibes-analyze)"))
            let path = try await named(["--from-mood", "calm", "--to-mood", "energetic", "--duration", "30m"])
            #expect(path.name == "Calm → energetic, 30 min")
            let target = try await named(["--target-energy", "0.8", "--target-tempo", "120", "-n", "3"])
            #expect(target.name == "Target energy 0.8, tempo 120")
            let header = try await tool(["playlist", "build", "--target-energy", "0.8", "-n", "3"])
                .split(separator: "\n").first
            #expect(header == "Target energy 0.8, ordered flow (vibes-analyze)")

            let targetsOnly = try await tool(["recommend", "--target-energy", "0.8", "-n", "5"]).split(separator: "\n")
            #expect(targetsOnly.count == 5 && targetsOnly.allSatisfy { !$0.contains(" sim ") && $0.contains(" fit ") })
            let blended = try await tool(["recommend", "--mood", "calm", "--target-energy", "0.5", "-n", "10"])
                .split(separator: "\n")
            let scores = try blended.map { line in
                let match = try #require(line.range(of: #"  score -?[0-9.]+  sim "#, options: .regularExpression))
                return try #require(Double(line[match].split(separator: " ")[1]))
            }
            #expect(scores.count == 10 && scores == scores.sorted(by: >), "\(blended)")
        }
    }
}
