import Analytics
import Features
import Foundation

/// Times k-means (k-means++ seeding, Lloyd's iterations, mini-batch) and exact cosine top-k over
/// a grid of sizes, cluster counts and thread counts, on synthetic or real audio features.
///
/// For each row count *N* the data is made once; then for each thread count the cosine search is
/// timed, and for each cluster count *k* and thread count the k-means configuration. Every timing
/// is repeated ``Settings/repeats`` times with the same seed, so the repeats do the same work, and
/// reported as median and spread (minimum to maximum). Before the grid the machine's rooflines
/// are measured (``MachineProfile/measure(threadCounts:options:)``) and the load is watched for a
/// quarter of a second (``MachineLoad``); the peak resident memory of each configuration is
/// measured where Linux allows it (see `ResidentMemory`).
///
/// ```swift
/// var settings = ClusteringBenchmark.Settings()
/// settings.rowCounts = [100_000]
/// let report = try await ClusteringBenchmark(settings: settings, data: .synthetic(SyntheticLibrary())).run()
/// print(report.renderedTable())
/// ```
public struct ClusteringBenchmark: Sendable {
    /// What to run.
    public struct Settings: Hashable, Sendable, Codable {
        /// The row counts *N*; `nil` runs once on the whole library (``DataSource/library(_:)``
        /// only). With library data, a given *N* is drawn from the library's rows with
        /// replacement. 100,000 and 1,000,000 by default.
        public var rowCounts: [Int]? = [100_000, 1_000_000]
        /// The number of columns *d*; 12 by default (see ``SyntheticLibrary/schema``).
        public var columnCount = 12
        /// The cluster counts *k*; 8, 16 and 64 by default.
        public var clusterCounts = [8, 16, 64]
        /// The thread counts; 1 and 2 by default.
        public var threadCounts = [1, 2]
        /// Lloyd's iterations per fit (tolerance 0: fewer only when the labels stop changing);
        /// 20 by default.
        public var iterations = 20
        /// The timed repeats of every measurement; 3 by default.
        public var repeats = 3
        /// The seed of the data and of every random choice; 42 by default.
        public var seed: UInt64 = 42
        /// The rows per mini-batch step; 1,024 by default.
        public var miniBatchSize = 1_024
        /// The cosine queries, rows sampled from the data (at most *N*); 1,000 by default.
        public var queryCount = 1_000
        /// The neighbours per cosine query; 10 by default.
        public var neighborCount = 10
        /// How the machine is probed.
        public var probe = MachineProfile.ProbeOptions()
        /// How long the machine is watched before the run; 0.25 s by default.
        public var quietWindow = Duration.milliseconds(250)

        public init() {}

        enum CodingKeys: String, CodingKey {
            case rowCounts = "n"
            case columnCount = "d"
            case clusterCounts = "cluster_counts"
            case threadCounts = "threads"
            case iterations
            case repeats
            case seed
            case miniBatchSize = "mini_batch_size"
            case queryCount = "queries"
            case neighborCount = "neighbors"
        }

        /// Encodes every setting a reader needs to repeat the run, `n` as `null` for the whole
        /// library (the probe options and the quiet window are left out).
        public func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(rowCounts, forKey: .rowCounts)
            try container.encode(columnCount, forKey: .columnCount)
            try container.encode(clusterCounts, forKey: .clusterCounts)
            try container.encode(threadCounts, forKey: .threadCounts)
            try container.encode(iterations, forKey: .iterations)
            try container.encode(repeats, forKey: .repeats)
            try container.encode(seed, forKey: .seed)
            try container.encode(miniBatchSize, forKey: .miniBatchSize)
            try container.encode(queryCount, forKey: .queryCount)
            try container.encode(neighborCount, forKey: .neighborCount)
        }
    }

    /// Where the rows come from.
    public enum DataSource: Sendable {
        /// Drawn from a mixture fitted to a real library.
        case synthetic(SyntheticLibrary)
        /// A user's library: the tracks with every feature of ``SyntheticLibrary/schema``, z-scored.
        case library(FeatureTable)
    }

    /// What to run.
    public var settings: Settings
    /// Where the rows come from.
    public var data: DataSource

    public init(settings: Settings = Settings(), data: DataSource = .synthetic(SyntheticLibrary())) {
        self.settings = settings
        self.data = data
    }
}

// MARK: - Progress

