import Analytics
import Foundation

/// The results of a ``ClusteringBenchmark`` run: the machine, the load, and per configuration the
/// medians and spreads of every timing with the figures derived from them.
///
/// Encoded as JSON it is the versioned document `vibes-analyze bench --format json` prints
/// (``version`` 1, snake-case keys, times in seconds, sizes in bytes). It renders as a text table
/// (``renderedTable()``), CSV (``renderedCSV()``), an SVG chart (``renderedSVG()``) and an HTML
/// page (``renderedHTML()``).
public struct BenchmarkReport: Hashable, Sendable, Codable {
    /// The version of this document's layout; 1.
    public var version = 1
    /// The command line that produced the report, if the caller gave it.
    public var commandLine: String?
    /// When the run started.
    public var date: Date
    /// Whether the machine was busy before or during the run (see ``MachineLoad/isBusy``).
    public var isBusy: Bool
    /// The 1-minute load average just before the run.
    public var loadAverage: Double?
    /// The machine before the run (a short quiet window) and during it (this process excluded).
    public var load: Load
    /// The machine, the build and the measured rooflines.
    public var machine: MachineProfile
    /// What the data was.
    public var data: DataDescription
    /// How the runs were set up.
    public var settings: ClusteringBenchmark.Settings
    /// k-means results, by row count, then cluster count, then thread count.
    public var configurations: [ClusteringResult]
    /// Cosine top-k results, by row count, then thread count.
    public var searches: [SearchResult]

    /// The load before and during a run.
    public struct Load: Hashable, Sendable, Codable {
        /// A short window just before the run, with this process idle.
        public var before: MachineLoad
        /// The whole run; ``MachineLoad/otherProcessesShare`` leaves this process out.
        public var during: MachineLoad
    }

    /// The data the benchmark ran on.
    public struct DataDescription: Hashable, Sendable, Codable {
        /// `synthetic` or `library`.
        public var source: String
        /// A sentence on where the rows came from and how they were scaled.
        public var summary: String
        /// The column names, *d* of them.
        public var columns: [String]
        /// The seed of the data and of every random choice.
        public var seed: UInt64
        /// Seconds spent making the matrix for each row count (not part of any timing).
        public var preparationSeconds: [Int: Double]

        enum CodingKeys: String, CodingKey {
            case source, summary, columns, seed
            case preparationSeconds = "preparation_seconds_by_n"
        }
    }

    enum CodingKeys: String, CodingKey {
        case version
        case commandLine = "command"
        case date
        case isBusy = "busy"
        case loadAverage = "load_average"
        case load, machine, data, settings, configurations, searches
    }
}

// MARK: - Statistics

extension BenchmarkReport {
    /// The median of repeated measurements and their spread, minimum to maximum.
    public struct Statistic: Hashable, Sendable, Codable {
        /// The median; the mean of the two middle values for an even count.
        public var median: Double
        /// The smallest value.
        public var minimum: Double
        /// The largest value.
        public var maximum: Double

        public init(median: Double, minimum: Double, maximum: Double) {
            self.median = median
            self.minimum = minimum
            self.maximum = maximum
        }

        /// The statistic of `values`, which must not be empty.
        public init(_ values: [Double]) {
            precondition(!values.isEmpty, "A statistic needs at least one value.")
            let sorted = values.sorted()
            let middle = sorted.count / 2
            median = sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
            minimum = sorted[0]
            maximum = sorted[sorted.count - 1]
        }

        /// `amount` divided by each value: a rate from a time, so the minimum time gives the
        /// maximum rate.
        public func reciprocal(times amount: Double) -> Statistic {
            // A time too short for the clock counts as one nanosecond, so that rates stay finite.
            func rate(_ value: Double) -> Double { amount / Swift.max(value, 1e-9) }
            return Statistic(median: rate(median), minimum: rate(maximum), maximum: rate(minimum))
        }

        enum CodingKeys: String, CodingKey {
            case median
            case minimum = "min"
            case maximum = "max"
        }
    }
}

// MARK: - Results

extension BenchmarkReport {
    /// One k-means configuration: *N* rows of *d* columns, *k* clusters, a thread count.
    ///
    /// Lloyd's figures come from `KMeans.fit` with tolerance 0 and the configured iteration count,
    /// seeded by k-means++ (timed separately); mini-batch figures from `KMeans.fitMiniBatch` with
    /// the same seed. Every repeat uses the same seed, so they do the same work.
    public struct ClusteringResult: Hashable, Sendable, Codable {
        /// The number of rows *N*.
        public var rowCount: Int
        /// The number of columns *d*.
        public var columnCount: Int
        /// The number of clusters *k*.
        public var clusterCount: Int
        /// The number of threads (processing chunks of rows in parallel).
        public var threadCount: Int
        /// The number of timed repeats.
        public var repeats: Int

        /// k-means++ seeding (greedy, on at most 100,000 sampled rows, one thread), in seconds.
        public var seedingSeconds: Statistic
        /// One Lloyd iteration (assignment and centroid update), in seconds.
        public var secondsPerIteration: Statistic
        /// The Lloyd iterations run per fit: the configured count, or fewer when the labels
        /// stopped changing.
        public var iterationCount: Int
        /// The whole `KMeans.fit` call, in seconds: seeding, iterations, the final assignment.
        public var fitSeconds: Statistic
        /// The within-cluster sum of squares of Lloyd's result (the same for every repeat).
        public var inertia: Statistic

