import Features
import Testing

@testable import Analytics

/// The sparse tag and co-membership blocks of the hybrid similarity, and what an evaluation lets in.
struct SimilarityBlockTests {
    /// `count` tracks with the same audio features, so only the blocks can order them.
    static func identicalTracks(count: Int) -> FeatureTable {
        var values: [Float] = []
        for _ in 0..<count {
            var row = [Float](repeating: .nan, count: FeatureTable.columnCount)
            for feature in FeatureSchema.defaultFeatures {
                row[FeatureTable.columnIndex(of: feature)] =
                    switch feature {
                    case .tempo: 120
                    case .loudness: -6
                    default: 0.5
                    }
            }
            values += row
        }
        return FeatureTable(trackIDs: (1...Int64(count)).map { $0 }, values: values)
    }

    @Test func rowsAreUnitLengthAndARareTermWeighsMoreThanACommonOne() {
        let terms: [Int64: Set<String>] = [
            1: ["pop", "shoegaze"], 2: ["pop"], 3: ["pop", "shoegaze"], 4: ["pop"], 5: ["pop"], 6: [],
        ]
        let block = SimilarityBlock(
            kind: .tags,
            signals: [.artistGenreTags],
            terms: terms,
            trackIDs: [1, 2, 3, 4, 5, 6, 7]
        )
        #expect(block.termCount == 2)
        #expect(block.coveredRowCount == 5)
        var scores = [Float](repeating: 0, count: 7)
        block.addSimilarities(of: block.query(rows: [0]), weight: 1, to: &scores)
        // Itself: cosine 1. The other shoegaze track shares both terms: 1 too.
        #expect(abs(scores[0] - 1) < 1e-5)
        #expect(abs(scores[2] - 1) < 1e-5)
        // A pop-only track shares the common term only: less than half.
        #expect(scores[1] > 0 && scores[1] < 0.5)
        // No tags, or not in the block: 0.
        #expect(scores[5] == 0 && scores[6] == 0)
    }

    @Test func aTrackSeedRanksItsTagMateFirstWhenTheSoundCannotTell() throws {
        let table = Self.identicalTracks(count: 30)
        let recommender = Recommender(table: table)
        let tags = try #require(
            SimilarityBlock.tags(
                from: [SimilarityBlock.Source(signal: .artistGenreTags, terms: [3: ["dream pop"], 17: ["dream pop"]])],
                trackIDs: recommender.features.trackIDs
            )
        )
        let hybrid = recommender.adding(tags)
        let result = try hybrid.recommend(RecommendationQuery(seeds: [.track(3)], count: 5))
        #expect(result.recommendations.first?.trackID == 17)
        // The weighted mean of cosines stays within −1…1 and puts the tag-mate clearly first.
        let scores = result.recommendations.map(\.similarity)
        #expect(scores[0] <= 1 && scores[0] > scores[1] + 0.3, "\(scores)")
        // Without the block, ties go to the smallest track ID.
        #expect(
            try recommender.recommend(RecommendationQuery(seeds: [.track(3)], count: 1)).recommendations.first?.trackID
                == 1
        )
        // A zero weight turns the block off.
        let off = Recommender(table: table, weights: SimilarityWeights(tags: 0)).adding(tags)
        #expect(
            try off.recommend(RecommendationQuery(seeds: [.track(3)], count: 1)).recommendations.first?.trackID == 1
        )
    }

    @Test func anEvaluationLeavesOutTheBlocksItsLabelDerives() async throws {
        let table = Self.identicalTracks(count: 40)
        var recommender = Recommender(table: table)
        let ids = recommender.features.trackIDs
        let genres = Dictionary(uniqueKeysWithValues: ids.map { ($0, Set(["genre \($0 % 4)"])) })
        let artistGenres = Dictionary(uniqueKeysWithValues: ids.map { ($0, Set(["artist genre \($0 % 5)"])) })
        let playlists = Dictionary(uniqueKeysWithValues: ids.map { ($0, Set(["list \($0 % 3)"])) })
        recommender = recommender.adding(
            try #require(
                SimilarityBlock.tags(
                    from: [
                        SimilarityBlock.Source(signal: .artistGenreTags, terms: artistGenres),
                        SimilarityBlock.Source(signal: .genreTags, terms: genres),
                    ],
                    trackIDs: ids
                )
            )
        )
        recommender = recommender.adding(
            try #require(SimilarityBlock.coMembership(playlists: playlists, trackIDs: ids))
        )
        #expect(
            recommender.similaritySpace.signals.isSuperset(of: [.genreTags, .artistGenreTags, .playlistMembership])
        )
        for label in EvaluationLabel.allCases {
            let space = recommender.similaritySpace(excluding: label.derivedSignals)
            #expect(space.signals.isDisjoint(with: label.derivedSignals), "\(label)")
            #expect(space.blocks.isEmpty, "\(label): the tag block mixes genre tags in, so it goes as a whole")
        }
        // The whole space cannot be graded on playlists or genres.
        for (label, labels) in [(EvaluationLabel.playlist, playlists), (.genre, genres)] {
            await #expect(throws: AnalyticsError.self) {
                try await RetrievalComparison.measure(
                    subject: recommender.similaritySpace,
                    baselines: [],
                    labels: labels,
                    label: label
                )
            }
        }
        // Artist genres alone are not derived from playlists: they stay for --label playlist.
        let artistOnly = try #require(
            SimilarityBlock.tags(
                from: [
                    SimilarityBlock.Source(signal: .artistGenreTags, terms: artistGenres),
                    SimilarityBlock.Source(signal: .genreTags, terms: genres),
                ],
                trackIDs: ids,
                excluding: EvaluationLabel.playlist.derivedSignals
            )
        )
        #expect(artistOnly.signals == [.artistGenreTags])
        let kept = Recommender(table: table).adding(artistOnly).similaritySpace(
            excluding: EvaluationLabel.playlist.derivedSignals
        )
        #expect(kept.blocks.count == 1)
        _ = try await RetrievalComparison.measure(subject: kept, baselines: [], labels: playlists, label: .playlist)
        #expect(EvaluationLabel.genre.derivedSignals.contains(.artistGenreTags))
    }

    /// With a tag block, a space is graded by exact hybrid scores: artist genres that follow the
    /// labels lift precision over the sound alone.
    @Test func theHybridSearchOfAnEvaluationUsesTheBlocks() async throws {
        let table = Self.identicalTracks(count: 60)
        let recommender = Recommender(table: table)
        let ids = recommender.features.trackIDs
        let playlists = Dictionary(uniqueKeysWithValues: ids.map { ($0, Set(["list \($0 % 3)"])) })
        let artistGenres = Dictionary(uniqueKeysWithValues: ids.map { ($0, Set(["genre \($0 % 3)"])) })
        let tags = try #require(
            SimilarityBlock.tags(
                from: [SimilarityBlock.Source(signal: .artistGenreTags, terms: artistGenres)],
                trackIDs: ids
            )
        )
        let comparison = try await RetrievalComparison.measure(
            subject: recommender.adding(tags).similaritySpace(excluding: EvaluationLabel.playlist.derivedSignals),
            baselines: [recommender.similaritySpace],
            labels: playlists,
            label: .playlist,
            resampleCount: 200
        )
        #expect(comparison.evaluation.precision == 1)
        #expect(try #require(comparison.baselines.first).precision < 0.5)
    }
}
