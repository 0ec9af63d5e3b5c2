import Features
import Testing

@testable import Analytics

/// The embedding block: what a tagger heard in analysed files, as a block of the hybrid similarity
/// for the tracks that have it.
struct SimilarityBlockEmbeddingTests {
    /// Embeddings that share a large positive offset (as a tagger's penultimate layer does) and
    /// differ in two directions: tracks 1 and 3 lean one way, 2 and 4 the other; 5 has none.
    static let vectors: [Int64: [Float]] = [
        1: [5, 5, 5.9, 5.1], 2: [5, 5, 4.1, 4.9], 3: [5, 5, 6, 5.2], 4: [5, 5, 4, 4.8],
    ]

    @Test func rowsAreCentredOnTheLibraryAndUnitLength() throws {
        let block = try #require(SimilarityBlock.embedding(Self.vectors, trackIDs: [1, 2, 3, 4, 5]))
        #expect(block.kind == .embedding)
        #expect(block.signals == [.audioEmbedding])
        #expect(block.coveredRowCount == 4)
        #expect(block.entries(ofRow: 4).isEmpty, "a track without an embedding has no term")
        for row in 0..<4 {
            let values = block.values(ofRow: row)
            #expect(abs(values.reduce(0) { $0 + $1 * $1 } - 1) < 1e-5)
        }
        var scores = [Float](repeating: 0, count: 5)
        block.addSimilarities(of: block.query(rows: [0]), weight: 1, to: &scores)
        // Raw cosines would all be about 0.99; centred, the tracks that lean the same way agree.
        #expect(abs(scores[0] - 1) < 1e-5)
        #expect(scores[2] > 0.9)
        #expect(scores[1] < -0.9 && scores[3] < -0.9)
        #expect(scores[4] == 0)
    }

    @Test func fewerThanTwoEmbeddingsMakeNoBlock() {
        #expect(SimilarityBlock.embedding([:], trackIDs: [1, 2]) == nil)
        #expect(SimilarityBlock.embedding([1: [1, 2]], trackIDs: [1, 2]) == nil)
        // Another length than the first is left out.
        #expect(SimilarityBlock.embedding([1: [1, 2], 2: [1, 2, 3]], trackIDs: [1, 2]) == nil)
    }

    @Test func itIsNeverReadBackFromTermRows() throws {
        let block = try #require(SimilarityBlock.embedding(Self.vectors, trackIDs: [1, 2, 3, 4]))
        #expect(SimilarityBlock(block.sparseTermRows) == nil)
    }

    @Test func aTrackSeedRanksWhatSoundsLikeItFirstAndLeavesOthersAlone() throws {
        let table = SimilarityBlockTests.identicalTracks(count: 6)
        let recommender = Recommender(table: table)
        let ids = recommender.features.trackIDs
        let block = try #require(SimilarityBlock.embedding(Self.vectors, trackIDs: ids))
        let hybrid = recommender.adding(block)
        let query = RecommendationQuery(seeds: [.track(4)], count: 5)
        #expect(try hybrid.recommend(query).recommendations.first?.trackID == 2)
        #expect(try recommender.recommend(query).recommendations.first?.trackID == 1)
        // A seed without an embedding: the block adds nothing, the ranking is the sound's alone.
        let plain = RecommendationQuery(seeds: [.track(6)], count: 5)
        #expect(
            try hybrid.recommend(plain).recommendations.map(\.trackID)
                == recommender.recommend(plain).recommendations.map(\.trackID)
        )
        // Graded on any label, the embedding stays: no label derives from the audio.
        for label in EvaluationLabel.allCases {
            #expect(hybrid.similaritySpace(excluding: label.derivedSignals).signals.contains(.audioEmbedding))
        }
    }
}
