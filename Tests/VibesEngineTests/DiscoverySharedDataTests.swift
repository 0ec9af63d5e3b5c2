import Analytics
import Features
import Foundation
import Ingest
import Testing
import VibesEngine
import VibesTestSupport

/// Default recommendations from one track on the real labelled sets: how many tracks of ten are by
/// the seed's own artists, and precision@10 (a hit shares a playlist with the seed) of these
/// diversified lists against naive rules held to the same artist limits.
///
/// The tool is the default similarity of a list from seed tracks (sound beside the artist context,
/// and the same-artist block) with the default limits (``ArtistLimits``) and wallpaper damping;
/// its tag and co-membership blocks are left out, as the datasets' genres and playlists are the
/// label graded. The naive rules see the same tracks and artists and pick under the same limits,
/// releases of one song once: "same artist first, then z-score cosine" (nine features) and the
/// z-score cosine alone.
struct DiscoverySharedDataTests {
    /// The most seed tracks graded per dataset, spread evenly over the labelled tracks.
    static let queryCount = 1_000

    @Test(.enabled(if: SharedData.isAvailable, SharedData.skipReason), .timeLimit(.minutes(20)))
    func defaultListsReachBeyondTheSeedsArtistAndBeatNaiveRulesUnderTheSameLimits() throws {
        let datasets = [
            ["tidytuesday-2020-01-21/spotify_songs.csv"],
            [
                "spotify-music-dataset-2024/high_popularity_spotify_data.csv",
                "spotify-music-dataset-2024/low_popularity_spotify_data.csv",
            ],
        ]
        for files in datasets {
            try withTemporaryDirectory { folder in
                let store = try LibraryStore(path: folder + "/library.sqlite")
                for file in files { _ = try store.importFile(at: SharedData.path(file)) }
                let recommender = try store.makeRecommender(weights: .defaults, context: false).addingSameArtist()
                let measured = try Self.measure(
                    recommender,
                    playlists: store.playlistLabels(of: recommender.table.trackIDs)
                )
                let name = String(files[0].prefix { $0 != "/" })
                print(measured.lines(dataset: name).joined(separator: "\n"))
                print("discovery \(name): wallpaper artists damped: \(recommender.wallpaperArtists.damping.count)")
                #expect(measured.queries > 500, "\(name)")
                #expect(measured.seedArtistCounts.max() ?? 0 <= ArtistLimits.defaultTracksPerArtist, "\(name)")
                #expect(measured.difference.isAboveZero, "\(measured.lines(dataset: name))")
            }
        }
    }

    /// What one dataset measured.
    struct Measurement {
        var queries: Int
        /// Per query, the tracks of the tool's list by the seed's own artist.
        var seedArtistCounts: [Int]
        var tool: [Double]
        var baselines: [(name: String, hitRates: [Double])]
        var difference: PairedBootstrap
        var best: String

        func lines(dataset: String) -> [String] {
            let mean = { (rates: [Double]) in rates.reduce(0, +) / Double(Swift.max(1, rates.count)) }
            let seedArtist = Double(seedArtistCounts.reduce(0, +)) / Double(Swift.max(1, queries))
            let bestMean = mean(baselines.first { $0.name == best }?.hitRates ?? [])
            var lines = [
                "discovery \(dataset): \(queries) seed tracks; by the seed's artist per list of 10: mean "
                    + String(format: "%.2f", seedArtist) + ", most \(seedArtistCounts.max() ?? 0)",
                "discovery \(dataset): p@10 this tool (default limits) " + String(format: "%.4f", mean(tool)),
            ]
            for baseline in baselines {
                lines.append(
                    "discovery \(dataset): p@10 \(baseline.name) (same limits) "
                        + String(format: "%.4f", mean(baseline.hitRates))
                )
            }
            lines.append(
                "discovery \(dataset): this tool − \(best): "
                    + String(format: "%+.4f [%+.4f, %+.4f]", difference.estimate, difference.lower, difference.upper)
                    + ", ratio " + String(format: "%.2f×", bestMean > 0 ? mean(tool) / bestMean : .nan)
            )
            return lines
        }
    }