extension ClusteringBenchmark {
    /// Where a run is, for a progress display.
    public struct Progress: Sendable {
        /// The configuration under way, from 1 to ``stepCount``; data preparation counts as one.
        public var step: Int
        /// The number of configurations, data preparation included.
        public var stepCount: Int
        /// The configuration, such as `N=100,000 k=8 threads=2`.
        public var configuration: String
        /// The phase within it, such as `Lloyd, run 2 of 3`.
        public var phase: String
        /// Whether this is the first report of the step.
        public var isStartOfStep: Bool
        /// The share of the estimated work done, in 0…1.
        public var fractionDone: Double
        /// The time since the run started.
        public var elapsed: Duration
        /// The estimated time left, once any work is done.
        public var estimatedRemaining: Duration?

        /// One line for a terminal: a bar, the step, the ETA, the configuration and the phase, at
        /// most `width` characters (the end is cut first).
        public func renderedLine(width: Int = 100) -> String {
            let barWidth = 20
            let filled = Int((Swift.min(1, Swift.max(0, fractionDone)) * Double(barWidth)).rounded(.down))
            let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: barWidth - filled)
            let eta = estimatedRemaining.map { "ETA " + Self.clockTime($0) } ?? "ETA –"
            let line = "\(bar) \(step)/\(stepCount) · \(eta) · \(configuration) · \(phase)"
            return line.count > width ? String(line.prefix(Swift.max(0, width - 1))) + "…" : line
        }

        /// `m:ss`, or `h:mm:ss` from an hour.
        static func clockTime(_ duration: Duration) -> String {
            let total = Swift.max(0, Int(duration.seconds.rounded()))
            let (hours, minutes, seconds) = (total / 3600, total / 60 % 60, total % 60)
            return hours > 0
                ? String(format: "%d:%02d:%02d", hours, minutes, seconds) : String(format: "%d:%02d", minutes, seconds)
        }
    }
}

// MARK: - Running

extension ClusteringBenchmark {
    /// Checks the settings against each other and the data.
    ///
    /// - Throws: ``AnalyticsError/invalidParameter(name:value:expected:)`` for a count below 1,
    ///   ``AnalyticsError/tooFewSamples(required:available:what:)`` when a *k* exceeds an *N* or the
    ///   library has no complete track.
    public func validate() throws {
        let s = settings
        func atLeastOne(_ values: [Int], _ name: String) throws {
            if let bad = values.first(where: { $0 < 1 }) {
                throw AnalyticsError.invalidParameter(name: name, value: "\(bad)", expected: "at least 1")
            }
        }
        if let rowCounts = s.rowCounts {
            guard !rowCounts.isEmpty else {
                throw AnalyticsError.invalidParameter(
                    name: "The list of row counts",
                    value: "empty",
                    expected: "at least one count"
                )
            }
            try atLeastOne(rowCounts, "A row count")
        } else if case .synthetic = data {
            throw AnalyticsError.invalidParameter(
                name: "The list of row counts",
                value: "none",
                expected: "given for synthetic data"
            )
        }
        guard !s.clusterCounts.isEmpty, !s.threadCounts.isEmpty else {
            throw AnalyticsError.invalidParameter(
                name: "The lists of cluster and thread counts",
                value: "empty",
                expected: "at least one count each"
            )
        }
        try atLeastOne(s.clusterCounts, "A cluster count")
        try atLeastOne(s.threadCounts, "A thread count")
        try atLeastOne(
            [s.columnCount, s.iterations, s.repeats, s.miniBatchSize, s.queryCount, s.neighborCount],
            "Columns, iterations, repeats, batch size, queries and neighbours"
        )
        let largestK = s.clusterCounts.max()!
        if let rowCounts = s.rowCounts {
            let smallestN = rowCounts.min()!
            guard largestK <= smallestN else {
                throw AnalyticsError.tooFewSamples(
                    required: largestK,
                    available: smallestN,
                    what: "k-means with \(largestK) clusters"
                )
            }
        }
        if case .library(let table) = data {
            let available = completeRowCount(of: table)
            let required = s.rowCounts == nil ? largestK : 1
            guard available >= required else {
                throw AnalyticsError.tooFewSamples(
                    required: required,
                    available: available,
                    what: s.rowCounts == nil ? "k-means with \(largestK) clusters" : "Benchmarking on the library"
                )
            }
        }
    }

