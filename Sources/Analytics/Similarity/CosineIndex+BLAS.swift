import CBLAS
import Features
import Foundation

// The pointer code of the similarity engine (style rule 25): every `withUnsafe…` and every BLAS
// call of `CosineIndex` is in this file, and no pointer leaves its closure.

extension CosineIndex {
    /// Queries per `sgemm` block (see ``blockShape``).
    package static var queryBlock: Int { blockShape.queries }
    /// Indexed rows per `sgemm` block (see ``blockShape``).
    static var itemBlock: Int { blockShape.items }

    /// The block shape: queries × indexed rows per `sgemm` call. The score buffer (queries × rows
    /// floats) should stay in one core's L2 (1 MiB here) while its queries scan it.
    /// `VIBES_KNN_BLOCK=QxN` overrides it for benchmarking.
    static let blockShape: (queries: Int, items: Int) = {
        if let text = ProcessInfo.processInfo.environment["VIBES_KNN_BLOCK"] {
            let parts = text.split(separator: "x").compactMap { Int($0) }
            if parts.count == 2, parts[0] > 0, parts[1] > 0 { return (parts[0], parts[1]) }
        }
        return (256, 1_024)
    }()

    /// Returns `matrix` with every row scaled to unit length; zero rows stay zero.
    ///
    /// Written straight into the new storage in one pass: copying the matrix and then calling
    /// `cblas_snrm2` and `cblas_sscal` per 12-value row cost about 60 ms on a million rows, mostly
    /// in the calls and in faulting in the copy.
    static func normalizedRows(of matrix: Matrix) -> Matrix {
        let d = matrix.columnCount
        guard d > 0, matrix.rowCount > 0 else { return matrix }
        let elements = [Float](unsafeUninitializedCapacity: matrix.elements.count) { out, initialized in
            matrix.elements.withUnsafeBufferPointer { x in
                var start = 0
                while start < x.count {
                    var squares: Double = 0
                    for column in start..<(start + d) { squares += Double(x[column]) * Double(x[column]) }
                    let norm = Float(squares.squareRoot())
                    if norm > 0, norm.isFinite {
                        let scale = 1 / norm
                        for column in start..<(start + d) { out[column] = x[column] * scale }
                    } else {
                        for column in start..<(start + d) { out[column] = x[column] }
                    }
                    start += d
                }
            }
            initialized = matrix.elements.count
        }
        return Matrix(rowCount: matrix.rowCount, columnCount: d, elements: elements)
    }

    /// The dot product of the unit-length `query` with every indexed row.
    func scores(of query: [Float]) -> [Float] {
        var result = [Float](repeating: 0, count: count)
        guard count > 0, dimension > 0 else { return result }
        vectors.elements.withUnsafeBufferPointer { x in
            query.withUnsafeBufferPointer { q in
                result.withUnsafeMutableBufferPointer { y in
                    cblas_sgemv(
                        CblasRowMajor,
                        CblasNoTrans,
                        Int32(count),
                        Int32(dimension),
                        1,
                        x.baseAddress,
                        Int32(dimension),
                        q.baseAddress,
                        1,
                        0,
                        y.baseAddress,
                        1
                    )
                }
            }
        }
        return result
    }

    /// The dot products of every row of the unit-length `queries` with every indexed row: row *i*
    /// of the result (``count`` values) belongs to query *i*.
    ///
    /// - Complexity: O(*q* · *n* · *d*), one single-threaded `sgemm`.
    func scoreMatrix(of queries: Matrix) -> [Float] {
        var result: [Float] = []
        scoreMatrix(of: queries, into: &result)
        return result
    }

    /// ``scoreMatrix(of:)`` written into `result`, resized to its size, so that a caller scoring
    /// block after block reuses one buffer.
    func scoreMatrix(of queries: Matrix, into result: inout [Float]) {
        precondition(queries.columnCount == dimension || queries.rowCount == 0, "Queries need \(dimension) columns.")
        let size = queries.rowCount * count
        if result.count > size { result.removeLast(result.count - size) }
        guard count > 0, dimension > 0, queries.rowCount > 0 else {
            result = [Float](repeating: 0, count: size)
            return
        }
        if result.count < size { result.append(contentsOf: repeatElement(0, count: size - result.count)) }
        openblas_set_num_threads(1)
        vectors.elements.withUnsafeBufferPointer { x in
            queries.elements.withUnsafeBufferPointer { q in
                result.withUnsafeMutableBufferPointer { c in
                    cblas_sgemm(
                        CblasRowMajor,
                        CblasNoTrans,
                        CblasTrans,
                        Int32(queries.rowCount),
                        Int32(count),
                        Int32(dimension),
                        1,
                        q.baseAddress,
                        Int32(dimension),
                        x.baseAddress,
                        Int32(dimension),
                        0,
                        c.baseAddress,
                        Int32(count)
                    )
                }
            }
        }
    }

