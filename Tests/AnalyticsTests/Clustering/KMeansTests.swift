import Features
import Foundation
import Numerics
import Testing
import VibesTestSupport

@testable import Analytics

struct KMeansTests {
    static let centres: [[Float]] = [[0, 0, 0], [10, 0, 0], [0, 10, 0], [0, 0, 10], [10, 10, 10]]

    @Test func recoversSeparableBlobs() async throws {
        let blobs = Blobs(centres: Self.centres, perCluster: 60, spread: 1, seed: 1)
        var rng = SplitMix64(seed: 42)
        var options = KMeans.Options()
        options.restartCount = 3
        let model = try await KMeans.fit(blobs.matrix, clusterCount: 5, options: options, using: &rng)
        #expect(isSamePartition(model.labels, blobs.truth))
        #expect(model.hasConverged)
        #expect(model.clusterSizes.sorted() == [60, 60, 60, 60, 60])
        // Each centroid lies near one true centre.
        for c in 0..<5 {
            let centroid = Array(model.centroids.row(c))
            let nearest = Self.centres.map { zip($0, centroid).map { ($0 - $1) * ($0 - $1) }.reduce(0, +) }.min()!
            #expect(nearest < 0.5)
        }
    }

    @Test func inertiaIsTheSumOfSquaredDistances() async throws {
        let blobs = Blobs(centres: Self.centres, perCluster: 30, spread: 2, seed: 2)
        var rng = SplitMix64(seed: 7)
        let model = try await KMeans.fit(blobs.matrix, clusterCount: 4, using: &rng)
        var expected = 0.0
        for i in 0..<blobs.matrix.rowCount {
            let centroid = model.centroids.row(Int(model.labels[i]))
            expected += zip(blobs.matrix.row(i), centroid).map { Double(($0 - $1) * ($0 - $1)) }.reduce(0, +)
        }
        #expect(model.inertia.isApproximatelyEqual(to: expected, relativeTolerance: 1e-5))
        // Every point is labelled with its nearest centroid.
        for i in 0..<blobs.matrix.rowCount {
            let distances = (0..<4).map { c in
                zip(blobs.matrix.row(i), model.centroids.row(c)).map { ($0 - $1) * ($0 - $1) }.reduce(0, +)
            }
            #expect(distances[Int(model.labels[i])] <= distances.min()! * (1 + 1e-5) + 1e-6)
        }
    }

    @Test func sameSeedGivesBitIdenticalResults() async throws {
        let blobs = Blobs(centres: Self.centres, perCluster: 50, spread: 3, seed: 3)
        var options = KMeans.Options()
        options.restartCount = 4
        var first = SplitMix64(seed: 99)
        var second = SplitMix64(seed: 99)
        let a = try await KMeans.fit(blobs.matrix, clusterCount: 6, options: options, using: &first)
        let b = try await KMeans.fit(blobs.matrix, clusterCount: 6, options: options, using: &second)
        #expect(a.labels == b.labels)
        #expect(a.centroids.elements.map(\.bitPattern) == b.centroids.elements.map(\.bitPattern))
        #expect(a.inertia.bitPattern == b.inertia.bitPattern)
    }

    @Test(arguments: [1, 3, 4])
    func labelsDoNotDependOnTheThreadCount(threads: Int) async throws {
        let blobs = Blobs(centres: Self.centres, perCluster: 200, spread: 4, seed: 4)
        var rng = SplitMix64(seed: 5)
        let initial = KMeans.seedCentroids(blobs.matrix, clusterCount: 7, using: &rng)
        var options = KMeans.Options()
        options.tolerance = 0
        let reference = try await KMeans.fit(blobs.matrix, initialCentroids: initial, options: options)
        options.threadCount = threads
        let model = try await KMeans.fit(blobs.matrix, initialCentroids: initial, options: options)
        #expect(model.labels == reference.labels)
        #expect(model.inertia.isApproximatelyEqual(to: reference.inertia, relativeTolerance: 1e-6))
    }

    @Test func fusedAndBLASKernelsAgree() async throws {
        let blobs = Blobs(centres: Self.centres, perCluster: 300, spread: 3, seed: 6)
        var rng = SplitMix64(seed: 8)
        let initial = KMeans.seedCentroids(blobs.matrix, clusterCount: 11, using: &rng)
        var options = KMeans.Options()
        options.tolerance = 0
        let fused = try await KMeans.fit(blobs.matrix, initialCentroids: initial, options: options)
        options.kernel = .blas
        let blas = try await KMeans.fit(blobs.matrix, initialCentroids: initial, options: options)
        #expect(fused.labels == blas.labels)
        #expect(fused.inertia.isApproximatelyEqual(to: blas.inertia, relativeTolerance: 1e-6))
    }

