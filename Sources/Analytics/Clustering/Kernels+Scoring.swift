#if arch(x86_64)
import _Builtin_intrinsics.intel
#endif

extension Kernels {
    // MARK: - Transposing rows

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

    // MARK: - Multiply-add

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

    // MARK: - Scoring

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
}
