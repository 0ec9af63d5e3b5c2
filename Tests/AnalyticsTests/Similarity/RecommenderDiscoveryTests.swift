import Features
import Testing

@testable import Analytics

/// Lists from seed tracks that reach beyond the seed's artist, and the reasons given for each track.
struct RecommenderDiscoveryTests {
    /// 30 tracks that sound alike: 1–12 by "Seed Artist", 13–20 by "Prolific", 21–30 by ten others.
    static func library() -> (table: FeatureTable, attributes: [Int64: TrackAttributes]) {
        var table = FeatureTable()
        var attributes: [Int64: TrackAttributes] = [:]
        for id in 1...30 {
            var features = AudioFeatures()
            let step = Double(id) / 1_000
            features[.danceability] = 0.6 + step
            features[.energy] = 0.7 - step
            features[.valence] = 0.5 + step
            features[.acousticness] = 0.2
            features[.instrumentalness] = 0.01
            features[.speechiness] = 0.05
            features[.liveness] = 0.1
            features[.loudness] = -7
            features[.tempo] = 120 + Double(id % 3)
            features[.key] = 5
            features[.mode] = 1
            table.append(trackID: Int64(id), features: features)
            let artist = id <= 12 ? "Seed Artist" : id <= 20 ? "Prolific" : "Artist \(id)"
            attributes[Int64(id)] = TrackAttributes(artists: [artist], songKey: "\(artist)\u{1F}song \(id)")
        }
        return (table, attributes)
    }

    @Test func aSeedArtistAndEveryOtherArtistAreCappedByTheirLimits() throws {
        let (table, attributes) = Self.library()
        let recommender = Recommender(table: table, attributes: attributes).addingSameArtist()
        var query = RecommendationQuery(seeds: [.track(1)], count: 10, maximumPerArtist: 2)
        query.maximumPerSeedArtist = 2
        let capped = try recommender.recommend(query).recommendations
        #expect(capped.count == 10)
        let artistOf = { (id: Int64) in attributes[id]!.artists[0] }
        #expect(capped.count { artistOf($0.trackID) == "Seed Artist" } == 2)
        #expect(capped.count { artistOf($0.trackID) == "Prolific" } <= 2)
        // Without limits the same-artist block fills the list with the seed's catalogue.
        let open = try recommender.recommend(RecommendationQuery(seeds: [.track(1)], count: 10)).recommendations
        #expect(open.count { artistOf($0.trackID) == "Seed Artist" } == 10)
        // A seed-artist limit alone leaves other artists free.
        var seedOnly = RecommendationQuery(seeds: [.track(1)], count: 10)
        seedOnly.maximumPerSeedArtist = 1
        let result = try recommender.recommend(seedOnly).recommendations
        #expect(result.count { artistOf($0.trackID) == "Seed Artist" } == 1)
        #expect(result.count { artistOf($0.trackID) == "Prolific" } > 2)
    }

    @Test func everyTrackSaysWhatMadeItClose() throws {
        let (table, attributes) = Self.library()
        var recommender = Recommender(table: table, attributes: attributes).addingSameArtist()
        let tags: [Int64: Set<String>] = [1: ["yacht rock", "soft rock"], 25: ["yacht rock"], 2: ["polka"]]
        recommender = recommender.adding(
            try #require(
                SimilarityBlock.tags(
                    from: [SimilarityBlock.Source(signal: .artistGenreTags, terms: tags)],
                    trackIDs: recommender.features.trackIDs
                )
            )
        )
        let result = try recommender.recommend(RecommendationQuery(seeds: [.track(1)], count: 29)).recommendations
        let byID = Dictionary(uniqueKeysWithValues: result.map { ($0.trackID, $0.reasons) })
        #expect(byID[2]?.first == "same artist", "\(byID[2] ?? [])")
        #expect(byID[25]?.contains("shares 'yacht rock'") == true, "\(byID[25] ?? [])")
        #expect(byID[26]?.contains { $0.hasPrefix("same artist") || $0.hasPrefix("shares") } == false)
        // Every track names its sound: features within half a standard deviation of the seed.
        for recommendation in result {
            #expect(recommendation.reasons.contains { $0.hasPrefix("sound: ") }, "\(recommendation.reasons)")
        }
    }
}