    @Test func moreRestartsNeverRaiseTheInertia() async throws {
        let blobs = Blobs(centres: Self.centres, perCluster: 40, spread: 5, seed: 9)
        var options = KMeans.Options()
        var rng = SplitMix64(seed: 10)
        let single = try await KMeans.fit(blobs.matrix, clusterCount: 8, options: options, using: &rng)
        options.restartCount = 6
        rng = SplitMix64(seed: 10)
        let several = try await KMeans.fit(blobs.matrix, clusterCount: 8, options: options, using: &rng)
        #expect(several.inertia <= single.inertia)
    }

    @Test func largeToleranceStopsEarly() async throws {
        let blobs = Blobs(centres: Self.centres, perCluster: 100, spread: 6, seed: 11)
        var rng = SplitMix64(seed: 12)
        let initial = KMeans.seedCentroids(blobs.matrix, clusterCount: 9, using: &rng)
        var options = KMeans.Options()
        options.tolerance = 0
        let strict = try await KMeans.fit(blobs.matrix, initialCentroids: initial, options: options)
        options.tolerance = 10
        let loose = try await KMeans.fit(blobs.matrix, initialCentroids: initial, options: options)
        #expect(loose.hasConverged)
        #expect(loose.iterationCount < strict.iterationCount)
        #expect(loose.iterationCount >= 1)
    }

    @Test func stopsAtMaxIterations() async throws {
        let blobs = Blobs(centres: Self.centres, perCluster: 100, spread: 6, seed: 13)
        var rng = SplitMix64(seed: 14)
        var options = KMeans.Options()
        options.maxIterations = 2
        options.tolerance = 0
        let model = try await KMeans.fit(blobs.matrix, clusterCount: 10, options: options, using: &rng)
        #expect(model.iterationCount == 2)
        #expect(!model.hasConverged)
    }

    @Test func seedingOnASampleIsReproducibleAndPicksDataRows() throws {
        let blobs = Blobs(centres: Self.centres, perCluster: 400, spread: 2, seed: 18)
        var first = SplitMix64(seed: 1)
        var second = SplitMix64(seed: 1)
        let a = KMeans.seedCentroids(blobs.matrix, clusterCount: 5, sampleSize: 300, using: &first)
        let b = KMeans.seedCentroids(blobs.matrix, clusterCount: 5, sampleSize: 300, using: &second)
        #expect(a == b)
        let rows = Set((0..<blobs.matrix.rowCount).map { Array(blobs.matrix.row($0)) })
        for c in 0..<5 { #expect(rows.contains(Array(a.row(c)))) }
    }

    @Test(arguments: [2, 3, 5])
    func seedingAndScoresDoNotDependOnTheThreadCount(threads: Int) async throws {
        // 3,000 rows: the silhouette's sample is every row, in 12 blocks of 256 rows.
        let blobs = Blobs(centres: Self.centres, perCluster: 600, spread: 3, seed: 21)
        var first = SplitMix64(seed: 8)
        var second = SplitMix64(seed: 8)
        let reference = KMeans.seedCentroids(blobs.matrix, clusterCount: 9, using: &first)
        let seeded = KMeans.seedCentroids(blobs.matrix, clusterCount: 9, threadCount: threads, using: &second)
        #expect(seeded.elements.map(\.bitPattern) == reference.elements.map(\.bitPattern))
        // Enough rows (24,000: 24 runs of 1,024) for the seeding to share them out over threads.
        let large = Blobs(centres: Self.centres, perCluster: 4_800, spread: 3, seed: 22)
        var third = SplitMix64(seed: 9)
        var fourth = SplitMix64(seed: 9)
        let largeReference = KMeans.seedCentroids(large.matrix, clusterCount: 9, using: &third)
        let largeSeeded = KMeans.seedCentroids(large.matrix, clusterCount: 9, threadCount: threads, using: &fourth)
        #expect(largeSeeded.elements.map(\.bitPattern) == largeReference.elements.map(\.bitPattern))

        let model = try await KMeans.fit(blobs.matrix, initialCentroids: reference)
        var firstSample = SplitMix64(seed: 3)
        var secondSample = SplitMix64(seed: 3)
        let one = ClusterQuality.evaluate(model, on: blobs.matrix, using: &firstSample)
        let many = ClusterQuality.evaluate(model, on: blobs.matrix, threadCount: threads, using: &secondSample)
        #expect(one.silhouetteSampleSize == 3_000)
        let oneSilhouette = try #require(one.silhouette)
        let manySilhouette = try #require(many.silhouette)
        #expect(manySilhouette.bitPattern == oneSilhouette.bitPattern)
        #expect(many == one)
    }

    /// Floyd's algorithm over a `Set`: the plain form the bit-set draw must equal.
    private func floydSample(from population: Int, count: Int, using rng: inout SplitMix64) -> [Int] {
        guard count < population else { return Array(0..<population) }
        var chosen = Set<Int>()
        for j in (population - count)..<population {
            let t = rng.next(below: j + 1)
            if !chosen.insert(t).inserted { chosen.insert(j) }
        }
        return chosen.sorted()
    }

    @Test(arguments: [(1_000_000, 100_000), (1_000, 999), (130, 64), (64, 63), (5, 5), (7, 0)])
    func samplesAreFloydsSamples(population: Int, count: Int) {
        for seed in [UInt64(1), 2, 77] {
            var first = SplitMix64(seed: seed)
            var second = SplitMix64(seed: seed)
            let sample = KMeans.sampleIndices(from: population, count: count, using: &first)
            #expect(sample == floydSample(from: population, count: count, using: &second))
            #expect(first.next() == second.next())
        }
    }

    // MARK: - Degenerate input

    @Test func moreClustersThanPointsIsAnError() async throws {
        let data = Matrix(rows: [[0, 1], [2, 3]])
        var rng = SplitMix64(seed: 1)
        await #expect {
            _ = try await KMeans.fit(data, clusterCount: 3, using: &rng)
        } throws: { error in
            guard case AnalyticsError.tooFewSamples(let required, let available, _) = error else { return false }
            return required == 3 && available == 2
        }
    }

