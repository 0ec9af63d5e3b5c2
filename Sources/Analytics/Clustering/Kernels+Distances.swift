import Features

extension Kernels {
    // MARK: - Squared distances to the assigned centroids

    /// The exact squared distance ‖x − c‖² of every row of `data` to the centroid given by its
    /// label, computed by differences, not by the expanded form, in `threadCount` parallel blocks.
    static func squaredDistances(_ data: Matrix, labels: [Int32], centroids: Matrix, threadCount: Int) -> [Float] {
        var result = [Float](repeating: 0, count: data.rowCount)
        squaredDistances(data, labels: labels, centroids: centroids, threadCount: threadCount, into: &result)
        return result
    }

    /// ``squaredDistances(_:labels:centroids:threadCount:)`` written into a buffer of one float
    /// per row, so that a fit can reuse one it no longer needs; returns their sum (the inertia),
    /// added in `Double` over fixed chunks of ``columnSumChunk`` rows merged in order, so that it
    /// does not depend on the thread count.
    @discardableResult
    static func squaredDistances(
        _ data: Matrix,
        labels: [Int32],
        centroids: Matrix,
        threadCount: Int,
        into result: inout [Float]
    ) -> Double {
        precondition(result.count == data.rowCount, "One distance per row is needed.")
        let d = data.columnCount
        let chunks = fixedChunks(count: data.rowCount, size: columnSumChunk)
        let totals = data.elements.withUnsafeBufferPointer { x in
            centroids.elements.withUnsafeBufferPointer { c in
                labels.withUnsafeBufferPointer { labels in
                    result.withUnsafeMutableBufferPointer { result in
                        parallelChunks(chunks, threadCount: threadCount) { rows in
                            squaredDistances(x, centroids: c, labels: labels, rows: rows, d: d, into: result)
                        }
                    }
                }
            }
        }
        return totals.reduce(0, +)
    }

    /// ‖xᵢ − c_{labels[i]}‖² for the given rows into `result`, and their sum in `Double` in row
    /// order.
    private static func squaredDistances(
        _ x: UnsafeBufferPointer<Float>,
        centroids c: UnsafeBufferPointer<Float>,
        labels: UnsafeBufferPointer<Int32>,
        rows: Range<Int>,
        d: Int,
        into result: UnsafeMutableBufferPointer<Float>
    ) -> Double {
        var tiles = [SIMD8<Float>](repeating: .zero, count: 2 * d)
        tiles.withUnsafeMutableBufferPointer { tiles in
            writeSquaredDistances(
                x.baseAddress!,
                centroids: c.baseAddress!,
                labels: labels.baseAddress!,
                rows: rows,
                d: d,
                tiles: tiles.baseAddress!,
                into: result.baseAddress!
            )
        }
        return sumInRowOrder(UnsafeBufferPointer(rebasing: result[rows]))
    }

    /// ‖xᵢ − c_{labels[i]}‖² for the given rows into `result[i]`, with `tiles` (2·d vectors) as
    /// working memory.
    ///
    /// Rows go 8 at a time in the lanes of a register, their centroids transposed beside them, so
    /// that each lane sums over features in order exactly as a scalar loop would (the same
    /// results, bit for bit), but without waiting on one add after another.
    static func writeSquaredDistances(
        _ x: UnsafePointer<Float>,
        centroids c: UnsafePointer<Float>,
        labels: UnsafePointer<Int32>,
        rows: Range<Int>,
        d: Int,
        tiles: UnsafeMutablePointer<SIMD8<Float>>,
        into result: UnsafeMutablePointer<Float>
    ) {
        let rowColumns = tiles
        let centroidColumns = tiles + d
        var i = rows.lowerBound
        while i &+ rowsPerBlock <= rows.upperBound {
            let base = x + i &* d
            let first = i
            transposeEightRows(d: d, into: rowColumns) { base + $0 &* d }
            transposeEightRows(d: d, into: centroidColumns) { c + Int(labels[first &+ $0]) &* d }
            var sum = SIMD8<Float>.zero
            for j in 0..<d {
                let difference = rowColumns[j] - centroidColumns[j]
                sum += difference * difference
            }
            UnsafeMutableRawPointer(result + i).storeBytes(of: sum, as: SIMD8<Float>.self)
            i &+= rowsPerBlock
        }
        while i < rows.upperBound {
            let row = x + i &* d
            let centroid = c + Int(labels[i]) &* d
            var sum: Float = 0
            for j in 0..<d {
                let difference = row[j] - centroid[j]
                sum += difference * difference
            }
            result[i] = sum
            i &+= 1
        }
    }

    /// The sum of `values` in `Double`, one after another in order.
    static func sumInRowOrder(_ values: UnsafeBufferPointer<Float>) -> Double {
        var total = 0.0
        for value in values { total += Double(value) }
        return total
    }

    // MARK: - Inertia

    /// The inertia of squared distances written by a pass: their sum in `Double`, in row order
    /// within fixed chunks of ``columnSumChunk`` rows added in order, as
    /// ``squaredDistances(_:labels:centroids:threadCount:into:)`` returns it.
    static func inertia(of distances: [Float], threadCount: Int) -> Double {
        let totals = distances.withUnsafeBufferPointer { distances in
            parallelChunks(fixedChunks(count: distances.count, size: columnSumChunk), threadCount: threadCount) {
                sumInRowOrder(UnsafeBufferPointer(rebasing: distances[$0]))
            }
        }
        return totals.reduce(0, +)
    }

