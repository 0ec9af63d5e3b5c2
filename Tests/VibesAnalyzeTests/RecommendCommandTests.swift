import Analytics
import ArgumentParser
import Features
import Foundation
import GRDB
import Ingest
import Testing
import VibesTestSupport

@testable import vibes_analyze

/// A store in `folder` holding `songs`, written the way an importer would.
func makeStore(in folder: String, songs: [TidyTuesdaySongs.Song]) throws -> LibraryStore {
    let store = try LibraryStore(path: folder + "/library.sqlite")
    try store.insert(songs)
    return store
}

struct RecommendCommandTests {
    static let songs = TidyTuesdaySongs.Song.synthetic(count: 80)

    @Test(arguments: [
        ["recommend"],
        ["recommend", "--seed", "x", "--diversity", "1.5"],
        ["recommend", "--seed", "x", "-n", "0"],
        [
            "recommend", "--seed", "a", "--seed", "b", "--seed", "c", "--seed-artist", "d", "--mood", "calm", "--mood",
            "sad",
        ],
        ["recommend", "--mood", "grumpy"],
        ["playlist", "build", "--from-mood", "calm"],
        ["playlist", "build", "--mood", "calm", "--out", "x.m3u"],
        ["playlist", "build", "--mood", "calm", "--lock", "first=x"],
        ["playlist", "build", "--mood", "calm", "--duration", "forever"],
        ["eval", "--label", "colour"],
    ])
    func invalidArgumentsExitWith64(arguments: [String]) {
        #expect(throws: (any Error).self) { try VibesAnalyze.parseAsRoot(arguments) }
        do {
            _ = try VibesAnalyze.parseAsRoot(arguments)
        } catch {
            #expect(VibesAnalyze.exitCode(for: error) == .validationFailure, "\(VibesAnalyze.message(for: error))")
        }
    }

