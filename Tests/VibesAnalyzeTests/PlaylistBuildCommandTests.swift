import Analytics
import ArgumentParser
import Features
import Foundation
import Ingest
import Testing
import VibesTestSupport

@testable import vibes_analyze

struct PlaylistBuildCommandTests {
    static let songs = TidyTuesdaySongs.Song.synthetic(count: 80)

    static func build(_ arguments: [String], store: LibraryStore) throws -> (Features.Playlist, [String]) {
        let command = try #require(
            try VibesAnalyze.parseAsRoot(["playlist", "build"] + arguments) as? VibesAnalyze.PlaylistCommand.Build
        )
        let (playlist, notes) = try command.makePlaylist(store: store)
        return (playlist, notes)
    }

    /// The two figures of "transition cost A (…) vs B (best-start greedy)".
    static func costs(in notes: [String]) throws -> (chosen: Double, greedy: Double) {
        let note = try #require(notes.first { $0.hasPrefix("transition cost ") })
        let words = note.split(separator: " ")
        let chosen = try #require(Double(words[2]))
        let versus = try #require(words.firstIndex(of: "vs"))
        let greedy = try #require(Double(words[versus + 1]))
        return (chosen, greedy)
    }

    @Test(arguments: [
        ["--from-mood", "calm", "--to-mood", "energetic", "--order", "arc"],
        ["--mood", "calm", "--order", "arc", "--arc", "0.5"],
        ["--mood", "calm", "--order", "arc", "--arc", "0.2,1.4"],
        ["--mood", "calm", "--order", "arc", "--arc", "wobbly"],
        ["--mood", "calm", "--export", "m3u", "--json"],
    ])
    func invalidOrderingArgumentsExitWith64(arguments: [String]) {
        do {
            _ = try VibesAnalyze.parseAsRoot(["playlist", "build"] + arguments)
            Issue.record("\(arguments) parsed")
        } catch {
            #expect(VibesAnalyze.exitCode(for: error) == .validationFailure, "\(VibesAnalyze.message(for: error))")
        }
    }

    @Test func flowPrintsItsCostBesideBestStartGreedy() throws {
        try withTemporaryDirectory { folder in
            let store = try makeStore(in: folder, songs: PlaylistBuildCommandTests.songs)
            let (playlist, notes) = try PlaylistBuildCommandTests.build(
                ["--mood", "energetic", "-n", "25", "--order", "flow"],
                store: store
            )
            let note = try #require(notes.first { $0.hasPrefix("transition cost ") })
            #expect(note.contains("(flow) vs ") && note.contains("(best-start greedy)"))
            #expect(!note.contains("shape correlation"))
            let (chosen, greedy) = try PlaylistBuildCommandTests.costs(in: notes)
            #expect(chosen <= greedy)
            // The printed cost is the printed order's, to the three decimals shown.
            let ordering = PlaylistOrdering()
            let recomputed = zip(playlist.entries, playlist.entries.dropFirst()).reduce(0.0) {
                $0 + ordering.transitionCost(from: $1.0, to: $1.1)
            }
            #expect(abs(recomputed - chosen) <= 0.0005)
            #expect(notes.contains { $0.contains("transition score") })
        }
    }

    @Test func aCustomArcPrintsItsShapeCorrelation() throws {
        try withTemporaryDirectory { folder in
            let store = try makeStore(in: folder, songs: PlaylistBuildCommandTests.songs)
            let (playlist, notes) = try PlaylistBuildCommandTests.build(
                ["--mood", "energetic", "-n", "20", "--order", "arc", "--arc", "0.2,0.8,0.4"],
                store: store
            )
            #expect(playlist.description.hasSuffix("ordered arc 0.2,0.8,0.4 (vibes-analyze)"))
            let note = try #require(notes.first { $0.hasPrefix("transition cost ") })
            #expect(note.contains("(arc 0.2,0.8,0.4) vs "))
            let printed = try #require(note.split(separator: " ").last.flatMap { Double($0) })
            #expect(printed >= 0.8)
            // The energies placed in the middle are above those at the start, as the curve asks.
            let energies = playlist.entries.map { $0.features.energy! }
            let start = energies.prefix(4).reduce(0, +) / 4
            let middle = energies[8..<12].reduce(0, +) / 4
            #expect(middle > start)
        }
    }

    @Test func flowKeepsAMoodPathWithinItsSteps() throws {
        try withTemporaryDirectory { folder in
            let store = try makeStore(in: folder, songs: PlaylistBuildCommandTests.songs)
            let path = ["--from-mood", "calm", "--to-mood", "energetic", "-n", "12"]
            let (asBuilt, _) = try PlaylistBuildCommandTests.build(path, store: store)
            let (flowing, notes) = try PlaylistBuildCommandTests.build(path + ["--order", "flow"], store: store)
            for step in [0..<3, 3..<6, 6..<9, 9..<12] {
                #expect(Set(flowing.entries[step].map(\.trackID)) == Set(asBuilt.entries[step].map(\.trackID)))
            }
            let (chosen, greedy) = try PlaylistBuildCommandTests.costs(in: notes)
            #expect(chosen <= greedy)
        }
    }
}

