import AudioAnalysis
import Foundation
import Testing
import VibesTestSupport

/// The Swift network against musicnn's own TensorFlow graph and librosa front end, on the fixture
/// clips (`Fixtures/tagger/reference.json`, written by `scripts/tagger/convert_musicnn.py`).
@Suite struct MusicTaggerTests {
    struct Reference: Decodable {
        struct Clip: Decodable {
            var patches: Int
            var tags: [Float]
            var embedding: [Float]
        }

        var model: String
        var clips: [String: Clip]
    }

    static let reference = try! JSONDecoder().decode(Reference.self, from: Fixtures.data("tagger/reference.json"))
    static let tagger = Result { try MusicTagger() }

    @Test(arguments: [
        "clip.wav", "clip.flac", "clip-alac.m4a", "clip.aiff", "clip.mp3", "clip.m4a", "clip.ogg", "clip.opus",
    ])
    func tagsMatchMusicnn(name: String) throws {
        let expected = try #require(Self.reference.clips[name])
        let tagger = try Self.tagger.get()
        let tagging = try #require(try tagger.tag(fileAt: URL(fileURLWithPath: Fixtures.path("audio/" + name))))
        #expect(tagging.patchCount == expected.patches)
        #expect(tagging.probabilities.count == expected.tags.count)
        let tagDelta = zip(tagging.probabilities, expected.tags).map { abs($0 - $1) }.max() ?? .infinity
        #expect(tagDelta <= 1e-3, "\(name): max |Δ| \(tagDelta) over \(expected.tags.count) tags")
        #expect(tagging.embedding.count == expected.embedding.count)
        let embeddingDelta = zip(tagging.embedding, expected.embedding).map { abs($0 - $1) }.max() ?? .infinity
        #expect(embeddingDelta <= 1e-3, "\(name): max |Δ| \(embeddingDelta) over the embedding")
    }

    @Test func theModelsTagsAreMSDs() throws {
        let tags = try Self.tagger.get().tags
        #expect(tags.count == 50)
        #expect(tags.first == "rock")
        #expect(tags.contains("acoustic") && tags.contains("instrumental") && tags.contains("heavy metal"))
    }

    @Test func audioShorterThanAPatchIsNotTagged() throws {
        let tagger = try Self.tagger.get()
        let short = [Float](
            repeating: 0.1,
            count: Int(MusicTagger.minimumSeconds * Double(MusicTagger.sampleRate)) - 300
        )
        #expect(tagger.tag(samples: short) == nil)
        let enough = [Float](repeating: 0.1, count: 3 * MusicTagger.sampleRate)
        #expect(tagger.tag(samples: enough)?.patchCount == 1)
    }
}
