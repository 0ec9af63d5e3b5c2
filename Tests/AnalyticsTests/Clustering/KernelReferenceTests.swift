import Features
import Numerics
import Testing

@testable import Analytics

/// The fast assignment kernels (fused, BLAS and bounded, on 1 and 2 threads) and `KMeans`'s
/// Lloyd iterations against ``ReferenceLloyd``, on awkward shapes: row counts around the 8-row
/// blocks, a single centre, more centres than rows, and widths with and without unrolled loops.
///
/// Tolerances:
/// - Labels: the same, except for rows whose two nearest centres are within
///   ``tieTolerance`` × (‖x‖² + max ‖c‖²) of each other in squared distance, where the kernels'
///   `Float` scores ‖c‖²/2 − x·c may order them either way.
/// - Centres: within 1e-5 relative (1e-5 of the data's largest magnitude near zero) of the means
///   of the rows that carry each label, for one step; 1e-4 after a whole fit.
/// - Inertia: within 1e-5 relative.
struct KernelReferenceTests {
    /// How close, relative to ‖x‖² + max ‖c‖², the squared distances to two centres may be for a
    /// row to go to either: about 100 times the rounding of a `Float` score at d = 12.
    static let tieTolerance = 1e-5

    /// The assignment paths of a Lloyd step.
    enum Path: CaseIterable {
        case fused, blas, bounded
    }

    /// Uniform rows in −3 … 3 and centres drawn the same way.
    static func makeCase(rows n: Int, d: Int, k: Int, seed: UInt64) -> (data: Matrix, centres: Matrix) {
        var rng = SplitMix64(seed: seed)
        let data = Matrix(
            rowCount: n,
            columnCount: d,
            elements: (0..<(n * d)).map { _ in .random(in: -3...3, using: &rng) }
        )
        let centres = Matrix(
            rowCount: k,
            columnCount: d,
            elements: (0..<(k * d)).map { _ in .random(in: -3...3, using: &rng) }
        )
        return (data, centres)
    }

    static func doubleRows(_ matrix: Matrix) -> [[Double]] {
        (0..<matrix.rowCount).map { matrix.row($0).map(Double.init) }
    }

