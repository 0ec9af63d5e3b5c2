import Analytics
import Features
import Foundation
import Ingest
import Testing
import VibesEngine
import VibesTestSupport

/// `playlists`, `playlists show`, and playlists named loosely wherever `--playlist` is taken, through
/// the built tool; what the store reads for them is tested in `LibraryStorePlaylistsTests`.
struct PlaylistsCommandTests {
    /// Clusters `store` into `k` vibes through the engine, as `cluster --k k --seed seed` does
    /// (three restarts); with `scope`, as `--playlist`, and `makesCurrent`, as `--make-current`.
    static func cluster(
        _ store: LibraryStore,
        k: Int,
        seed: UInt64 = 42,
        scope: TrackScope = .library,
        makesCurrent: Bool = false
    ) async throws {
        var settings = VibeClustering.Settings(schema: .default, clusterCount: .fixed(k))
        settings.seed = seed
        settings.kMeans.restartCount = 3
        var request = VibeRequest(settings: settings)
        request.scope = scope
        request.makesCurrent = makesCurrent
        _ = try await store.findVibes(request)
    }

    /// ``LibrarySeeding/insertPlaylistLibrary(into:folder:)`` clustered with k = 3: three separated
    /// groups of 20 tracks (calm, dance, tense) and the playlists "bath time " (10 calm, 2 dance),
    /// "Bass Music" (10 dance) and "Road Trip" (15 tense and one track without features).
    static func withPlaylistLibrary<T>(_ body: (String, LibraryStore) async throws -> T) async throws -> T {
        try await withTemporaryDirectory { folder in
            let path = folder + "/library.sqlite"
            let store = try LibraryStore(path: path)
            try LibrarySeeding.insertPlaylistLibrary(into: store, folder: folder)
            try await cluster(store, k: 3)
            return try await body(path, store)
        }
    }

    /// The list on a terminal 60 columns wide: a header and one line per playlist, its coverage
    /// as a percentage.
    @Test func listsEveryPlaylistWithCoverageOnATerminal() async throws {
        try await Self.withPlaylistLibrary { path, _ in
            let terminal = try TerminalWidthCommandTests.runInTerminal(["playlists", "--db", path], columns: 60)
            #expect(terminal.status == 0)
            let table = terminal.output
            let lines = table.split(separator: "\n")
            #expect(lines.count == 4, "\(table)")
            #expect(lines.allSatisfy { $0.count <= 60 }, "\(table)")
            #expect(lines[0].contains("Vibes (run 1)"), "\(table)")
            #expect(lines[2].contains("bath time") && lines[2].contains("12") && lines[2].contains("100%"))
            #expect(lines[3].contains("94%"))  // 15 of 16
        }
    }

    /// One playlist on a terminal 70 columns wide: its tracks, the one without features marked.
    @Test func showGivesTheVibeBreakdownFeaturesAndTracksOnATerminal() async throws {
        try await Self.withPlaylistLibrary { path, _ in
            let terminal = try TerminalWidthCommandTests.runInTerminal(
                ["playlists", "show", "road", "--db", path],
                columns: 70
            )
            #expect(terminal.status == 0)
            let text = terminal.output
            #expect(text.split(separator: "\n").allSatisfy { $0.count <= 70 }, "\(text)")
            #expect(
                text.contains("Playlist 'Road Trip'") && text.contains("Vibes (run 1, 15 of its tracks):"),
                "\(text)"
            )
            #expect(text.contains("[no features]") && text.contains("tempo 16"), "\(text)")
        }
    }

    /// Each command that takes a playlist says what is near, or where to look, on a miss, and
    /// exits with 1.
    @Test func aMissSaysWhatIsNearOrWhereToLook() async throws {
        try await Self.withPlaylistLibrary { path, _ in
            for (arguments, message) in [
                (["playlists", "show", "bath tiem", "--db", path], "Did you mean 'bath time '?"),
                (
                    ["cluster", "--db", path, "--playlist", "ba", "--quiet"],
                    "'ba' starts the names of several playlists ('bath time ', 'Bass Music')"
                ),
                (["features", "status", "--db", path, "--playlist", "opera"], "`vibes-analyze playlists` lists them."),
            ] {
                let result = try await CommandLineTool.run(arguments)
                #expect(result.status == 1, "\(arguments)")
                #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            }
        }
    }

    /// `playlist extend` and `playlist reorder` find a playlist as `--playlist` does (case, the
    /// trailing space, a unique start) and suggest the nearest name on a miss. Run through the
    /// built tool.
    @Test func extendAndReorderNamePlaylistsLoosely() async throws {
        try await Self.withPlaylistLibrary { path, _ in
            let home = (path as NSString).deletingLastPathComponent
            func tool(_ arguments: [String]) async throws -> CommandLineTool.Result {
                try await CommandLineTool.run(arguments + ["--db", path], environment: ["HOME": home])
            }
            for typed in ["bath", "BATH TIME", "bath time"] {
                let result = try await tool(["playlist", "extend", typed, "-n", "2", "--dry-run"])
                #expect(result.status == 0, "\(typed): \(result.stderr)")
                #expect(result.stdout.contains("like bath time "), "\(result.stdout)")
            }
            for command in [["playlist", "extend", "bath tiem", "--dry-run"], ["playlist", "reorder", "bath tiem"]] {
                let result = try await tool(command)
                #expect(result.status == 1)
                #expect(result.stderr.contains("Did you mean 'bath time '?"), "\(command): \(result.stderr)")
            }
        }
    }

    /// `vibes N` is vibe N of the current run (its note on a terminal is tested with the other
    /// terminal output), `vibes --run N` is run N, and a vibe is named by its number or its name in any case, for `vibes` and for
    /// `--vibe`. Run through the built tool.
    @Test func vibesAreNamedByNumberOrNameThroughTheTool() async throws {
        try await Self.withPlaylistLibrary { path, _ in
            func tool(_ arguments: [String]) async throws -> (object: [String: Any], stderr: String) {
                let result = try await CommandLineTool.run(arguments + ["--db", path, "--json"])
                #expect(result.status == 0, "\(arguments): \(result.stderr)")
                let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
                return (try #require(object, "\(result.stdout)"), result.stderr)
            }
            func vibes(_ object: [String: Any]) -> [String] {
                (object["vibes"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
            }
            let all = try await tool(["vibes"]).object
            let names = vibes(all)
            #expect(names.count == 3)
            let runID = try #require((all["run"] as? [String: Any])?["id"] as? Int)
            let byNumber = try await tool(["vibes", "2"])
            #expect(vibes(byNumber.object) == [names[1]])
            #expect(vibes(try await tool(["vibes", names[2].uppercased()]).object) == [names[2]])
            let byRun = try await tool(["vibes", "--run", String(runID)]).object
            #expect((byRun["run"] as? [String: Any])?["id"] as? Int == runID && vibes(byRun) == names)
            let seeded = try await tool(["recommend", "--vibe", names[1].lowercased(), "-n", "3"]).object
            #expect((seeded["seeds"] as? [String])?.contains { $0.contains(names[1]) } == true, "\(seeded)")
            #expect((seeded["tracks"] as? [Any])?.count == 3)
        }
    }
}
