import Features

/// Precision@k of a similarity space beside baselines measured on the same queries, with a paired
/// bootstrap confidence interval of each difference.
///
/// Every space is searched for the same seeds among the same labelled tracks, so the figures differ
/// only by the space. The difference to a baseline is the subject's precision minus the baseline's;
/// its interval resamples queries (``PairedBootstrap``). The random baseline is the exact expected
/// hit rate of each query, as in ``RetrievalEvaluation``.
///
/// No space may use the label it is graded on: ``measure(subject:baselines:labels:label:k:sampleSize:sampleSeed:resampleCount:confidenceLevel:bootstrapSeed:taskCount:)``
/// throws ``AnalyticsError/labelLeak(space:signal:label:)`` for a space whose
/// ``SimilaritySpace/signals`` meet ``EvaluationLabel/derivedSignals``.
///
/// ```swift
/// let comparison = try await RetrievalComparison.measure(
///     subject: recommender.similaritySpace,
///     baselines: SimilaritySpace.naiveBaselines(for: recommender.table),
///     labels: labels,
///     label: .genre
/// )
/// ```
public struct RetrievalComparison: Hashable, Sendable, Codable {
    /// The label the neighbours are graded on.
    public var label: EvaluationLabel
    /// The subject's full evaluation: precision, random baseline and figures per label.
    public var evaluation: RetrievalEvaluation
    /// The subject's name.
    public var subjectName: String
    /// Each baseline's precision and the subject's difference to it, in the order given.
    public var baselines: [Baseline]
    /// The subject's difference to uniformly random neighbours.
    public var randomDifference: PairedBootstrap
    /// The subject's precision@k counting only neighbours by other main artists than the seed's,
    /// when artists were given.
    public var beyondArtistPrecision: Double?
    /// The seed of the bootstrap resampling.
    public var bootstrapSeed: UInt64

    /// One baseline measured on the same queries.
    public struct Baseline: Hashable, Sendable, Codable {
        /// The baseline's name.
        public var name: String
        /// How the baseline measures closeness.
        public var metric: SimilaritySpace.Metric
        /// The baseline's precision@k, 0…1.
        public var precision: Double
        /// Subject minus baseline, with its confidence interval.
        public var difference: PairedBootstrap
        /// The baseline's precision@k among neighbours by other artists than the seed's.
        public var beyondArtistPrecision: Double?
        /// Subject minus baseline beyond the seed's artist, with its confidence interval.
        public var beyondArtistDifference: PairedBootstrap?

        /// The subject's precision over the baseline's (∞ when the baseline's is 0).
        public func ratio(to subject: Double) -> Double { precision > 0 ? subject / precision : .infinity }

        enum CodingKeys: String, CodingKey {
            case name, metric
            case precision = "precision_at_k"
            case difference
            case beyondArtistPrecision = "beyond_artist_precision_at_k"
            case beyondArtistDifference = "beyond_artist_difference"
        }
    }

    enum CodingKeys: String, CodingKey {
        case label, evaluation
        case subjectName = "subject"
        case baselines
        case randomDifference = "random_difference"
        case beyondArtistPrecision = "beyond_artist_precision_at_k"
        case bootstrapSeed = "bootstrap_seed"
    }

    /// The best baseline: the one with the highest precision (the first on a tie).
    public var bestBaseline: Baseline? {
        baselines.reduce(nil) { best, next in (best.map { next.precision > $0.precision } ?? true) ? next : best }
    }

    /// The baseline with the highest precision beyond the seed's artist (the first on a tie).
    public var bestBeyondArtistBaseline: Baseline? {
        baselines.filter { $0.beyondArtistPrecision != nil }.reduce(nil) { best, next in
            (best.map { next.beyondArtistPrecision! > $0.beyondArtistPrecision! } ?? true) ? next : best
        }
    }