    /// Expects `labels` to be the reference's nearest centres of `centres`, but for near ties.
    static func expectNearest(
        _ labels: [Int32],
        _ reference: ReferenceLloyd,
        centres: [[Double]],
        _ context: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let distances = reference.squaredDistances(to: centres)
        let largestCentreNorm = centres.map { $0.reduce(0) { $0 + $1 * $1 } }.max() ?? 0
        var mismatches: [Int] = []
        for (i, label) in labels.enumerated() {
            guard centres.indices.contains(Int(label)) else {
                mismatches.append(i)
                continue
            }
            let nearest = distances[i].min()!
            let norm = reference.rows[i].reduce(0) { $0 + $1 * $1 }
            if distances[i][Int(label)] - nearest > tieTolerance * (norm + largestCentreNorm) { mismatches.append(i) }
        }
        #expect(
            mismatches.isEmpty,
            "\(context): rows \(mismatches.prefix(5)) are not at their nearest centre",
            sourceLocation: sourceLocation
        )
    }

    /// Expects `centres` (k × d, from a kernel's sums) to be the means of the rows by `labels`.
    static func expectMeans(
        _ centres: Matrix,
        _ reference: ReferenceLloyd,
        labels: [Int32],
        scale: Double,
        _ context: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let means = reference.means(labels: labels, clusterCount: centres.rowCount)
        for c in 0..<centres.rowCount {
            guard let mean = means[c] else { continue }
            for j in mean.indices {
                #expect(
                    Double(centres[c, j]).isApproximatelyEqual(
                        to: mean[j],
                        absoluteTolerance: 1e-5 * scale,
                        relativeTolerance: 1e-5
                    ),
                    "\(context): centre \(c), feature \(j)",
                    sourceLocation: sourceLocation
                )
            }
        }
    }

    /// The centres of a step: each cluster's sum over its count, as a fit moves them, and the
    /// old centre where a cluster has no rows.
    static func centres(sums: [Double], counts: [Int], old: Matrix) -> Matrix {
        var next = old
        for c in 0..<old.rowCount where counts[c] > 0 {
            for j in 0..<old.columnCount {
                next[c, j] = Float(sums[c * old.columnCount + j] / Double(counts[c]))
            }
        }
        return next
    }

    /// Two Lloyd steps by one path: from the initial centres with no labels (every row assigned
    /// and summed), then from the moved centres with the labels kept (only the changes summed,
    /// and for the bounded path, rows skipped by their bound). Returns each step's labels and
    /// moved centres.
    static func twoSteps(
        _ data: Matrix,
        from initial: Matrix,
        path: Path,
        threads: Int
    ) -> [(
        labels: [Int32], centres: Matrix, input: Matrix
    )] {
        let n = data.rowCount
        let k = initial.rowCount
        let d = data.columnCount
        var labels = [Int32](repeating: -1, count: n)
        var margins = [Float](repeating: 0, count: n)
        var levels = Kernels.MarginLevels(clusterCount: k)
        var sums = [Double](repeating: 0, count: k * d)
        var counts = [Int](repeating: 0, count: k)
        var centres = initial
        var steps: [(labels: [Int32], centres: Matrix, input: Matrix)] = []
        for step in 0..<2 {
            let prepared = Kernels.PreparedCentroids(centres)
            switch path {
            case .fused, .blas:
                let assignment = Kernels.assign(
                    data,
                    to: prepared,
                    labels: &labels,
                    accumulation: step == 0 ? .sums : .changes,
                    kernel: path == .fused ? .fused : .blas,
                    threadCount: threads
                )
                for index in sums.indices { sums[index] += assignment.sums[index] }
                for c in 0..<k { counts[c] += assignment.counts[c] }
            case .bounded:
                let assignment = Kernels.assignBounded(
                    data,
                    to: prepared,
                    levels: levels,
                    rounding: Kernels.MarginRounding(d: d, centroids: centres),
                    labels: &labels,
                    margins: &margins,
                    threadCount: threads
                )
                for index in sums.indices { sums[index] += assignment.sumChanges[index] }
                for c in 0..<k { counts[c] += assignment.countChanges[c] }
            }
            let next = Self.centres(sums: sums, counts: counts, old: centres)
            steps.append((labels, next, centres))
            if path == .bounded { levels.add(Kernels.marginDrops(from: centres, to: next)) }
            centres = next
        }
        return steps
    }

    @Test(arguments: [1, 3, 16, 64], [1, 7, 8, 9, 1_001])
    func kernelStepsMatchTheReference(k: Int, rows: Int) {
        for d in [12, 5] {
            let (data, initial) = Self.makeCase(rows: rows, d: d, k: k, seed: UInt64(1_000 * k + 10 * rows + d))
            let reference = ReferenceLloyd(data)
            for path in Path.allCases {
                for threads in [1, 2] {
                    let context = "\(path), d = \(d), k = \(k), \(rows) rows, \(threads) threads"
                    for (index, step) in Self.twoSteps(data, from: initial, path: path, threads: threads).enumerated() {
                        Self.expectNearest(
                            step.labels,
                            reference,
                            centres: Self.doubleRows(step.input),
                            "\(context), step \(index)"
                        )
                        Self.expectMeans(
                            step.centres,
                            reference,
                            labels: step.labels,
                            scale: 3,
                            "\(context), step \(index)"
                        )
                    }
                }
            }
        }
    }

    @Test(arguments: [1, 3, 16], [12, 10])
    func lloydFitsMatchTheReference(k: Int, d: Int) async throws {
        // Blobs around k random centres, so that no cluster runs empty (the reference does not
        // reseed) and few rows sit near a tie.
        var rng = SplitMix64(seed: UInt64(50 + k * d))
        let centres = (0..<k).map { _ in (0..<d).map { _ in Float.random(in: -6...6, using: &rng) } }
        let blobs = Blobs(centres: centres, perCluster: 1_001 / k + 1, spread: 1.5, seed: UInt64(k + d))
        let data = blobs.matrix
        let initial = KMeans.seedCentroids(data, clusterCount: k, using: &rng)
        let reference = ReferenceLloyd(data)
        let expected = try #require(reference.fit(from: Self.doubleRows(initial), maxIterations: 12))
        let expectedInertia = reference.inertia(labels: expected.labels, centres: expected.centres)
        for kernel in DistanceKernel.allCases {
            for usesBounds in [false, true] {
                for threads in [1, 2] {
                    var options = KMeans.Options()
                    options.tolerance = 0
                    options.maxIterations = 12
                    options.kernel = kernel
                    options.usesBounds = usesBounds
                    options.boundSwitchShare = .infinity
                    options.threadCount = threads
                    let model = try await KMeans.fit(data, initialCentroids: initial, options: options)
                    let context = "\(kernel), bounds \(usesBounds), d = \(d), k = \(k), \(threads) threads"
                    Self.expectNearest(model.labels, reference, centres: expected.centres, context)
                    for (a, b) in zip(model.centroids.elements, expected.centres.joined()) {
                        #expect(
                            Double(a).isApproximatelyEqual(to: b, absoluteTolerance: 1e-4, relativeTolerance: 1e-4),
                            "\(context)"
                        )
                    }
                    #expect(
                        model.inertia.isApproximatelyEqual(to: expectedInertia, relativeTolerance: 1e-5),
                        "\(context)"
                    )
                }
            }
        }
    }
}
