import ArgumentParser
import Foundation
import Ingest
import Testing
import VibesCommandSupport
import VibesEngine
import VibesTestSupport

@testable import vibes_analyze

/// `playlists`, `playlists show`, and playlists named loosely wherever `--playlist` is taken.
struct PlaylistsCommandTests {
    /// Parses and runs a command line, as the executable would.
    static func run(_ arguments: [String]) async throws {
        var command = try VibesAnalyze.parseAsRoot(arguments)
        if var asyncCommand = command as? AsyncParsableCommand {
            try await asyncCommand.run()
        } else {
            try command.run()
        }
    }

    /// The header of a real Exportify export (the one in `shared/data`).
    static let exportifyHeader =
        "Track URI,Track Name,Album Name,Artist Name(s),Release Date,Duration (ms),Popularity,Explicit,Added By,Added At,Genres,Record Label,Danceability,Energy,Key,Loudness,Mode,Speechiness,Acousticness,Instrumentalness,Liveness,Valence,Tempo,Time Signature"

    /// Writes `tracks` as an Exportify export called `fileName` in `folder`; a track given with
    /// `withoutFeatures` has empty feature columns.
    static func writeExportify(
        _ tracks: [LibrarySeeding.SeedTrack],
        fileName: String,
        in folder: String,
        withoutFeatures: [String] = []
    ) throws -> String {
        var lines = [exportifyHeader]
        for track in tracks {
            let f = track.features
            let values = [
                f.danceability, f.energy, f.key.map(Double.init), f.loudness, f.mode.map(Double.init), f.speechiness,
                f.acousticness, f.instrumentalness, f.liveness, f.valence, f.tempo, 4,
            ].map { $0.map { "\($0)" } ?? "" }
            lines.append(
                ["spotify:track:\(track.spotifyID)", track.name, "Album", track.artist, "2020-01-01", "200000", "50"]
                    .joined(separator: ",") + ",false,,2024-01-01T00:00:00Z,\"pop\",\"Label\","
                    + values.joined(separator: ",")
            )
        }
        for name in withoutFeatures {
            lines.append(
                "spotify:track:\(String(repeating: "9", count: 21))1,\(name),Album,Nobody,2020-01-01,200000,50,false,,"
                    + "2024-01-01T00:00:00Z,\"pop\",\"Label\"," + String(repeating: ",", count: 11)
            )
        }
        let path = folder + "/" + fileName
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A library of three separated groups of 20 tracks (calm, dance, tense) clustered with k = 3,
    /// and three playlists: "bath time " (10 calm, 2 dance), "Bass Music" (10 dance) and
    /// "Road Trip" (15 tense and one track without features).
    static func withPlaylistLibrary<T>(_ body: (String, LibraryStore) async throws -> T) async throws -> T {
        try await withTemporaryDirectory { folder in
            let path = folder + "/library.sqlite"
            let store = try LibraryStore(path: path)
            let tracks = LibrarySeeding.syntheticTracks(perGroup: 20)
            try LibrarySeeding.insert(tracks, into: store, folder: folder)
            let calm = tracks.filter { $0.name.hasPrefix("calm") }
            let dance = tracks.filter { $0.name.hasPrefix("dance") }
            let tense = tracks.filter { $0.name.hasPrefix("tense") }
            for file in [
                try writeExportify(Array(calm.prefix(10) + dance.prefix(2)), fileName: "bath_time_.csv", in: folder),
                try writeExportify(Array(dance.prefix(10)), fileName: "Bass_Music.csv", in: folder),
                try writeExportify(
                    Array(tense.prefix(15)),
                    fileName: "Road_Trip.csv",
                    in: folder,
                    withoutFeatures: ["Unmeasured"]
                ),
            ] {
                _ = try store.importFile(at: file)
            }
            try await run(["cluster", "--db", path, "--k", "3", "--quiet"])
            return try await body(path, store)
        }
    }

    @Test func listsEveryPlaylistWithCoverageAndDominantVibes() async throws {
        try await Self.withPlaylistLibrary { path, store in
            let runID = try #require(try store.currentClusteringRunID())
            let playlists = try store.playlistOverviews(vibesOf: runID)
            #expect(playlists.map(\.name) == ["Bass Music", "bath time ", "Road Trip"])
            #expect(playlists.map(\.trackCount) == [10, 12, 16])
            #expect(playlists.map(\.tracksWithFeatures) == [10, 12, 15])
            let bath = playlists[1]
            #expect(bath.vibes.map(\.tracks) == [10, 2])
            // The calm vibe is the one holding "calm 0"; its number is its rank by size.
            let ranked = try store.rankedClusters(ofRun: runID)
            let calmTrack = try #require(try store.searchTracks(matching: "calm 0").first).track.id
            let calmCluster = try #require(try store.assignments(ofRun: runID).first { $0.trackID == calmTrack })
                .cluster
            #expect(bath.vibes.first?.cluster == calmCluster)
            #expect(bath.vibes.first?.number == 1 + (ranked.firstIndex { $0.cluster == calmCluster } ?? -1))
            #expect(bath.vibes.first?.name == ranked.first { $0.cluster == calmCluster }?.name)

            let table = VibesAnalyze.Playlists.List.describe(playlists, runID: runID, width: 60)
            let lines = table.split(separator: "\n")
            #expect(lines.count == 4)
            #expect(lines.allSatisfy { $0.count <= 60 }, "\(table)")
            #expect(lines[2].contains("bath time") && lines[2].contains("12") && lines[2].contains("100%"))
            #expect(lines[3].contains("94%"))  // 15 of 16
            try await Self.run(["playlists", "--db", path])
        }
    }

    @Test func showGivesTheVibeBreakdownFeaturesAndTracks() async throws {
        try await Self.withPlaylistLibrary { path, store in
            let runID = try store.currentClusteringRunID()
            let detail = try store.playlistDetail(id: try store.playlistID(matching: "road"), vibesOf: runID)
            #expect(detail.overview.name == "Road Trip")
            #expect(detail.entries.count == 16)
            #expect(detail.entries.map(\.position) == Array(0..<16))
            #expect(detail.entries.last?.track.name == "Unmeasured")
            #expect(detail.entries.last?.hasFeatures == false && detail.entries.last?.vibe == nil)
            #expect(detail.entries.dropLast().allSatisfy { $0.hasFeatures && $0.vibe != nil })
            // The tense group's tempo is about 165 and its valence about 0.15.
            let tempo = try #require(detail.featureMeans[.tempo])
            let valence = try #require(detail.featureMeans[.valence])
            #expect(abs(tempo - 165) < 5 && abs(valence - 0.15) < 0.05)
            let text = VibesAnalyze.Playlists.Show.describe(detail, width: 70)
            #expect(text.split(separator: "\n").allSatisfy { $0.count <= 70 }, "\(text)")
            #expect(text.contains("[no features]") && text.contains("tempo 16"))
            try await Self.run(["playlists", "show", "road", "--db", path])
        }
    }

    @Test(arguments: [
        ("bath time ", "bath time "), ("bath time", "bath time "), ("BATH TIME", "bath time "), ("bat", "bath time "),
        ("bass", "Bass Music"), ("road trip", "Road Trip"),
    ])
    func aPlaylistIsNamedLoosely(typed: String, stored: String) async throws {
        try await Self.withPlaylistLibrary { path, store in
            #expect(try store.playlist(matching: typed).name == stored)
            // Wherever --playlist is taken.
            try await Self.run(["features", "status", "--db", path, "--playlist", typed])
        }
    }

    @Test(arguments: [
        ("bath tiem", "Did you mean 'bath time '?"),
        ("ba", "'ba' starts the names of several playlists ('bath time ', 'Bass Music')"),
        ("opera", "`vibes-analyze playlists` lists them."),
    ])
    func aMissSaysWhatIsNearOrWhereToLook(typed: String, message: String) async throws {
        try await Self.withPlaylistLibrary { path, store in
            for arguments in [
                ["playlists", "show", typed, "--db", path], ["cluster", "--db", path, "--playlist", typed, "--quiet"],
                ["features", "status", "--db", path, "--playlist", typed],
            ] {
                do {
                    try await Self.run(arguments)
                    Issue.record("\(arguments) succeeded")
                } catch let failure as CommandFailure {
                    #expect(failure.description.contains(message), "\(arguments): \(failure)")
                }
            }
        }
    }

    @Test func aPlaylistRunIsNotTheLibrarysUnlessMadeCurrent() async throws {
        try await Self.withPlaylistLibrary { path, store in
            let libraryRun = try #require(try store.currentClusteringRunID())
            try await Self.run(["cluster", "--db", path, "--playlist", "bath", "--k", "2", "--quiet"])
            let scoped = try #require(try store.clusteringRuns().first?.run.id)
            #expect(scoped != libraryRun)
            #expect(try store.clusteringRunScopes()[scoped] == .playlist("bath time "))
            #expect(try store.clusteringRunScopes()[libraryRun] == .library)
            #expect(try store.currentClusteringRunID() == libraryRun)
            #expect(try store.clusteringRun()?.run.id == libraryRun)
            let report = try VibesReport(store: store, runID: nil, exampleCount: 1)
            #expect(report.run.id == libraryRun && report.scope == "library")
            #expect(try VibesReport(store: store, runID: scoped, exampleCount: 1).scope == "playlist:bath time ")

            try await Self.run(["cluster", "--db", path, "--playlist", "bath", "--k", "2", "--make-current", "--quiet"])
            let current = try #require(try store.currentClusteringRunID())
            #expect(current > scoped)
            #expect(try store.clusteringRun()?.run.id == current)
            // The next run of the library is current again.
            try await Self.run(["cluster", "--db", path, "--k", "3", "--quiet"])
            let next = try #require(try store.currentClusteringRunID())
            let nextScope = try store.clusteringRunScopes()[next]
            #expect(next > current && nextScope == .library)
            do {
                _ = try VibesAnalyze.parseAsRoot(["cluster", "--make-current"])
                Issue.record("--make-current without --playlist was taken")
            } catch {
                #expect(VibesAnalyze.exitCode(for: error) == .validationFailure)
            }
        }
    }

    /// The real Exportify export in `shared/data`, saved under a name with a trailing space as
    /// Exportify's file names leave them, found by any case and by its start, with its vibes.
    @Test(.enabled(if: SharedData.isAvailable, SharedData.skipReason))
    func aRealExportifyPlaylistIsListedAndShown() async throws {
        try await withTemporaryDirectory { folder in
            let db = folder + "/library.sqlite"
            let file = folder + "/Liked_Songs_.csv"
            try FileManager.default.copyItem(
                atPath: SharedData.path("spotify-api/exports/exportify/kofort9-mymusic/Liked_Songs.csv"),
                toPath: file
            )
            let store = try LibraryStore(path: db)
            _ = try store.importFile(at: file)
            try await Self.run(["cluster", "--db", db, "--k", "6", "--quiet"])
            let runID = try store.currentClusteringRunID()
            let clock = ContinuousClock()
            let start = clock.now
            let playlists = try store.playlistOverviews(vibesOf: runID)
            let listing = clock.now - start
            let liked = try #require(playlists.first)
            #expect(playlists.count == 1 && liked.name == "Liked Songs ")
            #expect(liked.trackCount > 7_000 && liked.tracksWithFeatures > 7_000)
            // Every clustered track of the playlist is in one of the run's vibes.
            let run = try #require(try store.clusteringRun()).run
            #expect(liked.vibes.reduce(0) { $0 + $1.tracks } == run.trackCount)
            #expect(listing < .seconds(2), "listing took \(listing)")
            let detail = try store.playlistDetail(id: try store.playlistID(matching: "LIKED"), vibesOf: runID)
            #expect(detail.entries.count >= liked.trackCount)
            for typed in ["likd songs", "likd"] {
                #expect(throws: TrackScopeError.misspelledPlaylist(name: typed, closest: "Liked Songs ")) {
                    try store.playlistID(matching: typed)
                }
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
