import Features
import Foundation

extension KMeans {
    /// Clusters the rows of `data` into `clusterCount` clusters, seeding with greedy k-means++.
    ///
    /// - Parameters:
    ///   - data: One point per row; every value finite.
    ///   - clusterCount: The number of clusters, at least 1 and at most the number of rows.
    ///   - options: Iterations, tolerance, restarts and threads.
    ///   - generator: The source of randomness for seeding; seed it for reproducible results.
    /// - Returns: The restart with the lowest inertia.
    /// - Throws: ``AnalyticsError`` when there are fewer rows than clusters or a value is not finite.
    /// - Complexity: O(*r* · *i* · *n* · *k* · *d*) for *r* restarts of *i* iterations.
    public static func fit(
        _ data: Matrix,
        clusterCount: Int,
        options: Options = Options(),
        using generator: inout some RandomNumberGenerator
    ) async throws -> KMeans {
        try validate(data, clusterCount: clusterCount, options: options)
        let toleranceUnits = toleranceUnits(of: data, options: options)
        var best: KMeans?
        var timings = Timings()
        for _ in 0..<options.restartCount {
            var rng = SplitMix64(seed: generator.next())
            let clock = ContinuousClock()
            let start = clock.now
            let initial = seedCentroids(
                data,
                clusterCount: clusterCount,
                sampleSize: options.seedingSampleSize,
                threadCount: options.threadCount,
                using: &rng
            )
            timings.seeding += clock.now - start
            let model = await lloyd(
                data,
                initialCentroids: initial,
                toleranceUnits: toleranceUnits,
                options: options
            )
            timings.iterations += model.timings.iterations
            timings.iterationCount += model.timings.iterationCount
            timings.finalAssignment += model.timings.finalAssignment
            timings.scannedRowCount += model.timings.scannedRowCount
            if best == nil || model.inertia < best!.inertia { best = model }
        }
        best!.timings = timings
        return best!
    }

    /// Runs Lloyd's iterations from the given initial centroids, without restarts.
    ///
    /// This is scikit-learn's `KMeans(init=centroids, n_init=1, algorithm="lloyd")`.
    ///
    /// - Parameters:
    ///   - data: One point per row; every value finite.
    ///   - initialCentroids: The starting centres, with as many columns as `data`.
    ///   - options: Iterations, tolerance and threads; `restartCount` is ignored.
    /// - Throws: ``AnalyticsError`` when shapes disagree, there are fewer rows than centres or a
    ///   value is not finite.
    public static func fit(
        _ data: Matrix,
        initialCentroids: Matrix,
        options: Options = Options()
    ) async throws -> KMeans {
        guard initialCentroids.columnCount == data.columnCount else {
            throw AnalyticsError.dimensionMismatch(expected: data.columnCount, actual: initialCentroids.columnCount)
        }
        try validate(data, clusterCount: initialCentroids.rowCount, options: options)
        return await lloyd(
            data,
            initialCentroids: initialCentroids,
            toleranceUnits: toleranceUnits(of: data, options: options),
            options: options
        )
    }

    /// Checks the shapes, options and values of a fit.
    static func validate(_ data: Matrix, clusterCount: Int, options: Options) throws {
        guard clusterCount >= 1 else {
            throw AnalyticsError.invalidParameter(
                name: "The number of clusters",
                value: "\(clusterCount)",
                expected: "at least 1"
            )
        }
        guard data.rowCount >= clusterCount else {
            throw AnalyticsError.tooFewSamples(
                required: clusterCount,
                available: data.rowCount,
                what: "k-means with \(clusterCount) clusters"
            )
        }
        guard data.columnCount >= 1 else {
            throw AnalyticsError.invalidParameter(name: "The number of features", value: "0", expected: "at least 1")
        }
        guard options.maxIterations >= 1 else {
            throw AnalyticsError.invalidParameter(
                name: "The maximum number of iterations",
                value: "\(options.maxIterations)",
                expected: "at least 1"
            )
        }
        guard options.restartCount >= 1 else {
            throw AnalyticsError.invalidParameter(
                name: "The number of restarts",
                value: "\(options.restartCount)",
                expected: "at least 1"
            )
        }
        guard options.threadCount >= 1 else {
            throw AnalyticsError.invalidParameter(
                name: "The number of threads",
                value: "\(options.threadCount)",
                expected: "at least 1"
            )
        }
        guard options.tolerance >= 0, options.tolerance.isFinite else {
            throw AnalyticsError.invalidParameter(
                name: "The tolerance",
                value: "\(options.tolerance)",
                expected: "a finite number ≥ 0"
            )
        }
        // A vectorized pass first; the value is searched for only when there is one.
        if !Kernels.isFinite(data, threadCount: options.threadCount),
            let index = data.elements.firstIndex(where: { !$0.isFinite })
        {
            throw AnalyticsError.nonFiniteValue(row: index / data.columnCount, column: index % data.columnCount)
        }
    }

