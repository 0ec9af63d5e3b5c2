import Features
import Foundation

extension KMeans {
    /// How a mini-batch k-means fit runs.
    public struct MiniBatchOptions: Hashable, Sendable {
        /// The rows drawn (with replacement) per step; 4,096 by default.
        public var batchSize = 4096
        /// The most steps; 300 by default.
        public var maxSteps = 300
        /// Stop after this many steps without a better smoothed batch inertia (scikit-learn's
        /// `max_no_improvement`); 10 by default.
        public var maxStepsWithoutImprovement = 10
        /// The threads of the final full assignment.
        public var threadCount = Parallelism.defaultThreadCount
        /// The most rows k-means++ seeds on.
        public var seedingSampleSize = 100_000

        public init() {}
    }

    /// Clusters the rows of `data` with mini-batch k-means (Sculley 2010), for data too large to
    /// scan whole at every iteration.
    ///
    /// Each step draws `batchSize` random rows, assigns them to the nearest centres and moves
    /// every centre to the running mean of all rows ever assigned to it (a per-centre learning
    /// rate of 1 / count). Steps stop when the smoothed batch inertia stops improving. A final pass
    /// over all rows assigns labels and measures the inertia. The quality is a little below
    /// Lloyd's for a fraction of the passes over the data; see `Benchmarks/results/`.
    ///
    /// - Parameters:
    ///   - data: One point per row; every value finite.
    ///   - clusterCount: The number of clusters.
    ///   - options: Batch size, steps and threads.
    ///   - generator: The source of the seeding and the batches.
    /// - Throws: ``AnalyticsError`` when there are fewer rows than clusters or a value is not finite.
    /// - Complexity: O(*s* · *b* · *k* · *d* + *n* · *k* · *d*) for *s* steps of *b* rows.
    public static func fitMiniBatch(
        _ data: Matrix,
        clusterCount: Int,
        options: MiniBatchOptions = MiniBatchOptions(),
        using generator: inout some RandomNumberGenerator
    ) async throws -> KMeans {
        var lloydOptions = Options()
        lloydOptions.threadCount = options.threadCount
        try validate(data, clusterCount: clusterCount, options: lloydOptions)
        guard options.batchSize >= 1, options.maxSteps >= 1 else {
            throw AnalyticsError.invalidParameter(
                name: "The batch size and step count",
                value: "\(options.batchSize), \(options.maxSteps)",
                expected: "at least 1"
            )
        }
        let clock = ContinuousClock()
        var rng = SplitMix64(seed: generator.next())
        var timings = Timings()
        var start = clock.now
        var centroids = seedCentroids(
            data,
            clusterCount: clusterCount,
            sampleSize: options.seedingSampleSize,
            threadCount: options.threadCount,
            using: &rng
        )
        timings.seeding = clock.now - start

        start = clock.now
        let n = data.rowCount
        let d = data.columnCount
        let k = clusterCount
        let batchSize = Swift.min(options.batchSize, n)
        var counts = [Double](repeating: 0, count: k)
        var smoothed: Double?
        var best = Double.infinity
        var stepsWithoutImprovement = 0
        var step = 0
        var hasConverged = false
        let smoothing = Swift.min(1, Double(batchSize) * 2 / Double(n + 1))
        var batch = [Float](repeating: 0, count: batchSize * d)
        var batchLabels = [Int32](repeating: -1, count: batchSize)
        while step < options.maxSteps {
            step += 1
            for r in 0..<batchSize {
                let row = rng.next(below: n)
                for j in 0..<d { batch[r * d + j] = data.elements[row * d + j] }
            }
            let batchMatrix = Matrix(rowCount: batchSize, columnCount: d, elements: batch)
            let assignment = Kernels.assign(
                batchMatrix,
                to: Kernels.PreparedCentroids(centroids),
                labels: &batchLabels,
                accumulation: .sums,
                kernel: .fused,
                threadCount: 1
            )
            let distances = Kernels.squaredDistances(
                batchMatrix,
                labels: batchLabels,
                centroids: centroids,
                threadCount: 1
            )
            let batchInertia = distances.reduce(into: 0.0) { $0 += Double($1) } / Double(batchSize)
            for c in 0..<k where assignment.counts[c] > 0 {
                let total = counts[c] + Double(assignment.counts[c])
                for j in 0..<d {
                    let old = Double(centroids.elements[c * d + j])
                    centroids.elements[c * d + j] = Float((old * counts[c] + assignment.sums[c * d + j]) / total)
                }
                counts[c] = total
            }
            smoothed = smoothed.map { $0 * (1 - smoothing) + batchInertia * smoothing } ?? batchInertia
            if smoothed! < best {
                best = smoothed!
                stepsWithoutImprovement = 0
            } else {
                stepsWithoutImprovement += 1
                if stepsWithoutImprovement >= options.maxStepsWithoutImprovement {
                    hasConverged = true
                    break
                }
            }
        }
        timings.iterations = clock.now - start
        timings.iterationCount = step

        start = clock.now
        let labels = nearestCentroids(of: data, centroids: centroids, options: lloydOptions)
        let distances = Kernels.squaredDistances(
            data,
            labels: labels,
            centroids: centroids,
            threadCount: options.threadCount
        )
        timings.finalAssignment = clock.now - start
        timings.scannedRowCount = step * batchSize
        return KMeans(
            centroids: centroids,
            labels: labels,
            squaredDistances: distances,
            inertia: distances.reduce(into: 0.0) { $0 += Double($1) },
            iterationCount: step,
            hasConverged: hasConverged,
            timings: timings
        )
    }
}
