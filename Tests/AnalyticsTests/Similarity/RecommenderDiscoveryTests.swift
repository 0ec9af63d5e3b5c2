import Features
import Foundation
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

    /// Ten clusters on a circle of danceability and energy, each of three artists with three tracks
    /// and one track by "Wallpaper", who so turns up in every cluster's lists.
    static func wallpaperLibrary() -> (table: FeatureTable, attributes: [Int64: TrackAttributes]) {
        var table = FeatureTable()
        var attributes: [Int64: TrackAttributes] = [:]
        for cluster in 0..<10 {
            let angle = 2 * Double.pi * Double(cluster) / 10
            for member in 0..<10 {
                let id = Int64(cluster * 10 + member + 1)
                // Within a cluster the wallpaper track lies next to the first one.
                let offset = Double(member == 9 ? 1 : member == 0 ? 0 : member + 1) / 10_000
                var features = AudioFeatures()
                features[.danceability] = 0.5 + 0.4 * cos(angle) + offset
                features[.energy] = 0.5 + 0.4 * sin(angle) + offset
                for (feature, value) in Self.constantFeatures { features[feature] = value }
                table.append(trackID: id, features: features)
                let artist = member == 9 ? "Wallpaper" : "Artist \(cluster)-\(member / 3)"
                attributes[id] = TrackAttributes(artists: [artist], songKey: "\(artist)\u{1F}song \(id)")
            }
        }
        return (table, attributes)
    }

    /// The features the wallpaper library holds equal in every track.
    static let constantFeatures: [AudioFeature: Double] = [
        .valence: 0.5, .acousticness: 0.2, .instrumentalness: 0.01, .speechiness: 0.05, .liveness: 0.1, .loudness: -7,
        .tempo: 120, .key: 5, .mode: 1,
    ]

    @Test func anArtistInMostListsIsDamped() throws {
        let (table, attributes) = Self.wallpaperLibrary()
        let recommender = Recommender(
            table: table,
            attributes: attributes,
            weights: SimilarityWeights(artistContext: 0)
        )
        let damping = recommender.wallpaperArtists.damping
        let wallpaper = try #require(recommender.row(of: 10).map { recommender.artistOfRow[$0] })
        #expect(Array(damping.keys) == [wallpaper], "\(damping)")
        let penalty = try #require(damping[wallpaper])
        #expect(penalty > WallpaperArtists.penalty / 2 && penalty <= WallpaperArtists.penalty)

        // Track 1's cluster holds 8 other tracks; the wallpaper track 10 sounds closest to it.
        var query = RecommendationQuery(seeds: [.track(1)], count: 8)
        let plain = try recommender.recommend(query).recommendations.map(\.trackID)
        #expect(plain.contains(10), "\(plain)")
        query.dampsWallpaperArtists = true
        let damped = try recommender.recommend(query).recommendations.map(\.trackID)
        #expect(!damped.contains(10), "\(damped)")
        #expect(Set(damped).isSubset(of: Set(2...9)), "\(damped)")
        // The seed's own artist is never damped: seeded by the wallpaper track, its artist stays.
        var own = RecommendationQuery(seeds: [.track(10)], count: 10)
        own.dampsWallpaperArtists = true
        #expect(
            try recommender.recommend(own).recommendations.map(\.score)
                == recommender.recommend(
                    RecommendationQuery(seeds: [.track(10)], count: 10)
                ).recommendations.map(\.score)
        )
    }

    @Test func aLibraryOfFewArtistsHasNoWallpaper() {
        let (table, attributes) = Self.wallpaperLibrary()
        let fewArtists = attributes.mapValues { TrackAttributes(artists: ["Artist \($0.artists[0].count % 3)"]) }
        let recommender = Recommender(
            table: table,
            attributes: fewArtists,
            weights: SimilarityWeights(artistContext: 0)
        )
        #expect(Set(recommender.artistOfRow).count < WallpaperArtists.minimumArtistCount)
        #expect(recommender.wallpaperArtists.damping.isEmpty)
    }
}
