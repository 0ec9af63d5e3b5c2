import CBLAS
import Dispatch
import Features

// Lloyd's assignment step with Hamerly's bound, reduced to one number per row (a lower bound on
// the gap between the nearest and the second-nearest centroid), so that rows whose nearest
// centroid provably did not move are skipped, and the centroid sums are updated only by the rows
// that changed cluster. Like the other `Kernels` files, pointers never escape the closures that
// lend them.
//
// Why one number per row. The fit may use the matrix plus 25 % (3 floats per row at d = 12), and
// labels and margins take 2 of them. Richer bounds need more, and on the benchmark's data (1M rows,
// k = 16, 20 iterations, replayed in Double with numpy) they would not pay for it:
// over the 12 bounded passes the single margin recomputes 3.7 M rows; Hamerly's two bounds, the
// own distance tightened first, recompute 3.1 M in full but read the 4.6 M rows that fail the
// first test (reading scattered rows is much of what a recomputed row costs: a random quarter of
// the rows costs about 1.3× as much per row as a quarter in blocks); Elkan's k bounds per row
// compute about 1 % of the distances but take 16 floats per row. The margins drop by 0.2–0.9 per
// pass on that data (every centroid keeps moving), which is why 13–44 % of the rows fail the test
// in a pass while under 2 % change cluster.

extension Kernels {
    // MARK: - Bound state

    /// What a bounded assignment pass changed.
    struct BoundedAssignment: Sendable {
        /// Per centroid, the sum of the rows that joined it minus the sum of those that left it
        /// (`k × d`, row-major), in Double.
        var sumChanges: [Double]
        /// Per centroid, the number of rows that joined it minus the number that left it.
        var countChanges: [Int]
        /// How many rows got a label different from the one they had.
        var changedCount: Int
        /// How many rows had their distances computed; the others were skipped by their bound.
        var recomputedCount: Int
    }

    /// How much the margins must be discounted for floating-point rounding, so that a bound
    /// computed in `Float` is still a bound of the exact distances.
    struct MarginRounding: Sendable {
        /// The relative error of a score ‖c‖²/2 − x·c and of ‖x‖², times 2 for the squared
        /// distance ‖x‖² + 2·score, per unit of ‖x‖² + max ‖c‖²: (3d + 8) unit roundoffs.
        var squaredDistanceError: Float
        /// The largest ‖c‖² of the centroids of the pass.
        var largestCentroidNorm: Float

        init(d: Int, centroids: Matrix) {
            squaredDistanceError = Float(3 * d + 8) * Float.ulpOfOne / 2
            largestCentroidNorm = (0..<centroids.rowCount).reduce(0) { largest, c in
                var norm: Float = 0
                for j in 0..<d { norm += centroids[c, j] * centroids[c, j] }
                return Swift.max(largest, norm)
            }
        }
    }

    /// The amount by which every margin drops when the centroids move from `old` to `new`: for a
    /// row labelled `c`, its centroid moved `δ_c` away at most and every other centroid came
    /// `max_{c′ ≠ c} δ_c′` closer at most (triangle inequality). Rounded up.
    static func marginDrops(from old: Matrix, to new: Matrix) -> [Float] {
        let k = old.rowCount
        let d = old.columnCount
        let shifts = (0..<k).map { c in
            var sum = 0.0
            for j in 0..<d {
                let difference = Double(new[c, j]) - Double(old[c, j])
                sum += difference * difference
            }
            return sum.squareRoot()
        }
        let sorted = shifts.sorted(by: >)
        return shifts.map { shift in
            let largestOther = shift == sorted[0] && k > 1 ? sorted[1] : sorted[0]
            return Float(shift + (k > 1 ? largestOther : 0)).nextUp
        }
    }

