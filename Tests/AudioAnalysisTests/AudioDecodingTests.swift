import AudioAnalysis
import Features
import Foundation
import Testing
import VibesTestSupport

/// A real four-second clip (see `Fixtures/audio/README.md`) in every format the decoder promises,
/// and files that cannot be read.
@Suite struct AudioDecodingTests {
    static let formats = [
        "clip.mp3", "clip.m4a", "clip-alac.m4a", "clip.flac", "clip.wav", "clip.aiff", "clip.ogg", "clip.opus",
    ]

    private func analyze(_ name: String) throws(AudioAnalysisError) -> AudioFileAnalysis {
        try AudioAnalyzer().analyze(fileAt: URL(fileURLWithPath: Fixtures.path("audio/" + name)))
    }

    @Test(arguments: formats)
    func everyFormatDecodesToTheSameClip(name: String) throws {
        let reference = try analyze("clip.wav")
        let analysis = try analyze(name)
        // Lossy codecs pad or trim a few milliseconds at the ends.
        #expect(abs(analysis.durationMS - reference.durationMS) < 120, "\(name): \(analysis.durationMS) ms")
        let loudness = try #require(analysis.features.loudness)
        let referenceLoudness = try #require(reference.features.loudness)
        #expect(abs(loudness - referenceLoudness) < 1.0, "\(name): \(loudness) LUFS vs \(referenceLoudness)")
        #expect(analysis.features.energy != nil)
        #expect(analysis.tags.title == "Clip Title", "\(name): \(String(describing: analysis.tags))")
        #expect(analysis.tags.artist == "Clip Artist")
    }

    @Test(arguments: ["clip.flac", "clip.mp3", "clip.m4a"])
    func isrcTagIsRead(name: String) throws {
        #expect(try analyze(name).tags.isrc == "QZZZZ2600001")
    }

    @Test func spotifyLinkInACommentIsRead() throws {
        let tags = try analyze("clip-spotify.flac").tags
        #expect(tags.spotifyID?.rawValue == "4uLU6hMCjMI75M1A2tKUQC")
        #expect(tags.isrc == nil)
    }

    @Test func emptyFileIsNamedAsEmpty() throws {
        #expect(throws: AudioAnalysisError.emptyFile(path: Fixtures.path("audio/empty.flac"))) {
            try analyze("empty.flac")
        }
    }

    @Test func textFileWithAnAudioExtensionIsNotAudio() throws {
        do {
            _ = try analyze("not-audio.mp3")
            Issue.record("a text file was analysed")
        } catch {
            #expect(error.path.hasSuffix("not-audio.mp3"))
            switch error {
            case .unreadable, .noAudioStream, .decodeFailed: break
            default: Issue.record("unexpected error \(error)")
            }
            #expect(!error.reason.isEmpty)
        }
    }

    @Test func truncatedDownloadIsReported() throws {
        do {
            let analysis = try analyze("truncated.ogg")
            Issue.record("a truncated file was analysed as \(analysis.durationMS) ms")
        } catch {
            #expect(error.path.hasSuffix("truncated.ogg"))
            #expect(error.description.contains("truncated.ogg"))
        }
    }

    @Test func missingFileIsUnreadable() throws {
        #expect(throws: AudioAnalysisError.self) {
            try AudioAnalyzer().analyze(fileAt: URL(fileURLWithPath: "/nonexistent/song.flac"))
        }
    }

    @Test func folderSearchFindsAudioRecursivelyAndSkipsOtherFiles() throws {
        try withTemporaryDirectory { directory in
            let manager = FileManager.default
            try manager.createDirectory(atPath: directory + "/a/b", withIntermediateDirectories: true)
            try manager.createDirectory(atPath: directory + "/.hidden", withIntermediateDirectories: true)
            for path in ["/a/one.FLAC", "/a/b/two.mp3", "/notes.txt", "/.hidden/three.ogg", "/cover.jpg"] {
                _ = manager.createFile(atPath: directory + path, contents: Data([1]))
            }
            let listing = AudioFiles.find(in: [directory, directory + "/a/one.FLAC", directory + "/missing"])
            #expect(
                listing.files.map { String($0.description.dropFirst(directory.count)) } == [
                    "/a/b/two.mp3", "/a/one.FLAC",
                ]
            )
            #expect(listing.missing == [AudioFilePath(directory + "/missing")])
        }
    }
}
