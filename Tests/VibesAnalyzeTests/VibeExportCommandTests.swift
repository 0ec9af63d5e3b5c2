import Foundation
import Ingest
import Testing
import VibesTestSupport

/// A whole-vibe playlist says what it left out and why.
struct VibeExportCommandTests {
    @Test func aWholeVibeExportSaysHowManyOtherVersionsItLeftOut() async throws {
        try await withTemporaryDirectory { folder in
            let db = folder + "/library.sqlite"
            let store = try LibraryStore(path: db)
            var tracks = LibrarySeeding.syntheticTracks(perGroup: 20)
            // Five calm songs twice more: the same artist and title under other IDs (an album and a
            // compilation version, say).
            for copy in 1...2 {
                for index in 0..<5 {
                    var version = tracks[index]
                    version.spotifyID = String(format: "%022d", 900_000 + copy * 100 + index)
                    tracks.append(version)
                }
            }
            try LibrarySeeding.insert(tracks, into: store, folder: folder)
            try await PlaylistsCommandTests.cluster(store, k: 3)
            let runID = try #require(try store.currentClusteringRunID())
            let largest = try #require(try store.rankedClusters(ofRun: runID).first)
            #expect(largest.size == 30)  // the calm vibe: 20 songs and 10 other versions

            let out = folder + "/vibe.m3u"
            let build = ["playlist", "build", "--db", db, "--vibe", "1", "-n", "100", "--order", "none"]
            let result = try await CommandLineTool.run(build + ["--export", "m3u", "--out", out])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("vibe 1 \"\(largest.name)\": 20 of its 30 tracks, strongest first"))
            #expect(
                result.stderr.contains(
                    "10 other versions of songs already listed left out; `--keep-versions` keeps them"
                ),
                "\(result.stderr)"
            )
            let entries = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
                .filter { $0.hasPrefix("#EXTINF") }
            #expect(entries.count == 20)

            let kept = try await CommandLineTool.run(build + ["--keep-versions", "--export", "m3u", "--out", out])
            #expect(kept.status == 0)
            #expect(kept.stderr.contains("30 of its 30 tracks") && !kept.stderr.contains("other versions"))
            #expect(
                try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").filter {
                    $0.hasPrefix("#EXTINF")
                }.count == 30
            )

            // Cut short by -n: only the versions ranked above the last track taken count.
            let short = try await CommandLineTool.run(build + ["-n", "3"])
            #expect(short.status == 0)
            #expect(short.stderr.contains("3 of its 30 tracks"))
        }
    }
}
