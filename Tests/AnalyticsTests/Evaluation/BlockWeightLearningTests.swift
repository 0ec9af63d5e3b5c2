import Features
import Testing

@testable import Analytics

/// Block weights learned as a linear ranker over block similarities, on folds of playlists.
struct BlockWeightLearningTests {
    /// 120 tracks of 24 artists, 5 each, with random sound; playlist *p* holds the tracks of
    /// artists 2*p* and 2*p* + 1, so who a track is by says which playlist it is in.
    static func library() -> (recommender: Recommender, playlists: [Int64: Set<String>]) {
        let (table, artistOfRow) = InformedBaselinesTests.library(artists: 24, perArtist: 5, seed: 21)
        var attributes: [Int64: TrackAttributes] = [:]
        var playlists: [Int64: Set<String>] = [:]
        for (row, id) in table.trackIDs.enumerated() {
            attributes[id] = TrackAttributes(artists: ["Artist \(artistOfRow[row])"])
            playlists[id] = ["list \(artistOfRow[row] / 2)"]
        }
        return (Recommender(table: table, attributes: attributes, weights: SimilarityWeights(sameArtist: 0)), playlists)
    }

    @Test func theArtistBlockIsLearnedWhenTheArtistTellsThePlaylist() throws {
        let (recommender, playlists) = Self.library()
        var calls: [Int] = []
        let outcome = try BlockWeightLearning.learn(
            recommender: recommender,
            playlists: playlists,
            queriesPerFold: 40,
            seed: 4,
            progress: { done, _ in calls.append(done) }
        )
        #expect(outcome.weights.sameArtist > 0)
        #expect(outcome.foldCount == 3 && outcome.playlistCount == 12)
        // Queries done, from none to all, the last once the grid is graded.
        #expect(calls.first == 0 && calls.last == outcome.defaultRates.count && calls == calls.sorted())
        // Graded on folds the weights were not chosen on, they beat weights without the artist.
        let mean = { (values: [Double]) in values.reduce(0, +) / Double(values.count) }
        #expect(mean(outcome.learnedRates) > mean(outcome.defaultRates) + 0.1)
        let heldOut = outcome.heldOut(resampleCount: 100, seed: 4)
        #expect(heldOut.variants[0].difference.lower > 0)
        // The same seed learns the same weights.
        let again = try BlockWeightLearning.learn(
            recommender: recommender,
            playlists: playlists,
            queriesPerFold: 40,
            seed: 4
        )
        #expect(again == outcome)
    }

    @Test func tooFewPlaylistsAreRefused() {
        let (recommender, playlists) = Self.library()
        let kept: Set<String> = ["list 0", "list 1", "list 2", "list 3"]
        let few = playlists.filter { !$0.value.isDisjoint(with: kept) }
        #expect(throws: AnalyticsError.self) {
            try BlockWeightLearning.learn(recommender: recommender, playlists: few)
        }
    }
}
