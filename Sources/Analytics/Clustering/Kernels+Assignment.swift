import CBLAS
import Features

extension Kernels {
    // MARK: - Assignment pass

    /// Assigns every row of `data` to its nearest centroid, overwriting `labels` in place, and sums
    /// the rows per centroid as `accumulation` says.
    ///
    /// The rows are split into contiguous chunks (``passChunks(rows:threadCount:)``) run on
    /// `threadCount` threads; each chunk's sums are gathered in `Float` over runs of
    /// ``runLength`` rows and then added into `Double`, and the chunks are merged in order, so the
    /// result depends on the thread count but not on scheduling. The labels do not depend on the
    /// thread count at all. Ties go to the lowest centroid index. A label that was not a valid
    /// centroid index before (such as −1) counts as changed.
    static func assign(
        _ data: Matrix,
        to prepared: PreparedCentroids,
        labels: inout [Int32],
        accumulation: Accumulation,
        kernel: DistanceKernel,
        threadCount: Int
    ) -> Assignment {
        precondition(labels.count == data.rowCount, "One label per row is needed.")
        let n = data.rowCount
        let d = data.columnCount
        let k = prepared.centroids.rowCount
        let blocks = passChunks(rows: n, threadCount: threadCount)
        if kernel == .blas { useSingleThreadedBLAS() }
        let parts = data.elements.withUnsafeBufferPointer { x in
            labels.withUnsafeMutableBufferPointer { labels in
                parallelChunks(blocks, threadCount: threadCount) { rows in
                    assignBlock(
                        x,
                        rows: rows,
                        d: d,
                        k: k,
                        prepared,
                        labels: labels,
                        accumulation: accumulation,
                        kernel: kernel
                    )
                }
            }
        }
        var merged = Assignment(
            sums: [Double](repeating: 0, count: accumulation == .none ? 0 : k * d),
            counts: [Int](repeating: 0, count: k),
            changedCount: 0
        )
        for part in parts {
            for index in merged.sums.indices { merged.sums[index] += part.sums[index] }
            for index in merged.counts.indices { merged.counts[index] += part.counts[index] }
            merged.changedCount += part.changedCount
        }
        return merged
    }

    /// One block of ``assign(_:to:labels:accumulation:kernel:threadCount:)``.
    private static func assignBlock(
        _ x: UnsafeBufferPointer<Float>,
        rows: Range<Int>,
        d: Int,
        k: Int,
        _ prepared: PreparedCentroids,
        labels: UnsafeMutableBufferPointer<Int32>,
        accumulation: Accumulation,
        kernel: DistanceKernel
    ) -> Assignment {
        var sums = [Double](repeating: 0, count: accumulation == .none ? 0 : k * d)
        // Per run: rows joining a centroid, even rows into the first partial sums and odd rows
        // into the second (so that consecutive rows of one cluster do not wait on each other's
        // stores), then rows leaving a centroid (``Accumulation/changes``).
        var runSums = [Float](repeating: 0, count: 3 * k * d)
        var counts = [Int](repeating: 0, count: k)
        var runLabels = [Int32](repeating: 0, count: runLength)
        var scratch = FusedScratch(d: d)
        var changed = 0
        runSums.withUnsafeMutableBufferPointer { runSums in
            counts.withUnsafeMutableBufferPointer { counts in
                runLabels.withUnsafeMutableBufferPointer { runLabels in
                    forEachRun(of: rows) { run in
                        switch kernel {
                        case .fused: assignFused(x, rows: run, d: d, prepared, scratch: &scratch, into: runLabels)
                        case .blas: assignBLAS(x, rows: run, d: d, prepared, into: runLabels)
                        }
                        let runLabels = UnsafeBufferPointer(rebasing: runLabels[0..<run.count])
                        if accumulation != .none {
                            let changes = accumulation == .changes
                            switch d {
                            case 10:
                                changed &+= accumulateRun(
                                    x,
                                    run: run,
                                    d: 10,
                                    as: TenFeatures.self,
                                    runLabels,
                                    labels,
                                    counts,
                                    runSums,
                                    changes: changes
                                )
                            case 12:
                                changed &+= accumulateRun(
                                    x,
                                    run: run,
                                    d: 12,
                                    as: TwelveFeatures.self,
                                    runLabels,
                                    labels,
                                    counts,
                                    runSums,
                                    changes: changes
                                )
                            default:
                                changed &+= accumulateRun(
                                    x,
                                    run: run,
                                    d: d,
                                    as: AnyFeatureCount.self,
                                    runLabels,
                                    labels,
                                    counts,
                                    runSums,
                                    changes: changes
                                )
                            }
                            addRunSums(runSums, into: &sums)
                        } else {
                            for i in run {
                                let label = runLabels[i &- run.lowerBound]
                                if labels[i] != label { changed &+= 1 }
                                labels[i] = label
                                counts[Int(label)] &+= 1
                            }
                        }
                    }
                }
            }
        }
        return Assignment(sums: sums, counts: counts, changedCount: changed)
    }