/// Playlists longer than one Spotify request: `-n` and `--duration` are honoured past 100 tracks.
struct LongPlaylistBuildTests {
    static let songs = TidyTuesdaySongs.Song.synthetic(count: 1_400, seed: 9)

    @Test func aCountAboveOneHundredIsHonouredToTheTrack() throws {
        try withTemporaryDirectory { folder in
            let store = try makeStore(in: folder, songs: LongPlaylistBuildTests.songs)
            let (playlist, _) = try PlaylistBuildCommandTests.build(
                ["--mood", "chill", "-n", "250", "--db", store.path],
                store: store
            )
            #expect(playlist.entries.count == 250)
            #expect(Set(playlist.entries.map(\.trackID)).count == 250)
        }
    }

    /// Ten hours from a library whose tracks last 2.5 to 4.5 minutes: well over 100 tracks, and
    /// the total reaches ten hours without going a whole track past it.
    @Test(arguments: [["--mood", "chill"], ["--from-mood", "calm", "--to-mood", "energetic"]])
    func aDurationOfHoursIsHonoured(arguments: [String]) throws {
        try withTemporaryDirectory { folder in
            let store = try makeStore(in: folder, songs: LongPlaylistBuildTests.songs)
            let (playlist, _) = try PlaylistBuildCommandTests.build(
                arguments + ["--duration", "10h", "--db", store.path],
                store: store
            )
            let total = playlist.entries.reduce(0) { $0 + ($1.durationMS ?? 0) }
            #expect(playlist.entries.count > 100)
            #expect(Set(playlist.entries.map(\.trackID)).count == playlist.entries.count)
            if arguments.contains("--mood") {
                // Tracks are added until the total reaches the duration.
                let last = playlist.entries.last?.durationMS ?? 0
                #expect(total >= 36_000_000 && total - last < 36_000_000, "\(total) ms")
            } else {
                // A mood path takes as many steps as tracks of the median length fill the duration.
                #expect(abs(Double(total) / 36_000_000 - 1) < 0.1, "\(total) ms")
            }
        }
    }

    @Test func moreThanSpotifyHoldsIsAUsageError() {
        do {
            _ = try VibesAnalyze.parseAsRoot(["playlist", "build", "--mood", "chill", "-n", "10001"])
            Issue.record("-n 10001 parsed")
        } catch {
            #expect(VibesAnalyze.exitCode(for: error) == .validationFailure)
            #expect(VibesAnalyze.message(for: error).contains("1 to 10000"))
        }
    }
}

