import Features
import Testing

@testable import Analytics

/// The artist half of the hybrid similarity.
struct ArtistContextTests {
    /// 40 tracks by 9 artists (one artist with a single track, some rows with no artist), seeded.
    static func library() -> (features: FeatureMatrix, artists: [String]) {
        var rng = SplitMix64(seed: 5)
        let d = 4
        var elements: [Float] = []
        var artists: [String] = []
        for row in 0..<40 {
            for _ in 0..<d { elements.append(Float(Int(rng.next() % 2001) - 1000) / 500) }
            artists.append(row % 13 == 0 ? "" : row == 7 ? "solo" : "artist \(row % 8)")
        }
        let features = FeatureMatrix(
            values: Matrix(rowCount: 40, columnCount: d, elements: elements),
            trackIDs: (1...40).map(Int64.init),
            columnNames: ["a", "b", "c", "d"]
        )
        return (features, artists)
    }

    /// The artists as codes: sparse and out of order, as a store's codes can be, "" unknown.
    static func codes(_ artists: [String]) -> [Int32] {
        var interner = TrackAttributeColumns.Interner()
        return artists.map { artist in
            let code = interner.code(artist)
            return code < 0 ? -1 : 1_000 - 7 * code
        }
    }

    @Test func theHybridSimilarityIsTheCosineOfTheConcatenations() {
        let (features, artists) = Self.library()
        let context = ArtistContext(features: features, artistOfRow: Self.codes(artists))
        let hybrid = context.hybridMatrix(features: features)
        let cosine = CosineIndex(hybrid)
        for queryRow in [0, 1, 7, 9, 26] {
            let query = Array(features.values.row(queryRow))
            let mine = context.similarities(
                query: query,
                context: context.context(row: queryRow, features: features),
                features: features
            )
            let reference = cosine.similarities(to: Array(hybrid.values.row(queryRow)))
            for row in 0..<40 {
                #expect(abs(mine[row] - reference[row]) < 1e-5, "query \(queryRow), row \(row)")
            }
        }
    }

    /// Eight rows at a time give each row the floats one row at a time gives, to the bit, for the
    /// rows of whole groups of eight and the rows left over (40 = 5 × 8, and 37 and 43).
    @Test(arguments: [37, 40, 43])
    func eightRowsAtATimeAreOneRowAtATimeToTheBit(rowCount: Int) {
        let (whole, allArtists) = Self.library()
        let d = whole.columnCount
        var elements = whole.values.elements
        while elements.count < rowCount * d { elements += elements.prefix(rowCount * d - elements.count).map { -$0 } }
        let features = FeatureMatrix(
            values: Matrix(rowCount: rowCount, columnCount: d, elements: Array(elements.prefix(rowCount * d))),
            trackIDs: (1...Int64(rowCount)).map { $0 },
            columnNames: whole.columnNames
        )
        let artists = (0..<rowCount).map { allArtists[$0 % allArtists.count] }
        let context = ArtistContext(features: features, artistOfRow: Self.codes(artists), weight: 1.3)
        for queryRow in [1, 7, rowCount - 1] {
            let query = Array(features.values.row(queryRow))
            let seedContext = context.context(row: queryRow, features: features)
            let fast = context.similarities(query: query, context: seedContext, features: features)
            // One row at a time, as the hybrid cosine is defined.
            let w2 = context.weight * context.weight
            var queryNorm: Float = 0
            for c in 0..<d { queryNorm += query[c] * query[c] + w2 * seedContext[c] * seedContext[c] }
            queryNorm = queryNorm.squareRoot()
            for row in 0..<rowCount {
                let x = Array(features.values.row(row))
                let a = context.context(row: row, features: features)
                var (audio, contextDot, xx, aa): (Float, Float, Float, Float) = (0, 0, 0, 0)
                for c in 0..<d {
                    audio += query[c] * x[c]
                    contextDot += seedContext[c] * x[c]
                    xx += x[c] * x[c]
                }
                for c in 0..<d { aa += a[c] * a[c] }
                let artist = Int(context.artistOfRow[row])
                var artistPart: Float = 0
                if artist >= 0, context.counts[artist] > 1 {
                    var dot: Float = 0
                    for c in 0..<d { dot += seedContext[c] * context.sums[artist * d + c] }
                    artistPart = (dot - contextDot) / Float(context.counts[artist])
                }
                let norm = queryNorm * (xx + w2 * aa).squareRoot()
                let expected = norm > 0 ? (audio + w2 * artistPart) / norm : 0
                #expect(fast[row].bitPattern == expected.bitPattern, "query \(queryRow), row \(row)")
            }
        }
    }

