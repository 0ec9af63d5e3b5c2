import Features

/// A k-means clustering of the rows of a matrix: centroids, the label of every row and how well
/// the centroids fit.
///
/// ```swift
/// var rng = SplitMix64(seed: 42)
/// let model = try await KMeans.fit(space.matrix.values, clusterCount: 8, using: &rng)
/// ```
///
/// Fitting follows scikit-learn's `KMeans(algorithm="lloyd")`: greedy k-means++ seeding, Lloyd
/// iterations until the labels stop changing or the centres move less than a tolerance relative to
/// the data's variance, empty clusters re-seeded from the points farthest from their centres, and
/// a final assignment so that labels match the returned centroids. Given the same initial centres
/// it reaches the same labels and inertia as scikit-learn (see the tests' fixtures).
///
/// Once few rows change cluster, each iteration skips the rows whose nearest centroid provably did
/// not change (Hamerly's bound, ``Options/usesBounds``); the result is Lloyd's all the same.
///
/// Results are reproducible: the same data, options, seed and ``Options/threadCount`` give the same
/// labels and centroids bit for bit. (Between thread counts the centroids can differ in the last
/// bits, because partial sums are merged per chunk of rows; see the Reproducibility article.)
public struct KMeans: Sendable {
    /// The centroids, one per row, in the units of the data.
    public var centroids: Matrix
    /// The centroid index of each data row.
    public var labels: [Int32]
    /// The squared Euclidean distance from each row to its centroid.
    public var squaredDistances: [Float]
    /// The sum of squared distances to the centroids (within-cluster sum of squares).
    public var inertia: Double
    /// The number of Lloyd iterations run by the kept restart.
    public var iterationCount: Int
    /// Whether the kept restart stopped before ``Options/maxIterations``.
    public var hasConverged: Bool
    /// How long seeding and the Lloyd iterations of all restarts took.
    public var timings: Timings

    /// The number of clusters.
    public var clusterCount: Int { centroids.rowCount }

    /// The number of rows assigned to each cluster.
    public var clusterSizes: [Int] {
        var sizes = [Int](repeating: 0, count: clusterCount)
        for label in labels { sizes[Int(label)] += 1 }
        return sizes
    }

    /// Wall-clock durations of the phases of a fit.
    public struct Timings: Hashable, Sendable, Codable {
        /// Choosing the initial centres, all restarts together.
        public var seeding: Duration = .zero
        /// Lloyd iterations (or mini-batch steps), all restarts together.
        public var iterations: Duration = .zero
        /// The number of iterations timed in ``iterations``.
        public var iterationCount = 0
        /// The final assignment and distances.
        public var finalAssignment: Duration = .zero
        /// The rows whose distances to every centroid were computed during the iterations (or
        /// mini-batch steps), all together; with ``Options/usesBounds``, far fewer than the rows
        /// times the iterations.
        public var scannedRowCount = 0
    }
}

// MARK: - Options

extension KMeans {
    /// How a k-means fit runs.
    public struct Options: Hashable, Sendable {
        /// The most Lloyd iterations per restart; 300 by default.
        public var maxIterations = 300
        /// The convergence tolerance on the squared shift of all centres, relative to the mean
        /// variance of the columns (scikit-learn's `tol`); 1e-4 by default, 0 to stop only when the
        /// labels stop changing.
        public var tolerance = 1e-4
        /// The number of restarts with different seeds; the fit with the lowest inertia is kept.
        public var restartCount = 1
        /// The number of threads that process chunks of rows in parallel; 2 by default (this
        /// machine's cores).
        public var threadCount = Parallelism.defaultThreadCount
        /// The most rows k-means++ looks at: larger inputs are seeded on a seeded random sample of
        /// this size, because greedy k-means++ over every row costs more than the iterations
        /// (3 s at a million rows and k = 64).
        public var seedingSampleSize = 100_000
        /// The distance kernel; the fused SIMD kernel by default.
        ///
        /// Measured with `Benchmarks/compare/compare_kmeans.py --blas` on the 2-vCPU EPYC VM (AVX2
        /// and FMA, no AVX-512 exposed), N = 1M, d = 12, 2 threads, ms per iteration of the whole
        /// fit, medians of 3 at load average 1:
        /// fused vs `cblas_sgemm` on 256-row blocks, portable build: k = 8: 13.3 vs 18.9;
        /// k = 16: 20.2 vs 26.2; k = 64: 54.7 vs 73.4. The fused kernel built for x86-64-v3
        /// (`make build`): 9.1, 14.0 and 31.6. The BLAS kernel is the same in both builds (OpenBLAS
        /// picks its own).
        public var kernel = DistanceKernel.fused
        /// Whether Lloyd's iterations skip the rows whose nearest centroid provably did not
        /// change (Hamerly's bound, one `Float` per row); true by default. Only the fused kernel
        /// uses it.
        ///
        /// Each pass lowers every row's bound on the gap between its nearest and second-nearest
        /// centroid by how far the centroids moved, recomputes only the rows whose gap is no
        /// longer provably positive, and updates the centroid sums by the rows that changed
        /// cluster. The bound allows for rounding, so a skipped row's label is still its exact
        /// nearest centroid: the result is Lloyd's, not an approximation. The passes go over every
        /// row until fewer than 3 % of the rows change cluster. Measured on the
        /// 2-vCPU EPYC VM, N = 1M, d = 12, k = 16, 2 threads, x86-64-v3 build: 20 iterations from
        /// random centres, 8.13 ms per iteration against 9.47 ms in full passes; k-means++ seeding
        /// and tolerance 10⁻⁴, as `cluster` runs it, 4.24–4.80 ms against 7.88–8.72 ms (the
        /// grid of `Benchmarks/results/kmeans-grid.txt`). Set it to false for a full
        /// pass over every row each iteration.
        public var usesBounds = true
        /// The share of rows changing cluster in a full pass below which, with ``usesBounds``,
        /// the passes become bounded; above 1, they are bounded from the first pass (as the tests
        /// of the bound want).
        ///
        /// A bounded pass costs more per row it computes than a full pass (its rows are
        /// scattered, and it computes their margins), about 1.5–2× with the rows prefetched, plus
        /// a scan of every row's bound; and it computes about half the rows while more than a few
        /// percent change cluster: at N = 1M, d = 12, k = 16 from random centres, 28 %, 15 %,
        /// 11 %, 8 %, 5 %, 4 %, 3 % and 2 % of the rows change in the first 8 iterations, and
        /// half the rows or more fail their bound in those iterations (computed in `Double` with
        /// numpy on the benchmark's data). Measured on that data (20 iterations, 2 threads, 5 runs
        /// each), the median ms per iteration switching at 3 %, 6 % and
        /// 12 % and bounded from the first pass: 7.78, 8.21, 7.79 and 8.30.
        var boundSwitchShare = 0.03

        public init() {}
    }
}
