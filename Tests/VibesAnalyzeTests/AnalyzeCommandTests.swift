import Foundation
import GRDB
import Testing
import VibesTestSupport

/// `vibes-analyze analyze` through the built tool: a folder of real and generated audio becomes
/// tracks with features, which cluster and export to M3U as file paths.
@Suite struct AnalyzeCommandTests {
    /// A folder of 8 generated songs (click tracks and cadences of different tempi and keys), the
    /// real clip in two formats, and a text file named like audio.
    private func makeMusicFolder(in directory: String) throws -> String {
        let folder = directory + "/Music"
        try FileManager.default.createDirectory(atPath: folder + "/album", withIntermediateDirectories: true)
        for (index, bpm) in [92.0, 118.0, 128.0, 150.0].enumerated() {
            try TestSignals.writeWAV(TestSignals.clicks(bpm: bpm, seconds: 8), to: folder + "/clicks-\(index).wav")
        }
        for (index, tonic) in [0, 4, 7, 9].enumerated() {
            try TestSignals.writeWAV(
                TestSignals.cadence(tonic: tonic, isMajor: index % 2 == 0, repeats: 2),
                to: folder + "/album/cadence-\(index).wav"
            )
        }
        for name in ["clip.flac", "clip.ogg", "not-audio.mp3"] {
            try FileManager.default.copyItem(atPath: Fixtures.path("audio/" + name), toPath: folder + "/album/" + name)
        }
        return folder
    }

