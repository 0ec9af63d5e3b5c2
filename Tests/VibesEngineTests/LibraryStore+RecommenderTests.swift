import Analytics
import Features
import Foundation
import Ingest
import Testing
import VibesEngine
import VibesTestSupport

/// The recommender's blocks read from the store's `blocks` snapshot give the very recommendations
/// the blocks built from the tags and playlists give, on real stores.
struct LibraryStoreRecommenderTests {
    /// The recommender as built before the snapshot: the space, the same-artist block, and the tag
    /// and co-membership blocks built from the store's tags and playlists.
    static func builtFromScratch(_ store: LibraryStore) throws -> Recommender {
        var recommender = try store.makeRecommender(context: false).addingSameArtist()
        for block in try store.makeSimilarityBlocks(over: recommender.features.trackIDs) {
            recommender = recommender.adding(block)
        }
        return recommender
    }

    /// The JSON of `recommender`'s answer to `query`, as `recommend --json` writes its parts.
    static func json(_ recommender: Recommender, _ query: RecommendationQuery) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(try recommender.recommend(query)), as: UTF8.self)
    }

    /// Imports `file` and compares the snapshot path with the from-scratch path for seeds spread
    /// over the library, alone, averaged and interleaved.
    static func expectSameRecommendations(
        importing file: String,
        sourceLocation: SourceLocation = #_sourceLocation
    )
        throws
    {
        try withTemporaryDirectory { folder in
            let store = try LibraryStore(path: folder + "/library.sqlite")
            _ = try store.importFile(at: file)
            // The first builds the blocks and saves them; the second reads them from the snapshot.
            let first = try store.makeRecommender()
            let second = try store.makeRecommender()
            let scratch = try builtFromScratch(store)
            #expect(second.blocks.count == 3, sourceLocation: sourceLocation)
            #expect(
                second.blocks.map(\.sparseTermRows) == scratch.blocks.map(\.sparseTermRows),
                sourceLocation: sourceLocation
            )
            #expect(
                first.blocks.map(\.sparseTermRows) == scratch.blocks.map(\.sparseTermRows),
                sourceLocation: sourceLocation
            )
            let ids = second.features.trackIDs
            let seeds = (0..<6).map { ids[$0 * (ids.count - 1) / 5] }
            var queries = seeds.map { RecommendationQuery(seeds: [.track($0)], count: 10) }
            var limited = RecommendationQuery(seeds: [.track(seeds[2])], count: 25, diversity: 0.3)
            limited.maximumPerArtist = 2
            queries.append(limited)
            var mean = RecommendationQuery(seeds: [.track(seeds[1]), .track(seeds[4])], count: 10)
            queries.append(mean)
            mean.combination = .interleave
            queries.append(mean)
            for query in queries {
                let expected = try json(scratch, query)
                #expect(try json(second, query) == expected, "\(query.seeds)", sourceLocation: sourceLocation)
                #expect(try json(first, query) == expected, "\(query.seeds)", sourceLocation: sourceLocation)
                #expect(expected.contains("shares"), sourceLocation: sourceLocation)
            }
        }
    }

    @Test func theSnapshotGivesTheRecommendationsOfABuildOnTheExcerpt() throws {
        try Self.expectSameRecommendations(importing: Fixtures.path("csv/tidytuesday-excerpt.csv"))
    }

    @Test(.enabled(if: SharedData.isAvailable, SharedData.skipReason))
    func theSnapshotGivesTheRecommendationsOfABuildOnTidyTuesday() throws {
        try Self.expectSameRecommendations(importing: SharedData.path("tidytuesday-2020-01-21/spotify_songs.csv"))
    }
}