    @Test func oneTrackIsItsOwnCluster() async throws {
        let data = Matrix(rows: [[0.25, -1, 3]])
        var rng = SplitMix64(seed: 1)
        let model = try await KMeans.fit(data, clusterCount: 1, using: &rng)
        #expect(model.labels == [0])
        #expect(model.centroids.elements == [0.25, -1, 3])
        #expect(model.inertia == 0)
    }

    @Test func duplicatePointsFormExactClusters() async throws {
        let values: [[Float]] = [[1, 1], [5, 5], [9, 1]]
        let data = Matrix(rows: (0..<30).map { values[$0 % 3] })
        var rng = SplitMix64(seed: 3)
        let model = try await KMeans.fit(data, clusterCount: 3, using: &rng)
        #expect(model.inertia == 0)
        #expect(model.clusterSizes == [10, 10, 10])
        #expect(isSamePartition(model.labels, (0..<30).map { $0 % 3 }))
    }

    @Test func moreClustersThanDistinctPointsStillFitsExactly() async throws {
        let data = Matrix(rows: (0..<12).map { [Float($0 % 2), 0] })
        var rng = SplitMix64(seed: 3)
        let model = try await KMeans.fit(data, clusterCount: 4, using: &rng)
        #expect(model.inertia == 0)
        #expect(model.clusterSizes.reduce(0, +) == 12)
    }

    @Test func constantFeatureDoesNotDisturbClustering() async throws {
        let blobs = Blobs(centres: [[0, 0], [8, 8], [0, 8]], perCluster: 50, spread: 1, seed: 15)
        let withConstant = Matrix(rows: (0..<blobs.matrix.rowCount).map { Array(blobs.matrix.row($0)) + [4.5] })
        var rng = SplitMix64(seed: 16)
        let model = try await KMeans.fit(withConstant, clusterCount: 3, using: &rng)
        #expect(isSamePartition(model.labels, blobs.truth))
        for c in 0..<3 { #expect(model.centroids[c, 2] == 4.5) }
    }

    @Test func nonFiniteValuesAreRejected() async throws {
        let data = Matrix(rows: [[0, 1], [2, .nan], [3, 3]])
        var rng = SplitMix64(seed: 1)
        await #expect {
            _ = try await KMeans.fit(data, clusterCount: 2, using: &rng)
        } throws: { error in
            guard case AnalyticsError.nonFiniteValue(let row, let column) = error else { return false }
            return row == 1 && column == 1
        }
    }

    @Test func emptyClusterIsReseededFromTheFarthestPoint() async throws {
        let blobs = Blobs(centres: [[0, 0], [10, 0], [0, 10]], perCluster: 40, spread: 1, seed: 17)
        // Two identical initial centres: one of them gets no points in the first iteration.
        let initial = Matrix(rows: [[0, 0], [0, 0], [5, 5]])
        for usesBounds in [true, false] {
            var options = KMeans.Options()
            options.usesBounds = usesBounds
            let model = try await KMeans.fit(blobs.matrix, initialCentroids: initial, options: options)
            #expect(!model.clusterSizes.contains(0))
            #expect(isSamePartition(model.labels, blobs.truth))
            // The sums kept from pass to pass (updated by the rows that changed cluster, and by
            // the row moved into the empty cluster) still give each centroid the mean of its rows.
            #expect(model.hasConverged)
            for c in 0..<3 {
                let members = model.labels.indices.filter { model.labels[$0] == Int32(c) }
                for j in 0..<2 {
                    let mean = members.reduce(0.0) { $0 + Double(blobs.matrix[$1, j]) } / Double(members.count)
                    #expect(
                        abs(Double(model.centroids[c, j]) - mean) < 1e-4,
                        "cluster \(c), feature \(j), bounds \(usesBounds)"
                    )
                }
            }
        }
    }
}

