import CBLAS
import Features

// This is the only file of `Analytics` that imports CBLAS or touches element pointers.
// Pointers never escape the closures that lend them; every kernel takes and returns arrays, so the
// callers can run kernels on different row blocks in different tasks without sharing memory.

/// The distance step of a Lloyd iteration: how each point finds its nearest centroid.
///
/// Both were measured and the fused kernel kept as the default; the figures are on
/// ``KMeans/Options/kernel``.
public enum DistanceKernel: String, CaseIterable, Hashable, Sendable, Codable {
    /// A fused SIMD loop: centroids transposed into 8-lane groups, ‖c‖²/2 − x·c accumulated in
    /// registers, argmin in the same pass. No intermediate distance matrix.
    case fused
    /// `cblas_sgemm` on 256-row blocks (`−X·Cᵀ` into a 256×k buffer that stays in L1/L2), then a
    /// scalar argmin over ‖c‖²/2 − x·c, as scikit-learn does.
    case blas
}

/// Low-level loops over matrix rows. Every function works on the rows `rows` of `data` only.
enum Kernels {
    /// The number of centroids one SIMD group holds.
    static let groupWidth = 8

    /// Centroids laid out for the fused kernel: for group `g` and feature `j`, the lanes of
    /// `transposed[g * d + j]` are feature `j` of centroids `8g ..< 8g + 8`.
    struct PreparedCentroids: Sendable {
        var centroids: Matrix
        var groupCount: Int
        var transposed: [SIMD8<Float>]
        /// ‖c‖²/2 per centroid, `+∞` in padding lanes so they never win.
        var halfNorms: [SIMD8<Float>]
        /// ‖c‖²/2 per centroid, unpadded.
        var scalarHalfNorms: [Float]

        init(_ centroids: Matrix) {
            let k = centroids.rowCount
            let d = centroids.columnCount
            self.centroids = centroids
            groupCount = (k + Kernels.groupWidth - 1) / Kernels.groupWidth
            transposed = Array(repeating: .zero, count: groupCount * d)
            halfNorms = Array(repeating: SIMD8(repeating: .infinity), count: groupCount)
            scalarHalfNorms = Array(repeating: 0, count: k)
            for c in 0..<k {
                var norm: Float = 0
                for j in 0..<d {
                    let value = centroids.elements[c * d + j]
                    transposed[(c / 8) * d + j][c % 8] = value
                    norm += value * value
                }
                halfNorms[c / 8][c % 8] = norm / 2
                scalarHalfNorms[c] = norm / 2
            }
        }
    }

    /// The result of assigning a block of rows.
    struct Assignment: Sendable {
        /// The nearest centroid of each row of the block.
        var labels: [Int32]
        /// Per centroid, the sum of the block's rows assigned to it (`k × d`, row-major), in Double.
        var sums: [Double]
        /// Per centroid, the number of the block's rows assigned to it.
        var counts: [Int]
        /// How many rows changed label from `previousLabels`.
        var changedCount: Int
    }

