import CBLAS
import Dispatch
import Features
import Synchronization

#if arch(x86_64)
import _Builtin_intrinsics.intel
#endif

// This is the k-means file of `Analytics` that imports CBLAS and touches element pointers (PCA's
// LAPACK calls are in `PCA+LAPACK.swift`, cosine search's in `CosineIndex+BLAS.swift`). Pointers
// never escape the closures that lend them: the parallel row chunks run inside those closures
// (``Kernels/forEachChunk(count:threadCount:_:)``), each writing only its own rows; every kernel
// takes and returns arrays. On x86-64 a few steps use Clang's intrinsics (`_Builtin_intrinsics`)
// for instructions Swift's SIMD types have no spelling for: `movmskps` (which lanes of a
// comparison are true, as bits) and 256-bit interleaves; each has a plain-Swift path for other
// CPUs.

/// The distance step of a Lloyd iteration: how each point finds its nearest centroid.
///
/// Both were measured and the fused kernel kept as the default; the figures are on
/// ``KMeans/Options/kernel``.
public enum DistanceKernel: String, CaseIterable, Hashable, Sendable, Codable {
    /// A fused SIMD loop: 8 rows in the lanes of a register, ‖c‖²/2 − x·c accumulated in
    /// registers for 8 centroids at a time (4 on the portable build), argmin per lane in the same
    /// pass. No intermediate distance matrix.
    case fused
    /// `cblas_sgemm` on 256-row blocks (`−X·Cᵀ` into a 256×k buffer that stays in L1/L2), then a
    /// scalar argmin over ‖c‖²/2 − x·c, as scikit-learn does.
    case blas
}

/// Low-level loops over matrix rows.
enum Kernels {
    /// The number of rows the fused kernel holds in the lanes of one SIMD register.
    static let rowsPerBlock = 8

    /// The rows gathered per run before their sums go into `Double`.
    static let runLength = 2048

