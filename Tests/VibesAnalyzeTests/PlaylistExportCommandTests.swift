import Analytics
import Features
import Foundation
import Ingest
import Testing
import VibesTestSupport

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