    // MARK: - Fused kernel

    /// The fused kernel's working memory, allocated once per block of rows.
    struct FusedScratch {
        /// The transposed tile of 8 rows, one vector per column.
        var tile: [SIMD8<Float>]
        /// The last rows of a block when fewer than 8 are left, zero-padded.
        var padded: [Float]

        init(d: Int) {
            // Two tiles, for ``Kernels/scoreSixteenRows(_:_:d:k:centroids:halfNorms:)``.
            tile = [SIMD8<Float>](repeating: .zero, count: 2 * d)
            padded = [Float](repeating: 0, count: Kernels.rowsPerBlock * d)
        }
    }

    /// The fused kernel over a contiguous range of rows: 8 rows at a time in the 8 lanes of a
    /// register (``scoreEightRows(_:d:k:centroids:halfNorms:as:)``), or 16 in two registers
    /// (``scoreSixteenRows(_:_:d:k:centroids:halfNorms:)``).
    ///
    /// The rows are transposed on the fly into a 8 × d tile that stays in L1; the centroids come
    /// pre-splatted (``PreparedCentroids/splatted``). Rows past the last multiple of 8 go through a
    /// zero-padded tile.
    private static func assignFused(
        _ x: UnsafeBufferPointer<Float>,
        rows: Range<Int>,
        d: Int,
        _ prepared: PreparedCentroids,
        scratch: inout FusedScratch,
        into labels: UnsafeMutableBufferPointer<Int32>
    ) {
        let k = prepared.centroids.rowCount
        prepared.splatted.withUnsafeBufferPointer { splatted in
            prepared.halfNorms.withUnsafeBufferPointer { halfNorms in
                scratch.tile.withUnsafeMutableBufferPointer { tile in
                    scratch.padded.withUnsafeMutableBufferPointer { padded in
                        let columns = tile.baseAddress!
                        var i = rows.lowerBound
                        while takesSixteenRows && i &+ 2 &* rowsPerBlock <= rows.upperBound {
                            let base = x.baseAddress! + i &* d
                            transposeEightRows(d: d, into: columns) { base + $0 &* d }
                            transposeEightRows(d: d, into: columns + d) { base + (rowsPerBlock &+ $0) &* d }
                            // Inlined with d a constant for the common widths, the loop over
                            // features unrolls.
                            let scores =
                                switch d {
                                case 12:
                                    scoreSixteenRows(
                                        columns,
                                        columns + 12,
                                        d: 12,
                                        k: k,
                                        centroids: splatted.baseAddress!,
                                        halfNorms: halfNorms
                                    )
                                case 10:
                                    scoreSixteenRows(
                                        columns,
                                        columns + 10,
                                        d: 10,
                                        k: k,
                                        centroids: splatted.baseAddress!,
                                        halfNorms: halfNorms
                                    )
                                default:
                                    scoreSixteenRows(
                                        columns,
                                        columns + d,
                                        d: d,
                                        k: k,
                                        centroids: splatted.baseAddress!,
                                        halfNorms: halfNorms
                                    )
                                }
                            let target = UnsafeMutableRawPointer(labels.baseAddress! + (i &- rows.lowerBound))
                            target.storeBytes(of: scores.low.index, as: SIMD8<Int32>.self)
                            target.storeBytes(of: scores.high.index, toByteOffset: 32, as: SIMD8<Int32>.self)
                            i &+= 2 &* rowsPerBlock
                        }
                        while i < rows.upperBound {
                            let count = Swift.min(rowsPerBlock, rows.upperBound &- i)
                            if count == rowsPerBlock {
                                let base = x.baseAddress! + i &* d
                                transposeEightRows(d: d, into: columns) { base + $0 &* d }
                            } else {
                                for index in 0..<(count &* d) { padded[index] = x[i &* d &+ index] }
                                let base = UnsafePointer(padded.baseAddress!)
                                transposeEightRows(d: d, into: columns) { base + $0 &* d }
                            }
                            // Inlined with d = 12 a constant, the loop over features unrolls.
                            let scores =
                                d == 12
                                ? scoreEightRows(
                                    columns,
                                    d: 12,
                                    k: k,
                                    centroids: splatted.baseAddress!,
                                    halfNorms: halfNorms,
                                    as: Nearest.self
                                )
                                : scoreEightRows(
                                    columns,
                                    d: d,
                                    k: k,
                                    centroids: splatted.baseAddress!,
                                    halfNorms: halfNorms,
                                    as: Nearest.self
                                )
                            let offset = i &- rows.lowerBound
                            if count == rowsPerBlock {
                                UnsafeMutableRawPointer(labels.baseAddress! + offset)
                                    .storeBytes(of: scores.index, as: SIMD8<Int32>.self)
                            } else {
                                for lane in 0..<count { labels[offset &+ lane] = scores.index[lane] }
                            }
                            i &+= count
                        }
                    }
                }
            }
        }
    }