    /// Runs `body` for every chunk in `0 ..< count` on up to `threadCount` threads, each taking the
    /// next chunk no thread has taken yet, so that a thread slowed down (by another process, or by
    /// the hypervisor taking its CPU) does not hold up a pass while the others wait. Every chunk
    /// writes only its own results, and callers merge them in chunk order, so results do not
    /// depend on which thread ran which chunk.
    static func forEachChunk(count: Int, threadCount: Int, _ body: @Sendable (Int) -> Void) {
        let threads = Swift.min(threadCount, count)
        guard threads > 1 else {
            for chunk in 0..<count { body(chunk) }
            return
        }
        let next = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            while case let chunk = next.wrappingAdd(1, ordering: .relaxed).oldValue, chunk < count {
                body(chunk)
            }
        }
    }

    /// The row ranges of a parallel pass: all rows on one thread; otherwise up to 8 chunks per
    /// thread of at least 8,192 rows (and at least one per thread), so that
    /// ``forEachChunk(count:threadCount:_:)`` can even out the threads' progress. They depend only
    /// on the row and thread counts.
    static func passChunks(rows: Int, threadCount: Int) -> [Range<Int>] {
        let count = threadCount <= 1 ? 1 : Swift.max(threadCount, Swift.min(8 * threadCount, rows / 8_192))
        return KMeans.blocks(of: rows, parts: count)
    }

    /// Centroids laid out for both kernels.
    struct PreparedCentroids: Sendable {
        var centroids: Matrix
        /// Every element of the centroids splatted across 8 lanes (`k × d` vectors, row-major), so
        /// the fused kernel multiplies by a loaded vector instead of broadcasting in the loop.
        var splatted: [SIMD8<Float>]
        /// ‖c‖²/2 per centroid.
        var halfNorms: [Float]

        init(_ centroids: Matrix) {
            let k = centroids.rowCount
            let d = centroids.columnCount
            self.centroids = centroids
            splatted = centroids.elements.map { SIMD8(repeating: $0) }
            halfNorms = (0..<k).map { c in
                var norm: Float = 0
                for j in 0..<d { norm += centroids.elements[c * d + j] * centroids.elements[c * d + j] }
                return norm / 2
            }
        }
    }

    /// What an assignment pass sums besides the labels.
    enum Accumulation: Sendable {
        /// Nothing: the counts per centroid only.
        case none
        /// Every row, into its centroid's sum.
        case sums
        /// Only the rows whose label changed: added to the sum of their new centroid and taken
        /// from that of their old one (the counts likewise), so that the previous pass's sums
        /// plus these are this pass's. After the first pass of a fit most rows keep their label,
        /// so this skips most of the adding (measured: the adding is 10–20 % of a full pass).
        case changes
    }

    /// What one assignment pass found besides the labels.
    struct Assignment: Sendable {
        /// Per centroid, the sum of the rows assigned to it (`k × d`, row-major), in Double, or
        /// with ``Accumulation/changes`` the change of that sum; empty with
        /// ``Accumulation/none``.
        var sums: [Double]
        /// Per centroid, the number of rows assigned to it, or with ``Accumulation/changes`` the
        /// change of that number.
        var counts: [Int]
        /// How many rows got a label different from the one they had.
        var changedCount: Int
    }

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
        var parts = [Assignment](
            repeating: Assignment(sums: [], counts: [], changedCount: 0),
            count: blocks.count
        )
        data.elements.withUnsafeBufferPointer { x in
            labels.withUnsafeMutableBufferPointer { labels in
                parts.withUnsafeMutableBufferPointer { parts in
                    let shared = SharedBuffers(x: x, labels: labels, parts: parts)
                    forEachChunk(count: blocks.count, threadCount: threadCount) { block in
                        shared.parts[block] = assignBlock(
                            shared.x,
                            rows: blocks[block],
                            d: d,
                            k: k,
                            prepared,
                            labels: shared.labels,
                            accumulation: accumulation,
                            kernel: kernel
                        )
                    }
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

    /// The buffers the parallel blocks of a pass share; each block writes only its own rows and
    /// its own slot of `parts`.
    struct SharedBuffers: @unchecked Sendable {
        let x: UnsafeBufferPointer<Float>
        let labels: UnsafeMutableBufferPointer<Int32>
        let parts: UnsafeMutableBufferPointer<Assignment>
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
                    var runStart = rows.lowerBound
                    while runStart < rows.upperBound {
                        let run = runStart..<Swift.min(runStart + runLength, rows.upperBound)
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
                            // The partial sums, added in a fixed order.
                            let stride = k &* d
                            for index in 0..<stride {
                                sums[index] +=
                                    Double(runSums[index]) + Double(runSums[stride &+ index])
                                    - Double(runSums[2 &* stride &+ index])
                                runSums[index] = 0
                                runSums[stride &+ index] = 0
                                runSums[2 &* stride &+ index] = 0
                            }
                        } else {
                            for i in run {
                                let label = runLabels[i &- run.lowerBound]
                                if labels[i] != label { changed &+= 1 }
                                labels[i] = label
                                counts[Int(label)] &+= 1
                            }
                        }
                        runStart = run.upperBound
                    }
                }
            }
        }
        return Assignment(sums: sums, counts: counts, changedCount: changed)
    }

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

    /// Stores the labels of one run, counts them and the changed ones, and adds each row to its
    /// cluster's partial sum (even rows to the first `k × d` sums, odd rows to the second); with
    /// `changes`, only the rows whose label changed, each also added to the third `k × d` sums
    /// (those of the rows leaving a cluster) under its old label, if it had one. Returns the
    /// number of changed labels. Specialized for each `Width` (``FeatureCount``), so that the row
    /// additions unroll for the common widths.
    @inline(__always)
    private static func accumulateRun<Width: FeatureCount>(
        _ x: UnsafeBufferPointer<Float>,
        run: Range<Int>,
        d runtimeD: Int,
        as _: Width.Type,
        _ runLabels: UnsafeBufferPointer<Int32>,
        _ labels: UnsafeMutableBufferPointer<Int32>,
        _ counts: UnsafeMutableBufferPointer<Int>,
        _ runSums: UnsafeMutableBufferPointer<Float>,
        changes: Bool
    ) -> Int {
        let d = Width.value ?? runtimeD
        var changed = 0
        @inline(__always)
        func join(_ i: Int, _ label: Int32, leaving old: Int32) {
            moveRow(x.baseAddress! + i &* d, to: label, from: old, parity: i & 1, d: d, counts, runSums)
        }
        var first = run.lowerBound
        #if arch(x86_64)
        if changes {
            // 8 rows at a time: one comparison finds the rows whose label changed (few, after the
            // first passes), whose lanes are then taken one by one.
            while first &+ rowsPerBlock <= run.upperBound {
                let new = UnsafeRawPointer(runLabels.baseAddress! + (first &- run.lowerBound))
                    .loadUnaligned(as: SIMD8<Int32>.self)
                let old = UnsafeRawPointer(labels.baseAddress! + first).loadUnaligned(as: SIMD8<Int32>.self)
                var lanes = laneBits(new .!= old)
                if lanes != 0 {
                    UnsafeMutableRawPointer(labels.baseAddress! + first).storeBytes(of: new, as: SIMD8<Int32>.self)
                    changed &+= lanes.nonzeroBitCount
                    repeat {
                        let lane = lanes.trailingZeroBitCount
                        join(first &+ lane, new[lane], leaving: old[lane])
                        lanes &= lanes &- 1
                    } while lanes != 0
                }
                first &+= rowsPerBlock
            }
        }
        #endif
        for i in first..<run.upperBound {
            let label = runLabels[i &- run.lowerBound]
            let old = labels[i]
            labels[i] = label
            if old != label { changed &+= 1 }
            if changes {
                if old != label { join(i, label, leaving: old) }
            } else {
                join(i, label, leaving: -1)
            }
        }
        return changed
    }

    /// Counts `row` in cluster `label` and adds it to that cluster's partial sum, the first or
    /// second `k × d` sums of `runSums` by `parity` (so that consecutive rows of one cluster do
    /// not wait on each other's stores); if it had a cluster `old` (not negative), uncounts it
    /// there and adds it to the third sums, those of the rows leaving a cluster.
    @inline(__always)
    static func moveRow(
        _ row: UnsafePointer<Float>,
        to label: Int32,
        from old: Int32,
        parity: Int,
        d: Int,
        _ counts: UnsafeMutableBufferPointer<Int>,
        _ runSums: UnsafeMutableBufferPointer<Float>
    ) {
        let stride = counts.count &* d
        counts[Int(label)] &+= 1
        add(row, into: runSums.baseAddress! + (parity &* stride &+ Int(label) &* d), count: d)
        if old >= 0 {
            counts[Int(old)] &-= 1
            add(row, into: runSums.baseAddress! + (2 &* stride &+ Int(old) &* d), count: d)
        }
    }

    /// A number of features fixed in a type, so that a function generic over it is specialized
    /// with the number a constant (and its loops over features unrolled) even where the compiler
    /// does not inline it.
    protocol FeatureCount {
        /// The number of features, or `nil` for a number known only at run time.
        static var value: Int? { get }
    }

    enum TwelveFeatures: FeatureCount { static var value: Int? { 12 } }
    enum TenFeatures: FeatureCount { static var value: Int? { 10 } }
    enum AnyFeatureCount: FeatureCount { static var value: Int? { nil } }

    /// Adds `count` floats at `source` to `target`, four at a time.
    @inline(__always)
    static func add(_ source: UnsafePointer<Float>, into target: UnsafeMutablePointer<Float>, count: Int) {
        var j = 0
        while j &+ 4 <= count {
            let a = UnsafeRawPointer(source + j).loadUnaligned(as: SIMD4<Float>.self)
            let b = UnsafeRawPointer(target + j).loadUnaligned(as: SIMD4<Float>.self)
            UnsafeMutableRawPointer(target + j).storeBytes(of: a + b, as: SIMD4<Float>.self)
            j &+= 4
        }
        while j < count {
            target[j] += source[j]
            j &+= 1
        }
    }

    /// Copies 8 rows of `d` floats, row `r` starting at `row(r)`, into `d` vectors, vector `j`
    /// holding column `j` of the 8 rows: 4 × 4 tiles are transposed with shuffles, the columns
    /// past the last multiple of 4 element by element; rows of 12 features in whole 256-bit
    /// registers on builds for AVX (``transposeEightRowsOfTwelve(into:row:)``).
    @inline(__always)
    static func transposeEightRows(
        d: Int,
        into columns: UnsafeMutablePointer<SIMD8<Float>>,
        row: (Int) -> UnsafePointer<Float>
    ) {
        #if VIBES_HOST_CPU && arch(x86_64)
        if d == 12 {
            transposeEightRowsOfTwelve(into: columns, row: row)
            return
        }
        #endif
        let r0 = row(0)
        let r1 = row(1)
        let r2 = row(2)
        let r3 = row(3)
        let r4 = row(4)
        let r5 = row(5)
        let r6 = row(6)
        let r7 = row(7)
        var j = 0
        while j &+ 4 <= d {
            let target = UnsafeMutableRawPointer(columns + j)
            for half in 0..<2 {
                let a = UnsafeRawPointer((half == 0 ? r0 : r4) + j).loadUnaligned(as: SIMD4<Float>.self)
                let b = UnsafeRawPointer((half == 0 ? r1 : r5) + j).loadUnaligned(as: SIMD4<Float>.self)
                let c = UnsafeRawPointer((half == 0 ? r2 : r6) + j).loadUnaligned(as: SIMD4<Float>.self)
                let e = UnsafeRawPointer((half == 0 ? r3 : r7) + j).loadUnaligned(as: SIMD4<Float>.self)
                let ab01 = SIMD4(a[0], b[0], a[1], b[1])
                let ab23 = SIMD4(a[2], b[2], a[3], b[3])
                let ce01 = SIMD4(c[0], e[0], c[1], e[1])
                let ce23 = SIMD4(c[2], e[2], c[3], e[3])
                let offset = 16 &* half
                target.storeBytes(
                    of: SIMD4(ab01[0], ab01[1], ce01[0], ce01[1]),
                    toByteOffset: offset,
                    as: SIMD4<Float>.self
                )
                target.storeBytes(
                    of: SIMD4(ab01[2], ab01[3], ce01[2], ce01[3]),
                    toByteOffset: 32 &+ offset,
                    as: SIMD4<Float>.self
                )
                target.storeBytes(
                    of: SIMD4(ab23[0], ab23[1], ce23[0], ce23[1]),
                    toByteOffset: 64 &+ offset,
                    as: SIMD4<Float>.self
                )
                target.storeBytes(
                    of: SIMD4(ab23[2], ab23[3], ce23[2], ce23[3]),
                    toByteOffset: 96 &+ offset,
                    as: SIMD4<Float>.self
                )
            }
            j &+= 4
        }
        while j < d {
            columns[j] = SIMD8(r0[j], r1[j], r2[j], r3[j], r4[j], r5[j], r6[j], r7[j])
            j &+= 1
        }
    }

    #if VIBES_HOST_CPU && arch(x86_64)
    /// ``transposeEightRows(d:into:row:)`` for rows of 12 features on builds for AVX, in 256-bit
    /// registers: columns 0–7 as an 8 × 8 transpose of whole-register loads, columns 8–11 from the
    /// rows' last 4 features, rows `r` and `r + 4` loaded into one register. 36 shuffles and 12
    /// stores for 8 rows, against 48 shuffles and 24 half-register stores 4 × 4 at a time, whose
    /// halves the scoring loop then had to load back as whole registers. Measured on 100k
    /// cache-resident rows, 1 thread: 3–5 % off a full pass. The interleaves are Clang's
    /// intrinsics (Swift has no spelling for them); moving register halves is Swift's.
    @inline(__always)
    static func transposeEightRowsOfTwelve(
        into columns: UnsafeMutablePointer<SIMD8<Float>>,
        row: (Int) -> UnsafePointer<Float>
    ) {
        @inline(__always) func firstEight(_ row: UnsafePointer<Float>) -> SIMD8<Float> {
            UnsafeRawPointer(row).loadUnaligned(as: SIMD8<Float>.self)
        }
        @inline(__always) func lastFour(_ row: UnsafePointer<Float>) -> SIMD4<Float> {
            UnsafeRawPointer(row + 8).loadUnaligned(as: SIMD4<Float>.self)
        }
        // Pairs of floats as one 64-bit lane: the low pairs of each 128-bit half of `a` and `b`,
        // interleaved, or the high pairs.
        @inline(__always) func lowPairs(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> {
            _mm256_castpd_ps(_mm256_unpacklo_pd(_mm256_castps_pd(a), _mm256_castps_pd(b)))
        }
        @inline(__always) func highPairs(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> {
            _mm256_castpd_ps(_mm256_unpackhi_pd(_mm256_castps_pd(a), _mm256_castps_pd(b)))
        }
        let p0 = row(0)
        let p1 = row(1)
        let p2 = row(2)
        let p3 = row(3)
        let p4 = row(4)
        let p5 = row(5)
        let p6 = row(6)
        let p7 = row(7)
        let r0 = firstEight(p0)
        let r1 = firstEight(p1)
        let r2 = firstEight(p2)
        let r3 = firstEight(p3)
        let r4 = firstEight(p4)
        let r5 = firstEight(p5)
        let r6 = firstEight(p6)
        let r7 = firstEight(p7)
        // Rows 0 and 1 interleaved: r0[0] r1[0] r0[1] r1[1] | r0[4] r1[4] r0[5] r1[5], and so on.
        let a0 = _mm256_unpacklo_ps(r0, r1)
        let a1 = _mm256_unpackhi_ps(r0, r1)
        let a2 = _mm256_unpacklo_ps(r2, r3)
        let a3 = _mm256_unpackhi_ps(r2, r3)
        let a4 = _mm256_unpacklo_ps(r4, r5)
        let a5 = _mm256_unpackhi_ps(r4, r5)
        let a6 = _mm256_unpacklo_ps(r6, r7)
        let a7 = _mm256_unpackhi_ps(r6, r7)
        // Rows 0–3 of columns j and j + 4 in the two halves: b0 holds columns 0 and 4.
        let b0 = lowPairs(a0, a2)
        let b1 = highPairs(a0, a2)
        let b2 = lowPairs(a1, a3)
        let b3 = highPairs(a1, a3)
        let b4 = lowPairs(a4, a6)
        let b5 = highPairs(a4, a6)
        let b6 = lowPairs(a5, a7)
        let b7 = highPairs(a5, a7)
        columns[0] = SIMD8(lowHalf: b0.lowHalf, highHalf: b4.lowHalf)
        columns[1] = SIMD8(lowHalf: b1.lowHalf, highHalf: b5.lowHalf)
        columns[2] = SIMD8(lowHalf: b2.lowHalf, highHalf: b6.lowHalf)
        columns[3] = SIMD8(lowHalf: b3.lowHalf, highHalf: b7.lowHalf)
        columns[4] = SIMD8(lowHalf: b0.highHalf, highHalf: b4.highHalf)
        columns[5] = SIMD8(lowHalf: b1.highHalf, highHalf: b5.highHalf)
        columns[6] = SIMD8(lowHalf: b2.highHalf, highHalf: b6.highHalf)
        columns[7] = SIMD8(lowHalf: b3.highHalf, highHalf: b7.highHalf)
        // Columns 8–11: row r in the low half, row r + 4 in the high half, then as above.
        let q0 = SIMD8(lowHalf: lastFour(p0), highHalf: lastFour(p4))
        let q1 = SIMD8(lowHalf: lastFour(p1), highHalf: lastFour(p5))
        let q2 = SIMD8(lowHalf: lastFour(p2), highHalf: lastFour(p6))
        let q3 = SIMD8(lowHalf: lastFour(p3), highHalf: lastFour(p7))
        let c0 = _mm256_unpacklo_ps(q0, q1)
        let c1 = _mm256_unpackhi_ps(q0, q1)
        let c2 = _mm256_unpacklo_ps(q2, q3)
        let c3 = _mm256_unpackhi_ps(q2, q3)
        columns[8] = lowPairs(c0, c2)
        columns[9] = highPairs(c0, c2)
        columns[10] = lowPairs(c1, c3)
        columns[11] = highPairs(c1, c3)
    }
    #endif

    /// The argmin of the fused kernel's scores for the 8 rows in the lanes of a register.
    ///
    /// Centroids come in groups whose scores are reduced as a tree: ``pair(_:_:first:)`` takes
    /// two neighbouring centroids, ``merge(_:_:)`` two neighbouring groups, and merges each group
    /// into the running result too. Every step prefers the left (lower indices) side on a tie, so
    /// the result is exactly that of taking the centroids one at a time in order, with half the
    /// instructions and a shallow dependency chain.
    protocol EightRowArgmin {
        /// Per lane, the index of the centroid with the smallest score; ties go to the lowest.
        var index: SIMD8<Int32> { get }
        /// No centroid yet.
        init()
        /// Takes in the scores of `centroid`; centroids come in increasing order.
        mutating func keep(_ score: SIMD8<Float>, centroid: Int)
        /// The result over two centroids, `first` (scores `a`) and `first + 1` (scores `b`).
        static func pair(_ a: SIMD8<Float>, _ b: SIMD8<Float>, first: Int32) -> Self
        /// The result over the centroids of `left` and `right`, whose indices are all higher.
        static func merge(_ left: Self, _ right: Self) -> Self
    }

    /// The nearest centroid of each of 8 rows.
    struct Nearest: EightRowArgmin {
        /// Per lane, the smallest ‖c‖²/2 − x·c.
        var best = SIMD8<Float>(repeating: .infinity)
        var index = SIMD8<Int32>.zero

        init() {}

        init(best: SIMD8<Float>, index: SIMD8<Int32>) {
            self.best = best
            self.index = index
        }

        /// Moves `best`/`index` to `score`/`centroid` in the lanes where `score` is strictly
        /// smaller, so that ties keep the lower centroid index.
        @inline(__always)
        mutating func keep(_ score: SIMD8<Float>, centroid: Int) {
            self = Self.merge(self, Nearest(best: score, index: SIMD8(repeating: Int32(truncatingIfNeeded: centroid))))
        }

        @inline(__always)
        static func pair(_ a: SIMD8<Float>, _ b: SIMD8<Float>, first: Int32) -> Nearest {
            let takesB = b .< a
            var best = a
            best.replace(with: b, where: takesB)
            // The mask is −1 where b wins: first − (−1) = first + 1.
            return Nearest(best: best, index: SIMD8(repeating: first) &- maskBits(takesB))
        }

        @inline(__always)
        static func merge(_ left: Nearest, _ right: Nearest) -> Nearest {
            let takesRight = right.best .< left.best
            var result = left
            result.best.replace(with: right.best, where: takesRight)
            result.index.replace(with: right.index, where: takesRight)
            return result
        }
    }

    /// The nearest centroid of each of 8 rows and the runner-up's score.
    struct NearestTwo: EightRowArgmin {
        /// Per lane, the smallest ‖c‖²/2 − x·c.
        var best = SIMD8<Float>(repeating: .infinity)
        /// Per lane, the second smallest.
        var second = SIMD8<Float>(repeating: .infinity)
        var index = SIMD8<Int32>.zero

        init() {}

        init(best: SIMD8<Float>, second: SIMD8<Float>, index: SIMD8<Int32>) {
            self.best = best
            self.second = second
            self.index = index
        }

        /// As ``Nearest/keep(_:centroid:)``, keeping the second smallest score too.
        @inline(__always)
        mutating func keep(_ score: SIMD8<Float>, centroid: Int) {
            self = Self.merge(
                self,
                NearestTwo(
                    best: score,
                    second: SIMD8(repeating: .infinity),
                    index: SIMD8(repeating: Int32(truncatingIfNeeded: centroid))
                )
            )
        }

        @inline(__always)
        static func pair(_ a: SIMD8<Float>, _ b: SIMD8<Float>, first: Int32) -> NearestTwo {
            let takesB = b .< a
            var best = a
            best.replace(with: b, where: takesB)
            var second = b
            second.replace(with: a, where: takesB)
            return NearestTwo(best: best, second: second, index: SIMD8(repeating: first) &- maskBits(takesB))
        }

        /// The second smallest of the union is min(max(best₁, best₂), second₁, second₂); with
        /// masks, because the generic pointwiseMin and pointwiseMax are not specialized into
        /// vector instructions.
        @inline(__always)
        static func merge(_ left: NearestTwo, _ right: NearestTwo) -> NearestTwo {
            let takesRight = right.best .< left.best
            var result = left
            result.best.replace(with: right.best, where: takesRight)
            result.index.replace(with: right.index, where: takesRight)
            var larger = right.best
            larger.replace(with: left.best, where: takesRight)
            result.second.replace(with: right.second, where: right.second .< left.second)
            result.second.replace(with: larger, where: larger .< result.second)
            return result
        }
    }

    /// `accumulator + a · b`: one fused multiply-add, rounded once, on builds for this machine's
    /// CPU (measured: 4–8 % off a full pass); a multiply and an add on the portable build.
    @inline(__always)
    static func multiplyAdd(_ accumulator: SIMD8<Float>, _ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> {
        #if VIBES_HOST_CPU
        accumulator.addingProduct(a, b)
        #else
        accumulator + a * b
        #endif
    }

    /// A comparison's lanes as integers: −1 where true, 0 where false.
    @inline(__always)
    static func maskBits(_ mask: SIMDMask<SIMD8<Int32>>) -> SIMD8<Int32> {
        SIMD8<Int32>.zero.replacing(with: -1, where: mask)
    }

    #if arch(x86_64)
    /// The lanes where `mask` is true, as the bits of an integer (bit `l` for lane `l`): one
    /// `movmskps` on builds for AVX, two on the baseline's 4-lane registers.
    @inline(__always)
    static func laneBits(_ mask: SIMDMask<SIMD8<Int32>>) -> Int {
        let bits = unsafeBitCast(maskBits(mask), to: SIMD8<Float>.self)
        #if VIBES_HOST_CPU
        return Int(_mm256_movemask_ps(bits))
        #else
        return Int(_mm_movemask_ps(bits.lowHalf)) | Int(_mm_movemask_ps(bits.highHalf)) << 4
        #endif
    }
    #endif

    /// Whether the fused kernel's full passes take 16 rows at a time
    /// (``scoreSixteenRows(_:_:d:k:centroids:halfNorms:)``): on builds for AVX, whose 16 vector
    /// registers hold its 8 dot products (2 tiles × 4 centroids), 2 columns and 4 centroids.
    static var takesSixteenRows: Bool { takesEightCentroids }

    /// Whether the fused kernel takes centroids 8 at a time (builds for AVX, whose 16 vector
    /// registers hold the 8 dot products) rather than 4 (where 8 would spill to memory).
    static var takesEightCentroids: Bool {
        #if VIBES_HOST_CPU
        true
        #else
        false
        #endif
    }

    /// The fused kernel's inner loop: ‖c‖²/2 − x·c of 8 rows (transposed into `columns`) for
    /// every centroid, with the argmin kept per lane, so no lane ever has to be compared with
    /// another (no horizontal reductions).
    ///
    /// Centroids go 8 or 4 at a time (``takesEightCentroids``) as independent dependency chains,
    /// so the multiplies and adds do not wait on each other's latency. Builds for this machine's
    /// CPU fuse each multiply and add into one instruction (``multiplyAdd(_:_:_:)``); the
    /// portable build keeps them apart, since a fused multiply-add is a library call per lane on
    /// baseline x86-64. The scores are summed over features in the same order as a scalar loop
    /// (with the same fusing), and the argmin keeps the lowest index on ties, so labels are
    /// identical to the loop's. Specialized for each kind of argmin.
    @inline(__always)
    static func scoreEightRows<Argmin: EightRowArgmin>(
        _ columns: UnsafePointer<SIMD8<Float>>,
        d: Int,
        k: Int,
        centroids: UnsafePointer<SIMD8<Float>>,
        halfNorms: UnsafeBufferPointer<Float>,
        as _: Argmin.Type,
        eightAtATime: Bool = takesEightCentroids
    ) -> Argmin {
        var scores = Argmin()
        var c = 0
        while eightAtATime && c &+ 8 <= k {
            let c0 = centroids + c &* d
            var dot0 = SIMD8<Float>.zero
            var dot1 = SIMD8<Float>.zero
            var dot2 = SIMD8<Float>.zero
            var dot3 = SIMD8<Float>.zero
            var dot4 = SIMD8<Float>.zero
            var dot5 = SIMD8<Float>.zero
            var dot6 = SIMD8<Float>.zero
            var dot7 = SIMD8<Float>.zero
            for j in 0..<d {
                let column = columns[j]
                dot0 = multiplyAdd(dot0, column, c0[j])
                dot1 = multiplyAdd(dot1, column, c0[d &+ j])
                dot2 = multiplyAdd(dot2, column, c0[2 &* d &+ j])
                dot3 = multiplyAdd(dot3, column, c0[3 &* d &+ j])
                dot4 = multiplyAdd(dot4, column, c0[4 &* d &+ j])
                dot5 = multiplyAdd(dot5, column, c0[5 &* d &+ j])
                dot6 = multiplyAdd(dot6, column, c0[6 &* d &+ j])
                dot7 = multiplyAdd(dot7, column, c0[7 &* d &+ j])
            }
            let h = halfNorms.baseAddress! + c
            let first = Int32(truncatingIfNeeded: c)
            let low = Argmin.merge(
                Argmin.pair(SIMD8(repeating: h[0]) - dot0, SIMD8(repeating: h[1]) - dot1, first: first),
                Argmin.pair(SIMD8(repeating: h[2]) - dot2, SIMD8(repeating: h[3]) - dot3, first: first &+ 2)
            )
            let high = Argmin.merge(
                Argmin.pair(SIMD8(repeating: h[4]) - dot4, SIMD8(repeating: h[5]) - dot5, first: first &+ 4),
                Argmin.pair(SIMD8(repeating: h[6]) - dot6, SIMD8(repeating: h[7]) - dot7, first: first &+ 6)
            )
            scores = Argmin.merge(scores, Argmin.merge(low, high))
            c &+= 8
        }
        while c &+ 4 <= k {
            let c0 = centroids + c &* d
            var dot0 = SIMD8<Float>.zero
            var dot1 = SIMD8<Float>.zero
            var dot2 = SIMD8<Float>.zero
            var dot3 = SIMD8<Float>.zero
            for j in 0..<d {
                let column = columns[j]
                dot0 = multiplyAdd(dot0, column, c0[j])
                dot1 = multiplyAdd(dot1, column, c0[d &+ j])
                dot2 = multiplyAdd(dot2, column, c0[2 &* d &+ j])
                dot3 = multiplyAdd(dot3, column, c0[3 &* d &+ j])
            }
            let h = halfNorms.baseAddress! + c
            let first = Int32(truncatingIfNeeded: c)
            scores = Argmin.merge(
                scores,
                Argmin.merge(
                    Argmin.pair(SIMD8(repeating: h[0]) - dot0, SIMD8(repeating: h[1]) - dot1, first: first),
                    Argmin.pair(SIMD8(repeating: h[2]) - dot2, SIMD8(repeating: h[3]) - dot3, first: first &+ 2)
                )
            )
            c &+= 4
        }
        while c < k {
            let c0 = centroids + c &* d
            var dot = SIMD8<Float>.zero
            for j in 0..<d { dot = multiplyAdd(dot, columns[j], c0[j]) }
            scores.keep(SIMD8(repeating: halfNorms[c]) - dot, centroid: c)
            c &+= 1
        }
        return scores
    }

    /// The fused kernel's inner loop for 16 rows, two tiles of 8 (`low` and `high`), taking
    /// centroids 4 at a time, for builds for AVX (``takesSixteenRows``).
    ///
    /// Each centroid vector loaded serves both tiles, so a feature costs 6 loads for 8
    /// multiply-adds instead of the 9 of ``scoreEightRows(_:d:k:centroids:halfNorms:as:eightAtATime:)``
    /// with 8 centroids, whose loop waits on its loads (2 vector loads per cycle here) more than
    /// on its multiply-adds. Measured on 200k cache-resident rows, k = 16: 11 % off a pass. The
    /// scores and the tree-shaped argmin are those of 4 centroids at a time, so the labels are
    /// the same.
    @inline(__always)
    static func scoreSixteenRows<Argmin: EightRowArgmin>(
        _ low: UnsafePointer<SIMD8<Float>>,
        _ high: UnsafePointer<SIMD8<Float>>,
        d: Int,
        k: Int,
        centroids: UnsafePointer<SIMD8<Float>>,
        halfNorms: UnsafeBufferPointer<Float>,
        as _: Argmin.Type = Nearest.self
    ) -> (low: Argmin, high: Argmin) {
        var lowScores = Argmin()
        var highScores = Argmin()
        var c = 0
        while c &+ 4 <= k {
            let c0 = centroids + c &* d
            var a0 = SIMD8<Float>.zero
            var a1 = SIMD8<Float>.zero
            var a2 = SIMD8<Float>.zero
            var a3 = SIMD8<Float>.zero
            var b0 = SIMD8<Float>.zero
            var b1 = SIMD8<Float>.zero
            var b2 = SIMD8<Float>.zero
            var b3 = SIMD8<Float>.zero
            for j in 0..<d {
                let x = low[j]
                let y = high[j]
                let m0 = c0[j]
                let m1 = c0[d &+ j]
                let m2 = c0[2 &* d &+ j]
                let m3 = c0[3 &* d &+ j]
                a0 = multiplyAdd(a0, x, m0)
                b0 = multiplyAdd(b0, y, m0)
                a1 = multiplyAdd(a1, x, m1)
                b1 = multiplyAdd(b1, y, m1)
                a2 = multiplyAdd(a2, x, m2)
                b2 = multiplyAdd(b2, y, m2)
                a3 = multiplyAdd(a3, x, m3)
                b3 = multiplyAdd(b3, y, m3)
            }
            let h = halfNorms.baseAddress! + c
            let h0 = SIMD8(repeating: h[0])
            let h1 = SIMD8(repeating: h[1])
            let h2 = SIMD8(repeating: h[2])
            let h3 = SIMD8(repeating: h[3])
            let index = Int32(truncatingIfNeeded: c)
            lowScores = Argmin.merge(
                lowScores,
                Argmin.merge(
                    Argmin.pair(h0 - a0, h1 - a1, first: index),
                    Argmin.pair(h2 - a2, h3 - a3, first: index &+ 2)
                )
            )
            highScores = Argmin.merge(
                highScores,
                Argmin.merge(
                    Argmin.pair(h0 - b0, h1 - b1, first: index),
                    Argmin.pair(h2 - b2, h3 - b3, first: index &+ 2)
                )
            )
            c &+= 4
        }
        while c < k {
            let c0 = centroids + c &* d
            var a = SIMD8<Float>.zero
            var b = SIMD8<Float>.zero
            for j in 0..<d {
                a = multiplyAdd(a, low[j], c0[j])
                b = multiplyAdd(b, high[j], c0[j])
            }
            let h = SIMD8(repeating: halfNorms[c])
            lowScores.keep(h - a, centroid: c)
            highScores.keep(h - b, centroid: c)
            c &+= 1
        }
        return (lowScores, highScores)
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
        let chunks = (data.rowCount + columnSumChunk - 1) / columnSumChunk
        var totals = [Double](repeating: 0, count: chunks)
        data.elements.withUnsafeBufferPointer { x in
            centroids.elements.withUnsafeBufferPointer { c in
                labels.withUnsafeBufferPointer { labels in
                    result.withUnsafeMutableBufferPointer { result in
                        totals.withUnsafeMutableBufferPointer { totals in
                            let shared = DistanceBuffers(x: x, c: c, labels: labels, result: result, totals: totals)
                            forEachChunk(count: chunks, threadCount: threadCount) { chunk in
                                let rows =
                                    (chunk * columnSumChunk)..<Swift.min((chunk + 1) * columnSumChunk, data.rowCount)
                                shared.totals[chunk] = squaredDistances(shared, rows: rows, d: d)
                            }
                        }
                    }
                }
            }
        }
        return totals.reduce(0, +)
    }

    /// ‖xᵢ − c_{labels[i]}‖² for the given rows into `shared.result`, and their sum in `Double`
    /// in row order.
    private static func squaredDistances(_ shared: DistanceBuffers, rows: Range<Int>, d: Int) -> Double {
        var tiles = [SIMD8<Float>](repeating: .zero, count: 2 * d)
        tiles.withUnsafeMutableBufferPointer { tiles in
            writeSquaredDistances(
                shared.x.baseAddress!,
                centroids: shared.c.baseAddress!,
                labels: shared.labels.baseAddress!,
                rows: rows,
                d: d,
                tiles: tiles.baseAddress!,
                into: shared.result.baseAddress!
            )
        }
        return sumInRowOrder(UnsafeBufferPointer(rebasing: shared.result[rows]))
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

    /// The inertia of squared distances written by a pass: their sum in `Double`, in row order
    /// within fixed chunks of ``columnSumChunk`` rows added in order, as
    /// ``squaredDistances(_:labels:centroids:threadCount:into:)`` returns it.
    static func inertia(of distances: [Float], threadCount: Int) -> Double {
        let chunks = (distances.count + columnSumChunk - 1) / columnSumChunk
        var totals = [Double](repeating: 0, count: chunks)
        distances.withUnsafeBufferPointer { distances in
            totals.withUnsafeMutableBufferPointer { totals in
                let shared = SumBuffers(values: distances, totals: totals)
                forEachChunk(count: chunks, threadCount: threadCount) { chunk in
                    let rows = (chunk * columnSumChunk)..<Swift.min((chunk + 1) * columnSumChunk, shared.values.count)
                    shared.totals[chunk] = sumInRowOrder(UnsafeBufferPointer(rebasing: shared.values[rows]))
                }
            }
        }
        return totals.reduce(0, +)
    }

    /// The buffers the parallel chunks of ``inertia(of:threadCount:)`` share.
    private struct SumBuffers: @unchecked Sendable {
        let values: UnsafeBufferPointer<Float>
        let totals: UnsafeMutableBufferPointer<Double>
    }

    /// Whether every element of `data` is finite, in one vectorized pass on `threadCount`
    /// threads: `v − v` is 0 for a finite `v` and NaN otherwise, and a NaN stays in a sum.
    static func isFinite(_ data: Matrix, threadCount: Int) -> Bool {
        let count = data.elements.count
        let chunks = (count + 16 * columnSumChunk - 1) / (16 * columnSumChunk)
        var flags = [Bool](repeating: true, count: chunks)
        data.elements.withUnsafeBufferPointer { x in
            flags.withUnsafeMutableBufferPointer { flags in
                let shared = FiniteBuffers(x: x, flags: flags)
                forEachChunk(count: chunks, threadCount: threadCount) { chunk in
                    let range = (chunk * 16 * columnSumChunk)..<Swift.min((chunk + 1) * 16 * columnSumChunk, count)
                    var accumulated = SIMD16<Float>.zero
                    var i = range.lowerBound
                    while i &+ 16 <= range.upperBound {
                        let v = UnsafeRawPointer(shared.x.baseAddress! + i).loadUnaligned(as: SIMD16<Float>.self)
                        accumulated += v - v
                        i &+= 16
                    }
                    var isFinite = accumulated.sum() == 0
                    while i < range.upperBound {
                        isFinite = isFinite && shared.x[i].isFinite
                        i &+= 1
                    }
                    shared.flags[chunk] = isFinite
                }
            }
        }
        return flags.allSatisfy { $0 }
    }

    /// The buffers the parallel chunks of ``isFinite(_:threadCount:)`` share.
    private struct FiniteBuffers: @unchecked Sendable {
        let x: UnsafeBufferPointer<Float>
        let flags: UnsafeMutableBufferPointer<Bool>
    }

    /// The rows summed per chunk by ``columnSums(_:)``: a fixed number, so that the sums do not
    /// depend on the number of threads.
    static let columnSumChunk = 65_536

    /// The sum and the sum of squares of every column, in `Double`, over fixed chunks of rows run
    /// on `threadCount` threads and merged in order.
    static func columnSums(_ data: Matrix, threadCount: Int) -> (sums: [Double], squares: [Double]) {
        let d = data.columnCount
        let chunks = (data.rowCount + columnSumChunk - 1) / columnSumChunk
        var parts = [Double](repeating: 0, count: 2 * d * chunks)
        data.elements.withUnsafeBufferPointer { x in
            parts.withUnsafeMutableBufferPointer { parts in
                let shared = ColumnSumBuffers(x: x, parts: parts)
                forEachChunk(count: chunks, threadCount: threadCount) { chunk in
                    let rows = (chunk * columnSumChunk)..<Swift.min((chunk + 1) * columnSumChunk, data.rowCount)
                    let sums = shared.parts.baseAddress! + 2 &* d &* chunk
                    let squares = sums + d
                    for i in rows {
                        let row = shared.x.baseAddress! + i &* d
                        for j in 0..<d {
                            let value = Double(row[j])
                            sums[j] += value
                            squares[j] += value * value
                        }
                    }
                }
            }
        }
        var sums = [Double](repeating: 0, count: d)
        var squares = [Double](repeating: 0, count: d)
        for chunk in 0..<chunks {
            for j in 0..<d {
                sums[j] += parts[2 * d * chunk + j]
                squares[j] += parts[2 * d * chunk + d + j]
            }
        }
        return (sums, squares)
    }

    /// The buffers the parallel chunks of ``columnSums(_:)`` share; each writes only its own sums.
    private struct ColumnSumBuffers: @unchecked Sendable {
        let x: UnsafeBufferPointer<Float>
        let parts: UnsafeMutableBufferPointer<Double>
    }

    /// The buffers the parallel chunks of ``squaredDistances(_:labels:centroids:threadCount:into:)``
    /// share; each chunk writes only its own rows and total.
    private struct DistanceBuffers: @unchecked Sendable {
        let x: UnsafeBufferPointer<Float>
        let c: UnsafeBufferPointer<Float>
        let labels: UnsafeBufferPointer<Int32>
        let result: UnsafeMutableBufferPointer<Float>
        let totals: UnsafeMutableBufferPointer<Double>
    }

    /// For every row of `data`, `min(current[i], ‖xᵢ − p‖²)`, and the sum of those minima.
    static func minimumSquaredDistances(
        _ data: Matrix,
        to point: ArraySlice<Float>,
        current: [Float]?
    ) -> (distances: [Float], total: Double) {
        let d = data.columnCount
        let n = data.rowCount
        var result = [Float](repeating: 0, count: n)
        var total = 0.0
        let point = Array(point)
        data.elements.withUnsafeBufferPointer { x in
            point.withUnsafeBufferPointer { p in
                var run: Float = 0
                for i in 0..<n {
                    let row = x.baseAddress! + i * d
                    var sum: Float = 0
                    for j in 0..<d {
                        let difference = row[j] - p[j]
                        sum += difference * difference
                    }
                    if let current, current[i] < sum { sum = current[i] }
                    result[i] = sum
                    run += sum
                    if i & 1023 == 1023 {
                        total += Double(run)
                        run = 0
                    }
                }
                total += Double(run)
            }
        }
        return (result, total)
    }
}