    /// The tracks of `table` that have every feature of the benchmark schema.
    private func completeRowCount(of table: FeatureTable) -> Int {
        let columns = SyntheticLibrary.schema.features.map { FeatureTable.columnIndex(of: $0) }
        let width = FeatureTable.columnCount
        return (0..<table.rowCount).reduce(0) { count, row in
            columns.allSatisfy { !table.values[row * width + $0].isNaN } ? count + 1 : count
        }
    }

    /// Runs the whole grid.
    ///
    /// - Parameters:
    ///   - commandLine: The command line to record in the report, if any.
    ///   - progress: Called on every change of configuration or phase.
    /// - Returns: The report.
    /// - Throws: What ``validate()`` throws, before anything runs.
    public func run(
        commandLine: String? = nil,
        progress: @escaping @Sendable (Progress) -> Void = { _ in }
    )
        async throws
        -> BenchmarkReport
    {
        try validate()
        let s = settings
        let date = Date()
        let before = await MachineLoad.measure(over: s.quietWindow)
        let machine = await MachineProfile.measure(threadCounts: s.threadCounts, options: s.probe)
        let duringStart = MachineLoad.snapshot()

        var tracker = ProgressTracker(settings: s, libraryRowCount: libraryRowCount, report: progress)
        var configurations: [BenchmarkReport.ClusteringResult] = []
        var searches: [BenchmarkReport.SearchResult] = []
        var preparation: [Int: Double] = [:]
        var librarySpace: Matrix?
        let clock = ContinuousClock()
        let requestedCounts: [Int?] = s.rowCounts ?? [nil]
        for requestedN in requestedCounts {
            let label = requestedN.map { "N=\(Self.grouped($0))" } ?? "the library"
            tracker.begin(configuration: label, phase: "preparing the data", weight: 0)
            let start = clock.now
            let matrix = await makeMatrix(rowCount: requestedN, librarySpace: &librarySpace)
            let n = matrix.rowCount
            preparation[n] = (clock.now - start).seconds
            tracker.finishWork(0)

            for threads in s.threadCounts {
                tracker.begin(
                    configuration: "N=\(Self.grouped(n)) cosine top-\(s.neighborCount) threads=\(threads)",
                    phase: "searching",
                    weight: tracker.searchWeight(n: n, threads: threads)
                )
                searches.append(await search(matrix, threadCount: threads, machine: machine, tracker: &tracker))
            }
            for k in s.clusterCounts {
                for threads in s.threadCounts {
                    tracker.begin(
                        configuration: "N=\(Self.grouped(n)) k=\(k) threads=\(threads)",
                        phase: "k-means++ and Lloyd",
                        weight: tracker.clusteringWeight(n: n, k: k, threads: threads)
                    )
                    configurations.append(
                        try await cluster(
                            matrix,
                            clusterCount: k,
                            threadCount: threads,
                            machine: machine,
                            tracker: &tracker
                        )
                    )
                }
            }
        }
        let during = MachineLoad.since(duringStart)
        return BenchmarkReport(
            commandLine: commandLine,
            date: date,
            isBusy: before.isBusy || during.isBusy(includingLoadAverage: false),
            loadAverage: before.loadAverage,
            load: BenchmarkReport.Load(before: before, during: during),
            machine: machine,
            data: dataDescription(preparation: preparation),
            settings: s,
            configurations: configurations,
            searches: searches
        )
    }

    /// The number of complete library tracks, for progress estimates; `nil` for synthetic data.
    private var libraryRowCount: Int? {
        if case .library(let table) = data { return completeRowCount(of: table) }
        return nil
    }

    /// The benchmark matrix for `rowCount` rows (the whole library when `nil`).
    private func makeMatrix(rowCount: Int?, librarySpace: inout Matrix?) async -> Matrix {
        let s = settings
        switch data {
        case .synthetic(let library):
            return await library.makeMatrix(
                rowCount: rowCount!,
                columnCount: s.columnCount,
                seed: s.seed,
                threadCount: s.threadCounts.max()!
            )
        case .library(let table):
            if librarySpace == nil { librarySpace = SyntheticLibrary.schema.makeSpace(from: table).matrix.values }
            var matrix = librarySpace!
            if let rowCount {
                var rng = SplitMix64(seed: s.seed)
                let d = matrix.columnCount
                var elements = [Float]()
                elements.reserveCapacity(rowCount * d)
                for _ in 0..<rowCount {
                    let row = rng.next(below: matrix.rowCount)
                    elements.append(contentsOf: matrix.elements[row * d..<(row + 1) * d])
                }
                matrix = Matrix(rowCount: rowCount, columnCount: d, elements: elements)
            }
            return await SyntheticLibrary.fitting(
                matrix,
                toColumnCount: s.columnCount,
                seed: s.seed,
                threadCount: s.threadCounts.max()!
            )
        }
    }

