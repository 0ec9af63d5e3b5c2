import Analytics
import Features
import Numerics
import Testing
import VibesTestSupport

struct RetrievalComparisonTests {
    /// Precision@k computed the plain way, independently of the index: z-scores in `Double` over
    /// the eleven or nine features (missing values at the mean), every distance to every other
    /// labelled track, sorted (ties by track ID).
    private static func bruteForcePrecision(
        table: FeatureTable,
        features: [AudioFeature],
        isEuclidean: Bool,
        labels: [Int64: Set<String>],
        seeds: [Int],
        k: Int
    ) -> Double {
        let n = table.rowCount
        var points = [[Double]](repeating: [], count: n)
        for feature in features {
            let column = (0..<n).map { table.value(row: $0, feature: feature).map(Double.init) }
            let present = column.compactMap { $0 }
            let mean = present.reduce(0, +) / Double(present.count)
            let deviation = (present.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(present.count))
                .squareRoot()
            for row in 0..<n { points[row].append(((column[row] ?? mean) - mean) / deviation) }
        }
        func distance(_ x: [Double], _ y: [Double]) -> Double {
            if isEuclidean { return zip(x, y).reduce(0) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) } }
            let dot = zip(x, y).reduce(0) { $0 + $1.0 * $1.1 }
            let norms = (x.reduce(0) { $0 + $1 * $1 } * y.reduce(0) { $0 + $1 * $1 }).squareRoot()
            return norms > 0 ? -dot / norms : 0
        }
        let labelled = (0..<n).filter { labels[table.trackIDs[$0]] != nil }
        var total = 0.0
        for seed in seeds {
            let row = labelled[seed]
            var ranked: [(distance: Double, trackID: Int64)] = []
            for other in labelled where other != row {
                ranked.append((distance(points[row], points[other]), table.trackIDs[other]))
            }
            ranked.sort { $0.distance < $1.distance || ($0.distance == $1.distance && $0.trackID < $1.trackID) }
            let own = labels[table.trackIDs[row]]!
            let hits = ranked.prefix(k).count { !labels[$0.trackID]!.isDisjoint(with: own) }
            total += Double(hits) / Double(k)
        }
        return total / Double(seeds.count)
    }

    @Test func baselinesOnTheBundledSampleMatchAPlainComputation() async throws {
        // The bundled sample is 3,000 real tidytuesday rows; 150 seeds keep the plain check quick.
        let songs = try TidyTuesdaySongs(path: SampleLibrary.path)
        let recommender = Recommender(table: songs.featureTable())
        let labels = songs.genreLabels()
        let comparison = try await RetrievalComparison.measure(
            subject: recommender.similaritySpace,
            baselines: SimilaritySpace.naiveBaselines(for: recommender.table),
            labels: labels,
            label: .genre,
            sampleSize: 150,
            sampleSeed: 5
        )
        #expect(comparison.evaluation.seedCount == 150)
        #expect(
            comparison.baselines.map(\.name) == [
                "z-score cosine, 11 features", "z-score cosine, no key/mode", "z-score Euclidean, no key/mode",
            ]
        )

        // The subject's figure is the one RetrievalEvaluation gives on the same seeds.
        let alone = await RetrievalEvaluation.measure(
            features: recommender.features,
            labels: labels,
            sampleSize: 150,
            sampleSeed: 5
        )
        #expect(comparison.evaluation.precision.isApproximatelyEqual(to: alone.precision, absoluteTolerance: 1e-12))

        // The same seeds as LabelledQueries draws: a shuffle of the labelled positions by the seed.
        let labelledCount = recommender.table.trackIDs.count { labels[$0] != nil }
        var generator = SplitMix64(seed: 5)
        var positions = Array(0..<labelledCount)
        positions.shuffle(using: &generator)
        let seeds = positions.prefix(150).sorted()
        let plain = [
            (SimilaritySpace.elevenFeatures, false), (SimilaritySpace.nineFeatures, false),
            (SimilaritySpace.nineFeatures, true),
        ].map {
            RetrievalComparisonTests.bruteForcePrecision(
                table: recommender.table,
                features: $0.0,
                isEuclidean: $0.1,
                labels: labels,
                seeds: seeds,
                k: 10
            )
        }
        for (baseline, expected) in zip(comparison.baselines, plain) {
            // Float rounding may swap a near tie at the tenth neighbour: one swap is 1/1,500.
            #expect(baseline.precision.isApproximatelyEqual(to: expected, absoluteTolerance: 0.003), "\(baseline.name)")
            let difference = comparison.evaluation.precision - baseline.precision
            #expect(baseline.difference.estimate.isApproximatelyEqual(to: difference, absoluteTolerance: 1e-12))
            #expect(baseline.difference.lower <= difference && difference <= baseline.difference.upper)
        }
        // Real features find same-genre neighbours far more often than chance.
        #expect(comparison.randomDifference.isAboveZero)
        #expect(comparison.baselines.allSatisfy { $0.precision > comparison.evaluation.randomBaseline + 0.1 })
    }

    @Test func euclideanAndCosineRankByTheirOwnMetric() async throws {
        // q = (1, 0) and b = (1, 0.6) share label x; a = (10, 0.5) is y. By distance q and b are each
        // other's nearest and a's nearest is b (a miss): 2 hits of 3. By angle q's and b's nearest
        // are a and a's nearest is q: no hit.
        let features = FeatureMatrix(
            values: Matrix(rows: [[1, 0], [10, 0.5], [1, 0.6]]),
            trackIDs: [1, 2, 3],
            columnNames: ["u", "v"]
        )
        let labels: [Int64: Set<String>] = [1: ["x"], 2: ["y"], 3: ["x"]]
        let cosine = SimilaritySpace(name: "angle", features: features, metric: .cosine, signals: [.audioFeatures])
        var euclidean = cosine
        euclidean.name = "distance"
        euclidean.metric = .euclidean
        let comparison = try await RetrievalComparison.measure(
            subject: cosine,
            baselines: [euclidean],
            labels: labels,
            label: .genre,
            k: 1
        )
        #expect(comparison.evaluation.precision.isApproximatelyEqual(to: 0, absoluteTolerance: 1e-12))
        let baseline = try #require(comparison.baselines.first)
        #expect(baseline.precision.isApproximatelyEqual(to: 2.0 / 3.0, absoluteTolerance: 1e-12))
        #expect(baseline.difference.estimate.isApproximatelyEqual(to: -2.0 / 3.0, absoluteTolerance: 1e-12))
        #expect(baseline.difference.upper <= 0 && baseline.difference.lower >= -1)
    }

    @Test(arguments: EvaluationLabel.allCases)
    func aSpaceUsingItsOwnLabelIsRefused(label: EvaluationLabel) async throws {
        let features = FeatureMatrix(
            values: Matrix(rows: [[1, 0], [0, 1], [1, 1]]),
            trackIDs: [1, 2, 3],
            columnNames: ["u", "v"]
        )
        let labels: [Int64: Set<String>] = [1: ["x"], 2: ["y"], 3: ["x"]]
        let plain = SimilaritySpace(name: "plain", features: features, metric: .cosine, signals: [.audioFeatures])
        for signal in label.derivedSignals {
            var hybrid = plain
            hybrid.name = "hybrid"
            hybrid.signals.insert(signal)
            // As the subject and as a baseline alike.
            await #expect(throws: AnalyticsError.self) {
                try await RetrievalComparison.measure(
                    subject: hybrid,
                    baselines: [],
                    labels: labels,
                    label: label,
                    k: 1
                )
            }
            await #expect(throws: AnalyticsError.self) {
                try await RetrievalComparison.measure(
                    subject: plain,
                    baselines: [hybrid],
                    labels: labels,
                    label: label,
                    k: 1
                )
            }
        }
        // The label's own signal is always among those refused.
        let own: SimilaritySignal =
            switch label {
            case .genre: .genreTags
            case .subgenre: .subgenreTags
            case .playlist: .playlistMembership
            }
        #expect(label.derivedSignals.contains(own))
        // Features and artists are never derived from a label.
        var artists = plain
        artists.signals = [.audioFeatures, .artistIdentity]
        _ = try await RetrievalComparison.measure(subject: artists, baselines: [], labels: labels, label: label, k: 1)
    }

    @Test func theToolsSpaceDeclaresItsArtistContextAndTheBaselinesUseFeaturesOnly() throws {
        let songs = try TidyTuesdaySongs(path: Fixtures.path("csv/tidytuesday-excerpt.csv"))
        let recommender = Recommender(table: songs.featureTable())
        #expect(recommender.similaritySpace.signals == [.audioFeatures, .artistIdentity])
        for baseline in SimilaritySpace.naiveBaselines(for: recommender.table) {
            #expect(baseline.signals == [.audioFeatures])
            #expect(baseline.features.trackIDs == recommender.features.trackIDs)
        }
    }
}
