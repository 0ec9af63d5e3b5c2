import Features
import Foundation
import Numerics
import Testing
import VibesBenchmarking
import VibesTestSupport

@testable import Analytics

/// Lloyd's iterations with Hamerly's bound (`KMeans.Options.usesBounds`) against full passes over
/// every row: the same iterations, with far fewer rows scanned.
struct KMeansBoundsTests {
    /// Fits from the same initial centres with and without the bound; the bounded fit uses it
    /// from the first pass unless `switchShare` says when to switch.
    static func fitBothWays(
        _ data: Matrix,
        initial: Matrix,
        maxIterations: Int = 300,
        tolerance: Double = 0,
        threads: Int = 2,
        switchShare: Double = .infinity
    ) async throws -> (bounded: KMeans, full: KMeans) {
        var options = KMeans.Options()
        options.tolerance = tolerance
        options.maxIterations = maxIterations
        options.threadCount = threads
        options.boundSwitchShare = switchShare
        let bounded = try await KMeans.fit(data, initialCentroids: initial, options: options)
        options.usesBounds = false
        let full = try await KMeans.fit(data, initialCentroids: initial, options: options)
        return (bounded, full)
    }

    /// Expects two fits to have run the same iterations to the same result.
    static func expectSameIterations(
        _ bounded: KMeans,
        _ full: KMeans,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(bounded.labels == full.labels, sourceLocation: sourceLocation)
        #expect(bounded.iterationCount == full.iterationCount, sourceLocation: sourceLocation)
        #expect(bounded.hasConverged == full.hasConverged, sourceLocation: sourceLocation)
        #expect(
            bounded.inertia.isApproximatelyEqual(to: full.inertia, relativeTolerance: 1e-6),
            sourceLocation: sourceLocation
        )
        for (a, b) in zip(bounded.centroids.elements, full.centroids.elements) {
            #expect(
                a.isApproximatelyEqual(to: b, absoluteTolerance: 1e-5, relativeTolerance: 1e-5),
                sourceLocation: sourceLocation
            )
        }
    }

    @Test(arguments: [(k: 2, threads: 1), (k: 8, threads: 2), (k: 16, threads: 2), (k: 33, threads: 3)])
    func boundedIterationsMatchFullPasses(k: Int, threads: Int) async throws {
        // Rows drawn like real libraries (the mixture fitted to the bundled tidytuesday sample).
        let data = await SyntheticLibrary().makeMatrix(rowCount: 20_000, seed: UInt64(k))
        var rng = SplitMix64(seed: UInt64(100 + k))
        let initial = KMeans.seedCentroids(data, clusterCount: k, using: &rng)
        let (bounded, full) = try await Self.fitBothWays(data, initial: initial, maxIterations: 40, threads: threads)
        Self.expectSameIterations(bounded, full)
        // The full passes scan every row each iteration; the bound skips most of them.
        #expect(full.timings.scannedRowCount == data.rowCount * full.iterationCount)
        #expect(bounded.timings.scannedRowCount >= data.rowCount)
        #expect(bounded.timings.scannedRowCount < full.timings.scannedRowCount / 2)
    }

    @Test(arguments: [(k: 8, threads: 2), (k: 16, threads: 1)])
    func switchingToTheBoundMidwayGivesTheSameIterations(k: Int, threads: Int) async throws {
        // From random rows as centres, many rows change cluster at first: full passes, then the
        // bound once fewer than 3 % change (the default).
        let data = await SyntheticLibrary().makeMatrix(rowCount: 20_000, seed: UInt64(50 + k))
        var rng = SplitMix64(seed: UInt64(60 + k))
        let initial = Matrix(rows: (0..<k).map { _ in Array(data.row(Int.random(in: 0..<data.rowCount, using: &rng))) })
        let (switching, full) = try await Self.fitBothWays(
            data,
            initial: initial,
            maxIterations: 60,
            threads: threads,
            switchShare: KMeans.Options().boundSwitchShare
        )
        Self.expectSameIterations(switching, full)
        // The first two passes at least went over every row, and the bound then skipped rows.
        #expect(switching.timings.scannedRowCount >= 2 * data.rowCount)
        #expect(switching.timings.scannedRowCount < full.timings.scannedRowCount)
        let (bounded, _) = try await Self.fitBothWays(data, initial: initial, maxIterations: 60, threads: threads)
        Self.expectSameIterations(bounded, full)
    }

    @Test func everyRowKeepsItsExactNearestCentroid() async throws {
        // Overlapping blobs stopped after a few iterations, while many rows are still moving.
        let blobs = Blobs(
            centres: [[0, 0, 0], [3, 0, 0], [0, 3, 0], [0, 0, 3], [3, 3, 3]],
            perCluster: 400,
            spread: 1.5,
            seed: 21
        )
        var rng = SplitMix64(seed: 22)
        let initial = KMeans.seedCentroids(blobs.matrix, clusterCount: 9, using: &rng)
        for maxIterations in [1, 2, 5] {
            let (bounded, full) = try await Self.fitBothWays(
                blobs.matrix,
                initial: initial,
                maxIterations: maxIterations
            )
            Self.expectSameIterations(bounded, full)
            for i in 0..<blobs.matrix.rowCount {
                let distances = (0..<9).map { c in
                    zip(blobs.matrix.row(i), bounded.centroids.row(c)).map { Double($0 - $1) * Double($0 - $1) }.reduce(
                        0,
                        +
                    )
                }
                #expect(distances[Int(bounded.labels[i])] <= distances.min()! * (1 + 1e-6) + 1e-9)
            }
        }
    }

    @Test func emptyClustersAreReseededAsInFullPasses() async throws {
        let blobs = Blobs(centres: [[0, 0], [10, 0], [0, 10]], perCluster: 40, spread: 1, seed: 17)
        // Two identical initial centres and one far away: clusters go empty and are re-seeded.
        let initial = Matrix(rows: [[0, 0], [0, 0], [5, 5], [50, 50]])
        let (bounded, full) = try await Self.fitBothWays(blobs.matrix, initial: initial)
        Self.expectSameIterations(bounded, full)
        #expect(!bounded.clusterSizes.contains(0))
    }

    @Test func degenerateInputGivesTheSameResult() async throws {
        // One cluster; duplicates with more clusters than distinct points; a constant column.
        let duplicates = Matrix(rows: Array(repeating: [1, 2], count: 5) + Array(repeating: [4, 4], count: 5))
        let cases: [(Matrix, Matrix)] = [
            (duplicates, Matrix(rows: [[0, 0]])),
            (duplicates, Matrix(rows: [[1, 2], [4, 4], [1, 2.5]])),
            (
                Matrix(rows: (0..<50).map { [Float($0 % 7), 3, Float($0 % 3)] }),
                Matrix(rows: [[0, 3, 0], [6, 3, 2]])
            ),
            (Matrix(rows: [[0.5, 0.5]]), Matrix(rows: [[0, 0]])),
        ]
        for (data, initial) in cases {
            let (bounded, full) = try await Self.fitBothWays(data, initial: initial)
            Self.expectSameIterations(bounded, full)
        }
    }

    @Test func sampleLibraryVibesAreTheSame() async throws {
        // The bundled excerpt of the real tidytuesday data, scaled as `cluster` does.
        let space = try FeatureSchema().makeSpace(from: SampleLibrary.featureTable)
        var rng = SplitMix64(seed: 42)
        let initial = KMeans.seedCentroids(space.matrix.values, clusterCount: 6, using: &rng)
        let (bounded, full) = try await Self.fitBothWays(space.matrix.values, initial: initial, tolerance: 1e-4)
        Self.expectSameIterations(bounded, full)
    }

    @Test func marginsAreLowerBoundsOfTheExactGap() async throws {
        // After a pass, every row's margin is at most the exact gap between its second-nearest
        // and its nearest centroid, computed in Double; and its label is the nearest.
        let data = await SyntheticLibrary().makeMatrix(rowCount: 5_000, seed: 31)
        var rng = SplitMix64(seed: 32)
        let centroids = KMeans.seedCentroids(data, clusterCount: 12, using: &rng)
        var labels = [Int32](repeating: -1, count: data.rowCount)
        var margins = [Float](repeating: 0, count: data.rowCount)
        let step = Kernels.assignBounded(
            data,
            to: Kernels.PreparedCentroids(centroids),
            levels: Kernels.MarginLevels(clusterCount: 12),
            rounding: Kernels.MarginRounding(d: 12, centroids: centroids),
            labels: &labels,
            margins: &margins,
            threadCount: 2
        )
        #expect(step.recomputedCount == data.rowCount)
        #expect(step.countChanges.reduce(0, +) == data.rowCount)
        var positive = 0
        for i in 0..<data.rowCount {
            let distances = (0..<12).map { c in
                zip(data.row(i), centroids.row(c)).map { Double($0 - $1) * Double($0 - $1) }.reduce(0, +).squareRoot()
            }
            let label = Int(labels[i])
            let others = distances.indices.filter { $0 != label }.map { distances[$0] }
            #expect(distances[label] <= distances.min()! + 1e-5)
            #expect(Double(margins[i]) <= others.min()! - distances[label], "row \(i)")
            if margins[i] > 0 { positive += 1 }
        }
        // And the bound is useful: almost every row gets a positive margin.
        #expect(positive > data.rowCount * 9 / 10)
    }

    @Test(arguments: [1, 2])
    func aLastPassWritesTheExactSquaredDistances(threads: Int) async throws {
        // A pass after the centroids moved, which recomputes some rows and moves some of them to
        // another cluster, with the distances written over the margins: the same labels as the
        // pass without, and the distances and inertia of `squaredDistances`, bit for bit.
        let data = await SyntheticLibrary().makeMatrix(rowCount: 5_003, seed: 41)
        var rng = SplitMix64(seed: 42)
        let old = KMeans.seedCentroids(data, clusterCount: 10, using: &rng)
        let new = Matrix(
            rowCount: 10,
            columnCount: 12,
            elements: old.elements.map { $0 + Float(rng.nextUnitInterval() - 0.5) * 0.2 }
        )
        let rounding = Kernels.MarginRounding(d: 12, centroids: new)
        var labels = [Int32](repeating: -1, count: data.rowCount)
        var margins = [Float](repeating: 0, count: data.rowCount)
        _ = Kernels.assignBounded(
            data,
            to: Kernels.PreparedCentroids(old),
            levels: Kernels.MarginLevels(clusterCount: 10),
            rounding: Kernels.MarginRounding(d: 12, centroids: old),
            labels: &labels,
            margins: &margins,
            threadCount: threads
        )
        var levels = Kernels.MarginLevels(clusterCount: 10)
        levels.add(Kernels.marginDrops(from: old, to: new))
        var expectedLabels = labels
        var expectedMargins = margins
        let expectedStep = Kernels.assignBounded(
            data,
            to: Kernels.PreparedCentroids(new),
            levels: levels,
            rounding: rounding,
            labels: &expectedLabels,
            margins: &expectedMargins,
            threadCount: threads
        )
        var expected = [Float](repeating: -1, count: data.rowCount)
        let expectedInertia = Kernels.squaredDistances(
            data,
            labels: expectedLabels,
            centroids: new,
            threadCount: threads,
            into: &expected
        )
        let step = Kernels.assignBounded(
            data,
            to: Kernels.PreparedCentroids(new),
            levels: levels,
            rounding: rounding,
            labels: &labels,
            margins: &margins,
            writesDistances: true,
            threadCount: threads
        )
        #expect(step.changedCount == expectedStep.changedCount)
        #expect(step.changedCount > 0)
        #expect(step.recomputedCount < data.rowCount)
        #expect(labels == expectedLabels)
        #expect(margins == expected)
        #expect(Kernels.inertia(of: margins, threadCount: threads) == expectedInertia)
    }

    @Test func storedMarginsBoundTheExactGapsAsTheCentroidsMove() async throws {
        // Passes with the centroids moved at random between them, the stored margins compared
        // with the levels (not lowered pass by pass): every skipped row keeps its exact nearest
        // centroid, and what a stored margin exceeds its level by is at most the exact gap.
        let data = await SyntheticLibrary().makeMatrix(rowCount: 3_000, seed: 51)
        var rng = SplitMix64(seed: 52)
        var centroids = KMeans.seedCentroids(data, clusterCount: 7, using: &rng)
        var levels = Kernels.MarginLevels(clusterCount: 7)
        var labels = [Int32](repeating: -1, count: data.rowCount)
        var margins = [Float](repeating: 0, count: data.rowCount)
        var skipped = 0
        for pass in 0..<8 {
            let step = Kernels.assignBounded(
                data,
                to: Kernels.PreparedCentroids(centroids),
                levels: levels,
                rounding: Kernels.MarginRounding(d: 12, centroids: centroids),
                labels: &labels,
                margins: &margins,
                threadCount: 2
            )
            if pass > 0 { skipped += data.rowCount - step.recomputedCount }
            for i in 0..<data.rowCount {
                let distances = (0..<7).map { c in
                    zip(data.row(i), centroids.row(c)).map { Double($0 - $1) * Double($0 - $1) }.reduce(0, +)
                        .squareRoot()
                }
                let label = Int(labels[i])
                let others = distances.indices.filter { $0 != label }.map { distances[$0] }
                #expect(distances[label] <= distances.min()! + 1e-5, "pass \(pass), row \(i)")
                #expect(
                    Double(margins[i]) - Double(levels.upper[label]) <= others.min()! - distances[label],
                    "pass \(pass), row \(i)"
                )
            }
            let moved = Matrix(
                rowCount: 7,
                columnCount: 12,
                elements: centroids.elements.map { $0 + Float(rng.nextUnitInterval() - 0.5) * 0.05 }
            )
            levels.add(Kernels.marginDrops(from: centroids, to: moved))
            centroids = moved
        }
        // The bound skipped rows, so the test tested it.
        #expect(skipped > data.rowCount)
    }

    @Test func levelsRoundOutwards() {
        var levels = Kernels.MarginLevels(clusterCount: 2)
        var exact = [0.0, 0.0]
        for _ in 0..<50 {
            let drops: [Float] = [0.1, 1e-3]
            levels.add(drops)
            for c in 0..<2 {
                exact[c] += Double(drops[c])
                #expect(Double(levels.upper[c]) >= levels.sums[c])
                #expect(Double(levels.lower[c]) <= levels.sums[c])
                #expect(levels.sums[c] >= exact[c])
                #expect(levels.sums[c] < exact[c] * (1 + 1e-12))
            }
        }
        #expect(levels.stored(0, cluster: 0) == 0)
        let stored = levels.stored(0.3, cluster: 0)
        #expect(Double(stored) <= 0.3 + Double(levels.lower[0]))
        #expect(stored > levels.upper[0])
    }

    @Test(arguments: [1, 3, 16, 33])
    func boundCandidatesAreTheRowsAtOrBelowTheirLevel(k: Int) {
        // Margins on their cluster's level (a candidate), just above it (not), 0 (a candidate) or
        // anywhere, over runs that start and end off a multiple of 8.
        var rng = SplitMix64(seed: UInt64(k))
        let levels = (0..<k).map { _ in Float(rng.nextUnitInterval()) }
        let labels = (0..<1_000).map { _ in Int32(rng.next(below: k)) }
        let margins = labels.map { label in
            let level = levels[Int(label)]
            return [level, level.nextUp, 0, Float(rng.nextUnitInterval() * 2)][rng.next(below: 4)]
        }
        for rows in [0..<1_000, 3..<997, 5..<12, 8..<16, 7..<8, 9..<9] {
            // Room for one per row (at least one, so that the buffer has an address when empty).
            var candidates = [Int32](repeating: -1, count: Swift.max(rows.count, 1))
            let count = labels.withUnsafeBufferPointer { labels in
                margins.withUnsafeBufferPointer { margins in
                    levels.withUnsafeBufferPointer { levels in
                        candidates.withUnsafeMutableBufferPointer { candidates in
                            Kernels.boundCandidates(
                                rows,
                                labels: labels.baseAddress!,
                                margins: margins.baseAddress!,
                                upperLevels: levels.baseAddress!,
                                into: candidates.baseAddress!
                            )
                        }
                    }
                }
            }
            let expected = rows.filter { margins[$0] <= levels[Int(labels[$0])] }.map { Int32($0) }
            #expect(Array(candidates[0..<count]) == expected, "rows \(rows)")
        }
        #expect(margins.indices.contains { margins[$0] == levels[Int(labels[$0])] })
    }

    @Test func marginDropsBoundTheChangeOfEveryGap() {
        let old = Matrix(rows: [[0, 0], [4, 0], [0, 4]])
        let new = Matrix(rows: [[0, 1], [4, 0], [3, 4]])
        let drops = Kernels.marginDrops(from: old, to: new)
        // Centroid 0 moved 1, centroid 1 did not move, centroid 2 moved 3.
        #expect(drops[0] >= 4 && drops[0] < 4.0001)
        #expect(drops[1] >= 3 && drops[1] < 3.0001)
        #expect(drops[2] >= 4 && drops[2] < 4.0001)
    }

    @Test func reciprocalSquareRootIsWithinItsTolerance() {
        var rng = SplitMix64(seed: 3)
        var worst: Double = 0
        for _ in 0..<20_000 {
            // Positive normal floats over 60 binades.
            let q = SIMD8<Float>((0..<8).map { _ in Float(pow(2, rng.nextUnitInterval() * 60 - 30)) })
            let y = Kernels.reciprocalSquareRoot(q)
            for lane in 0..<8 {
                let exact = 1 / Double(q[lane]).squareRoot()
                worst = max(worst, abs(Double(y[lane]) - exact) / exact)
            }
        }
        #expect(worst < Double(Kernels.rootTolerance))
        #expect(worst > 0)
    }
}