    /// Assigns every row in `rows` to its nearest centroid and, if `accumulate`, sums the rows per
    /// centroid.
    ///
    /// Sums are gathered in `Float` over runs of 2,048 rows and then added into `Double`, so the
    /// rounding error does not grow with the number of rows. Ties go to the lowest centroid index.
    static func assign(
        _ data: Matrix, rows: Range<Int>, to prepared: PreparedCentroids, previousLabels: [Int32]?,
        accumulate: Bool, kernel: DistanceKernel
    ) -> Assignment {
        let d = data.columnCount
        let k = prepared.centroids.rowCount
        var labels = [Int32](repeating: 0, count: rows.count)
        var sums = [Double](repeating: 0, count: accumulate ? k * d : 0)
        var runSums = [Float](repeating: 0, count: k * d)
        var counts = [Int](repeating: 0, count: k)
        var changed = 0
        let previous = previousLabels ?? []
        let comparesLabels = previousLabels != nil
        let runLength = 2048

        data.elements.withUnsafeBufferPointer { x in
            labels.withUnsafeMutableBufferPointer { labels in
                runSums.withUnsafeMutableBufferPointer { runSums in
                    counts.withUnsafeMutableBufferPointer { counts in
                        previous.withUnsafeBufferPointer { previous in
                            sums.withUnsafeMutableBufferPointer { sums in
                                var runStart = rows.lowerBound
                                while runStart < rows.upperBound {
                                    let runEnd = Swift.min(runStart + runLength, rows.upperBound)
                                    let run = runStart..<runEnd
                                    switch kernel {
                                    case .fused:
                                        assignFused(x, rows: run, offset: rows.lowerBound, d: d, prepared, into: labels)
                                    case .blas:
                                        assignBLAS(x, rows: run, offset: rows.lowerBound, d: d, prepared, into: labels)
                                    }
                                    for i in run {
                                        let label = labels[i &- rows.lowerBound]
                                        counts[Int(label)] &+= 1
                                        if comparesLabels && previous[i] != label { changed &+= 1 }
                                        if accumulate {
                                            add(x.baseAddress! + i &* d, into: runSums.baseAddress! + Int(label) &* d, count: d)
                                        }
                                    }
                                    if accumulate {
                                        for index in 0..<(k * d) {
                                            sums[index] += Double(runSums[index])
                                            runSums[index] = 0
                                        }
                                    }
                                    runStart = runEnd
                                }
                            }
                        }
                    }
                }
            }
        }
        return Assignment(
            labels: labels, sums: sums, counts: counts, changedCount: comparesLabels ? changed : rows.count)
    }

