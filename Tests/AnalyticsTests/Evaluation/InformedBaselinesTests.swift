import Features
import Testing

@testable import Analytics

/// The naive baselines that know what the tool knows (who a track is by, its tags), and precision
/// beyond the seed's artist.
struct InformedBaselinesTests {
    /// `artists` × `perArtist` tracks with features drawn from `SplitMix64(seed:)`, track IDs from
    /// 1; the main artist of track *i* (row *i* − 1) is (*i* − 1) / `perArtist`.
    static func library(artists: Int, perArtist: Int, seed: UInt64) -> (table: FeatureTable, artistOfRow: [Int32]) {
        var generator = SplitMix64(seed: seed)
        var values: [Float] = []
        var artistOfRow: [Int32] = []
        for row in 0..<(artists * perArtist) {
            var features = [Float](repeating: .nan, count: FeatureTable.columnCount)
            for feature in AudioFeature.allCases {
                let unit = Float(generator.next() >> 40) / Float(1 << 24)
                features[FeatureTable.columnIndex(of: feature)] =
                    switch feature {
                    case .tempo: 60 + 120 * unit
                    case .loudness: -30 + 30 * unit
                    case .key: Float(Int(unit * 12))
                    case .mode: unit < 0.5 ? 0 : 1
                    case .timeSignature: 4
                    default: unit
                    }
            }
            values += features
            artistOfRow.append(Int32(row / perArtist))
        }
        return (FeatureTable(trackIDs: (1...Int64(artists * perArtist)).map { $0 }, values: values), artistOfRow)
    }

    @Test func theSameArtistBaselineFindsTheCatalogueAndNothingBeyondIt() async throws {
        // Each artist is its own label: the artist's other tracks are the only hits.
        let (table, artistOfRow) = Self.library(artists: 12, perArtist: 5, seed: 3)
        let labels = Dictionary(
            uniqueKeysWithValues: table.trackIDs.enumerated().map { row, id in
                (id, Set(["artist \(artistOfRow[row])"]))
            }
        )
        let baselines = SimilaritySpace.informedBaselines(for: table, artistOfRow: artistOfRow, tags: nil)
        #expect(baselines.map(\.name) == ["same artist, then z-score cosine", "naive sum: artist + z-score"])
        let audio = SimilaritySpace.zScored(
            table,
            features: SimilaritySpace.nineFeatures,
            metric: .cosine,
            name: "audio"
        )
        let comparison = try await RetrievalComparison.measure(
            subject: audio,
            baselines: baselines,
            labels: labels,
            label: .playlist,
            k: 4,
            resampleCount: 50,
            artistOfRow: artistOfRow
        )
        let sameArtist = try #require(comparison.baselines.first)
        // Four other tracks by the seed's artist, all ranked first: every one a hit.
        #expect(sameArtist.precision == 1)
        #expect(comparison.evaluation.precision < 1)
        #expect(sameArtist.difference.estimate < 0)
        // Beyond the seed's artist no track shares a label, whatever the space.
        #expect(comparison.beyondArtistPrecision == 0)
        for baseline in comparison.baselines {
            #expect(baseline.beyondArtistPrecision == 0, "\(baseline.name)")
            #expect(baseline.beyondArtistDifference?.estimate == 0, "\(baseline.name)")
        }
        #expect(comparison.bestBaseline?.name == "same artist, then z-score cosine")
    }

