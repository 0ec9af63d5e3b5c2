import AudioAnalysis
import Features
import Foundation
import Testing
import VibesTestSupport

/// The analyser with the music tagger: one decoding feeds both, the tags it hears are the file's,
/// and the estimates follow what the music is. On the fixture clip, on generated signals, and on
/// real songs of the audio corpus when it is present.
@Suite struct AudioAnalyzerTaggingTests {
    static let tagger = Result { try MusicTagger() }

    private func analyzer() throws -> AudioAnalyzer { AudioAnalyzer(tagger: try Self.tagger.get()) }

    @Test(arguments: ["clip.flac", "clip.ogg", "clip.mp3"])
    func oneDecodingTagsAsTheTaggerAlone(name: String) throws {
        let url = URL(fileURLWithPath: Fixtures.path("audio/" + name))
        let analysis = try analyzer().analyze(fileAt: url)
        let alone = try #require(try Self.tagger.get().tag(fileAt: url))
        let heard = try #require(analysis.audioTags)
        #expect(heard.model == "MSD_musicnn")
        #expect(heard.probabilities.count == alone.tags.count)
        for (tag, probability) in zip(alone.tags, alone.probabilities) {
            // Stored to 4 decimals.
            #expect(abs(heard[tag] - Double(probability)) <= 5e-5, "\(name): \(tag)")
        }
        #expect(analysis.details.audioTags == heard)
        #expect(analysis.analyzer == AudioAnalyzer.version)
    }

    @Test func topTagsAreTheLikeliestAboveTheThreshold() throws {
        let analysis = try analyzer().analyze(fileAt: URL(fileURLWithPath: Fixtures.path("audio/clip.flac")))
        let heard = try #require(analysis.audioTags)
        let top = heard.topTags
        #expect(!top.isEmpty && top.count <= AudioTagProbabilities.topTagLimit)
        #expect(top.allSatisfy { heard[$0] >= AudioTagProbabilities.topTagThreshold })
        #expect(zip(top, top.dropFirst()).allSatisfy { heard[$0] >= heard[$1] })
        let rest = heard.probabilities.keys.filter { !top.contains($0) }
        #expect(rest.allSatisfy { heard[$0] <= heard[top.last!] })
    }

    @Test func withoutATaggerOrBelowOnePatchTheSignalsDecide() throws {
        let clip = URL(fileURLWithPath: Fixtures.path("audio/clip.flac"))
        let alone = try AudioAnalyzer().analyze(fileAt: clip)
        #expect(alone.audioTags == nil)
        #expect(alone.details.audioTags == nil)
        let tagged = try analyzer().analyze(fileAt: clip)
        #expect(tagged.confidence[.acousticness]! > alone.confidence[.acousticness]!)
        #expect(tagged.features.acousticness != alone.features.acousticness)
        // Measured values do not depend on the tagger.
        #expect(tagged.features.loudness == alone.features.loudness)
        #expect(tagged.features.key == alone.features.key)

        let short = try withTemporaryDirectory { directory in
            let path = directory + "/short.wav"
            try TestSignals.writeWAV(TestSignals.clicks(bpm: 120, seconds: 2), to: path)
            return try analyzer().analyze(fileAt: URL(fileURLWithPath: path))
        }
        #expect(short.audioTags == nil)
        #expect(short.features.energy != nil)
        #expect(short.confidence[.acousticness] == alone.confidence[.acousticness])
    }

    @Test func estimatesStayInSpotifyRanges() throws {
        for samples in [TestSignals.clicks(bpm: 128, seconds: 12), TestSignals.whiteNoise(seconds: 5)] {
            let analysis = try withTemporaryDirectory { directory in
                let path = directory + "/signal.wav"
                try TestSignals.writeWAV(samples, to: path)
                return try analyzer().analyze(fileAt: URL(fileURLWithPath: path))
            }
            #expect(analysis.audioTags != nil)
            for feature in AudioFeature.unitIntervalFeatures {
                guard let value = analysis.features[feature] else { continue }
                #expect((0...1).contains(value), "\(feature) = \(value)")
            }
        }
    }

    // MARK: - Real songs

    /// Songs of the audio corpus whose style its README states (`Benchmarks/audio/corpus-styles.tsv`):
    /// one of the techno, industrial and metal-like package, one orchestral and the chiptune.
    @Test(.enabled(if: AudioCorpus.isAvailable, AudioCorpus.skipReason))
    func heavyElectronicSongsAreNotAcousticAndOrchestralOnesAre() throws {
        let analyzer = try analyzer()
        func analysis(_ name: String) throws -> AudioFileAnalysis {
            try analyzer.analyze(fileAt: URL(fileURLWithPath: AudioCorpus.path(name)))
        }
        let heavy = try ["14.ogg"].map(analysis)
        let orchestral = try ["01.ogg"].map(analysis)
        let chiptune = try analysis("21.ogg")
        for song in heavy + [chiptune] {
            let acousticness = try #require(song.features.acousticness)
            #expect(acousticness <= 0.3, "acousticness \(acousticness), tags \(song.audioTags?.topTags ?? [])")
        }
        for song in orchestral {
            let acousticness = try #require(song.features.acousticness)
            #expect(acousticness >= 0.5, "acousticness \(acousticness), tags \(song.audioTags?.topTags ?? [])")
        }
        for loud in heavy {
            for calm in orchestral {
                #expect(try #require(loud.features.energy) > #require(calm.features.energy))
            }
        }
        for calm in orchestral {
            #expect(try #require(chiptune.features.danceability) > #require(calm.features.danceability))
        }
        // The corpus is instrumental.
        for song in heavy + orchestral + [chiptune] {
            #expect(try #require(song.features.instrumentalness) > 0.5)
            #expect(try #require(song.features.speechiness) < 0.33)
        }
    }
}

/// The audio corpus (`../shared/audio-corpus`), built by its `make_corpus.sh` into
/// `out/audio-corpus` (where `Benchmarks/audio/compare_audio.sh` builds it), or the folder of its
/// files named by `VIBES_AUDIO_CORPUS`.
enum AudioCorpus {
    static let directory: String? = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        let candidates =
            ProcessInfo.processInfo.environment["VIBES_AUDIO_CORPUS"].map { [$0] }
            ?? [url.appendingPathComponent("out/audio-corpus/files").path]
        return candidates.first { FileManager.default.fileExists(atPath: $0 + "/14.ogg") }
    }()

    static var isAvailable: Bool { directory != nil }

    static let skipReason: Comment =
        "the audio corpus is not built (sh ../shared/audio-corpus/make_corpus.sh out/audio-corpus): real-song test skipped"

    static func path(_ name: String) -> String { (directory ?? "/nonexistent/audio-corpus") + "/" + name }
}
