import Analytics
import Features
import Foundation
import Testing

/// Every analysis over random libraries salted with extreme values: infinities, NaN, 1e300,
/// the largest `Float`, keys of 10⁹, durations of `Int.max`. None may trap or loop; each is run
/// under a time limit, and every value an analysis sees must be finite and valid.
@Suite(.timeLimit(.minutes(10)))
struct ExtremeValueTests {
    /// Values drawn for a feature: mostly ordinary, often extreme.
    static func value(for feature: AudioFeature, using rng: inout SplitMix64) -> Double {
        let extremes: [Double] = [
            .nan, .infinity, -.infinity, 1e300, -1e300, Double(Float.greatestFiniteMagnitude),
            -Double(Float.greatestFiniteMagnitude), 1e-320, -1, 12, 7.5, 1e9, -0.0, 1e19,
        ]
        if Int.random(in: 0..<4, using: &rng) == 0 { return extremes.randomElement(using: &rng)! }
        let range = feature.documentedRange
        let value = Double.random(in: range, using: &rng)
        return feature.isDiscrete ? value.rounded() : value
    }

    static let extremeDurations = [Int.max, Int.min, -1, 0, 1, 360_000_001, Int(Int32.max) * 1000]

    /// A library of `rowCount` tracks: the table, track attributes, report tracks and plays.
    static func library(
        seed: UInt64,
        rowCount: Int
    ) -> (
        table: FeatureTable, attributes: [Int64: TrackAttributes], tracks: [Int64: TrackCredit], plays: [PlayRecord]
    ) {
        var rng = SplitMix64(seed: seed)
        var table = FeatureTable()
        var raw: [Float] = []
        var attributes: [Int64: TrackAttributes] = [:]
        var tracks: [Int64: TrackCredit] = [:]
        for row in 0..<rowCount {
            let id = Int64(row + 1)
            var features = AudioFeatures()
            for feature in AudioFeature.all {
                let value = value(for: feature, using: &rng)
                // Half the rows go in through `append`, half as raw floats.
                features[feature] = value.isNaN ? nil : value
                raw.append(Float(value))
            }
            table.append(trackID: id, features: features)
            let duration =
                Bool.random(using: &rng)
                ? extremeDurations.randomElement(using: &rng)! : Int.random(in: 60_000...400_000, using: &rng)
            let artist = "Artist \(row % 7)"
            attributes[id] = TrackAttributes(
                artists: [artist],
                songKey: "\(artist)␟song \(row)",
                durationMS: duration,
                popularity: [Int.min, -1, 50, 101, Int.max].randomElement(using: &rng)!
            )
            tracks[id] = TrackCredit(id: id, name: "Song \(row)", artists: [artist])
        }
        let rawTable = FeatureTable(trackIDs: (1...Int64(rowCount)).map { $0 + Int64(rowCount) }, values: raw)
        var merged = FeatureTable()
        for row in 0..<rowCount {
            for source in [table, rawTable] where Bool.random(using: &rng) || source.trackIDs[row] <= rowCount {
                var features = AudioFeatures()
                for feature in AudioFeature.all {
                    features[feature] = source.value(row: row, feature: feature).map(Double.init)
                }
                merged.append(trackID: source.trackIDs[row], features: features)
            }
        }
        for id in merged.trackIDs where attributes[id] == nil {
            attributes[id] = TrackAttributes(artists: ["Raw"], durationMS: Int.max)
            tracks[id] = TrackCredit(id: id, name: "Raw \(id)", artists: ["Raw"])
        }
        var plays: [PlayRecord] = []
        for index in 0..<200 {
            let ms =
                index % 3 == 0
                ? extremeDurations.randomElement(using: &rng)! : Int.random(in: 0...300_000, using: &rng)
            plays.append(
                PlayRecord(
                    endedAt: Date(timeIntervalSince1970: 1_600_000_000 + Double(index) * 3_600),
                    msPlayed: ms,
                    trackID: merged.trackIDs.randomElement(using: &rng),
                    isSkip: index % 5 == 0
                )
            )
        }
        return (merged, attributes, tracks, plays)
    }