    private func dataDescription(preparation: [Int: Double]) -> BenchmarkReport.DataDescription {
        let s = settings
        let columns = SyntheticLibrary.columnNames(count: s.columnCount)
        let schemaWidth = SyntheticLibrary.schema.columnCount
        var shape =
            s.columnCount < schemaWidth
            ? "the first \(s.columnCount) of the \(schemaWidth) benchmark columns"
            : "the \(schemaWidth) benchmark columns (the default features, mode weighted ½, and key as sine and cosine)"
        if s.columnCount > schemaWidth {
            shape += " and \(s.columnCount - schemaWidth) columns of standard normal noise"
        }
        switch data {
        case .synthetic:
            return BenchmarkReport.DataDescription(
                source: "synthetic",
                summary: "Synthetic tracks from a 12-component Gaussian mixture fitted to the sample library "
                    + "(samples/tidytuesday-sample.csv), values clipped to their ranges, z-scored as `cluster --scaling zscore` does: \(shape).",
                columns: columns,
                seed: s.seed,
                preparationSeconds: preparation
            )
        case .library:
            let sampling =
                s.rowCounts == nil
                ? "every track with all benchmark features"
                : "N tracks drawn with replacement from the tracks with all benchmark features"
            return BenchmarkReport.DataDescription(
                source: "library",
                summary: "The library: \(sampling), z-scored as `cluster --scaling zscore` does: \(shape).",
                columns: columns,
                seed: s.seed,
                preparationSeconds: preparation
            )
        }
    }

    /// Times one k-means configuration.
    private func cluster(
        _ data: Matrix,
        clusterCount k: Int,
        threadCount threads: Int,
        machine: MachineProfile,
        tracker: inout ProgressTracker
    ) async throws -> BenchmarkReport.ClusteringResult {
        let s = settings
        let n = data.rowCount
        let d = data.columnCount
        var options = KMeans.Options()
        options.maxIterations = s.iterations
        options.tolerance = 0
        options.restartCount = 1
        options.threadCount = threads
        var miniOptions = KMeans.MiniBatchOptions()
        miniOptions.batchSize = s.miniBatchSize
        miniOptions.threadCount = threads

        let wasReset = ResidentMemory.resetPeak()
        var seeding: [Double] = []
        var perIteration: [Double] = []
        var fits: [Double] = []
        var inertias: [Double] = []
        var iterationCount = 0
        var scannedShare = 1.0
        var perStep: [Double] = []
        var miniInertias: [Double] = []
        var steps = 0
        let clock = ContinuousClock()
        for run in 1...s.repeats {
            tracker.update(phase: "k-means++ and Lloyd, run \(run) of \(s.repeats)")
            var rng = SplitMix64(seed: s.seed)
            let start = clock.now
            let model = try await KMeans.fit(data, clusterCount: k, options: options, using: &rng)
            fits.append((clock.now - start).seconds)
            seeding.append(model.timings.seeding.seconds)
            perIteration.append(model.timings.iterations.seconds / Double(Swift.max(1, model.timings.iterationCount)))
            inertias.append(model.inertia)
            iterationCount = model.iterationCount
            scannedShare =
                Double(model.timings.scannedRowCount) / Double(n * Swift.max(1, model.timings.iterationCount))

            tracker.update(phase: "mini-batch, run \(run) of \(s.repeats)")
            var miniRNG = SplitMix64(seed: s.seed)
            let mini = try await KMeans.fitMiniBatch(data, clusterCount: k, options: miniOptions, using: &miniRNG)
            perStep.append(mini.timings.iterations.seconds / Double(Swift.max(1, mini.timings.iterationCount)))
            miniInertias.append(mini.inertia)
            steps = mini.iterationCount
            tracker.finishWork(1 / Double(s.repeats))
        }
        let peak = ResidentMemory.peak(wasReset: wasReset)

        let time = BenchmarkReport.Statistic(perIteration)
        let bytes = Double(n * d * MemoryLayout<Float>.size)
        let flops = 2 * Double(n) * Double(d) * Double(k)
        let rooflineSeconds = machine.roofline(threadCount: threads)!.minimumSeconds(bytes: bytes, flops: flops)
        let inertia = BenchmarkReport.Statistic(inertias)
        let miniInertia = BenchmarkReport.Statistic(miniInertias)
        return BenchmarkReport.ClusteringResult(
            rowCount: n,
            columnCount: d,
            clusterCount: k,
            threadCount: threads,
            repeats: s.repeats,
            seedingSeconds: BenchmarkReport.Statistic(seeding),
            secondsPerIteration: time,
            iterationCount: iterationCount,
            fitSeconds: BenchmarkReport.Statistic(fits),
            inertia: inertia,
            rowsPerSecond: time.reciprocal(times: Double(n)),
            bytesPerIteration: bytes,
            flopsPerIteration: flops,
            bandwidth: time.reciprocal(times: bytes),
            gflops: time.reciprocal(times: flops / 1e9),
            rooflineSecondsPerIteration: rooflineSeconds,
            rooflineFraction: time.reciprocal(times: rooflineSeconds),
            scannedShare: scannedShare,
            miniBatchSecondsPerStep: BenchmarkReport.Statistic(perStep),
            miniBatchSteps: steps,
            miniBatchInertia: miniInertia,
            miniBatchInertiaRatio: inertia.median > 0 ? miniInertia.median / inertia.median : nil,
            peakMemoryBytes: peak?.bytes,
            peakMemoryScope: peak?.scope.rawValue,
            matrixBytes: n * d * MemoryLayout<Float>.size
        )
    }