    /// Adds `count` floats at `source` to `target`, four at a time.
    @inline(__always)
    private static func add(_ source: UnsafePointer<Float>, into target: UnsafeMutablePointer<Float>, count: Int) {
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

    /// The smallest lane of `v`.
    @inline(__always)
    private static func horizontalMinimum(_ v: SIMD8<Float>) -> Float {
        let four = v.lowHalf.replacing(with: v.highHalf, where: v.highHalf .< v.lowHalf)
        let two = four.lowHalf.replacing(with: four.highHalf, where: four.highHalf .< four.lowHalf)
        return two[1] < two[0] ? two[1] : two[0]
    }

    /// The fused kernel: per row, per group of 8 centroids, ‖c‖²/2 − x·c in one SIMD8 register.
    ///
    /// Rows go in pairs, so each centroid vector loaded serves two rows and the two dot products
    /// form independent dependency chains; the running best score and its centroid index (held as
    /// a `Float`, exact below 2²⁴) are kept per lane and reduced across lanes once per row.
    @inline(__always)
    private static func assignFused(
        _ x: UnsafeBufferPointer<Float>, rows: Range<Int>, offset: Int, d: Int,
        _ prepared: PreparedCentroids, into labels: UnsafeMutableBufferPointer<Int32>
    ) {
        let lanes = SIMD8<Float>(0, 1, 2, 3, 4, 5, 6, 7)
        let groupCount = prepared.groupCount
        prepared.transposed.withUnsafeBufferPointer { transposed in
            prepared.halfNorms.withUnsafeBufferPointer { halfNorms in
                let ct = transposed.baseAddress!
                let norms = halfNorms.baseAddress!
                var i = rows.lowerBound
                while i &+ 2 <= rows.upperBound {
                    let row0 = x.baseAddress! + i &* d
                    let row1 = row0 + d
                    var best0 = SIMD8<Float>(repeating: .infinity)
                    var best1 = SIMD8<Float>(repeating: .infinity)
                    var index0 = SIMD8<Float>(repeating: 0)
                    var index1 = SIMD8<Float>(repeating: 0)
                    var group = ct
                    for g in 0..<groupCount {
                        var dot0 = SIMD8<Float>.zero
                        var dot1 = SIMD8<Float>.zero
                        for j in 0..<d {
                            let c = group[j]
                            dot0 += c * row0[j]
                            dot1 += c * row1[j]
                        }
                        let norm = norms[g]
                        let groupLanes = lanes + Float(g &* 8)
                        let score0 = norm - dot0
                        let score1 = norm - dot1
                        let isBetter0 = score0 .< best0
                        let isBetter1 = score1 .< best1
                        best0.replace(with: score0, where: isBetter0)
                        best1.replace(with: score1, where: isBetter1)
                        index0.replace(with: groupLanes, where: isBetter0)
                        index1.replace(with: groupLanes, where: isBetter1)
                        group += d
                    }
                    let minimum0 = horizontalMinimum(best0)
                    let minimum1 = horizontalMinimum(best1)
                    labels[i &- offset] = Int32(horizontalMinimum(index0.replacing(with: .infinity, where: best0 .!= minimum0)))
                    labels[i &+ 1 &- offset] = Int32(horizontalMinimum(index1.replacing(with: .infinity, where: best1 .!= minimum1)))
                    i &+= 2
                }
                if i < rows.upperBound {
                    let row = x.baseAddress! + i &* d
                    var best = SIMD8<Float>(repeating: .infinity)
                    var bestIndex = SIMD8<Float>(repeating: 0)
                    var group = ct
                    for g in 0..<groupCount {
                        var dot = SIMD8<Float>.zero
                        for j in 0..<d { dot += group[j] * row[j] }
                        let score = norms[g] - dot
                        let isBetter = score .< best
                        best.replace(with: score, where: isBetter)
                        bestIndex.replace(with: lanes + Float(g &* 8), where: isBetter)
                        group += d
                    }
                    let minimum = horizontalMinimum(best)
                    labels[i &- offset] = Int32(horizontalMinimum(bestIndex.replacing(with: .infinity, where: best .!= minimum)))
                }
            }
        }
    }

    /// The BLAS kernel: `−X·Cᵀ` for up to 256 rows with one single-threaded `cblas_sgemm`, then a
    /// scalar argmin of ‖c‖²/2 − x·c.
    private static func assignBLAS(
        _ x: UnsafeBufferPointer<Float>, rows: Range<Int>, offset: Int, d: Int,
        _ prepared: PreparedCentroids, into labels: UnsafeMutableBufferPointer<Int32>
    ) {
        let k = prepared.centroids.rowCount
        let blockRows = 256
        var products = [Float](repeating: 0, count: blockRows * k)
        products.withUnsafeMutableBufferPointer { products in
            prepared.centroids.elements.withUnsafeBufferPointer { c in
                prepared.scalarHalfNorms.withUnsafeBufferPointer { halfNorms in
                    var start = rows.lowerBound
                    while start < rows.upperBound {
                        let m = Swift.min(blockRows, rows.upperBound - start)
                        cblas_sgemm(
                            CblasRowMajor, CblasNoTrans, CblasTrans, Int32(m), Int32(k), Int32(d),
                            -1, x.baseAddress! + start * d, Int32(d), c.baseAddress, Int32(d),
                            0, products.baseAddress, Int32(k))
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
                            labels[start + r - offset] = bestIndex
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

    /// The exact squared distance ‖x − c‖² of every row in `rows` to the centroid given by `labels`
    /// (one label per row of `data`), computed by differences, not by the expanded form.
    static func squaredDistances(_ data: Matrix, rows: Range<Int>, labels: [Int32], centroids: Matrix) -> [Float] {
        let d = data.columnCount
        var result = [Float](repeating: 0, count: rows.count)
        data.elements.withUnsafeBufferPointer { x in
            centroids.elements.withUnsafeBufferPointer { c in
                for i in rows {
                    let row = x.baseAddress! + i * d
                    let centroid = c.baseAddress! + Int(labels[i]) * d
                    var sum: Float = 0
                    for j in 0..<d {
                        let difference = row[j] - centroid[j]
                        sum += difference * difference
                    }
                    result[i - rows.lowerBound] = sum
                }
            }
        }
        return result
    }

    /// For every row of `data`, `min(current[i], ‖xᵢ − p‖²)`, and the sum of those minima.
    static func minimumSquaredDistances(
        _ data: Matrix, to point: ArraySlice<Float>, current: [Float]?
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