    @Test func recommendFindsTheSeedByNameAndExplainsEveryResult() throws {
        try withTemporaryDirectory { folder in
            let store = try makeStore(in: folder, songs: RecommendCommandTests.songs)
            let command = try #require(
                try VibesAnalyze.parseAsRoot([
                    "recommend", "--seed", "song 7", "-n", "5", "--max-tempo", "140", "--tempo-octave",
                ]) as? VibesAnalyze.Recommend
            )
            let report = try command.makeReport(store: store)
            #expect(report.tracks.count == 5)
            #expect(report.notes[0].contains("Song 7"))
            #expect(!report.tracks.contains { $0.name == "Song 7" })
            #expect(
                report.tracks.allSatisfy { $0.differences.count == 3 && $0.spotifyID.flatMap(SpotifyID.init) != nil }
            )
            #expect(report.pool.candidates == 79)
            #expect(report.pool.afterFilters <= 79)
            let table = report.table()
            #expect(table.split(separator: "\n").count == 5)
            #expect(table.contains("σ ("))
        }
    }

    /// From one track, the default list reaches beyond the seed's artist: at most 2 tracks per
    /// artist and 2 by the seed's, unless asked; each track says what made it close.
    @Test func aListFromASeedTrackHoldsAtMostTwoByAnyArtist() throws {
        try withTemporaryDirectory { folder in
            let store = try makeStore(in: folder, songs: RecommendCommandTests.songs)
            func report(_ extra: [String]) throws -> RecommendReport {
                let command = try #require(
                    try VibesAnalyze.parseAsRoot(["recommend", "--seed", "song 7", "-n", "10"] + extra)
                        as? VibesAnalyze.Recommend
                )
                return try command.makeReport(store: store)
            }
            func counts(_ report: RecommendReport) -> [String: Int] {
                report.tracks.reduce(into: [:]) { $0[$1.artists.first ?? "", default: 0] += 1 }
            }
            let seedArtist = "Artist 1"
            let plain = try report([])
            #expect(plain.tracks.count == 10)
            #expect(counts(plain).values.allSatisfy { $0 <= 2 }, "\(counts(plain))")
            #expect(plain.notes.contains { $0.contains("--same-artist") })
            #expect(plain.tracks.allSatisfy { !$0.why.isEmpty })
            #expect(plain.tracks.filter { $0.artists.first == seedArtist }.allSatisfy { $0.why.first == "same artist" })
            // More per artist when asked, still 2 by the seed's artist; all of them with --same-artist.
            let wider = try report(["--max-per-artist", "5"])
            #expect(counts(wider).values.allSatisfy { $0 <= 5 })
            #expect(counts(wider)[seedArtist, default: 0] <= 2)
            let same = try report(["--same-artist", "--max-per-artist", "10"])
            #expect(counts(same)[seedArtist, default: 0] > 2, "\(counts(same))")
            // Excluding the seed's artist leaves none of their tracks.
            let excluded = try report(["--exclude-artist", seedArtist])
            #expect(counts(excluded)[seedArtist] == nil)
        }
    }

    @Test func recommendRejectsAnUnknownSeedWithAUsefulMessage() throws {
        try withTemporaryDirectory { folder in
            let store = try makeStore(in: folder, songs: RecommendCommandTests.songs)
            let command = try #require(
                try VibesAnalyze.parseAsRoot(["recommend", "--seed", "spotify:track:0000000000000000000000"])
                    as? VibesAnalyze.Recommend
            )
            #expect {
                try command.makeReport(store: store)
            } throws: { error in
                // A seed the library lacks is a runtime failure (exit 1), not a usage error.
                VibesAnalyze.exitCode(for: error) == .failure && "\(error)".contains("not in the library")
            }
        }
    }

    @Test func playlistBuildOrdersLocksSavesAndExports() throws {
        try withTemporaryDirectory { folder in
            let store = try makeStore(in: folder, songs: RecommendCommandTests.songs)
            let command = try #require(
                try VibesAnalyze.parseAsRoot([
                    "playlist", "build", "--seed-artist", "artist 2", "-n", "8", "--order", "arc", "--arc", "rising",
                    "--lock", "3=Song 50", "--name", "Test mix", "--save",
                ]) as? VibesAnalyze.PlaylistCommand.Build
            )
            let (playlist, notes) = try command.makePlaylist(store: store)
            #expect(playlist.entries.count == 8)
            #expect(playlist.entries[2].name == "Song 50" && playlist.entries[2].isLocked)
            #expect(Set(playlist.entries.map(\.trackID)).count == 8)
            #expect(notes.contains { $0.contains("transition score") })
            let saved = try #require(try store.builtPlaylist(named: "test mix"))
            #expect(saved.entries.map(\.trackID) == playlist.entries.map(\.trackID))

            let m3u = try PlaylistExport.text(of: playlist, as: .m3u)
            #expect(m3u.hasPrefix("#EXTM3U\n#PLAYLIST:Test mix\n"))
            #expect(m3u.components(separatedBy: "#EXTINF:").count == 9)
        }
    }

    @Test func moodPathByDurationReachesItsLength() throws {
        try withTemporaryDirectory { folder in
            let store = try makeStore(in: folder, songs: RecommendCommandTests.songs)
            let command = try #require(
                try VibesAnalyze.parseAsRoot([
                    "playlist", "build", "--from-mood", "calm", "--to-mood", "energetic", "--duration", "30m",
                ]) as? VibesAnalyze.PlaylistCommand.Build
            )
            let (playlist, _) = try command.makePlaylist(store: store)
            // Synthetic durations are 150–270 s, so 30 minutes is 7 to 12 tracks.
            #expect((7...12).contains(playlist.entries.count))
            #expect(playlist.description.hasPrefix("From calm to energetic"))
            // The path's own order is kept (no re-ordering by default), so it ends more energetic.
            let energies = playlist.entries.compactMap(\.features.energy)
            #expect(energies.first! < energies.last!)
            #expect(playlist.description.hasSuffix("ordered none (vibes-analyze)"))
        }
    }

    @Test func evalReportsPrecisionAgainstChance() async throws {
        try await withTemporaryDirectory { folder in
            let store = try makeStore(in: folder, songs: RecommendCommandTests.songs)
            let command = try #require(
                try VibesAnalyze.parseAsRoot(["eval", "--label", "genre", "-k", "5"]) as? VibesAnalyze.Eval
            )
            let report = try await command.makeReport(store: store)
            // "loud"/"soft" split on energy, which the space contains: neighbours should mostly agree.
            #expect(report.evaluation.seedCount == 80)
            #expect(report.evaluation.precision > report.evaluation.randomBaseline + 0.2)
            #expect(report.nmi != nil && report.clusterCount == 2)
            #expect(report.text().contains("precision@5"))
        }
    }

    @Test func vibeSeedsComeFromTheLatestClusteringRun() async throws {
        try await withTemporaryDirectory { folder in
            let store = try makeStore(in: folder, songs: RecommendCommandTests.songs)
            let missing = try #require(
                try VibesAnalyze.parseAsRoot(["recommend", "--vibe", "1"]) as? VibesAnalyze.Recommend
            )
            #expect {
                try missing.makeReport(store: store)
            } throws: { error in
                "\(error)".contains("vibes-analyze cluster")
            }

            var cluster = try #require(
                try VibesAnalyze.parseAsRoot(["cluster", "--db", folder + "/library.sqlite", "--k", "2", "--quiet"])
                    as? AsyncParsableCommand
            )
            try await cluster.run()
            let build = try #require(
                try VibesAnalyze.parseAsRoot(["playlist", "build", "--vibe", "1", "-n", "6", "--order", "none"])
                    as? VibesAnalyze.PlaylistCommand.Build
            )
            let (playlist, notes) = try build.makePlaylist(store: store)
            #expect(playlist.entries.count == 6)
            #expect(notes.contains { $0.hasPrefix("vibe 1 ") })
            let recommend = try #require(
                try VibesAnalyze.parseAsRoot(["recommend", "--vibe", "2", "-n", "4"]) as? VibesAnalyze.Recommend
            )
            #expect(try recommend.makeReport(store: store).tracks.count == 4)
            let outOfRange = try #require(
                try VibesAnalyze.parseAsRoot(["recommend", "--vibe", "3"]) as? VibesAnalyze.Recommend
            )
            #expect(throws: (any Error).self) { try outOfRange.makeReport(store: store) }
        }
    }

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

    @Test func playlistHelpIsStable() {
        let help = VibesAnalyze.helpMessage(for: VibesAnalyze.PlaylistCommand.self, columns: 80)
        #expect(
            help == """
                OVERVIEW: Build vibe-matched playlists that flow, and push them to Spotify.

                Example: vibes-analyze playlist build --mood chill --duration 1h --save

                USAGE: vibes-analyze playlist <subcommand>

                OPTIONS:
                  --version               Show the version.
                  -h, --help              Show help information.

                SUBCOMMANDS:
                  build                   Build a playlist from seeds and targets, or along a
                                          mood path, ordered for flow.
                  push                    Write a playlist from the store to your Spotify
                                          account.
                  reorder                 Reorder a Spotify playlist in place so it flows;
                                          --undo puts the old order back.
                  extend                  Find more tracks like a playlist's and append them,
                                          or write them as a new playlist.
                  recipe                  Keep how a playlist is built, and build it again from
                                          the current library.

                  See 'vibes-analyze help playlist <subcommand>' for detailed help.
                """
        )
    }
}