/// Agreement with scikit-learn 1.9 from the same initial centres (fixtures in
/// `VibesTestSupport/Fixtures/sklearn`, made by `Benchmarks/compare/make_sklearn_fixtures.py`).
struct ScikitLearnAgreementTests {
    struct Fixture: Decodable {
        var rows: Int
        var columns: Int
        var k: Int
        var maxIter: Int
        var data: [Float]
        var initial: [Float]
        var labels: [Int32]
        var inertia: Double
        var iterations: Int
        var centers: [Float]

        enum CodingKeys: String, CodingKey {
            case rows, columns, k, data, labels, inertia, centers
            case maxIter = "max_iter"
            case initial = "init"
            case iterations = "n_iter"
        }
    }

    @Test(arguments: [
        "blobs-300x4-k5", "overlapping-600x12-k8", "gaussian-400x12-k16", "anisotropic-1000x10-k12-maxiter5",
    ])
    func reachesScikitLearnsLabelsAndInertia(fixtureName: String) async throws {
        let fixture = try JSONDecoder().decode(Fixture.self, from: Fixtures.data("sklearn/\(fixtureName).json"))
        let data = Matrix(rowCount: fixture.rows, columnCount: fixture.columns, elements: fixture.data)
        let initial = Matrix(rowCount: fixture.k, columnCount: fixture.columns, elements: fixture.initial)
        var options = KMeans.Options()
        options.tolerance = 0
        options.maxIterations = fixture.maxIter
        // The bound from the first pass, from when few rows change (the default), and never.
        for (kernel, usesBounds, switchShare) in [
            (DistanceKernel.fused, true, Double.infinity), (.fused, true, 0.03), (.fused, false, 0.03),
            (.blas, false, 0.03),
        ] {
            options.kernel = kernel
            options.usesBounds = usesBounds
            options.boundSwitchShare = switchShare
            let model = try await KMeans.fit(data, initialCentroids: initial, options: options)
            let name: Comment = "kernel \(kernel), bounds \(usesBounds), switching below \(switchShare)"
            #expect(model.labels == fixture.labels, name)
            #expect(model.inertia.isApproximatelyEqual(to: fixture.inertia, relativeTolerance: 1e-5), name)
            #expect(model.iterationCount == fixture.iterations, name)
            for (ours, theirs) in zip(model.centroids.elements, fixture.centers) {
                #expect(ours.isApproximatelyEqual(to: theirs, absoluteTolerance: 1e-4, relativeTolerance: 1e-4))
            }
        }
    }
}

struct MiniBatchKMeansTests {
    @Test func recoversSeparableBlobs() async throws {
        let blobs = Blobs(centres: KMeansTests.centres, perCluster: 400, spread: 1, seed: 21)
        var options = KMeans.MiniBatchOptions()
        options.batchSize = 256
        var rng = SplitMix64(seed: 22)
        let model = try await KMeans.fitMiniBatch(blobs.matrix, clusterCount: 5, options: options, using: &rng)
        #expect(isSamePartition(model.labels, blobs.truth))
        #expect(model.iterationCount <= options.maxSteps)
    }

    @Test func isReproducibleAndCloseToLloyd() async throws {
        let blobs = Blobs(centres: KMeansTests.centres, perCluster: 300, spread: 3, seed: 23)
        var options = KMeans.MiniBatchOptions()
        options.batchSize = 200
        var first = SplitMix64(seed: 24)
        var second = SplitMix64(seed: 24)
        let a = try await KMeans.fitMiniBatch(blobs.matrix, clusterCount: 5, options: options, using: &first)
        let b = try await KMeans.fitMiniBatch(blobs.matrix, clusterCount: 5, options: options, using: &second)
        #expect(a.labels == b.labels)
        #expect(a.centroids == b.centroids)
        var rng = SplitMix64(seed: 24)
        let lloyd = try await KMeans.fit(blobs.matrix, clusterCount: 5, using: &rng)
        #expect(a.inertia <= lloyd.inertia * 1.05)
    }

    @Test func rejectsTooFewRows() async throws {
        var rng = SplitMix64(seed: 1)
        await #expect(throws: AnalyticsError.self) {
            _ = try await KMeans.fitMiniBatch(Matrix(rows: [[1]]), clusterCount: 2, using: &rng)
        }
    }
}