    /// The exact top-`k` neighbours of the unit-length `queries` rows in `range`.
    ///
    /// For each block of ``queryBlock`` queries and each block of ``itemBlock`` rows, one
    /// single-threaded `sgemm` fills a score buffer; each query then scans its row of the buffer
    /// 32 scores at a time against its current *k*-th best score, and only lanes that reach it go
    /// through the ordered insertion (ties by track ID).
    func topK(of queries: Matrix, rows range: Range<Int>, count k: Int) -> TopKBlock {
        openblas_set_num_threads(1)
        let d = dimension
        let n = count
        let queryCount = range.count
        var topScores = [Float](repeating: -.infinity, count: queryCount * k)
        var topRows = [Int32](repeating: -1, count: queryCount * k)
        var buffer = [Float](repeating: 0, count: CosineIndex.queryBlock * CosineIndex.itemBlock)
        vectors.elements.withUnsafeBufferPointer { x in
            queries.elements.withUnsafeBufferPointer { q in
                trackIDs.withUnsafeBufferPointer { ids in
                    buffer.withUnsafeMutableBufferPointer { c in
                        topScores.withUnsafeMutableBufferPointer { bestScores in
                            topRows.withUnsafeMutableBufferPointer { bestRows in
                                for blockStart in stride(from: 0, to: queryCount, by: CosineIndex.queryBlock) {
                                    let blockCount = Swift.min(CosineIndex.queryBlock, queryCount - blockStart)
                                    let queryBase = q.baseAddress! + (range.lowerBound + blockStart) * d
                                    for itemStart in stride(from: 0, to: n, by: CosineIndex.itemBlock) {
                                        let itemCount = Swift.min(CosineIndex.itemBlock, n - itemStart)
                                        // β = 1 onto a buffer the previous scan left zeroed: OpenBLAS
                                        // then skips its separate pass that zeroes C for β = 0.
                                        cblas_sgemm(
                                            CblasRowMajor,
                                            CblasNoTrans,
                                            CblasTrans,
                                            Int32(blockCount),
                                            Int32(itemCount),
                                            Int32(d),
                                            1,
                                            queryBase,
                                            Int32(d),
                                            x.baseAddress! + itemStart * d,
                                            Int32(d),
                                            1,
                                            c.baseAddress,
                                            Int32(itemCount)
                                        )
                                        for local in 0..<blockCount {
                                            let slot = (blockStart + local) * k
                                            CosineIndex.scan(
                                                c.baseAddress! + local * itemCount,
                                                count: itemCount,
                                                firstRow: itemStart,
                                                ids: ids.baseAddress!,
                                                scores: bestScores.baseAddress! + slot,
                                                rows: bestRows.baseAddress! + slot,
                                                k: k
                                            )
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return TopKBlock(queryCount: queryCount, scores: topScores, rows: topRows)
    }

    /// Merges `count` scores of consecutive rows into one query's sorted top-`k` lists.
    @inline(__always)
    private static func scan(
        _ scores: UnsafeMutablePointer<Float>,
        count: Int,
        firstRow: Int,
        ids: UnsafePointer<Int64>,
        scores best: UnsafeMutablePointer<Float>,
        rows bestRows: UnsafeMutablePointer<Int32>,
        k: Int
    ) {
        var threshold = best[k - 1]
        var j = 0
        let raw = UnsafeMutableRawPointer(scores)
        // 32 scores at a time: a lane-wise maximum over eight 4-lane vectors (compare and blend,
        // one instruction each on any x86-64), then one scalar test against the k-th best score.
        // Only chunks that hold a candidate take the scalar path.
        while j + 32 <= count {
            var m = raw.loadUnaligned(fromByteOffset: j &* 4, as: SIMD4<Float>.self)
            var offset = 4
            while offset < 32 {
                let v = raw.loadUnaligned(fromByteOffset: (j &+ offset) &* 4, as: SIMD4<Float>.self)
                m.replace(with: v, where: v .> m)
                offset &+= 4
            }
            let chunkMax = Swift.max(Swift.max(m[0], m[1]), Swift.max(m[2], m[3]))
            if chunkMax >= threshold {
                for lane in j..<(j + 32) where scores[lane] >= threshold {
                    insert(scores[lane], row: firstRow + lane, ids: ids, scores: best, rows: bestRows, k: k)
                    threshold = best[k - 1]
                }
            }
            // Leave the chunk zeroed for the next β = 1 sgemm (the lines are still in L1).
            offset = 0
            while offset < 32 {
                raw.storeBytes(of: SIMD4<Float>(), toByteOffset: (j &+ offset) &* 4, as: SIMD4<Float>.self)
                offset &+= 4
            }
            j &+= 32
        }
        while j < count {
            if scores[j] >= threshold {
                insert(scores[j], row: firstRow + j, ids: ids, scores: best, rows: bestRows, k: k)
                threshold = best[k - 1]
            }
            scores[j] = 0
            j += 1
        }
    }

    /// Inserts one candidate into a sorted top-`k` list if it ranks before the last entry.
    @inline(__always)
    private static func insert(
        _ score: Float,
        row: Int,
        ids: UnsafePointer<Int64>,
        scores best: UnsafeMutablePointer<Float>,
        rows bestRows: UnsafeMutablePointer<Int32>,
        k: Int
    ) {
        let id = ids[row]
        let lastRow = bestRows[k - 1]
        if lastRow >= 0 && !TopK.ranksBefore(score, id, best[k - 1], ids[Int(lastRow)]) { return }
        var position = k - 1
        while position > 0 {
            let previousRow = bestRows[position - 1]
            if previousRow >= 0 && !TopK.ranksBefore(score, id, best[position - 1], ids[Int(previousRow)]) { break }
            best[position] = best[position - 1]
            bestRows[position] = previousRow
            position -= 1
        }
        best[position] = score
        bestRows[position] = Int32(row)
    }
}