    /// How far the margins of each cluster have dropped since the bound started: the drops of
    /// every pass (``marginDrops(from:to:)``) summed.
    ///
    /// A row's margin is stored as its margin when last computed plus its cluster's level then,
    /// so that a pass compares it with the level now instead of lowering every margin (which wrote
    /// every row back each pass). The sums are kept in `Double`, rounded up at every step, and
    /// handed to the passes as `Float`: rounded up to compare with (``upper``) and down to add to
    /// a new margin (``lower``), so that a stored margin that exceeds the level now still proves
    /// that the row's exact margin stayed positive.
    struct MarginLevels: Sendable {
        /// Per cluster, the sum of the drops so far.
        private(set) var sums: [Double]
        /// ``sums`` rounded up: a row is skipped while its stored margin exceeds its cluster's.
        private(set) var upper: [Float]
        /// ``sums`` rounded down: added to a new margin to store it.
        private(set) var lower: [Float]

        /// Every level 0, as before the first bounded pass.
        init(clusterCount k: Int) {
            sums = [Double](repeating: 0, count: k)
            upper = [Float](repeating: 0, count: k)
            lower = [Float](repeating: 0, count: k)
        }

        /// Adds one pass's drops to the levels.
        mutating func add(_ drops: [Float]) {
            for c in sums.indices {
                let sum = (sums[c] + Double(drops[c])).nextUp
                let nearest = Float(sum)
                sums[c] = sum
                upper[c] = Double(nearest) >= sum ? nearest : nearest.nextUp
                lower[c] = Double(nearest) <= sum ? nearest : nearest.nextDown
            }
        }

        /// The stored form of a new margin of a row in cluster `c`, rounded down; 0 (no margin,
        /// never above a level) stays 0.
        @inline(__always)
        func stored(_ margin: Float, cluster c: Int) -> Float {
            // The sum of a positive and a non-negative float is positive, and the float just
            // below a positive one is its bit pattern less 1 (`nextDown` without its checks for
            // zero, infinity and NaN).
            margin > 0 ? Float(bitPattern: (margin + lower[c]).bitPattern &- 1) : 0
        }
    }

    // MARK: - Bounded pass

    /// Assigns to its nearest centroid every row whose bound does not prove that its label still
    /// holds, updating `labels` and `margins` in place; returns how the centroid sums change.
    ///
    /// `margins[i]` less `levels.upper[labels[i]]` is a lower bound on
    /// ‖xᵢ − c₂‖ − ‖xᵢ − c_{labels[i]}‖, where c₂ is the nearest of the other centroids
    /// (``MarginLevels``). Either every label is a centroid index or every label is negative (the
    /// first pass, where every row is computed). A row whose stored margin exceeds its cluster's
    /// level keeps its label, which is then still its exact nearest centroid, and is not written.
    /// The other rows go through the fused kernel, 8 at a time, gathered by index, and get a new
    /// margin from their two best scores, discounted by ``MarginRounding``.
    ///
    /// With `writesDistances` (a fit's last pass, after which the margins are not needed), each
    /// run of rows, once labelled, gets its exact squared distances to its centroids written over
    /// its margins, as ``squaredDistances(_:labels:centroids:threadCount:into:)`` computes them:
    /// each run's rows are streamed for their distances before its candidates are gathered from
    /// cache, and the labels are not read a second time. Every label must then be a centroid index.
    ///
    /// The rows are split into contiguous chunks (``passChunks(rows:threadCount:)``) run on
    /// `threadCount` threads, each summing the rows that change cluster in `Float` over runs of
    /// ``runLength`` rows and then in `Double`; chunks are merged in order, so the result depends
    /// on the thread count but not on scheduling.
    static func assignBounded(
        _ data: Matrix,
        to prepared: PreparedCentroids,
        levels: MarginLevels,
        rounding: MarginRounding,
        labels: inout [Int32],
        margins: inout [Float],
        writesDistances: Bool = false,
        threadCount: Int
    ) -> BoundedAssignment {
        precondition(labels.count == data.rowCount && margins.count == data.rowCount, "One label and margin per row.")
        precondition(!writesDistances || labels.first.map { $0 >= 0 } ?? true, "Distances need labelled rows.")
        let d = data.columnCount
        let k = prepared.centroids.rowCount
        let blocks = passChunks(rows: data.rowCount, threadCount: threadCount)
        let parts = data.elements.withUnsafeBufferPointer { x in
            labels.withUnsafeMutableBufferPointer { labels in
                margins.withUnsafeMutableBufferPointer { margins in
                    levels.upper.withUnsafeBufferPointer { upper in
                        prepared.centroids.elements.withUnsafeBufferPointer { centroids in
                            parallelChunks(blocks, threadCount: threadCount) { rows in
                                assignBoundedBlock(
                                    x,
                                    centroids: writesDistances ? centroids : nil,
                                    labels: labels,
                                    margins: margins,
                                    upperLevels: upper,
                                    rows: rows,
                                    d: d,
                                    k: k,
                                    prepared,
                                    levels: levels,
                                    rounding: rounding
                                )
                            }
                        }
                    }
                }
            }
        }
        var merged = BoundedAssignment(
            sumChanges: [Double](repeating: 0, count: k * d),
            countChanges: [Int](repeating: 0, count: k),
            changedCount: 0,
            recomputedCount: 0
        )
        for part in parts {
            for index in merged.sumChanges.indices { merged.sumChanges[index] += part.sumChanges[index] }
            for index in merged.countChanges.indices { merged.countChanges[index] += part.countChanges[index] }
            merged.changedCount += part.changedCount
            merged.recomputedCount += part.recomputedCount
        }
        return merged
    }