        /// Rows assigned per second: *N* / time per iteration.
        public var rowsPerSecond: Statistic
        /// The bytes one iteration reads at the least: the matrix once, *N* · *d* · 4.
        public var bytesPerIteration: Double
        /// The floating-point operations of one iteration, counted as 2 · *N* · *d* · *k* (a
        /// multiply and an add per row, column and centroid; the argmin and the update are not
        /// counted).
        public var flopsPerIteration: Double
        /// ``bytesPerIteration`` per second: the bandwidth the iterations achieved.
        public var bandwidth: Statistic
        /// ``flopsPerIteration`` per second, in GFLOP/s.
        public var gflops: Statistic
        /// The least time an iteration could take on this machine at this thread count:
        /// ``Roofline/minimumSeconds(bytes:flops:)``.
        public var rooflineSecondsPerIteration: Double
        /// ``rooflineSecondsPerIteration`` / time per iteration: 1 would be the machine's limit
        /// for a full pass over every row.
        public var rooflineFraction: Statistic
        /// The share of rows whose distances an iteration computed, on average: Hamerly's bound
        /// (``KMeans/Options/usesBounds``) skips the rest. Below 1, ``bandwidth``, ``gflops`` and
        /// ``rooflineFraction`` are effective figures (as if every row had been scanned) and can
        /// pass the machine's limits. `nil` in reports made before it was measured.
        public var scannedShare: Double?

        /// One mini-batch step, in seconds.
        public var miniBatchSecondsPerStep: Statistic
        /// The mini-batch steps run before the smoothed batch inertia stopped improving.
        public var miniBatchSteps: Int
        /// The inertia of the mini-batch result on all rows.
        public var miniBatchInertia: Statistic
        /// Mini-batch inertia / Lloyd's inertia (medians): 1.02 is 2 % worse; `nil` when Lloyd's
        /// inertia is 0.
        public var miniBatchInertiaRatio: Double?

        /// The peak resident memory of the process during this configuration, in bytes.
        public var peakMemoryBytes: Int?
        /// What ``peakMemoryBytes`` covers: `configuration`, or `process` where the peak could
        /// not be reset.
        public var peakMemoryScope: String?
        /// The size of the data matrix, *N* · *d* · 4 bytes, part of ``peakMemoryBytes``.
        public var matrixBytes: Int

        enum CodingKeys: String, CodingKey {
            case rowCount = "n"
            case columnCount = "d"
            case clusterCount = "cluster_count"
            case threadCount = "threads"
            case repeats
            case seedingSeconds = "seeding_seconds"
            case secondsPerIteration = "lloyd_seconds_per_iteration"
            case iterationCount = "lloyd_iterations"
            case fitSeconds = "fit_seconds"
            case inertia
            case rowsPerSecond = "rows_per_second"
            case bytesPerIteration = "bytes_per_iteration"
            case flopsPerIteration = "flops_per_iteration"
            case bandwidth = "bandwidth_bytes_per_second"
            case gflops
            case rooflineSecondsPerIteration = "roofline_seconds_per_iteration"
            case rooflineFraction = "roofline_fraction"
            case scannedShare = "scanned_share"
            case miniBatchSecondsPerStep = "mini_batch_seconds_per_step"
            case miniBatchSteps = "mini_batch_steps"
            case miniBatchInertia = "mini_batch_inertia"
            case miniBatchInertiaRatio = "mini_batch_inertia_ratio"
            case peakMemoryBytes = "peak_memory_bytes"
            case peakMemoryScope = "peak_memory_scope"
            case matrixBytes = "matrix_bytes"
        }
    }

    /// Exact cosine top-k for a batch of queries over *N* rows at one thread count.
    public struct SearchResult: Hashable, Sendable, Codable {
        /// The number of indexed rows *N*.
        public var rowCount: Int
        /// The number of columns *d*.
        public var columnCount: Int
        /// The number of threads (tasks).
        public var threadCount: Int
        /// The number of queries, rows of the data sampled with the run's seed.
        public var queryCount: Int
        /// The neighbours per query.
        public var neighborCount: Int
        /// The number of timed repeats.
        public var repeats: Int
        /// Building the index (normalising the rows), in seconds.
        public var indexSeconds: Statistic
        /// Answering all queries, in seconds.
        public var seconds: Statistic
        /// Queries answered per second.
        public var queriesPerSecond: Statistic
        /// The floating-point operations of the batch, counted as 2 · queries · *N* · *d*.
        public var flops: Double
        /// ``flops`` per second, in GFLOP/s.
        public var gflops: Statistic
        /// The least time the batch could take: reading the index once per block of 256
        /// queries, or the multiply-adds at this build's peak, whichever is longer.
        public var rooflineSeconds: Double
        /// ``rooflineSeconds`` / time.
        public var rooflineFraction: Statistic
        /// The peak resident memory during the searches, in bytes (index copy included).
        public var peakMemoryBytes: Int?
        /// What ``peakMemoryBytes`` covers: `configuration` or `process`.
        public var peakMemoryScope: String?

        enum CodingKeys: String, CodingKey {
            case rowCount = "n"
            case columnCount = "d"
            case threadCount = "threads"
            case queryCount = "queries"
            case neighborCount = "neighbors"
            case repeats
            case indexSeconds = "index_seconds"
            case seconds
            case queriesPerSecond = "queries_per_second"
            case flops
            case gflops
            case rooflineSeconds = "roofline_seconds"
            case rooflineFraction = "roofline_fraction"
            case peakMemoryBytes = "peak_memory_bytes"
            case peakMemoryScope = "peak_memory_scope"
        }
    }
}
