import Features
import Foundation
import Testing

@testable import Analytics

/// Personal weights learned from playlists, and their grading on held-out playlists.
struct WeightLearningTests {
    /// `playlistCount` playlists of 24 tracks whose energy alone tells them apart; every other
    /// feature is noise.
    static func energyLibrary(
        playlistCount: Int,
        seed: UInt64 = 3
    ) -> (table: FeatureTable, playlists: [Int64: Set<String>]) {
        var rng = SplitMix64(seed: seed)
        func uniform() -> Float { Float(rng.next() % 10_000) / 10_000 }
        var values: [Float] = []
        var ids: [Int64] = []
        var playlists: [Int64: Set<String>] = [:]
        for playlist in 0..<playlistCount {
            for track in 0..<24 {
                let id = Int64(playlist * 100 + track + 1)
                var row = [Float](repeating: .nan, count: FeatureTable.columnCount)
                for feature in FeatureSchema.defaultFeatures {
                    row[FeatureTable.columnIndex(of: feature)] =
                        switch feature {
                        case .energy: (Float(playlist) + 0.5) / Float(playlistCount) + (uniform() - 0.5) * 0.02
                        case .tempo: 60 + 120 * uniform()
                        case .loudness: -20 + 18 * uniform()
                        default: uniform()
                        }
                }
                values += row
                ids.append(id)
                playlists[id] = ["playlist \(playlist)"]
            }
        }
        return (FeatureTable(trackIDs: ids, values: values), playlists)
    }

    @Test func learnedWeightsFindTheFeatureThatMakesThePlaylists() async throws {
        let (table, playlists) = Self.energyLibrary(playlistCount: 8)
        let recommender = Recommender(table: table)
        let weights = try await WeightLearning.learn(recommender: recommender, playlists: playlists, seed: 7)
        for feature in FeatureSchema.defaultFeatures where feature != .energy {
            #expect(weights.factor(of: .energy) > weights.factor(of: feature), "\(feature): \(weights)")
        }
        // The same seed learns the same weights.
        #expect(try await WeightLearning.learn(recommender: recommender, playlists: playlists, seed: 7) == weights)
        // The recommender built with them puts a seed's playlist-mates first.
        let personal = Recommender(table: table, weights: weights)
        let result = try personal.recommend(RecommendationQuery(seeds: [.track(101)], count: 10))
        let mates = result.recommendations.count { playlists[$0.trackID] == ["playlist 1"] }
        let before = try recommender.recommend(RecommendationQuery(seeds: [.track(101)], count: 10)).recommendations
            .count { playlists[$0.trackID] == ["playlist 1"] }
        #expect(mates > before, "learned \(mates) against default \(before)")
    }

    @Test func onHeldOutPlaylistsTheLearnedWeightsBeatTheDefaults() async throws {
        let (table, playlists) = Self.energyLibrary(playlistCount: 9)
        let graded = try await HeldOutPlaylists.measure(
            recommender: Recommender(table: table),
            playlists: playlists,
            resampleCount: 300,
            seed: 11
        )
        #expect(graded.playlistCount == 9)
        #expect(graded.foldCount == 3)
        #expect(graded.queryCount == 9 * 24)
        let learned = try #require(graded.variants.first { $0.name.hasPrefix("personal") })
        #expect(learned.precision > graded.defaultPrecision)
        #expect(learned.difference.lower > 0, "\(learned.difference)")
        // Each track is in one playlist, so co-membership from the other folds knows nothing.
        let co = try #require(graded.variants.first { $0.name.contains("co-membership") })
        #expect(co.precision == graded.defaultPrecision)
    }

    @Test func tooFewPlaylistsAreRefusedWithTheCounts() async throws {
        let (table, playlists) = Self.energyLibrary(playlistCount: 4)
        // A playlist of 4 tracks is too short to count.
        var withShort = playlists
        for id: Int64 in [1, 2, 3, 4] { withShort[id, default: []].insert("short") }
        do {
            _ = try await WeightLearning.learn(recommender: Recommender(table: table), playlists: withShort)
            Issue.record("learned from 4 playlists")
        } catch AnalyticsError.tooFewPlaylists(let eligible, let required, let minimumLength) {
            #expect(eligible == 4 && required == 5 && minimumLength == 5)
        }
        await #expect(throws: AnalyticsError.self) {
            try await HeldOutPlaylists.measure(recommender: Recommender(table: table), playlists: playlists)
        }
    }

    @Test func weightsRoundTripThroughJSONWithWireNames() throws {
        let weights = SimilarityWeights(features: [.energy: 4, .tempo: 0.25], artistContext: 0.5)
        let data = try JSONEncoder().encode(weights)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("\"artist_context\"") && text.contains("\"energy\""))
        #expect(try JSONDecoder().decode(SimilarityWeights.self, from: data) == weights)
    }
}
