import Features
import Foundation
import Ingest
import Testing
import VibesTestSupport

@testable import VibesServer

#if canImport(Glibc)
import Glibc
#endif

/// `GET /api/tracks/{id}/audio`: the local file the store names for a track, with byte ranges,
/// and never another file.
struct AudioTests {
    /// `count` bytes that differ from place to place, so that a wrong range shows.
    static func audioBytes(count: Int) -> Data {
        var generator = SplitMix64(seed: 7)
        return Data((0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
    }

    /// Records `path` as the analysed file of synthetic track `index` (matched by the Spotify link
    /// in its tags), as `vibes-analyze analyze` would, and returns the track's store ID.
    @discardableResult
    static func recordFile(at path: String, forTrack index: Int, in store: LibraryStore) throws -> Int64 {
        let analysis = AudioFileAnalysis(
            durationMS: 180_000 + index,
            features: AudioFeatures(energy: ServerHarness.energy(index), key: 5, loudness: -7.5, mode: 1, tempo: 120),
            provenance: [:],
            confidence: [:],
            descriptors: try descriptors(),
            tags: AudioFileTags(spotifyID: SpotifyID(ServerHarness.spotifyID(index))),
            stream: AudioStreamFormat(codec: "mp3", sampleRate: 44_100, channels: 2),
            analyzer: "test-1"
        )
        let outcome = try store.recordLocalAnalysis(
            analysis,
            of: LocalFileFingerprint(path: path, size: 1, modifiedNS: Int64(index)),
            contentHash: String(repeating: String(index % 10), count: 64)
        )
        return outcome.trackID
    }

    /// Descriptors of no consequence here: the server serves files, not their analysis.
    static func descriptors() throws -> AudioDescriptors {
        let names = [
            "tempo_confidence", "beat_regularity", "onset_rate", "spectral_centroid", "spectral_flatness",
            "high_frequency_share", "low_frequency_share", "syllabic_modulation", "key_correlation",
            "tuning_cents", "silent_share",
        ]
        let json = "{" + names.map { "\"\($0)\": 0.5" }.joined(separator: ", ") + ", \"pitch_class_profile\": []}"
        return try JSONDecoder().decode(AudioDescriptors.self, from: Data(json.utf8))
    }

    /// The store ID of synthetic track `index`.
    static func trackID(_ index: Int, in store: LibraryStore) throws -> Int64 {
        let spotifyID = try #require(SpotifyID(ServerHarness.spotifyID(index)))
        return try #require(try store.trackID(spotifyID: spotifyID))
    }

    @Test func servesTheRecordedFileWholeAndInRanges() async throws {
        try await ServerHarness.withServer { harness async throws in
            let bytes = Self.audioBytes(count: 150_000)
            let path = harness.folder + "/Song 3.mp3"
            try bytes.write(to: URL(fileURLWithPath: path))
            let id = try Self.recordFile(at: path, forTrack: 3, in: harness.store)
            let whole = try await harness.get("/api/tracks/\(id)/audio")
            #expect(whole.status == 200)
            #expect(whole.headers["content-type"] == "audio/mpeg")
            #expect(whole.headers["accept-ranges"] == "bytes")
            #expect(whole.headers["content-length"] == "150000")
            #expect(whole.body == bytes)

            let middle = try await harness.get("/api/tracks/\(id)/audio", headers: ["Range: bytes=1000-70999"])
            #expect(middle.status == 206)
            #expect(middle.headers["content-range"] == "bytes 1000-70999/150000")
            #expect(middle.body == bytes[1000..<71_000])

            let open = try await harness.get("/api/tracks/\(id)/audio", headers: ["Range: bytes=149990-"])
            #expect(open.status == 206)
            #expect(open.body == bytes[149_990...])
            let suffix = try await harness.get("/api/tracks/\(id)/audio", headers: ["Range: bytes=-10"])
            #expect(suffix.headers["content-range"] == "bytes 149990-149999/150000")
            #expect(suffix.body == bytes[149_990...])

            let past = try await harness.get("/api/tracks/\(id)/audio", headers: ["Range: bytes=150000-"])
            #expect(past.status == 416)
            #expect(past.headers["content-range"] == "bytes */150000")
            #expect(past.errorCode == "range_not_satisfiable")
        }
    }

    @Test func tracksWithoutAFileAndUnknownTracksAreNotFound() async throws {
        try await ServerHarness.withServer { harness async throws in
            let withoutFile = try await harness.get("/api/tracks/\(try Self.trackID(4, in: harness.store))/audio")
            #expect(withoutFile.status == 404)
            #expect(withoutFile.errorCode == "no_audio_file")
            let unknown = try await harness.get("/api/tracks/987654/audio")
            #expect(unknown.status == 404)
            #expect(unknown.errorCode == "not_found")
            #expect(try await harness.get("/api/tracks/abc/audio").status == 400)
            // A file recorded, then removed.
            let path = harness.folder + "/gone.flac"
            try Data([1, 2, 3]).write(to: URL(fileURLWithPath: path))
            let id = try Self.recordFile(at: path, forTrack: 5, in: harness.store)
            try FileManager.default.removeItem(atPath: path)
            let gone = try await harness.get("/api/tracks/\(id)/audio")
            #expect(gone.status == 404)
            #expect(gone.errorCode == "no_audio_file")
        }
    }

    /// Requests that try to name a file by path: none reaches a file, whatever the encoding.
    @Test func pathsInTheRequestNeverReachAFile() async throws {
        try await ServerHarness.withServer { harness async throws in
            let secret = harness.folder + "/secret.txt"
            try "top secret".write(toFile: secret, atomically: true, encoding: .utf8)
            let audio = harness.folder + "/Song 3.mp3"
            try Data("audio bytes".utf8).write(to: URL(fileURLWithPath: audio))
            let id = try Self.recordFile(at: audio, forTrack: 3, in: harness.store)
            let attempts = [
                "/api/tracks/../../../../etc/passwd/audio",
                "/api/tracks/..%2F..%2F..%2Fetc%2Fpasswd/audio",
                "/api/tracks/%2Fetc%2Fpasswd/audio",
                "/api/tracks/\(id)%2F..%2F..%2Fsecret.txt/audio",
                "/api/tracks//etc/passwd/audio",
                "/api/tracks/\(id)/audio/../../../../etc/passwd",
                "/api/tracks/\(secret)/audio",
                "/api/tracks/\(secret.replacingOccurrences(of: "/", with: "%2F"))/audio",
                "/api/tracks/\(id)/audio?path=\(secret)",
                "/api/tracks/\(id)/audio?file=/etc/passwd",
                "/api/tracks/-1/audio",
                "/api/tracks/\(id).0/audio",
            ]
            for attempt in attempts {
                let answer = try await harness.get(attempt)
                let text = String(decoding: answer.body, as: UTF8.self)
                #expect(!text.contains("root:"), "\(attempt) answered /etc/passwd")
                #expect(!text.contains("top secret"), "\(attempt) answered another file")
                // Only the track's own file, by its ID, is ever sent.
                if answer.status == 200 { #expect(text == "audio bytes", "\(attempt)") }
            }
        }
    }

    /// A recorded path later turned into a link to a file that is not audio, a directory or a
    /// FIFO is refused; a link to an audio file is served, as libraries of links are common.
    @Test func linksToOtherFilesAndSpecialFilesAreRefused() async throws {
        try await ServerHarness.withServer { harness async throws in
            let folder = harness.folder
            let files = FileManager.default
            /// Records `name`, a link to `target` in the folder, as track `index`'s file.
            func recordLink(_ name: String, to target: String, forTrack index: Int) throws -> Int64 {
                try files.createSymbolicLink(atPath: folder + "/" + name, withDestinationPath: target)
                return try Self.recordFile(at: folder + "/" + name, forTrack: index, in: harness.store)
            }
            try "top secret".write(toFile: folder + "/secret.txt", atomically: true, encoding: .utf8)
            let linked = try recordLink("Song 3.mp3", to: "secret.txt", forTrack: 3)
            let refused = try await harness.get("/api/tracks/\(linked)/audio")
            #expect(refused.status == 404)
            #expect(!String(decoding: refused.body, as: UTF8.self).contains("top secret"))

            try files.createDirectory(atPath: folder + "/Folder.flac", withIntermediateDirectories: false)
            let directory = try Self.recordFile(at: folder + "/Folder.flac", forTrack: 4, in: harness.store)
            #expect(try await harness.get("/api/tracks/\(directory)/audio").status == 404)

            #expect(mkfifo(folder + "/Pipe.ogg", 0o600) == 0)
            let pipe = try Self.recordFile(at: folder + "/Pipe.ogg", forTrack: 5, in: harness.store)
            #expect(try await harness.get("/api/tracks/\(pipe)/audio").status == 404)

            let relative = try Self.recordFile(at: "Song 3.mp3", forTrack: 6, in: harness.store)
            #expect(try await harness.get("/api/tracks/\(relative)/audio").status == 404)

            try Data("real audio".utf8).write(to: URL(fileURLWithPath: folder + "/real.opus"))
            let goodLink = try recordLink("Song 7.opus", to: "real.opus", forTrack: 7)
            let served = try await harness.get("/api/tracks/\(goodLink)/audio")
            #expect(served.status == 200)
            #expect(served.headers["content-type"] == "audio/ogg")
            #expect(served.body == Data("real audio".utf8))
        }
    }
}

/// `Range` headers against files of several sizes, RFC 9110's edge cases among them.
struct ByteRangeTests {
    @Test(arguments: [
        ("bytes=0-99", 1000, ByteRange.partial(0..<100)),
        ("bytes=990-", 1000, .partial(990..<1000)),
        ("bytes=990-5000", 1000, .partial(990..<1000)),
        ("bytes=-10", 1000, .partial(990..<1000)),
        // A suffix longer than the file selects all of it, however long.
        ("bytes=-5000", 1000, .partial(0..<1000)),
        ("bytes=-99999999999999999999", 1000, .partial(0..<1000)),
        ("bytes=-0", 1000, .unsatisfiable),
        ("bytes=1000-", 1000, .unsatisfiable),
        ("bytes=99999999999999999999-", 1000, .unsatisfiable),
        ("bytes=99999999999999999999-5", 1000, .whole),
        ("bytes=500-100", 1000, .whole),
        ("bytes=0-1,5-6", 1000, .whole),
        ("items=0-5", 1000, .whole),
        // An empty file: a suffix sends it (whole, as no byte can be named); a start cannot be met.
        ("bytes=-10", 0, .whole),
        ("bytes=-0", 0, .unsatisfiable),
        ("bytes=0-", 0, .unsatisfiable),
    ])
    func parsesRanges(header: String, fileSize: Int, expected: ByteRange) {
        #expect(ByteRange.parse(header, fileSize: fileSize) == expected)
    }

    @Test func aSuffixLongerThanAnyFileIsTheWholeFile() async throws {
        try await ServerHarness.withServer { harness async throws in
            let bytes = AudioTests.audioBytes(count: 3000)
            let path = harness.folder + "/Song 4.mp3"
            try bytes.write(to: URL(fileURLWithPath: path))
            let id = try AudioTests.recordFile(at: path, forTrack: 4, in: harness.store)
            let answer = try await harness.get(
                "/api/tracks/\(id)/audio",
                headers: ["Range: bytes=-99999999999999999999"]
            )
            #expect(answer.status == 206)
            #expect(answer.headers["content-range"] == "bytes 0-2999/3000")
            #expect(answer.body == bytes)
        }
    }
}