    // MARK: - BLAS kernel

    /// The BLAS kernel: `−X·Cᵀ` for up to 256 rows with one single-threaded `cblas_sgemm`, then a
    /// scalar argmin of ‖c‖²/2 − x·c.
    private static func assignBLAS(
        _ x: UnsafeBufferPointer<Float>,
        rows: Range<Int>,
        d: Int,
        _ prepared: PreparedCentroids,
        into labels: UnsafeMutableBufferPointer<Int32>
    ) {
        let k = prepared.centroids.rowCount
        let blockRows = 256
        var products = [Float](repeating: 0, count: blockRows * k)
        products.withUnsafeMutableBufferPointer { products in
            prepared.centroids.elements.withUnsafeBufferPointer { c in
                prepared.halfNorms.withUnsafeBufferPointer { halfNorms in
                    var start = rows.lowerBound
                    while start < rows.upperBound {
                        let m = Swift.min(blockRows, rows.upperBound - start)
                        cblas_sgemm(
                            CblasRowMajor,
                            CblasNoTrans,
                            CblasTrans,
                            Int32(m),
                            Int32(k),
                            Int32(d),
                            -1,
                            x.baseAddress! + start * d,
                            Int32(d),
                            c.baseAddress,
                            Int32(d),
                            0,
                            products.baseAddress,
                            Int32(k)
                        )
                        for r in 0..<m {
                            let scores = products.baseAddress! + r * k
                            var best = Float.infinity
                            var bestIndex: Int32 = 0
                            for c in 0..<k {
                                let score = halfNorms[c] + scores[c]
                                if score < best {
                                    best = score
                                    bestIndex = Int32(c)
                                }
                            }
                            labels[start + r - rows.lowerBound] = bestIndex
                        }
                        start += m
                    }
                }
            }
        }
    }

    /// Makes OpenBLAS run single-threaded, so that calls made from our own row-block tasks do not
    /// spawn threads of their own (which is slower at k-means shapes; see PERF-NOTES).
    static func useSingleThreadedBLAS() {
        openblas_set_num_threads(1)
    }
}