    @Test func featureTablesHoldOnlyValidValues() {
        let (table, _, _, _) = ExtremeValueTests.library(seed: 7, rowCount: 300)
        let width = FeatureTable.columnCount
        for (index, value) in table.values.enumerated() where !value.isNaN {
            let feature = AudioFeature.all[index % width]
            #expect(feature.isValid(Double(value)), "\(feature) \(value)")
        }
        // The raw constructor cleans too.
        let raw = FeatureTable(trackIDs: [1], values: [Float](repeating: .infinity, count: width))
        #expect(raw.values.allSatisfy { $0.isNaN })
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func everyAnalysisFinishesOnExtremeValues(seed: UInt64) async throws {
        let (table, attributes, tracks, plays) = ExtremeValueTests.library(seed: seed, rowCount: 240)

        // Clustering: the matrix is finite, k-means and the choice of k finish.
        let space = FeatureSchema.default.makeSpace(from: table)
        #expect(space.matrix.values.elements.allSatisfy { $0.isFinite })
        var rng = SplitMix64(seed: seed)
        if space.matrix.rowCount > 8 {
            let model = try await KMeans.fit(space.matrix.values, clusterCount: 4, using: &rng)
            #expect(model.inertia.isFinite)
            let scan = try await KMeans.fitChoosingClusterCount(
                space.matrix.values,
                among: 2...5,
                silhouetteSampleSize: 100,
                using: &rng
            )
            #expect((2...5).contains(scan.chosenClusterCount))
        }

        // Recommendations and playlists, with lengths far beyond any library.
        let recommender = Recommender(table: table, attributes: attributes)
        _ = try? recommender.recommend(RecommendationQuery(seeds: [.mood(.chill)], count: 10))
        let builder = PlaylistBuilder(recommender: recommender)
        for length in [PlaylistBuilder.Length.duration(milliseconds: Int.max), .duration(milliseconds: Int.min)] {
            _ = try? builder.tracks(for: RecommendationQuery(seeds: [.mood(.energetic)]), length: length)
            _ = try? builder.moodPath(from: .calm, to: .energetic, length: length)
        }

        // Ordering entries whose features are extreme (they come straight from the caller).
        var orderingRNG = SplitMix64(seed: seed &+ 100)
        let entries = (0..<30).map { index in
            var features = AudioFeatures()
            for feature in AudioFeature.all {
                let value = ExtremeValueTests.value(for: feature, using: &orderingRNG)
                features[feature] = value.isNaN ? nil : value
            }
            return Playlist.Entry(
                trackID: Int64(index),
                spotifyID: nil,
                name: "Song \(index)",
                artists: ["Artist \(index % 4)"],
                durationMS: ExtremeValueTests.extremeDurations[index % ExtremeValueTests.extremeDurations.count],
                features: features
            )
        }
        for arc in [nil] + PlaylistOrdering.Arc.allCases {
            let ordered = PlaylistOrdering(arc: arc).ordered(entries)
            #expect(Set(ordered.map(\.trackID)) == Set(entries.map(\.trackID)))
        }
        let playlist = Playlist(name: "Extremes", description: "", entries: entries)
        #expect(try PlaylistExport.text(of: playlist, as: .m3u).contains("#EXTINF:-1,"))

        // The report and its renderers, with a run whose distances are extreme.
        var assignments: [Int64: ReportRun.Assignment] = [:]
        for (index, id) in table.trackIDs.enumerated() {
            assignments[id] = ReportRun.Assignment(cluster: index % 2, distance: [1, .infinity, .nan][index % 3])
        }
        let vibes = (0..<2).map { cluster in
            VibeProfile(
                cluster: cluster,
                name: "Vibe \(cluster)",
                mood: .calm,
                size: table.rowCount / 2,
                share: 0.5,
                means: ["energy": [0.5, .infinity][cluster], "tempo": 1e300],
                zScores: ["energy": .nan]
            )
        }
        let run = ReportRun(id: 1, scaling: space.scaling, vibes: vibes, assignments: assignments)
        let overview = MoodReport.Overview(
            tracks: table.rowCount,
            artists: 8,
            tracksWithFeatures: table.rowCount,
            playlists: 0,
            savedTracks: 0,
            plays: plays.count,
            sources: [],
            coverage: []
        )
        let report = try MoodReport(
            MoodReport.Input(
                overview: overview,
                table: table,
                tracks: tracks,
                run: run,
                plays: plays,
                timeZone: TimeZone(identifier: "UTC")!
            )
        )
        for distribution in report.features {
            #expect(distribution.bins.count <= 200, "\(distribution.feature)")
        }
        let listening = try #require(report.listening)
        #expect(listening.msPlayed >= 0 && listening.msPlayed <= plays.count * Track.validDurationMS.upperBound)
        #expect(!report.renderedText().isEmpty)
        #expect(!report.renderedMarkdown().isEmpty)
        #expect(report.renderedHTML().contains("</html>"))
        _ = try report.renderedJSON()
    }
}