    @Test func beyondTheArtistPrecisionCountsOnlyOtherArtistsNeighbours() async throws {
        // Labels follow the artist's parity, so other artists' tracks can be hits; computed plainly.
        let (table, artistOfRow) = Self.library(artists: 8, perArtist: 4, seed: 11)
        let labels = Dictionary(
            uniqueKeysWithValues: table.trackIDs.enumerated().map { row, id in
                (id, Set(["side \(artistOfRow[row] % 2)"]))
            }
        )
        let space = SimilaritySpace.zScored(table, features: SimilaritySpace.nineFeatures, metric: .cosine, name: "a")
        let k = 5
        let comparison = try await RetrievalComparison.measure(
            subject: space,
            baselines: [],
            labels: labels,
            label: .playlist,
            k: k,
            resampleCount: 10,
            artistOfRow: artistOfRow
        )
        // The plain computation: cosine in Double, other artists only, ties by track ID.
        let rows = (0..<table.rowCount).map { Array(space.features.values.row($0)).map(Double.init) }
        func cosine(_ a: [Double], _ b: [Double]) -> Double {
            let dot = zip(a, b).reduce(0) { $0 + $1.0 * $1.1 }
            return dot / (a.reduce(0) { $0 + $1 * $1 } * b.reduce(0) { $0 + $1 * $1 }).squareRoot()
        }
        var total = 0.0
        for seed in 0..<table.rowCount {
            let ranked = (0..<table.rowCount).filter { artistOfRow[$0] != artistOfRow[seed] }
                .sorted { cosine(rows[seed], rows[$0]) > cosine(rows[seed], rows[$1]) }
            let hits = ranked.prefix(k).count { labels[table.trackIDs[$0]] == labels[table.trackIDs[seed]] }
            total += Double(hits) / Double(k)
        }
        let expected = total / Double(table.rowCount)
        let measured = try #require(comparison.beyondArtistPrecision)
        #expect(abs(measured - expected) < 1e-9, "\(measured) vs \(expected)")
    }

    @Test func theTagBaselinesUseOnlyATagBlockTheLabelAllows() async throws {
        let (table, artistOfRow) = Self.library(artists: 10, perArtist: 3, seed: 5)
        // Tags equal the labels: tags first finds only hits.
        let groups = Dictionary(uniqueKeysWithValues: table.trackIDs.map { ($0, Set(["group \($0 % 3)"])) })
        let artistGenres = try #require(
            SimilarityBlock.tags(
                from: [SimilarityBlock.Source(signal: .artistGenreTags, terms: groups)],
                trackIDs: table.trackIDs
            )
        )
        let baselines = SimilaritySpace.informedBaselines(for: table, artistOfRow: artistOfRow, tags: artistGenres)
        #expect(
            baselines.map(\.name) == [
                "same artist, then z-score cosine", "tag TF-IDF, then z-score cosine",
                "naive sum: artist + tags + z-score",
            ]
        )
        let audio = SimilaritySpace.zScored(table, features: SimilaritySpace.nineFeatures, metric: .cosine, name: "a")
        let comparison = try await RetrievalComparison.measure(
            subject: audio,
            baselines: baselines,
            labels: groups,
            label: .playlist,
            k: 5,
            resampleCount: 10,
            artistOfRow: artistOfRow
        )
        #expect(comparison.baselines[1].precision == 1)
        #expect(comparison.baselines[1].beyondArtistPrecision == 1)
        // Artist genres derive genre labels: a baseline holding them cannot be graded on genres.
        await #expect(throws: AnalyticsError.self) {
            try await RetrievalComparison.measure(subject: audio, baselines: baselines, labels: groups, label: .genre)
        }
    }

    @Test func theFiguresAreTheSameForEveryTaskCount() async throws {
        let (table, artistOfRow) = Self.library(artists: 40, perArtist: 5, seed: 8)
        let labels = Dictionary(uniqueKeysWithValues: table.trackIDs.map { ($0, Set(["l \($0 % 7)"])) })
        let baselines = SimilaritySpace.informedBaselines(for: table, artistOfRow: artistOfRow, tags: nil)
        var figures: [[Double?]] = []
        for tasks in [1, 3] {
            let comparison = try await RetrievalComparison.measure(
                subject: baselines[1],
                baselines: baselines,
                labels: labels,
                label: .playlist,
                resampleCount: 20,
                taskCount: tasks,
                artistOfRow: artistOfRow
            )
            figures.append(
                [comparison.evaluation.precision, comparison.beyondArtistPrecision]
                    + comparison.baselines.flatMap { [$0.precision, $0.beyondArtistPrecision] }
            )
        }
        #expect(figures[0] == figures[1])
    }
}