    /// Grades default lists from every labelled track of `recommender` (at most ``queryCount``).
    static func measure(_ recommender: Recommender, playlists: [Int64: Set<String>]) throws -> Measurement {
        let ids = recommender.table.trackIDs
        let artists = recommender.artistOfRow
        let songs = recommender.attributes.songCodes
        var size: [String: Int] = [:]
        for set in playlists.values { for playlist in set { size[playlist, default: 0] += 1 } }
        let labelled = ids.indices.filter { row in playlists[ids[row]]?.contains { size[$0, default: 0] >= 2 } == true }
        let stride = Swift.max(1, labelled.count / queryCount)
        let queries = Swift.stride(from: 0, to: labelled.count, by: stride).map { labelled[$0] }.prefix(queryCount)
        let limits = ArtistLimits(maximumPerArtist: nil, sameArtist: false, hasTrackSeeds: true)
        let perArtist = limits.perArtist ?? Int.max
        let perSeedArtist = limits.perSeedArtist ?? Int.max

        // The naive rules' space: nine features z-scored over the same tracks, rows normalised.
        let zScored = SimilaritySpace.zScored(
            recommender.table,
            features: SimilaritySpace.nineFeatures,
            metric: .cosine,
            name: "z-score cosine"
        ).features.values
        let d = zScored.columnCount
        var unit = zScored.elements
        for row in 0..<zScored.rowCount {
            let norm = (0..<d).reduce(Float(0)) { $0 + unit[row * d + $1] * unit[row * d + $1] }.squareRoot()
            if norm > 0 { for column in 0..<d { unit[row * d + column] /= norm } }
        }
        func isHit(_ row: Int, seed: Int) -> Double {
            (playlists[ids[row]] ?? []).isDisjoint(with: playlists[ids[seed]] ?? []) ? 0 : 1
        }
        // Picks ten rows by `key` under the limits, one release per song, never the seed's song.
        func capped(seed: Int, key: (Int) -> Float) -> [Int] {
            func ranksBefore(_ a: Int, _ b: Int) -> Bool { key(a) != key(b) ? key(a) > key(b) : a < b }
            // The best 200 rows in order, enough for ten under the limits; all rows when not.
            var order: [Int] = []
            for row in ids.indices where row != seed {
                guard order.count < 200 || ranksBefore(row, order[199]) else { continue }
                var low = 0
                var high = order.count
                while low < high {
                    let middle = (low + high) / 2
                    if ranksBefore(order[middle], row) { low = middle + 1 } else { high = middle }
                }
                order.insert(row, at: low)
                if order.count > 200 { order.removeLast() }
            }
            let picked = pick(from: order, seed: seed)
            if picked.count == 10 { return picked }
            return pick(from: ids.indices.filter { $0 != seed }.sorted(by: ranksBefore), seed: seed)
        }
        // Ten of `order` under the limits, one release per song, never the seed's song.
        func pick(from order: [Int], seed: Int) -> [Int] {
            var picked: [Int] = []
            var perArtistCount: [Int32: Int] = [:]
            var pickedSongs: Set<Int32> = songs[seed] >= 0 ? [songs[seed]] : []
            for row in order where picked.count < 10 {
                if songs[row] >= 0 && pickedSongs.contains(songs[row]) { continue }
                let artist = artists[row]
                if artist >= 0 {
                    let limit = artist == artists[seed] ? perSeedArtist : perArtist
                    guard perArtistCount[artist, default: 0] < limit else { continue }
                    perArtistCount[artist, default: 0] += 1
                }
                if songs[row] >= 0 { pickedSongs.insert(songs[row]) }
                picked.append(row)
            }
            return picked
        }

        var tool: [Double] = []
        var seedArtistCounts: [Int] = []
        var artistFirst: [Double] = []
        var cosineOnly: [Double] = []
        for seed in queries {
            var query = RecommendationQuery(seeds: [.track(ids[seed])], count: 10)
            query.maximumPerArtist = limits.perArtist
            query.maximumPerSeedArtist = limits.perSeedArtist
            query.dampsWallpaperArtists = true
            let rows = try recommender.recommend(query).recommendations.compactMap { recommender.row(of: $0.trackID) }
            tool.append(rows.reduce(0) { $0 + isHit($1, seed: seed) } / 10)
            seedArtistCounts.append(rows.count { artists[seed] >= 0 && artists[$0] == artists[seed] })
            var cosine = [Float](repeating: 0, count: ids.count)
            for row in ids.indices {
                var dot: Float = 0
                for column in 0..<d { dot += unit[seed * d + column] * unit[row * d + column] }
                cosine[row] = dot
            }
            let sameArtistFirst = capped(seed: seed) { row in
                cosine[row] + (artists[seed] >= 0 && artists[row] == artists[seed] ? 1_000 : 0)
            }
            artistFirst.append(sameArtistFirst.reduce(0) { $0 + isHit($1, seed: seed) } / 10)
            cosineOnly.append(capped(seed: seed) { cosine[$0] }.reduce(0) { $0 + isHit($1, seed: seed) } / 10)
        }
        let baselines = [
            (name: "same artist first, then z-score cosine", hitRates: artistFirst),
            (name: "z-score cosine", hitRates: cosineOnly),
        ]
        let best = baselines.max { $0.hitRates.reduce(0, +) < $1.hitRates.reduce(0, +) }!
        return Measurement(
            queries: queries.count,
            seedArtistCounts: seedArtistCounts,
            tool: tool,
            baselines: baselines,
            difference: PairedBootstrap.meanDifference(tool, best.hitRates, seed: 42),
            best: best.name
        )
    }
}