    /// Measures `subject` and `baselines` on the same queries.
    ///
    /// - Parameters:
    ///   - subject: The space under test.
    ///   - baselines: The spaces to compare with; each must hold the same tracks in the same row
    ///     order as `subject`.
    ///   - labels: The labels of each track, by track ID; a track may have several.
    ///   - label: What `labels` are; spaces must not use a signal derived from it.
    ///   - k: The number of neighbours per seed; 10 by default.
    ///   - sampleSize: When set, only this many seeds, drawn with `SplitMix64(seed: sampleSeed)`;
    ///     every labelled track stays a candidate.
    ///   - sampleSeed: The seed of the sample.
    ///   - resampleCount: Bootstrap resamples per difference; 1,000 by default.
    ///   - confidenceLevel: The coverage of the intervals; 0.95 by default.
    ///   - bootstrapSeed: The seed of the resampling; every difference uses the same resamples.
    ///   - taskCount: The number of concurrent search tasks.
    ///   - artistOfRow: When given, the main artist of each row of the spaces as a code (−1 when
    ///     unknown), and every space is also graded beyond the seed's artist: the top `k` among
    ///     tracks by other artists.
    /// - Returns: The figures; all 0 when fewer than `k + 1` tracks are labelled.
    /// - Throws: ``AnalyticsError/labelLeak(space:signal:label:)`` when a space uses a signal derived
    ///   from `label`.
    /// - Complexity: O(*s* · *q* · *n* · *d*) for *s* spaces, *q* seeds and *n* labelled tracks.
    ///
    /// `progress`, when given, is called as the seeds of each space are searched, with the chunks
    /// of seeds done over all spaces and their number, one call at a time.
    public static func measure(
        subject: SimilaritySpace,
        baselines: [SimilaritySpace],
        labels: [Int64: Set<String>],
        label: EvaluationLabel,
        k: Int = 10,
        sampleSize: Int? = nil,
        sampleSeed: UInt64 = 42,
        resampleCount: Int = 1_000,
        confidenceLevel: Double = 0.95,
        bootstrapSeed: UInt64 = 42,
        taskCount: Int = Parallelism.defaultThreadCount,
        artistOfRow: [Int32]? = nil,
        progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil
    ) async throws -> RetrievalComparison {
        precondition(artistOfRow.map { $0.count == subject.features.rowCount } ?? true, "one artist per row")
        for space in [subject] + baselines {
            precondition(
                space.features.trackIDs == subject.features.trackIDs,
                "Every space must hold the subject's tracks in its row order (\(space.name) does not)."
            )
            if let leak = space.signals.intersection(label.derivedSignals).min(by: { $0.rawValue < $1.rawValue }) {
                throw AnalyticsError.labelLeak(space: space.name, signal: leak.rawValue, label: label.rawValue)
            }
        }
        let queries = LabelledQueries(
            trackIDs: subject.features.trackIDs,
            labels: labels,
            k: k,
            sampleSize: sampleSize,
            sampleSeed: sampleSeed
        )
        func interval(_ a: [Double], _ b: [Double]) -> PairedBootstrap {
            PairedBootstrap.meanDifference(
                a,
                b,
                resampleCount: resampleCount,
                confidenceLevel: confidenceLevel,
                seed: bootstrapSeed
            )
        }
        guard queries.isMeasurable else {
            return RetrievalComparison(
                label: label,
                evaluation: queries.evaluation(hitRates: []),
                subjectName: subject.name,
                baselines: baselines.map {
                    Baseline(name: $0.name, metric: $0.metric, precision: 0, difference: interval([], []))
                },
                randomDifference: interval([], []),
                bootstrapSeed: bootstrapSeed
            )
        }
        // Progress in chunks of seeds over every space.
        let spaceCount = baselines.count + 1
        func ranked(_ space: SimilaritySpace, number: Int) -> LabelledQueries.RankedHitRates {
            var spaceProgress: (@Sendable (Int, Int) -> Void)?
            if let progress {
                spaceProgress = { done, chunks in progress(number * chunks + done, spaceCount * chunks) }
            }
            return queries.rankedHitRates(
                in: space,
                artistOfRow: artistOfRow,
                taskCount: taskCount,
                progress: spaceProgress
            )
        }
        let subjectRanked = ranked(subject, number: 0)
        let subjectRates = subjectRanked.plain
        func mean(_ values: [Double]) -> Double { values.reduce(0, +) / Double(Swift.max(1, values.count)) }
        let rankedBaselines = baselines.indices.map { ranked(baselines[$0], number: $0 + 1) }
        // Every interval at once: they share their resamples' draws (the same seed and length).
        var pairs = rankedBaselines.map { (a: subjectRates, b: $0.plain) }
        if artistOfRow != nil { pairs += rankedBaselines.map { (a: subjectRanked.beyondArtist, b: $0.beyondArtist) } }
        pairs.append((a: subjectRates, b: queries.chance))
        let intervals = PairedBootstrap.meanDifferences(
            pairs,
            resampleCount: resampleCount,
            confidenceLevel: confidenceLevel,
            seed: bootstrapSeed,
            threadCount: taskCount
        )
        let measured = zip(baselines, rankedBaselines).enumerated().map { index, pair in
            let (baseline, ranked) = pair
            return Baseline(
                name: baseline.name,
                metric: baseline.metric,
                precision: mean(ranked.plain),
                difference: intervals[index],
                beyondArtistPrecision: artistOfRow == nil ? nil : mean(ranked.beyondArtist),
                beyondArtistDifference: artistOfRow == nil ? nil : intervals[baselines.count + index]
            )
        }
        return RetrievalComparison(
            label: label,
            evaluation: queries.evaluation(hitRates: subjectRates),
            subjectName: subject.name,
            baselines: measured,
            randomDifference: intervals[intervals.count - 1],
            beyondArtistPrecision: artistOfRow == nil ? nil : mean(subjectRanked.beyondArtist),
            bootstrapSeed: bootstrapSeed
        )
    }
}
