import Dispatch
import Features
import Synchronization

// `Kernels` and its extensions are the k-means files of `Analytics` that import CBLAS and touch
// element pointers (PCA's LAPACK calls are in `PCA+LAPACK.swift`, cosine search's in
// `CosineIndex+BLAS.swift`), split by concern: the assignment passes (`Kernels+Assignment.swift`),
// the fused kernel's scoring and transposes (`Kernels+Scoring.swift`) and argmin
// (`Kernels+Argmin.swift`), the centroid sums (`Kernels+CentreUpdate.swift`), the bounded passes
// (`Kernels+Bounds.swift`) and the distance and column passes (`Kernels+Distances.swift`).
// Pointers never escape the closures that lend them: the parallel row chunks run inside those
// closures (``Kernels/parallelChunks(_:threadCount:_:)``), each writing only its own rows; every
// kernel takes and returns arrays. On x86-64 a few steps use Clang's intrinsics
// (`_Builtin_intrinsics`) for instructions Swift's SIMD types have no spelling for: `movmskps`
// (which lanes of a comparison are true, as bits) and 256-bit interleaves; each has a plain-Swift
// path for other CPUs.

/// Low-level loops over matrix rows.
enum Kernels {
    // MARK: - Sizes

    /// The number of rows the fused kernel holds in the lanes of one SIMD register.
    static let rowsPerBlock = 8

    /// The rows gathered per run before their sums go into `Double`.
    static let runLength = 2048

    /// Calls `body` with each run of up to ``runLength`` consecutive rows of `rows`, in order.
    @inline(__always)
    static func forEachRun(of rows: Range<Int>, _ body: (Range<Int>) -> Void) {
        var runStart = rows.lowerBound
        while runStart < rows.upperBound {
            let run = runStart..<Swift.min(runStart + runLength, rows.upperBound)
            body(run)
            runStart = run.upperBound
        }
    }

    // MARK: - Parallel chunks

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

    /// Runs `body` on every range of `chunks` (``forEachChunk(count:threadCount:_:)`` shares them
    /// out over up to `threadCount` threads) and returns what each returned, in chunk order, so
    /// that callers that merge the results in that order get the same sums whichever thread ran
    /// which chunk.
    ///
    /// `body` may capture buffer pointers that the chunks share, provided that each chunk writes
    /// only its own rows of them: this is the one place in `Kernels` where such a closure is
    /// handed to other threads.
    ///
    /// - Parameters:
    ///   - chunks: The ranges (of rows or elements) to run, usually from
    ///     ``passChunks(rows:threadCount:)`` or ``fixedChunks(count:size:)``.
    ///   - threadCount: The most threads to run on; 1 runs the chunks in order on this thread.
    ///   - body: The work of one chunk, given its range.
    /// - Returns: One result per chunk, in the order of `chunks`.
    static func parallelChunks<Result>(
        _ chunks: [Range<Int>],
        threadCount: Int,
        _ body: (Range<Int>) -> Result
    ) -> [Result] {
        guard !chunks.isEmpty else { return [] }
        return [Result](unsafeUninitializedCapacity: chunks.count) { results, initializedCount in
            withoutActuallyEscaping(body) { body in
                let pass = ChunkPass(chunks: chunks, body: body, results: results.baseAddress!)
                forEachChunk(count: chunks.count, threadCount: threadCount) { chunk in
                    (pass.results + chunk).initialize(to: pass.body(pass.chunks[chunk]))
                }
            }
            initializedCount = chunks.count
        }
    }

    /// What the threads of ``parallelChunks(_:threadCount:_:)`` share: the chunks, the work of one
    /// and a slot per chunk for its result.
    ///
    /// Sendable by the contract of ``parallelChunks(_:threadCount:_:)``: every chunk initializes
    /// only its own slot, and `body` writes only the chunk's own rows of any buffer it captured.
    /// Nothing of it outlives the call.
    private struct ChunkPass<Result>: @unchecked Sendable {
        let chunks: [Range<Int>]
        let body: (Range<Int>) -> Result
        let results: UnsafeMutablePointer<Result>
    }

    /// `0 ..< count` cut into consecutive ranges of `size` (the last one shorter), so that sums
    /// over them, merged in order, do not depend on the thread count.
    static func fixedChunks(count: Int, size: Int) -> [Range<Int>] {
        stride(from: 0, to: count, by: size).map { $0..<Swift.min($0 + size, count) }
    }

    // MARK: - Shared types

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
}