    /// Times exact cosine top-k of sampled rows against all rows.
    private func search(
        _ data: Matrix,
        threadCount threads: Int,
        machine: MachineProfile,
        tracker: inout ProgressTracker
    ) async -> BenchmarkReport.SearchResult {
        let s = settings
        let n = data.rowCount
        let d = data.columnCount
        let queryCount = Swift.min(s.queryCount, n)
        var rng = SplitMix64(seed: s.seed)
        let queries = Self.sampleRows(of: data, count: queryCount, using: &rng)
        let wasReset = ResidentMemory.resetPeak()
        let clock = ContinuousClock()
        var indexTimes: [Double] = []
        var times: [Double] = []
        for run in 1...s.repeats {
            tracker.update(phase: "cosine top-\(s.neighborCount), run \(run) of \(s.repeats)")
            var start = clock.now
            let index = CosineIndex(
                FeatureMatrix(
                    values: data,
                    trackIDs: (0..<Int64(n)).map { $0 },
                    columnNames: (0..<d).map { "c\($0)" }
                )
            )
            indexTimes.append((clock.now - start).seconds)
            start = clock.now
            let found = await index.nearestNeighbors(of: queries, count: s.neighborCount, taskCount: threads)
            times.append((clock.now - start).seconds)
            blackHole(found)
            tracker.finishWork(1 / Double(s.repeats))
        }
        let peak = ResidentMemory.peak(wasReset: wasReset)
        let time = BenchmarkReport.Statistic(times)
        let flops = 2 * Double(queryCount) * Double(n) * Double(d)
        let queryBlocks = Double((queryCount + CosineIndex.queryBlock - 1) / CosineIndex.queryBlock)
        let bytes = queryBlocks * Double(n * d * MemoryLayout<Float>.size)
        let rooflineSeconds = machine.roofline(threadCount: threads)!.minimumSeconds(bytes: bytes, flops: flops)
        return BenchmarkReport.SearchResult(
            rowCount: n,
            columnCount: d,
            threadCount: threads,
            queryCount: queryCount,
            neighborCount: s.neighborCount,
            repeats: s.repeats,
            indexSeconds: BenchmarkReport.Statistic(indexTimes),
            seconds: time,
            queriesPerSecond: time.reciprocal(times: Double(queryCount)),
            flops: flops,
            gflops: time.reciprocal(times: flops / 1e9),
            rooflineSeconds: rooflineSeconds,
            rooflineFraction: time.reciprocal(times: rooflineSeconds),
            peakMemoryBytes: peak?.bytes,
            peakMemoryScope: peak?.scope.rawValue
        )
    }

