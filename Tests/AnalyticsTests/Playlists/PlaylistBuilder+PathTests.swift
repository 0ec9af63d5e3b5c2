import Analytics
import Features
import Testing
import VibesTestSupport

/// Paths with a track at one end or both: the track is the path's first or last, and the path
/// still walks towards the other end.
struct PlaylistBuilderPathTests {
    /// The calmest and the most energetic of the sample's tracks.
    static func extremes(of recommender: Recommender) -> (calmest: Int64, liveliest: Int64) {
        let ids = recommender.table.trackIDs
        let energy = { (id: Int64) in recommender.audioFeatures(of: id).energy ?? 0.5 }
        return (ids.min { energy($0) < energy($1) }!, ids.max { energy($0) < energy($1) }!)
    }

    @Test func aPathFromATrackStartsWithItAndRisesToTheMood() throws {
        let recommender = try #require(PlaylistBuilderTests.recommender)
        let (calmest, _) = Self.extremes(of: recommender)
        let path = try PlaylistBuilder(recommender: recommender)
            .path(from: .track(calmest), to: .mood(.energetic), length: .trackCount(12))
        #expect(path.count == 12)
        #expect(Set(path).count == 12)
        #expect(path.first == calmest)
        let energies: [Double] = path.map { recommender.audioFeatures(of: $0).energy! }
        let start: Double = energies.prefix(3).reduce(0, +) / 3
        let end: Double = energies.suffix(3).reduce(0, +) / 3
        #expect(start + 0.3 < end, "\(energies)")
    }

    @Test func aPathBetweenTwoTracksStartsAndEndsWithThem() throws {
        let recommender = try #require(PlaylistBuilderTests.recommender)
        let (calmest, liveliest) = Self.extremes(of: recommender)
        let path = try PlaylistBuilder(recommender: recommender)
            .path(from: .track(liveliest), to: .track(calmest), length: .trackCount(10))
        #expect(path.count == 10)
        #expect(path.first == liveliest)
        #expect(path.last == calmest)
    }

    @Test func aPathBetweenMoodsIsTheMoodPath() throws {
        let recommender = try #require(PlaylistBuilderTests.recommender)
        let builder = PlaylistBuilder(recommender: recommender)
        #expect(
            try builder.path(from: .mood(.sad), to: .mood(.happy), length: .trackCount(9))
                == builder.moodPath(from: .sad, to: .happy, length: .trackCount(9))
        )
    }

    @Test func aTrackWithoutFeaturesCannotBeAnEnd() throws {
        let recommender = try #require(PlaylistBuilderTests.recommender)
        #expect(throws: RecommendationError.seedWithoutFeatures(trackID: -5)) {
            try PlaylistBuilder(recommender: recommender).path(
                from: .track(-5),
                to: .mood(.calm),
                length: .trackCount(5)
            )
        }
    }
}