    /// One block of ``assignBounded(_:to:levels:rounding:labels:margins:writesDistances:threadCount:)``.
    ///
    /// `centroids` holds the centroids' elements when the pass writes the squared distances over
    /// the margins, and is `nil` otherwise; `upperLevels` is ``MarginLevels/upper``. The block
    /// writes only its own rows of `labels` and `margins`.
    private static func assignBoundedBlock(
        _ x: UnsafeBufferPointer<Float>,
        centroids distanceCentroids: UnsafeBufferPointer<Float>?,
        labels: UnsafeMutableBufferPointer<Int32>,
        margins: UnsafeMutableBufferPointer<Float>,
        upperLevels: UnsafeBufferPointer<Float>,
        rows: Range<Int>,
        d: Int,
        k: Int,
        _ prepared: PreparedCentroids,
        levels: MarginLevels,
        rounding: MarginRounding
    ) -> BoundedAssignment {
        var sums = [Double](repeating: 0, count: k * d)
        // Per run: rows joining a cluster, even and odd candidates apart (so that consecutive rows
        // of one cluster do not wait on each other's stores), then rows leaving a cluster.
        var runSums = [Float](repeating: 0, count: 3 * k * d)
        var counts = [Int](repeating: 0, count: k)
        var candidates = [Int32](repeating: 0, count: runLength)
        var newLabels = [Int32](repeating: 0, count: runLength)
        var newMargins = [Float](repeating: 0, count: runLength)
        // The candidates' tile, then a second for the distances' centroids.
        var tile = [SIMD8<Float>](repeating: .zero, count: 2 * d)
        var changed = 0
        var recomputed = 0
        let keepsMargins = distanceCentroids == nil
        runSums.withUnsafeMutableBufferPointer { runSums in
            counts.withUnsafeMutableBufferPointer { counts in
                candidates.withUnsafeMutableBufferPointer { candidates in
                    newLabels.withUnsafeMutableBufferPointer { newLabels in
                        newMargins.withUnsafeMutableBufferPointer { newMargins in
                            tile.withUnsafeMutableBufferPointer { tile in
                                forEachRun(of: rows) { run in
                                    // The bound test: rows whose stored margin does not exceed
                                    // their cluster's level.
                                    var candidateCount = 0
                                    if labels[run.lowerBound] < 0 {
                                        // The first pass: no row has a label or a margin yet.
                                        for i in run {
                                            candidates[candidateCount] = Int32(truncatingIfNeeded: i)
                                            candidateCount &+= 1
                                        }
                                    } else {
                                        candidateCount = boundCandidates(
                                            run,
                                            labels: UnsafePointer(labels.baseAddress!),
                                            margins: UnsafePointer(margins.baseAddress!),
                                            upperLevels: upperLevels.baseAddress!,
                                            into: candidates.baseAddress!
                                        )
                                    }
                                    if let centroids = distanceCentroids {
                                        // The distances replace the margins, by the labels the rows
                                        // have: this streams the run into cache, where the candidates
                                        // then find their rows; those that change cluster are redone.
                                        writeSquaredDistances(
                                            x.baseAddress!,
                                            centroids: centroids.baseAddress!,
                                            labels: labels.baseAddress!,
                                            rows: run,
                                            d: d,
                                            tiles: tile.baseAddress!,
                                            into: margins.baseAddress!
                                        )
                                    }
                                    guard candidateCount > 0 else { return }
                                    recomputed &+= candidateCount
                                    let runCandidates = UnsafeBufferPointer(rebasing: candidates[0..<candidateCount])
                                    assignCandidates(
                                        x,
                                        runCandidates,
                                        d: d,
                                        prepared,
                                        rounding: rounding,
                                        tile: tile.baseAddress!,
                                        labels: newLabels,
                                        margins: newMargins
                                    )
                                    var runChanged = 0
                                    for slot in 0..<candidateCount {
                                        let i = Int(runCandidates[slot])
                                        let old = labels[i]
                                        let new = newLabels[slot]
                                        if keepsMargins {
                                            margins[i] = levels.stored(newMargins[slot], cluster: Int(new))
                                        }
                                        guard old != new else { continue }
                                        runChanged &+= 1
                                        labels[i] = new
                                        if let centroids = distanceCentroids {
                                            writeSquaredDistances(
                                                x.baseAddress!,
                                                centroids: centroids.baseAddress!,
                                                labels: labels.baseAddress!,
                                                rows: i..<(i &+ 1),
                                                d: d,
                                                tiles: tile.baseAddress!,
                                                into: margins.baseAddress!
                                            )
                                        }
                                        moveRow(
                                            x.baseAddress! + i &* d,
                                            to: new,
                                            from: old,
                                            parity: slot & 1,
                                            d: d,
                                            counts,
                                            runSums
                                        )
                                    }
                                    if runChanged > 0 {
                                        addRunSums(runSums, into: &sums)
                                        changed &+= runChanged
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return BoundedAssignment(
            sumChanges: sums,
            countChanges: counts,
            changedCount: changed,
            recomputedCount: recomputed
        )
    }

    // MARK: - Bound test

    /// The bound test of a run of rows: writes to `candidates`, in order, the rows whose stored
    /// margin does not exceed their cluster's upper level (``MarginLevels``), and returns how many
    /// there are. `candidates` must have room for one per row of `rows`.
    ///
    /// No branch depends on the data: 13–45 % of the rows fail the test in a pass, scattered, so
    /// a branch per row would be mispredicted. On x86-64 the rows go 8 at a time: their levels
    /// gathered by label and compared in one vector, the lanes that hold a candidate read as the
    /// bits of an integer (`movmskps`, for which Swift has no spelling), and the 8 rows' indices
    /// stored all at once, those of the candidates first (``compressedLanes``), the count advanced
    /// by the bits set. Measured on 1M rows (harness, 1 thread): a pass with no candidates took
    /// 0.69 ms instead of 2.20 (the scalar test, row by row), one that recomputes a random quarter
    /// of the rows 6.52 ms instead of 7.97.
    @inline(__always)
    static func boundCandidates(
        _ rows: Range<Int>,
        labels: UnsafePointer<Int32>,
        margins: UnsafePointer<Float>,
        upperLevels: UnsafePointer<Float>,
        into candidates: UnsafeMutablePointer<Int32>
    ) -> Int {
        var count = 0
        var i = rows.lowerBound
        #if arch(x86_64)
        compressedLanes.withUnsafeBufferPointer { compressedLanes in
            while i &+ rowsPerBlock <= rows.upperBound {
                let label = UnsafeRawPointer(labels + i).loadUnaligned(as: SIMD8<Int32>.self)
                let margin = UnsafeRawPointer(margins + i).loadUnaligned(as: SIMD8<Float>.self)
                let level = SIMD8(
                    upperLevels[Int(label[0])],
                    upperLevels[Int(label[1])],
                    upperLevels[Int(label[2])],
                    upperLevels[Int(label[3])],
                    upperLevels[Int(label[4])],
                    upperLevels[Int(label[5])],
                    upperLevels[Int(label[6])],
                    upperLevels[Int(label[7])]
                )
                let lanes = laneBits(margin .<= level)
                UnsafeMutableRawPointer(candidates + count).storeBytes(
                    of: SIMD8(repeating: Int32(truncatingIfNeeded: i)) &+ compressedLanes[lanes],
                    as: SIMD8<Int32>.self
                )
                count &+= lanes.nonzeroBitCount
                i &+= rowsPerBlock
            }
        }
        #endif
        while i < rows.upperBound {
            // The difference is finite, and not positive exactly when its bits, read as a signed
            // integer, are ≤ 0 (it is never −0).
            let bits = Int32(bitPattern: (margins[i] - upperLevels[Int(labels[i])]).bitPattern)
            candidates[count] = Int32(truncatingIfNeeded: i)
            count &+= Int(((bits &- 1) >> 31) & 1)
            i &+= 1
        }
        return count
    }

    #if arch(x86_64)
    /// For each set of 8 lanes (bit `l` for lane `l`), the indices of the lanes in the set in
    /// increasing order, then zeros.
    static let compressedLanes: [SIMD8<Int32>] = (0..<256).map { set in
        var lanes = SIMD8<Int32>.zero
        var count = 0
        for lane in 0..<8 where set & (1 << lane) != 0 {
            lanes[count] = Int32(lane)
            count += 1
        }
        return lanes
    }
    #endif

    // MARK: - Candidates

    /// The fused kernel over rows given by index: the label of each and a new margin, the gap
    /// between the distances to its two best centroids, discounted for rounding.
    ///
    /// The squared distances come from the scores as q = ‖x‖² + 2·(‖c‖²/2 − x·c), whose error is
    /// at most `E = squaredDistanceError · (‖x‖² + max ‖c‖²)`; when `q ≥ 2E`, a square root then
    /// moves by at most `E / (√q + √(q − E)) ≤ E / √q`. A row that close to its centroid
    /// (`q < 2E`) gets no margin and is recomputed every pass.
    ///
    /// The roots are taken in vector registers as `q · y` with `y ≈ 1/√q` from the classic
    /// bit-level estimate and two Newton steps (relative error below 5·10⁻⁶, allowed for as
    /// ``rootTolerance``): Swift code has no vector square root, and `Float.squareRoot()` is a
    /// library call with an error check that keeps the loop scalar (measured: the margins then
    /// cost as much as the distances).
    private static func assignCandidates(
        _ x: UnsafeBufferPointer<Float>,
        _ rows: UnsafeBufferPointer<Int32>,
        d: Int,
        _ prepared: PreparedCentroids,
        rounding: MarginRounding,
        tile columns: UnsafeMutablePointer<SIMD8<Float>>,
        labels: UnsafeMutableBufferPointer<Int32>,
        margins: UnsafeMutableBufferPointer<Float>
    ) {
        let k = prepared.centroids.rowCount
        prepared.splatted.withUnsafeBufferPointer { splatted in
            prepared.halfNorms.withUnsafeBufferPointer { halfNorms in
                // The rows are scattered, in a pattern the hardware prefetcher does not follow, so
                // each is requested 4 groups ahead of its scoring. Measured on 1M rows with a
                // random quarter recomputed: the pass takes 25–30 % less time.
                let ahead = 4 &* rowsPerBlock
                var prefetched = 0
                var slot = 0
                while slot < rows.count {
                    let first = Int(rows[slot])
                    // 16 consecutive rows (every row of a pass that has no margins yet): two tiles
                    // from one base pointer, scored together as in a full pass.
                    let takesSixteen =
                        takesSixteenRows && slot &+ 2 &* rowsPerBlock <= rows.count
                        && Int(rows[slot &+ 2 &* rowsPerBlock &- 1]) == first &+ 2 &* rowsPerBlock &- 1
                    let count = takesSixteen ? 2 &* rowsPerBlock : Swift.min(rowsPerBlock, rows.count &- slot)
                    while prefetched < Swift.min(slot &+ count &+ ahead, rows.count) {
                        prefetchRow(x.baseAddress! + Int(rows[prefetched]) &* d, d: d)
                        prefetched &+= 1
                    }
                    if takesSixteen {
                        let base = x.baseAddress! + first &* d
                        transposeEightRows(d: d, into: columns) { base + $0 &* d }
                        transposeEightRows(d: d, into: columns + d) { base + (rowsPerBlock &+ $0) &* d }
                        let scores =
                            d == 12
                            ? scoreSixteenRows(
                                columns,
                                columns + 12,
                                d: 12,
                                k: k,
                                centroids: splatted.baseAddress!,
                                halfNorms: halfNorms,
                                as: NearestTwo.self
                            )
                            : scoreSixteenRows(
                                columns,
                                columns + d,
                                d: d,
                                k: k,
                                centroids: splatted.baseAddress!,
                                halfNorms: halfNorms,
                                as: NearestTwo.self
                            )
                        let lowMargin = marginsOfEightRows(columns, d: d, scores: scores.low, rounding: rounding)
                        let highMargin = marginsOfEightRows(columns + d, d: d, scores: scores.high, rounding: rounding)
                        let labelTarget = UnsafeMutableRawPointer(labels.baseAddress! + slot)
                        labelTarget.storeBytes(of: scores.low.index, as: SIMD8<Int32>.self)
                        labelTarget.storeBytes(of: scores.high.index, toByteOffset: 32, as: SIMD8<Int32>.self)
                        let marginTarget = UnsafeMutableRawPointer(margins.baseAddress! + slot)
                        marginTarget.storeBytes(of: lowMargin, as: SIMD8<Float>.self)
                        marginTarget.storeBytes(of: highMargin, toByteOffset: 32, as: SIMD8<Float>.self)
                        slot &+= count
                        continue
                    }
                    if count == rowsPerBlock && Int(rows[slot &+ rowsPerBlock &- 1]) == first &+ rowsPerBlock &- 1 {
                        // 8 consecutive rows: one base pointer, as in a full pass.
                        let base = x.baseAddress! + first &* d
                        transposeEightRows(d: d, into: columns) { base + $0 &* d }
                    } else {
                        // Lanes past the last row repeat the first row of the group; their results are dropped.
                        transposeEightRows(d: d, into: columns) { lane in
                            x.baseAddress! + Int(rows[slot &+ (lane < count ? lane : 0)]) &* d
                        }
                    }
                    let scores =
                        d == 12
                        ? scoreEightRowsOfTwelve(columns, k: k, centroids: splatted.baseAddress!, halfNorms: halfNorms)
                        : scoreEightRows(
                            columns,
                            d: d,
                            k: k,
                            centroids: splatted.baseAddress!,
                            halfNorms: halfNorms,
                            as: NearestTwo.self
                        )
                    let margin = marginsOfEightRows(columns, d: d, scores: scores, rounding: rounding)
                    if count == rowsPerBlock {
                        UnsafeMutableRawPointer(labels.baseAddress! + slot).storeBytes(
                            of: scores.index,
                            as: SIMD8<Int32>.self
                        )
                        UnsafeMutableRawPointer(margins.baseAddress! + slot).storeBytes(
                            of: margin,
                            as: SIMD8<Float>.self
                        )
                    } else {
                        for lane in 0..<count {
                            labels[slot &+ lane] = scores.index[lane]
                            margins[slot &+ lane] = margin[lane]
                        }
                    }
                    slot &+= count
                }
            }
        }
    }

    /// The margins of 8 rows (transposed into `columns`) from their two best scores: the gap
    /// between the distances to the two best centroids, discounted for rounding
    /// (``assignCandidates(_:_:d:_:rounding:tile:labels:margins:)`` says how).
    @inline(__always)
    private static func marginsOfEightRows(
        _ columns: UnsafePointer<SIMD8<Float>>,
        d: Int,
        scores: NearestTwo,
        rounding: MarginRounding
    ) -> SIMD8<Float> {
        // ‖x‖² in 4 partial sums, not one chain of d dependent multiply-adds (measured: that
        // chain was the candidates' slowest step); the rounding allowance holds for any order of
        // the sum.
        var norms = (SIMD8<Float>.zero, SIMD8<Float>.zero, SIMD8<Float>.zero, SIMD8<Float>.zero)
        var j = 0
        while j &+ 4 <= d {
            norms.0 = multiplyAdd(norms.0, columns[j], columns[j])
            norms.1 = multiplyAdd(norms.1, columns[j &+ 1], columns[j &+ 1])
            norms.2 = multiplyAdd(norms.2, columns[j &+ 2], columns[j &+ 2])
            norms.3 = multiplyAdd(norms.3, columns[j &+ 3], columns[j &+ 3])
            j &+= 4
        }
        while j < d {
            norms.0 = multiplyAdd(norms.0, columns[j], columns[j])
            j &+= 1
        }
        let norm = (norms.0 + norms.1) + (norms.2 + norms.3)
        let error = rounding.squaredDistanceError * (norm + rounding.largestCentroidNorm)
        var q1 = norm + 2 * scores.best
        q1.replace(with: 0, where: q1 .< 0)
        let q2 = norm + 2 * scores.second
        let y1 = reciprocalSquareRoot(q1)
        let y2 = reciprocalSquareRoot(q2)
        // √q2 from below, √q1 from above, each less its rounding allowance E/√q.
        var margin = q2 * y2 * (1 - rootTolerance) - (q1 * y1 + error * (y1 + y2)) * (1 + rootTolerance)
        // No margin near a centroid (also where q is too small for the estimate of 1/√q), or with
        // a single centroid (no runner-up: q2 = +∞); a margin that is not positive (or NaN)
        // proves nothing: 0 has the row recomputed next pass.
        margin.replace(
            with: 0,
            where: q1 .< 2 * error .| q1 .< Float.leastNormalMagnitude .| q2 .== .infinity .| .!(margin .> 0)
        )
        return margin
    }

    /// ``scoreEightRows(_:d:k:centroids:halfNorms:as:eightAtATime:)`` with `NearestTwo` for
    /// rows of 12 features, out of line but with `d` a constant, so that the loop over features
    /// addresses the centroids by constant offsets. The compiler declines to inline the scoring
    /// into ``assignCandidates(_:_:d:_:rounding:tile:labels:margins:)``, and forcing it made the
    /// pass 2–3× slower (spills). Measured on a pass that recomputes every row: 5 % faster in one
    /// A/B run, within the noise in another.
    @inline(never)
    private static func scoreEightRowsOfTwelve(
        _ columns: UnsafePointer<SIMD8<Float>>,
        k: Int,
        centroids: UnsafePointer<SIMD8<Float>>,
        halfNorms: UnsafeBufferPointer<Float>
    ) -> NearestTwo {
        scoreEightRows(columns, d: 12, k: k, centroids: centroids, halfNorms: halfNorms, as: NearestTwo.self)
    }

    // MARK: - Prefetch and square roots

    /// Requests the cache lines of a row of `d` floats: one every 16 floats (64 bytes) and the
    /// last element's (a row of 12 floats spans one or two lines).
    @inline(__always)
    static func prefetchRow(_ row: UnsafePointer<Float>, d: Int) {
        var j = 0
        while j < d {
            vibes_prefetch(row + j)
            j &+= 16
        }
        vibes_prefetch(row + (d &- 1))
    }

    /// The largest relative error of ``reciprocalSquareRoot(_:)``, with room to spare.
    static let rootTolerance: Float = 1e-5

    /// `1/√q` per lane, within ``rootTolerance`` relative for positive normal `q`: the bit-level
    /// first guess (0x5F375A86, within 3.5 %) and two Newton steps (within 0.18 %, then within
    /// 5·10⁻⁶ plus a few ulps).
    @inline(__always)
    static func reciprocalSquareRoot(_ q: SIMD8<Float>) -> SIMD8<Float> {
        let bits = unsafeBitCast(q, to: SIMD8<UInt32>.self)
        let guess = unsafeBitCast(SIMD8<UInt32>(repeating: 0x5F37_5A86) &- (bits &>> 1), to: SIMD8<Float>.self)
        let half = 0.5 * q
        let once = guess * (1.5 - half * guess * guess)
        return once * (1.5 - half * once * once)
    }
}
