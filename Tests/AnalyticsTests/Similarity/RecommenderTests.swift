import Analytics
import Features
import Numerics
import Testing
import VibesTestSupport

/// Tests over the real tidytuesday songs (28,356 distinct tracks with genre labels), or over the
/// bundled 3,000-row sample of them on a clone without `../shared`.
struct RecommenderTests {
    static let songs = try? TidyTuesdaySongs.realOrBundledSample()
    static let recommender: Recommender? = songs.map { songs in
        var attributes: [Int64: TrackAttributes] = [:]
        for (offset, song) in songs.songs.enumerated() {
            attributes[Int64(offset + 1)] = TrackAttributes(
                artists: [song.artist],
                songKey: Track.matchKey(artist: song.artist, title: song.name),
                durationMS: song.durationMS,
                popularity: song.popularity
            )
        }
        return Recommender(table: songs.featureTable(), attributes: attributes)
    }

    /// The seed of the seeded tests: a dance track present in the whole file and in the sample.
    func danceSeed() throws -> Int64 {
        let songs = try #require(RecommenderTests.songs).songs
        let candidates = [("Daft Punk", "One More Time"), ("Tones and I", "Dance Monkey")]
        let (artist, title) = try #require(
            candidates.first { candidate in
                songs.contains { $0.artist == candidate.0 && $0.name == candidate.1 }
            }
        )
        return try trackID(artist: artist, title: title)
    }

    /// The store ID of the first song whose artist and title match.
    func trackID(artist: String, title: String) throws -> Int64 {
        let songs = try #require(RecommenderTests.songs)
        let offset = try #require(songs.songs.firstIndex { $0.artist == artist && $0.name == title })
        return Int64(offset + 1)
    }

    @Test func seedTrackGivesSimilarTracksBestFirstWithoutTheSeed() throws {
        let recommender = try #require(RecommenderTests.recommender)
        let seed = try danceSeed()
        let result = try recommender.recommend(RecommendationQuery(seeds: [.track(seed)], count: 20))
        #expect(result.recommendations.count == 20)
        #expect(!result.recommendations.contains { $0.trackID == seed })
        #expect(zip(result.recommendations, result.recommendations.dropFirst()).allSatisfy { $0.score >= $1.score })
        // Hybrid cosine neighbours (audio and artist context): the best should be close, and all
        // explained.
        #expect(result.recommendations[0].similarity > 0.7)
        #expect(result.recommendations.allSatisfy { $0.differences.count == 3 })
        #expect(result.pool.candidates == recommender.trackCount - 1)
        #expect(result.pool.afterFilters == result.pool.candidates)
    }

    @Test func eachSongIsReturnedOnceAcrossItsReleases() throws {
        let recommender = try #require(RecommenderTests.recommender)
        let songs = try #require(RecommenderTests.songs).songs
        // tidytuesday lists some songs under several track IDs (single, album, compilation).
        var releases: [String: [Int64]] = [:]
        for (offset, song) in songs.enumerated() {
            releases[Track.matchKey(artist: song.artist, title: song.name), default: []].append(Int64(offset + 1))
        }
        let repeated = try #require(releases.values.filter { $0.count >= 2 }.min { $0[0] < $1[0] })
        let result = try recommender.recommend(RecommendationQuery(seeds: [.track(repeated[0])], count: 100))
        let keys = result.recommendations.map {
            Track.matchKey(artist: songs[Int($0.trackID - 1)].artist, title: songs[Int($0.trackID - 1)].name)
        }
        #expect(Set(keys).count == keys.count)
        #expect(!result.recommendations.contains { repeated.contains($0.trackID) })
    }

    @Test func boundsAreHardFiltersAndTempoOctaveWidensThem() throws {
        let recommender = try #require(RecommenderTests.recommender)
        let seed = try danceSeed()
        var query = RecommendationQuery(seeds: [.track(seed)], count: 50)
        // 85–95 BPM; with tempo octaves also 42.5–47.5 and 170–190 (drum and bass, hardstyle).
        query.setMinimum(85, for: .tempo)
        query.setMaximum(95, for: .tempo)
        query.setMinimum(60, for: .popularity)
        let strict = try recommender.recommend(query)
        for recommendation in strict.recommendations {
            let row = try #require(recommender.row(of: recommendation.trackID))
            let tempo = try #require(recommender.table.value(row: row, feature: .tempo))
            #expect((85...95).contains(tempo))
        }
        query.tempoOctave = true
        let octave = try recommender.recommend(query)
        #expect(octave.pool.afterFilters > strict.pool.afterFilters)
        #expect(strict.pool.afterFilters < strict.pool.candidates)

        // A one-sided bound is not a window: half time would let every tempo under 200 BPM through.
        var oneSided = RecommendationQuery(seeds: [.track(seed)], count: 10)
        oneSided.setMaximum(100, for: .tempo)
        let plain = try recommender.recommend(oneSided)
        oneSided.tempoOctave = true
        #expect(try recommender.recommend(oneSided).pool.afterFilters == plain.pool.afterFilters)
    }

    @Test func targetsPullResultsTowardsTheTarget() throws {
        let recommender = try #require(RecommenderTests.recommender)
        let seed = try danceSeed()
        let plain = try recommender.recommend(RecommendationQuery(seeds: [.track(seed)], count: 20))
        var query = RecommendationQuery(seeds: [.track(seed)], count: 20)
        query.setTarget(0.2, for: .valence)
        let pulled = try recommender.recommend(query)
        func meanValence(_ result: RecommendationResult) throws -> Double {
            try result.recommendations.map { recommendation in
                let row = try #require(recommender.row(of: recommendation.trackID))
                return Double(try #require(recommender.table.value(row: row, feature: .valence)))
            }.reduce(0, +) / Double(result.recommendations.count)
        }
        #expect(try meanValence(pulled) < meanValence(plain) - 0.1)
        #expect(pulled.recommendations.allSatisfy { $0.targetFit != nil })
    }

    @Test func targetsAloneRankByClosenessToTheTargets() throws {
        let recommender = try #require(RecommenderTests.recommender)
        var query = RecommendationQuery(count: 10)
        query.setTarget(0.9, for: .energy)
        query.setTarget(0.1, for: .acousticness)
        let result = try recommender.recommend(query)
        #expect(result.recommendations.count == 10)
        #expect(result.recommendations.allSatisfy { ($0.targetFit ?? 0) > 0.97 })
    }

    @Test func artistLimitAndDiversityShapeTheList() throws {
        let recommender = try #require(RecommenderTests.recommender)
        let seed = try danceSeed()
        let limited = try recommender.recommend(
            RecommendationQuery(seeds: [.track(seed)], count: 40, maximumPerArtist: 1)
        )
        let artists = try limited.recommendations.map { recommendation -> String in
            let offset = Int(recommendation.trackID - 1)
            return try #require(RecommenderTests.songs).songs[offset].artist
        }
        #expect(Set(artists).count == artists.count)

        func meanPairwiseSimilarity(_ result: RecommendationResult) throws -> Double {
            let rows = try result.recommendations.map { try #require(recommender.row(of: $0.trackID)) }
            let d = recommender.index.dimension
            var total = 0.0
            var pairs = 0
            for (i, a) in rows.enumerated() {
                for b in rows[(i + 1)...] {
                    var dot: Float = 0
                    for column in 0..<d {
                        dot += recommender.index.vectors[a, column] * recommender.index.vectors[b, column]
                    }
                    total += Double(dot)
                    pairs += 1
                }
            }
            return total / Double(pairs)
        }
        let focused = try recommender.recommend(RecommendationQuery(seeds: [.track(seed)], count: 20))
        let varied = try recommender.recommend(RecommendationQuery(seeds: [.track(seed)], count: 20, diversity: 0.5))
        #expect(try meanPairwiseSimilarity(varied) < meanPairwiseSimilarity(focused))
    }

    @Test func interleavedSeedsTakeTurnsAndNegativeSeedsPushAway() throws {
        let recommender = try #require(RecommenderTests.recommender)
        let daftPunk = try danceSeed()
        let query = RecommendationQuery(seeds: [.track(daftPunk), .mood(.calm)], combination: .interleave, count: 6)
        let result = try recommender.recommend(query)
        #expect(result.seeds.count == 2)
        #expect(result.recommendations.map(\.seed) == Array(repeating: result.seeds, count: 3).flatMap { $0 })

        let plain = try recommender.recommend(RecommendationQuery(seeds: [.track(daftPunk)], count: 20))
        let away = try recommender.recommend(
            RecommendationQuery(seeds: [.track(daftPunk)], negativeSeeds: [.mood(.energetic)], count: 20)
        )
        func meanEnergy(_ result: RecommendationResult) -> Double {
            result.recommendations.map {
                Double(recommender.table.value(row: recommender.row(of: $0.trackID)!, feature: .energy)!)
            }
            .reduce(0, +) / Double(result.recommendations.count)
        }
        #expect(meanEnergy(away) < meanEnergy(plain))
    }

    @Test func invalidQueriesSayWhatToChange() throws {
        let recommender = try #require(RecommenderTests.recommender)
        #expect(throws: RecommendationError.noSeeds) { try recommender.recommend(RecommendationQuery()) }
        var query = RecommendationQuery(seeds: [.mood(.happy)])
        query.setMinimum(0.9, for: .energy)
        query.setMaximum(0.1, for: .energy)
        #expect(throws: RecommendationError.emptyRange(attribute: .energy, minimum: 0.9, maximum: 0.1)) {
            try recommender.recommend(query)
        }
        #expect(throws: RecommendationError.seedWithoutFeatures(trackID: 999_999)) {
            try recommender.recommend(RecommendationQuery(seeds: [.track(999_999)]))
        }
        var impossible = RecommendationQuery(seeds: [.mood(.happy)])
        impossible.setMinimum(299, for: .tempo)
        #expect(throws: RecommendationError.nothingLeft(candidates: recommender.trackCount)) {
            try recommender.recommend(impossible)
        }
    }
}