    private func json(_ text: String) throws -> [[String: Any]] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        return try #require(object["files"] as? [[String: Any]])
    }

    @Test func analyzeClusterAndExportAFolder() async throws {
        try await withTemporaryDirectory { directory in
            let folder = try makeMusicFolder(in: directory)
            let db = directory + "/library.sqlite"

            let first = try await CommandLineTool.run(["analyze", "--db", db, "--json", "--jobs", "2", folder])
            // One file is not audio: it is reported, the others are analysed, and the exit status is 1.
            #expect(first.status == 1, "stderr: \(first.stderr)")
            let files = try json(first.stdout)
            #expect(files.count == 11)
            let failed = files.filter { !($0["error"] is NSNull) }
            #expect(failed.count == 1)
            #expect((failed.first?["path"] as? String)?.hasSuffix("not-audio.mp3") == true)
            #expect((failed.first?["error"] as? String)?.isEmpty == false)
            let clicks = try #require(files.first { ($0["path"] as? String)?.hasSuffix("clicks-1.wav") == true })
            #expect(abs((clicks["tempo"] as? Double ?? 0) - 118) < 118 * 0.04)
            #expect((clicks["track_id"] as? String)?.hasPrefix("local:") == true)
            #expect(clicks["duration_ms"] as? Int == 8000)
            #expect(clicks["liveness"] == nil)
            let confidence = try #require(clicks["confidence"] as? [String: Double])
            #expect(confidence["tempo"] != nil && confidence["energy"] != nil)
            let provenance = try #require(clicks["provenance"] as? [String: Any])
            #expect((provenance["measured"] as? [String])?.contains("tempo") == true)
            #expect((provenance["estimated"] as? [String])?.contains("valence") == true)
            let cadence = try #require(files.first { ($0["path"] as? String)?.hasSuffix("cadence-1.wav") == true })
            #expect(cadence["key"] as? Int == 4)
            #expect(cadence["mode"] as? Int == 0)
            // The same clip in two formats (same tags, same duration) is one recording: one track.
            let clips = files.filter { ($0["path"] as? String)?.contains("/clip.") == true }
            #expect(clips.count == 2)
            #expect(Set(clips.compactMap { $0["track_id"] as? String }).count == 1)
            #expect(Set(clips.compactMap { $0["matched_by"] as? String }) == ["new-track", "artist-title"])

            // A second run skips what is unchanged and tries the failed file again.
            let second = try await CommandLineTool.run(["analyze", "--db", db, folder])
            #expect(second.status == 1)
            #expect(second.stdout.contains("Analysed 0 of 11 files"), "\(second.stdout)")
            #expect(second.stdout.contains("10 unchanged"))
            #expect(
                second.stdout.contains("not-audio.mp3: not a readable audio file")
                    || second.stdout.contains("not-audio.mp3:")
            )

            let cluster = try await CommandLineTool.run(["cluster", "--db", db, "--k", "2", "--seed", "1"])
            #expect(cluster.status == 0, "stderr: \(cluster.stderr)")
            let m3u = directory + "/vibe.m3u"
            let playlist = try await CommandLineTool.run([
                "playlist", "build", "--db", db, "--vibe", "1", "--export", "m3u", "--out", m3u,
            ])
            #expect(playlist.status == 0, "stderr: \(playlist.stderr)")
            let text = try String(contentsOfFile: m3u, encoding: .utf8)
            let entries = text.split(separator: "\n").filter { !$0.hasPrefix("#") }
            #expect(!entries.isEmpty)
            for entry in entries {
                #expect(entry.hasPrefix(folder + "/"), "M3U entry \(entry) is not a file path")
                #expect(FileManager.default.fileExists(atPath: String(entry)))
            }

            let status = try await CommandLineTool.run(["features", "status", "--db", db])
            #expect(status.stdout.contains("local:vibes-5"), "\(status.stdout)")
            #expect(status.stdout.contains("at least 50 are needed"))
        }
    }

    @Test func forceAnalysesAgainAndEmptyArgumentsAreUsageErrors() async throws {
        try await withTemporaryDirectory { directory in
            let db = directory + "/library.sqlite"
            let song = directory + "/song.wav"
            try TestSignals.writeWAV(TestSignals.clicks(bpm: 120, seconds: 6), to: song)
            let first = try await CommandLineTool.run(["analyze", "--db", db, song])
            #expect(first.status == 0, "stderr: \(first.stderr)")
            #expect(first.stdout.contains("Analysed 1 of 1 files"))
            let forced = try await CommandLineTool.run(["analyze", "--db", db, "--force", song])
            #expect(forced.stdout.contains("Analysed 1 of 1 files"))

            let copy = directory + "/copy.wav"
            try FileManager.default.copyItem(atPath: song, toPath: copy)
            let copied = try await CommandLineTool.run(["analyze", "--db", db, "--json", copy])
            #expect(copied.status == 0)
            let files = try json(copied.stdout)
            #expect(files.first?["status"] as? String == "same-content")

            #expect(try await CommandLineTool.run(["analyze", "--db", db]).status == 64)
            #expect(try await CommandLineTool.run(["analyze", "--db", db, "--jobs", "0", song]).status == 64)
            let missing = try await CommandLineTool.run(["analyze", "--db", db, directory + "/nope"])
            #expect(missing.status == 1)
            #expect(missing.stderr.contains("nope"))
            #expect(!missing.stderr.contains("USAGE"))
        }
    }

    @Test func ctrlCKeepsEveryFinishedFileAndARerunResumes() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory + "/Music"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let count = 40
            for index in 0..<count {
                try TestSignals.writeWAV(
                    TestSignals.clicks(bpm: 80 + Double(index) * 2, seconds: 12),
                    to: folder + "/\(index).wav"
                )
            }
            let db = directory + "/library.sqlite"
            let (process, _, _) = try CommandLineTool.start(["analyze", "--db", db, "--jobs", "1", folder])
            let queue = try DatabaseQueue(path: db)
            func analysed() throws -> Int {
                (try? queue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM local_files WHERE error IS NULL") })
                    ?? 0
            }
            // A blocking wait: a Task.sleep could wake late on a busy pool, after the run ended.
            var waited = 0
            while try analysed() < 3 && waited < 120_000 && process.isRunning {
                usleep(50_000)
                waited += 50
            }
            try #require(process.isRunning, "analyze finished before it could be interrupted; add files")
            kill(process.processIdentifier, SIGINT)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal)
            let kept = try analysed()
            #expect(kept >= 3 && kept < count)

            let resumed = try await CommandLineTool.run(["analyze", "--db", db, folder])
            #expect(resumed.status == 0, "stderr: \(resumed.stderr)")
            #expect(resumed.stdout.contains("Analysed \(count - kept) of \(count) files"), "\(resumed.stdout)")
            #expect(resumed.stdout.contains("\(kept) unchanged"))
            #expect(try analysed() == count)
        }
    }
}