    /// ``Options/tolerance`` in the units of `data`: times the mean column variance, which is not
    /// computed when the tolerance is 0.
    static func toleranceUnits(of data: Matrix, options: Options) -> Double {
        guard options.tolerance > 0 else { return 0 }
        let (sums, squares) = Kernels.columnSums(data, threadCount: options.threadCount)
        return options.tolerance * meanVariance(sums: sums, squares: squares, rowCount: data.rowCount)
    }
}

// MARK: - Lloyd's iterations

extension KMeans {
    /// The mean over columns of the column variances, from the columns' sums and sums of squares.
    static func meanVariance(sums: [Double], squares: [Double], rowCount n: Int) -> Double {
        guard n > 0, !sums.isEmpty else { return 0 }
        var total = 0.0
        for j in sums.indices {
            let mean = sums[j] / Double(n)
            total += Swift.max(0, squares[j] / Double(n) - mean * mean)
        }
        return total / Double(sums.count)
    }

    /// Splits `0 ..< count` into `parts` contiguous ranges of nearly equal length.
    static func blocks(of count: Int, parts: Int) -> [Range<Int>] {
        let parts = Swift.max(1, Swift.min(parts, count))
        return (0..<parts).map { part in (count * part / parts)..<(count * (part + 1) / parts) }
    }

    /// One assignment pass over all rows, in parallel row chunks, merged in chunk order; the
    /// labels are overwritten in place.
    static func assignAll(
        _ data: Matrix,
        to centroids: Matrix,
        labels: inout [Int32],
        accumulation: Kernels.Accumulation,
        options: Options
    ) -> Kernels.Assignment {
        Kernels.assign(
            data,
            to: Kernels.PreparedCentroids(centroids),
            labels: &labels,
            accumulation: accumulation,
            kernel: options.kernel,
            threadCount: options.threadCount
        )
    }

    /// The labels of all rows by nearest centroid.
    static func nearestCentroids(of data: Matrix, centroids: Matrix, options: Options) -> [Int32] {
        var labels = [Int32](repeating: -1, count: data.rowCount)
        _ = assignAll(data, to: centroids, labels: &labels, accumulation: .none, options: options)
        return labels
    }

