#if arch(x86_64)
import _Builtin_intrinsics.intel
#endif

extension Kernels {
    // MARK: - Argmin of 8 rows

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

    // MARK: - Lane masks

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
}