/// A library holding many releases of every song (singles, albums, compilations) still gets the
/// count it asks for: the candidate pools grow until de-duplication leaves enough.
@Suite struct RecommenderDuplicateReleasesTests {
    @Test func manyReleasesOfEachSongStillFillTheCount() throws {
        var table = FeatureTable()
        var attributes: [TrackAttributes] = []
        var rng = SplitMix64(seed: 3)
        let songs = 40
        let releases = 300
        var id: Int64 = 1
        for song in 0..<songs {
            let base = AudioFeatures(
                danceability: rng.nextUnitInterval(),
                energy: rng.nextUnitInterval(),
                loudness: -8,
                mode: 1,
                speechiness: 0.05,
                acousticness: rng.nextUnitInterval(),
                instrumentalness: 0.01,
                liveness: 0.1,
                valence: rng.nextUnitInterval(),
                tempo: 100 + Double(song)
            )
            for release in 0..<releases {
                var features = base
                features.energy = (base.energy ?? 0) + Double(release) * 1e-6
                table.append(trackID: id, features: features)
                attributes.append(
                    TrackAttributes(artists: ["Artist \(song)"], songKey: "artist \(song)\u{1F}song \(song)")
                )
                id += 1
            }
        }
        let recommender = Recommender(table: table, attributesByRow: attributes)
        let result = try recommender.recommend(RecommendationQuery(seeds: [.track(1)], count: 10))
        #expect(result.recommendations.count == 10)
        let songKeys = Set(result.recommendations.map { ($0.trackID - 1) / Int64(releases) })
        #expect(songKeys.count == 10)
        #expect(!songKeys.contains(0), "the seed's own song is never recommended")
    }
}
