import Analytics
import Features
import Ingest
import Testing
import VibesEngine
import VibesTestSupport

struct LibraryStoreRecommendingTests {
    static let songs = TidyTuesdaySongs.Song.synthetic(count: 80)

    /// A request seeded by `tracks`, for `count` tracks.
    static func request(tracks: [String] = [], count: Int = 10) -> RecommendRequest {
        var request = RecommendRequest()
        request.seeds.tracks = tracks
        request.query.count = count
        return request
    }

    @Test func theSeedIsFoundByNameAndEveryResultIsExplained() throws {
        try withTemporaryDirectory { folder in
            let store = try makeStore(in: folder, songs: Self.songs)
            var request = Self.request(tracks: ["song 7"], count: 5)
            request.query.constraints[.tempo] = AttributeConstraint(maximum: 140)
            request.query.tempoOctave = true
            var phases: [String] = []
            let found = try store.recommend(request) { phases.append($0) }
            #expect(phases == ["load", "compute"])
            let tracks = found.result.recommendations
            #expect(tracks.count == 5)
            #expect(found.notes[0].contains("Song 7"))
            #expect(!tracks.contains { found.summaries[$0.trackID]?.name == "Song 7" })
            #expect(tracks.allSatisfy { $0.differences.count == 3 })
            #expect(tracks.allSatisfy { found.summaries[$0.trackID]?.spotifyID.flatMap(SpotifyID.init) != nil })
            #expect(found.result.pool.candidates == 79)
            #expect(found.result.pool.afterFilters <= 79)
            #expect(found.notes.last?.hasPrefix("pool: 79 candidates, ") == true)
        }
    }

    /// From one track, the default list reaches beyond the seed's artist: at most 2 tracks per
    /// artist and 2 by the seed's, unless asked; each track says what made it close.
    @Test func aListFromASeedTrackHoldsAtMostTwoByAnyArtist() throws {
        try withTemporaryDirectory { folder in
            let store = try makeStore(in: folder, songs: Self.songs)
            func found(_ change: (inout RecommendRequest) -> Void = { _ in }) throws -> Recommendations {
                var request = Self.request(tracks: ["song 7"])
                change(&request)
                return try store.recommend(request)
            }
            func counts(_ found: Recommendations) -> [String: Int] {
                found.result.recommendations.reduce(into: [:]) {
                    $0[found.summaries[$1.trackID]?.artists.first ?? "", default: 0] += 1
                }
            }
            let seedArtist = "Artist 1"
            let plain = try found()
            #expect(plain.result.recommendations.count == 10)
            #expect(counts(plain).values.allSatisfy { $0 <= 2 }, "\(counts(plain))")
            #expect(plain.notes.contains { $0.contains("--same-artist") })
            #expect(plain.result.recommendations.allSatisfy { !$0.reasons.isEmpty })
            #expect(
                plain.result.recommendations.filter { plain.summaries[$0.trackID]?.artists.first == seedArtist }
                    .allSatisfy { $0.reasons.first == "same artist" }
            )
            // More per artist when asked, still 2 by the seed's artist; all of them with sameArtist.
            let wider = try found { $0.maximumPerArtist = 5 }
            #expect(counts(wider).values.allSatisfy { $0 <= 5 })
            #expect(counts(wider)[seedArtist, default: 0] <= 2)
            let same = try found {
                $0.sameArtist = true
                $0.maximumPerArtist = 10
            }
            #expect(counts(same)[seedArtist, default: 0] > 2, "\(counts(same))")
            // Excluding the seed's artist leaves none of their tracks.
            let excluded = try found { $0.seeds.excludedArtists = [seedArtist] }
            #expect(counts(excluded)[seedArtist] == nil)
        }
    }

    @Test func aSeedTheLibraryLacksIsATypedError() throws {
        try withTemporaryDirectory { folder in
            let store = try makeStore(in: folder, songs: Self.songs)
            let missing = try #require(SpotifyID(uri: "spotify:track:0000000000000000000000", category: "track"))
            #expect {
                try store.recommend(Self.request(tracks: [missing.trackURI]))
            } throws: { error in
                guard case EngineError.trackNotInLibrary(let id) = error else { return false }
                return id == missing
            }
            #expect {
                try store.recommend(Self.request(tracks: ["zzzz qqqq xxxx"]))
            } throws: { error in
                guard case EngineError.weakMatch(let query, let candidates) = error else { return false }
                return query == "zzzz qqqq xxxx" && candidates.allSatisfy { $0.score < LibraryStore.strongSeedMatch }
            }
            var artist = Self.request()
            artist.seeds.artists = ["Nobody At All Whatsoever"]
            #expect {
                try store.recommend(artist)
            } throws: { error in
                guard case EngineError.noSuchArtist(let query) = error else { return false }
                return query == "Nobody At All Whatsoever"
            }
        }
    }

    @Test func anEmptyScopeSaysWhichStore() throws {
        try withTemporaryDirectory { folder in
            let store = try LibraryStore(path: folder + "/empty.sqlite")
            #expect {
                try store.makeRecommender()
            } throws: { error in
                guard case EngineError.noTracksWithFeatures(let path) = error else { return false }
                return path == store.path
            }
        }
    }

    @Test func vibeSeedsComeFromTheCurrentClusteringRun() async throws {
        try await withTemporaryDirectory { folder in
            let store = try makeStore(in: folder, songs: Self.songs)
            var vibe = Self.request(count: 4)
            vibe.seeds.vibes = ["1"]
            #expect {
                try store.recommend(vibe)
            } throws: { error in
                guard case EngineError.noClusteringRun(nil) = error else { return false }
                return true
            }
            _ = try await store.findVibes(VibeRequest(settings: .init(schema: .default, clusterCount: .fixed(2))))
            vibe.seeds.vibes = ["2"]
            let found = try store.recommend(vibe)
            #expect(found.result.recommendations.count == 4)
            #expect(found.notes[0].hasPrefix("seed vibe 2 \""))
            vibe.seeds.vibes = ["3"]
            #expect {
                try store.recommend(vibe)
            } throws: { error in
                guard case EngineError.vibeNumberOutOfRange(3, 2, let runID) = error else { return false }
                return runID == 1
            }
        }
    }

    @Test func artistLimitsApplyToTrackSeedsOnly() {
        let seeded = ArtistLimits(maximumPerArtist: nil, sameArtist: false, hasTrackSeeds: true)
        #expect(seeded.perArtist == 2 && seeded.perSeedArtist == 2 && seeded.note != nil)
        let lifted = ArtistLimits(maximumPerArtist: 4, sameArtist: true, hasTrackSeeds: true)
        #expect(lifted.perArtist == 4 && lifted.perSeedArtist == 4 && lifted.note == nil)
        let moods = ArtistLimits(maximumPerArtist: 3, sameArtist: false, hasTrackSeeds: false)
        #expect(moods.perArtist == 3 && moods.perSeedArtist == 3 && moods.note == nil)
    }
}