    // MARK: - Finite check

    /// Whether every element of `data` is finite, in one vectorized pass on `threadCount`
    /// threads: `v − v` is 0 for a finite `v` and NaN otherwise, and a NaN stays in a sum.
    static func isFinite(_ data: Matrix, threadCount: Int) -> Bool {
        let chunks = fixedChunks(count: data.elements.count, size: 16 * columnSumChunk)
        let flags = data.elements.withUnsafeBufferPointer { x in
            parallelChunks(chunks, threadCount: threadCount) { range in
                var accumulated = SIMD16<Float>.zero
                var i = range.lowerBound
                while i &+ 16 <= range.upperBound {
                    let v = UnsafeRawPointer(x.baseAddress! + i).loadUnaligned(as: SIMD16<Float>.self)
                    accumulated += v - v
                    i &+= 16
                }
                var isFinite = accumulated.sum() == 0
                while i < range.upperBound {
                    isFinite = isFinite && x[i].isFinite
                    i &+= 1
                }
                return isFinite
            }
        }
        return flags.allSatisfy { $0 }
    }

    // MARK: - Column sums

    /// The rows summed per chunk by ``columnSums(_:)``: a fixed number, so that the sums do not
    /// depend on the number of threads.
    static let columnSumChunk = 65_536

    /// The sum and the sum of squares of every column, in `Double`, over fixed chunks of rows run
    /// on `threadCount` threads and merged in order.
    static func columnSums(_ data: Matrix, threadCount: Int) -> (sums: [Double], squares: [Double]) {
        let d = data.columnCount
        let parts = data.elements.withUnsafeBufferPointer { x in
            parallelChunks(fixedChunks(count: data.rowCount, size: columnSumChunk), threadCount: threadCount) { rows in
                var sums = [Double](repeating: 0, count: d)
                var squares = [Double](repeating: 0, count: d)
                for i in rows {
                    let row = x.baseAddress! + i &* d
                    for j in 0..<d {
                        let value = Double(row[j])
                        sums[j] += value
                        squares[j] += value * value
                    }
                }
                return (sums: sums, squares: squares)
            }
        }
        var sums = [Double](repeating: 0, count: d)
        var squares = [Double](repeating: 0, count: d)
        for part in parts {
            for j in 0..<d {
                sums[j] += part.sums[j]
                squares[j] += part.squares[j]
            }
        }
        return (sums, squares)
    }

    // MARK: - Seeding distances

    /// For every row of `data`, `min(current[i], ‖xᵢ − p‖²)`, and the sum of those minima.
    ///
    /// The minima are summed in `Float` over runs of ``seedingRun`` rows, each run's sum added
    /// into `Double` in row order; the runs are shared out over `threadCount` threads in chunks of
    /// whole runs, so the sum does not depend on the thread count.
    static func minimumSquaredDistances(
        _ data: Matrix,
        to point: ArraySlice<Float>,
        current: [Float]?,
        threadCount: Int = 1
    ) -> (distances: [Float], total: Double) {
        let d = data.columnCount
        let n = data.rowCount
        let point = Array(point)
        let runCount = (n + seedingRun - 1) / seedingRun
        // Whole runs per chunk; one more thread for every 8 runs (8,192 rows).
        let chunks = passChunks(rows: runCount, threadCount: Swift.min(threadCount, runCount / 8 + 1))
        var runSums: [[Float]] = []
        let result = [Float](unsafeUninitializedCapacity: n) { result, initializedCount in
            data.elements.withUnsafeBufferPointer { x in
                point.withUnsafeBufferPointer { p in
                    runSums = parallelChunks(chunks, threadCount: threadCount) { runs in
                        runs.map { run in
                            minimumSquaredDistances(
                                x,
                                to: p,
                                current: current,
                                rows: (run * seedingRun)..<Swift.min(n, (run + 1) * seedingRun),
                                d: d,
                                into: result
                            )
                        }
                    }
                }
            }
            initializedCount = n
        }
        var total = 0.0
        for chunk in runSums {
            for run in chunk { total += Double(run) }
        }
        return (result, total)
    }

    /// The rows whose minima ``minimumSquaredDistances(_:to:current:threadCount:)`` sums in
    /// `Float` before adding them into `Double`.
    static let seedingRun = 1024

    /// One run of ``minimumSquaredDistances(_:to:current:threadCount:)``: writes the rows' minima
    /// into `result` and returns their sum in `Float`, in row order.
    private static func minimumSquaredDistances(
        _ x: UnsafeBufferPointer<Float>,
        to p: UnsafeBufferPointer<Float>,
        current: [Float]?,
        rows: Range<Int>,
        d: Int,
        into result: UnsafeMutableBufferPointer<Float>
    ) -> Float {
        var run: Float = 0
        for i in rows {
            let row = x.baseAddress! + i * d
            var sum: Float = 0
            for j in 0..<d {
                let difference = row[j] - p[j]
                sum += difference * difference
            }
            if let current, current[i] < sum { sum = current[i] }
            (result.baseAddress! + i).initialize(to: sum)
            run += sum
        }
        return run
    }
}