    @Test func theContextIsTheOtherTracksMeanShrunkAndEmptyForALoneTrack() {
        let (features, artists) = Self.library()
        let context = ArtistContext(features: features, artistOfRow: Self.codes(artists))
        // "solo" has one track, "" is unknown: no context.
        #expect(context.context(row: 7, features: features).allSatisfy { $0 == 0 })
        #expect(context.context(row: 0, features: features).allSatisfy { $0 == 0 })
        // Row 1 is "artist 1", with rows 1, 9, 17, 25 and 33:
        // its context is the mean of the other four, times 4/5.
        let others = [9, 17, 25, 33]
        var expected = [Float](repeating: 0, count: 4)
        for row in others {
            let values = Array(features.values.row(row))
            for column in 0..<4 { expected[column] += values[column] / 4 * 4 / 5 }
        }
        let actual = context.context(row: 1, features: features)
        for column in 0..<4 { #expect(abs(actual[column] - expected[column]) < 1e-6) }
    }

    @Test func aTrackSeedBringsItsArtistCloserThanTheAudioAloneDoes() throws {
        // Two artists whose tracks overlap in sound, with a small difference on average that the
        // noise of each track hides: the artist context brings a seed's artist closer than the
        // audio alone does.
        var table = FeatureTable()
        var attributes: [Int64: TrackAttributes] = [:]
        for id in Int64(1)...40 {
            let isA = id <= 20
            let energy = 0.3 + Double(id % 10) / 20
            table.append(
                trackID: id,
                features: AudioFeatures(
                    danceability: (isA ? 0.55 : 0.6) + Double((id * 7) % 11 - 5) / 40,
                    energy: energy,
                    loudness: -8 + Double(id % 3),
                    speechiness: 0.05 + Double(id % 4) / 100,
                    acousticness: 0.2 + Double(id % 5) / 50,
                    instrumentalness: Double(id % 6) / 100,
                    liveness: 0.1 + Double(id % 7) / 100,
                    valence: 0.5 + (isA ? 0.02 : 0),
                    tempo: 100 + Double(id % 9)
                )
            )
            attributes[id] = TrackAttributes(artists: [isA ? "Artist A" : "Artist B"], songKey: "k\(id)")
        }
        let recommender = Recommender(table: table, attributes: attributes)
        let result = try recommender.recommend(RecommendationQuery(seeds: [.track(5)], count: 10, maximumPerArtist: 10))
        let sameArtist = result.recommendations.filter { $0.trackID <= 20 }.count
        let seedRow = try #require(recommender.row(of: 5))
        let audioOnly = recommender.index.nearestNeighbors(
            of: Array(recommender.features.values.row(seedRow)),
            count: 11
        )
        .filter { $0.trackID != 5 }.prefix(10)
        let audioSameArtist = audioOnly.filter { $0.trackID <= 20 }.count
        #expect(sameArtist > audioSameArtist, "hybrid \(sameArtist), audio alone \(audioSameArtist) of 10")
        #expect(sameArtist >= 8, "\(result.recommendations.map(\.trackID))")
        // A mood seed has no artist: it ranks by the audio alone.
        let mood = try recommender.recommend(RecommendationQuery(seeds: [.mood(.calm)], count: 5))
        #expect(mood.recommendations.count == 5)
    }
}
