import Analytics
import Features
import Testing

/// `VibeClustering.cluster`, the `cluster` command's one entry point, on a library of three
/// well-separated moods.
struct VibeClusteringTests {
    /// 40 calm acoustic tracks, 40 euphoric dance tracks and 40 dark loud ones, with seeded jitter.
    static var table: FeatureTable {
        var table = FeatureTable()
        var rng = SplitMix64(seed: 11)
        func jitter() -> Double { Double(rng.next() % 1000) / 1000 * 0.1 - 0.05 }
        let moods: [(energy: Double, valence: Double, acousticness: Double, tempo: Double)] = [
            (0.15, 0.65, 0.9, 75), (0.85, 0.85, 0.05, 126), (0.9, 0.15, 0.02, 150),
        ]
        var id: Int64 = 0
        for mood in moods {
            for _ in 0..<40 {
                id += 1
                table.append(
                    trackID: id,
                    features: AudioFeatures(
                        danceability: 0.5 + jitter(),
                        energy: mood.energy + jitter(),
                        loudness: -20 + 15 * mood.energy + jitter(),
                        acousticness: max(0, mood.acousticness + jitter()),
                        valence: mood.valence + jitter(),
                        tempo: mood.tempo * (1 + jitter() / 10)
                    )
                )
            }
        }
        return table
    }

    static let schema = try! FeatureSchema(
        features: [.energy, .valence, .acousticness, .tempo],
        weights: [:],
        scaling: .zScore
    )

    @Test func findsTheThreeMoodsAndDescribesTheRun() async throws {
        var settings = VibeClustering.Settings(schema: Self.schema, clusterCount: .fixed(3))
        settings.seed = 5
        let outcome = try await VibeClustering.cluster(Self.table, settings: settings)
        #expect(outcome.run.id == nil)
        #expect(outcome.run.clusterCount == 3 && outcome.run.trackCount == 120 && outcome.run.seed == 5)
        #expect(outcome.run.algorithm == .lloyd && outcome.run.hasConverged)
        #expect(outcome.trackIDs.count == 120 && outcome.labels.count == 120 && outcome.distances.count == 120)
        // Each block of 40 tracks is one vibe.
        for block in 0..<3 {
            let labels = Set(outcome.labels[(block * 40)..<(block * 40 + 40)])
            #expect(labels.count == 1)
        }
        #expect(outcome.vibes.map(\.profile.size).sorted() == [40, 40, 40])
        let calm = try #require(outcome.vibes.first { $0.centroidOriginal["acousticness"]! > 0.5 })
        #expect(abs(calm.centroidOriginal["tempo"]! - 75) < 3)
        #expect(calm.profile.mood == .calm)
        let silhouette = try #require(outcome.run.silhouette)
        #expect(silhouette > 0.7)
    }

    @Test func theSameSeedGivesTheSameRunBitForBit() async throws {
        var settings = VibeClustering.Settings(schema: Self.schema, clusterCount: .best(among: 2...5))
        settings.seed = 99
        let first = try await VibeClustering.cluster(Self.table, settings: settings)
        let second = try await VibeClustering.cluster(Self.table, settings: settings)
        #expect(first.run == second.run)
        #expect(first.labels == second.labels && first.distances == second.distances)
        #expect(first.run.clusterCountScan?.map(\.clusterCount) == [2, 3, 4, 5])
        #expect(first.run.clusterCount == 3)
    }

    @Test func miniBatchNeedsAFixedCount() async throws {
        var settings = VibeClustering.Settings(schema: Self.schema, clusterCount: .best(among: 2...4))
        settings.algorithm = .minibatch
        await #expect(throws: AnalyticsError.self) {
            _ = try await VibeClustering.cluster(Self.table, settings: settings)
        }
        settings.clusterCount = .fixed(3)
        settings.miniBatch.batchSize = 32
        let outcome = try await VibeClustering.cluster(Self.table, settings: settings)
        #expect(outcome.run.algorithm == .minibatch && outcome.run.clusterCount == 3)
        #expect(outcome.run.maxIterations == settings.miniBatch.maxSteps)
    }
}