    /// `count` distinct rows of `data` chosen uniformly (Floyd's algorithm), in their original order.
    static func sampleRows(of data: Matrix, count: Int, using rng: inout SplitMix64) -> Matrix {
        let n = data.rowCount
        var chosen = Set<Int>(minimumCapacity: count)
        if count >= n {
            chosen = Set(0..<n)
        } else {
            for j in (n - count)..<n {
                let t = rng.next(below: j + 1)
                if !chosen.insert(t).inserted { chosen.insert(j) }
            }
        }
        let d = data.columnCount
        var elements = [Float]()
        elements.reserveCapacity(chosen.count * d)
        for row in chosen.sorted() { elements.append(contentsOf: data.elements[row * d..<(row + 1) * d]) }
        return Matrix(rowCount: chosen.count, columnCount: d, elements: elements)
    }

    /// `1234567` as `1,234,567`.
    static func grouped(_ value: Int) -> String {
        let digits = String(value)
        var result = ""
        for (index, character) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { result.append(",") }
            result.append(character)
        }
        return result
    }
}

// MARK: - Progress tracking

/// Keeps count of the steps and the estimated work of a run, and reports progress.
struct ProgressTracker {
    let report: (ClusteringBenchmark.Progress) -> Void
    let stepCount: Int
    let totalWeight: Double
    let settings: ClusteringBenchmark.Settings
    private let start = ContinuousClock.now
    private var step = 0
    private var configuration = ""
    private var weight = 0.0
    private var doneWeight = 0.0

    init(
        settings: ClusteringBenchmark.Settings,
        libraryRowCount: Int?,
        report: @escaping (ClusteringBenchmark.Progress) -> Void
    ) {
        self.settings = settings
        self.report = report
        let rowCounts = settings.rowCounts ?? [libraryRowCount ?? 1]
        let perN = 1 + settings.threadCounts.count * (1 + settings.clusterCounts.count)
        stepCount = rowCounts.count * perN
        var total = 0.0
        for n in rowCounts {
            for threads in settings.threadCounts {
                total += Self.searchWeight(n: n, threads: threads, settings: settings)
                for k in settings.clusterCounts {
                    total += Self.clusteringWeight(n: n, k: k, threads: threads, settings: settings)
                }
            }
        }
        totalWeight = Swift.max(total, 1)
    }

    /// Work estimates in row × centroid visits: rough, for the ETA only.
    static func clusteringWeight(n: Int, k: Int, threads: Int, settings: ClusteringBenchmark.Settings) -> Double {
        let perFit = Double(n) * Double(Swift.max(k, 8)) * Double(settings.iterations + 3) / Double(threads)
        let seeding = Double(Swift.min(n, 100_000)) * Double(k) * (2 + log(Double(k)))
        return Double(settings.repeats) * (perFit + seeding)
    }

    static func searchWeight(n: Int, threads: Int, settings: ClusteringBenchmark.Settings) -> Double {
        Double(settings.repeats) * Double(n) * Double(Swift.min(settings.queryCount, n)) / 16 / Double(threads)
    }

    func clusteringWeight(n: Int, k: Int, threads: Int) -> Double {
        Self.clusteringWeight(n: n, k: k, threads: threads, settings: settings)
    }

    func searchWeight(n: Int, threads: Int) -> Double {
        Self.searchWeight(n: n, threads: threads, settings: settings)
    }

    /// Starts the next step.
    mutating func begin(configuration: String, phase: String, weight: Double) {
        step += 1
        self.configuration = configuration
        self.weight = weight
        send(phase: phase, isStartOfStep: true)
    }

    /// Reports a new phase of the current step.
    mutating func update(phase: String) {
        send(phase: phase, isStartOfStep: false)
    }

    /// Counts `fraction` of the current step's work as done.
    mutating func finishWork(_ fraction: Double) {
        doneWeight += weight * fraction
    }

    private func send(phase: String, isStartOfStep: Bool) {
        let elapsed = ContinuousClock.now - start
        let fraction = Swift.min(1, doneWeight / totalWeight)
        let remaining: Duration? =
            fraction > 0.001 ? .seconds(elapsed.seconds * (1 - fraction) / fraction) : nil
        report(
            ClusteringBenchmark.Progress(
                step: Swift.min(step, stepCount),
                stepCount: stepCount,
                configuration: configuration,
                phase: phase,
                isStartOfStep: isStartOfStep,
                fractionDone: fraction,
                elapsed: elapsed,
                estimatedRemaining: remaining
            )
        )
    }
}