/// A CSV export imports back with every Exportify column the library kept.
struct PlaylistExportRoundTripTests {
    @Test func anExportedCSVImportsBackWithEveryColumn() async throws {
        try await withTemporaryDirectory { folder in
            let first = folder + "/first.sqlite"
            let second = folder + "/second.sqlite"
            let csv = folder + "/export.csv"
            for arguments in [
                ["import", "--db", first, "--quiet", Fixtures.path("exportify/Liked_Songs.csv")],
                ["playlist", "build", "--db", first, "--mood", "chill", "-n", "50", "--export", "csv", "--out", csv],
                ["import", "--db", second, "--quiet", csv],
            ] {
                let result = try await CommandLineTool.run(arguments)
                try #require(result.status == 0, "\(arguments): \(result.stderr)")
            }
            let before = try LibraryStore(path: first)
            let after = try LibraryStore(path: second)
            func tracks(_ store: LibraryStore) throws -> [String: (TrackSummary, Playlist.Entry.ExportDetails)] {
                let table = try store.featureTable()
                let summaries = try store.trackSummaries(for: table.trackIDs)
                let details = try store.exportDetails(for: table.trackIDs)
                var result: [String: (TrackSummary, Playlist.Entry.ExportDetails)] = [:]
                for id in table.trackIDs {
                    let summary = try #require(summaries[id])
                    result[try #require(summary.spotifyID)] = (summary, try #require(details[id]))
                }
                return result
            }
            let original = try tracks(before)
            let imported = try tracks(after)
            // One version of each song is picked, so the playlist may hold fewer tracks than the file.
            #expect(imported.count >= 10 && imported.count <= original.count, "\(imported.count) of \(original.count)")
            var withGenres = 0
            for (spotifyID, (summary, details)) in imported {
                let (expected, expectedDetails) = try #require(original[spotifyID])
                #expect(summary.name == expected.name && summary.artists == expected.artists, "\(spotifyID)")
                #expect(summary.album == expected.album && summary.durationMS == expected.durationMS)
                #expect(summary.popularity == expected.popularity)
                #expect(details == expectedDetails, "\(spotifyID): \(details) vs \(expectedDetails)")
                if !details.genres.isEmpty { withGenres += 1 }
            }
            // The fixture's columns are really there, not empty on both sides.
            #expect(withGenres > 0)
            #expect(imported.values.contains { $0.1.releaseDate != nil && $0.1.recordLabel != nil })
            #expect(imported.values.contains { $0.1.isExplicit != nil && $0.1.addedAt != nil })
            // Features too, value for value.
            let beforeTable = try before.featureTable()
            let afterTable = try after.featureTable()
            let beforeByID = Dictionary(
                uniqueKeysWithValues: try before.trackSummaries(for: beforeTable.trackIDs).map {
                    ($0.value.spotifyID!, $0.key)
                }
            )
            let afterSummaries = try after.trackSummaries(for: afterTable.trackIDs)
            for (row, id) in afterTable.trackIDs.enumerated() {
                let beforeRow = try #require(
                    beforeTable.trackIDs.firstIndex(of: beforeByID[afterSummaries[id]!.spotifyID!]!)
                )
                for feature in AudioFeature.all {
                    #expect(
                        afterTable.value(row: row, feature: feature)
                            == beforeTable.value(row: beforeRow, feature: feature)
                    )
                }
            }
        }
    }

    /// `--playlist NAME` alone orders that playlist of the library offline: its own tracks, each
    /// once, in the chosen order, whatever `-n` says.
    @Test func aPlaylistAloneIsOrderedOffline() async throws {
        try await withTemporaryDirectory { folder in
            let store = try LibraryStore(path: folder + "/library.sqlite")
            _ = try store.importFile(at: Fixtures.path("exportify/Older_Layout.csv"))
            let (rowID, name) = try store.playlist(matching: "older")
            let own = try store.playlistTrackIDs(rowID: rowID)
            #expect(own.count == 8)
            for order in ["flow", "arc", "none"] {
                let (playlist, notes) = try PlaylistBuildCommandTests.build(
                    ["--playlist", "older", "--order", order, "-n", "3"],
                    store: store
                )
                #expect(Set(playlist.entries.map(\.trackID)) == Set(own), "\(order)")
                #expect(playlist.entries.count == own.count)
                #expect(notes.contains { $0.contains("\"\(name)\": its 8 tracks with audio features") }, "\(notes)")
                if order == "none" { #expect(playlist.entries.map(\.trackID) == own) }
            }
            let (first, _) = try PlaylistBuildCommandTests.build(
                ["--playlist", "older", "--order", "flow"],
                store: store
            )
            let (again, _) = try PlaylistBuildCommandTests.build(
                ["--playlist", "older", "--order", "flow"],
                store: store
            )
            #expect(first.entries.map(\.trackID) == again.entries.map(\.trackID))
            // Without seeds, a mood path or a playlist, there is nothing to build from.
            #expect(throws: (any Error).self) {
                try VibesAnalyze.parseAsRoot(["playlist", "build", "--order", "flow"])
            }
        }
    }

    /// `--playlist NAME --order key`, through the built tool and offline: the playlist's tracks
    /// round the Camelot wheel, each key one block and each key change to a neighbour, tempo
    /// rising or falling within a key; the same order printed, exported as M3U and CSV, and saved.
    @Test func aPlaylistIsOrderedByKeyThroughTheTool() async throws {
        try await PlaylistsCommandTests.withPlaylistLibrary { path, store in
            let folder = (path as NSString).deletingLastPathComponent
            func build(_ extra: [String]) async throws -> CommandLineTool.Result {
                let result = try await CommandLineTool.run(
                    ["playlist", "build", "--db", path, "--playlist", "road", "--order", "key"] + extra,
                    environment: ["HOME": folder]
                )
                #expect(result.status == 0, "\(extra): \(result.stderr)")
                return result
            }
            let printed = try await build(["--json"])
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(printed.stdout.utf8)) as? [String: Any]
            )
            let tracks = try #require(object["tracks"] as? [[String: Any]])
            // Road Trip's 15 tracks with features; the one without is left out.
            #expect(tracks.count == 15)
            #expect((object["description"] as? String)?.contains("ordered by key") == true, "\(object)")
            let keys: [CamelotKey] = try tracks.map { track in
                let features = try #require(track["features"] as? [String: Any])
                let key = try #require(features["key"] as? Int)
                let mode = try #require(features["mode"] as? Int)
                return try #require(CamelotKey(pitchClass: key, mode: mode))
            }
            let tempos = tracks.compactMap { ($0["features"] as? [String: Any])?["tempo"] as? Double }
            #expect(tempos.count == 15)
            var blocks: [(key: CamelotKey, tempos: [Double])] = []
            for (key, tempo) in zip(keys, tempos) {
                if blocks.last?.key == key {
                    blocks[blocks.count - 1].tempos.append(tempo)
                } else {
                    blocks.append((key, [tempo]))
                }
            }
            #expect(Set(blocks.map(\.key)).count == blocks.count, "a key in two places: \(keys)")
            for (from, to) in zip(blocks, blocks.dropFirst()) {
                #expect(from.key.smoothness(to: to.key) >= 0.9 - 1e-9, "\(from.key) → \(to.key)")
            }
            for block in blocks {
                #expect(block.tempos == block.tempos.sorted() || block.tempos == block.tempos.sorted(by: >))
            }
            #expect(tracks.allSatisfy { $0["in_library"] as? Bool == true })
            let ids = tracks.compactMap { $0["spotify_id"] as? String }
            #expect(ids.count == 15)
            #expect(try await build(["--json"]).stdout == printed.stdout)

            _ = try await build(["--export", "m3u", "--out", folder + "/road.m3u"])
            let m3u = try String(contentsOfFile: folder + "/road.m3u", encoding: .utf8)
            let titles = m3u.split(separator: "\n").filter { $0.hasPrefix("#EXTINF") }
            #expect(titles.count == 15)
            for (line, track) in zip(titles, tracks) {
                #expect(line.hasSuffix(try #require(track["name"] as? String)), "\(line)")
            }
            _ = try await build(["--export", "csv", "--out", folder + "/road.csv"])
            let rows = try String(contentsOfFile: folder + "/road.csv", encoding: .utf8).split(separator: "\n")
                .dropFirst()
            #expect(rows.map { String($0.prefix { $0 != "," }) } == ids.map { "spotify:track:" + $0 })

            // Flow and arc order the playlist offline too, whole.
            for order in ["flow", "arc"] {
                let result = try await CommandLineTool.run(
                    ["playlist", "build", "--db", path, "--playlist", "road", "--order", order, "--export", "m3u"]
                )
                #expect(result.status == 0, "\(order): \(result.stderr)")
                #expect(result.stdout.split(separator: "\n").filter { $0.hasPrefix("#EXTINF") }.count == 15, "\(order)")
            }

            let saved = try await build(["--save", "--name", "Road by key"])
            #expect(saved.stderr.contains("saved as \"Road by key\""))
            let stored = try #require(try store.builtPlaylist(named: "Road by key"))
            #expect(stored.entries.compactMap { $0.spotifyID?.rawValue } == ids)
        }
    }
}