    /// Lloyd's algorithm from `initialCentroids`, as scikit-learn's `_kmeans_single_lloyd`.
    ///
    /// With the fused kernel, the centroid sums are kept from pass to pass and updated by the
    /// rows that changed cluster (``Kernels/Accumulation/changes``) instead of being summed again;
    /// the BLAS kernel sums every row each pass, as scikit-learn does. With ``Options/usesBounds``
    /// (and the fused kernel), the passes go over every row while many rows change cluster; once
    /// fewer than ``Options/boundSwitchShare`` of them do, each pass skips the rows whose bound
    /// proves that their nearest centroid did not change
    /// (``Kernels/assignBounded(_:to:levels:rounding:labels:margins:writesDistances:threadCount:)``). Both kinds
    /// of pass give every row its exact nearest centroid, so the switch does not change the
    /// result.
    static func lloyd(
        _ data: Matrix,
        initialCentroids: Matrix,
        toleranceUnits: Double,
        options: Options
    ) async -> KMeans {
        let clock = ContinuousClock()
        let k = initialCentroids.rowCount
        let d = data.columnCount
        let usesBounds = options.usesBounds && options.kernel == .fused
        // The fused kernel's full passes sum only the rows that changed cluster, into sums kept
        // from pass to pass; the BLAS kernel sums every row each pass, as scikit-learn does.
        let keepsSums = options.kernel == .fused
        // Whether the passes are bounded yet; the first bounded pass computes every row, since
        // no row has a margin before it (they stay 0).
        var isBounded = usesBounds && options.boundSwitchShare > 1
        var centroids = initialCentroids
        // One label buffer for the whole fit, updated in place: −1 until the first pass.
        var labels = [Int32](repeating: -1, count: data.rowCount)
        // The rows' stored margins while bounded (``Kernels/MarginLevels``); then their squared
        // distances.
        var margins = [Float](repeating: 0, count: data.rowCount)
        var sums = [Double](repeating: 0, count: k * d)
        var counts = [Int](repeating: 0, count: k)
        var levels = Kernels.MarginLevels(clusterCount: k)
        var scannedRowCount = 0
        var iteration = 0
        var isStrictlyConverged = false
        var hasConverged = false
        /// A bounded pass over the current centroids and levels.
        func boundedPass(writesDistances: Bool = false) -> Kernels.BoundedAssignment {
            Kernels.assignBounded(
                data,
                to: Kernels.PreparedCentroids(centroids),
                levels: levels,
                rounding: Kernels.MarginRounding(d: d, centroids: centroids),
                labels: &labels,
                margins: &margins,
                writesDistances: writesDistances,
                threadCount: options.threadCount
            )
        }
        let start = clock.now
        while iteration < options.maxIterations {
            iteration += 1
            let changedCount: Int
            if isBounded {
                let step = boundedPass()
                for index in sums.indices { sums[index] += step.sumChanges[index] }
                for c in 0..<k { counts[c] += step.countChanges[c] }
                changedCount = step.changedCount
                scannedRowCount += step.recomputedCount
            } else {
                let step = assignAll(
                    data,
                    to: centroids,
                    labels: &labels,
                    accumulation: keepsSums ? .changes : .sums,
                    options: options
                )
                if keepsSums {
                    for index in sums.indices { sums[index] += step.sums[index] }
                    for c in 0..<k { counts[c] += step.counts[c] }
                } else {
                    sums = step.sums
                    counts = step.counts
                }
                changedCount = step.changedCount
                scannedRowCount += data.rowCount
            }
            // A bounded pass costs more per row it computes than a full pass, so the bound pays
            // only once most rows stay put (``Options/boundSwitchShare``).
            if usesBounds && !isBounded && iteration > 1
                && Double(changedCount) < options.boundSwitchShare * Double(data.rowCount)
            {
                isBounded = true
            }
            if counts.contains(0) {
                let moved = relocateEmptyClusters(
                    data,
                    labels: labels,
                    centroids: centroids,
                    sums: &sums,
                    counts: &counts,
                    options: options
                )
                if keepsSums {
                    // The sums now count the moved rows in their new clusters; so do the labels,
                    // which the next pass's changes are measured from, and the rows are
                    // recomputed next pass.
                    for (row, cluster) in moved {
                        labels[row] = Int32(cluster)
                        margins[row] = 0
                    }
                }
            }
            var next = Matrix(rowCount: k, columnCount: d)
            var shift = 0.0
            for c in 0..<k {
                for j in 0..<d {
                    let value = counts[c] > 0 ? Float(sums[c * d + j] / Double(counts[c])) : centroids[c, j]
                    next.elements[c * d + j] = value
                    let difference = Double(value - centroids.elements[c * d + j])
                    shift += difference * difference
                }
            }
            if isBounded { levels.add(Kernels.marginDrops(from: centroids, to: next)) }
            centroids = next
            if iteration > 1 && changedCount == 0 {
                isStrictlyConverged = true
                hasConverged = true
                break
            }
            if shift <= toleranceUnits {
                hasConverged = true
                break
            }
        }
        let iterationsEnd = clock.now
        // The final labels, and the distances in the margins' buffer, which is not needed any more.
        let inertia: Double
        if isBounded && !isStrictlyConverged {
            _ = boundedPass(writesDistances: true)
            inertia = Kernels.inertia(of: margins, threadCount: options.threadCount)
        } else {
            if !isStrictlyConverged {
                _ = assignAll(data, to: centroids, labels: &labels, accumulation: .none, options: options)
            }
            inertia = Kernels.squaredDistances(
                data,
                labels: labels,
                centroids: centroids,
                threadCount: options.threadCount,
                into: &margins
            )
        }
        var timings = Timings()
        timings.iterations = iterationsEnd - start
        timings.iterationCount = iteration
        timings.finalAssignment = clock.now - iterationsEnd
        timings.scannedRowCount = scannedRowCount
        return KMeans(
            centroids: centroids,
            labels: labels,
            squaredDistances: margins,
            inertia: inertia,
            iterationCount: iteration,
            hasConverged: hasConverged,
            timings: timings
        )
    }

    /// Gives every empty cluster one of the points farthest from their current centroid, moving
    /// that point's contribution out of its old cluster (scikit-learn's
    /// `_relocate_empty_clusters_dense`); returns the rows moved and their new clusters.
    @discardableResult
    static func relocateEmptyClusters(
        _ data: Matrix,
        labels: [Int32],
        centroids: Matrix,
        sums: inout [Double],
        counts: inout [Int],
        options: Options
    ) -> [(row: Int, cluster: Int)] {
        let d = data.columnCount
        let empty = counts.indices.filter { counts[$0] == 0 }
        let distances = Kernels.squaredDistances(
            data,
            labels: labels,
            centroids: centroids,
            threadCount: options.threadCount
        )
        // The farthest points, farthest first; ties go to the lower row.
        let farthest = distances.indices.max(count: empty.count) { a, b in
            distances[a] != distances[b] ? distances[a] < distances[b] : a > b
        }
        var moved: [(row: Int, cluster: Int)] = []
        for (cluster, row) in zip(empty, farthest) {
            let old = Int(labels[row])
            guard counts[old] > 1 else { continue }
            moved.append((row, cluster))
            for j in 0..<d {
                let value = Double(data.elements[row * d + j])
                sums[old * d + j] -= value
                sums[cluster * d + j] = value
            }
            counts[old] -= 1
            counts[cluster] = 1
        }
        return moved
    }
}

extension Collection {
    /// The `count` largest elements by `areInIncreasingOrder`, largest first.
    func max(count: Int, by areInIncreasingOrder: (Element, Element) -> Bool) -> [Element] {
        guard count > 0 else { return [] }
        var kept: [Element] = []
        for element in self {
            if kept.count < count {
                kept.append(element)
                kept.sort { areInIncreasingOrder($1, $0) }
            } else if areInIncreasingOrder(kept[kept.count - 1], element) {
                kept[kept.count - 1] = element
                kept.sort { areInIncreasingOrder($1, $0) }
            }
        }
        return kept
    }
}
