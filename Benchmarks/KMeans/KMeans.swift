import Analytics
import Benchmark
import Features
import Foundation

/// The size of the benchmark library; `VIBES_BENCH_ROWS` overrides the default of a million.
private let rowCount = Int(ProcessInfo.processInfo.environment["VIBES_BENCH_ROWS"] ?? "") ?? 1_000_000
private let clusterCount = 16

/// A seeded library of `rowCount` tracks: a mixture of 32 Gaussian vibes over the twelve features.
private let table: FeatureTable = {
    var rng = SplitMix64(seed: 2026)
    func gaussian() -> Double {
        let u = Swift.max(rng.nextUnitInterval(), 1e-300)
        return (-2 * log(u)).squareRoot() * cos(2 * .pi * rng.nextUnitInterval())
    }
    let centres = (0..<32).map { _ in (0..<12).map { _ in rng.nextUnitInterval() } }
    var table = FeatureTable()
    table.trackIDs.reserveCapacity(rowCount)
    table.values.reserveCapacity(rowCount * FeatureTable.columnCount)
    for row in 0..<rowCount {
        let centre = centres[rng.next(below: centres.count)]
        var features = AudioFeatures()
        for (index, feature) in AudioFeature.allCases.enumerated() {
            let unit = Swift.min(1, Swift.max(0, centre[index] + 0.1 * gaussian()))
            let range = feature.documentedRange
            features[feature] =
                feature.isDiscrete
                ? (range.lowerBound + unit * (range.upperBound - range.lowerBound)).rounded()
                : range.lowerBound + unit * (range.upperBound - range.lowerBound)
        }
        features[.tempo] = 60 + 120 * centre[10] + 5 * gaussian()
        table.append(trackID: Int64(row + 1), features: features)
    }
    return table
}()

private let space = FeatureSchema.default.makeSpace(from: table)

private let initialCentroids: Matrix = {
    var rng = SplitMix64(seed: 7)
    return KMeans.seedCentroids(space.matrix.values, clusterCount: clusterCount, using: &rng)
}()

private let initialCentroids64: Matrix = {
    var rng = SplitMix64(seed: 7)
    return KMeans.seedCentroids(space.matrix.values, clusterCount: 64, using: &rng)
}()

private func lloydOptions(iterations: Int) -> KMeans.Options {
    var options = KMeans.Options()
    options.maxIterations = iterations
    options.tolerance = 0
    return options
}

let benchmarks: @Sendable () -> Void = {
    // OpenBLAS's worker threads would spin on a core for about 0.1 s after the library loads.
    OpenBLASThreads.endIdleWorkers()
    // Names have no spaces or slashes: package-benchmark 1.38.1 writes threshold files with those
    // replaced by "_" but reads them back under the raw name, so a name with a space never matches.
    // Tolerances for `swift package benchmark thresholds check` against the static thresholds saved
    // in Benchmarks/Thresholds/: this machine is a shared VM, so wall clock may drift by 30 % at
    // p50 before it counts as a regression; memory and allocations are steadier.
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .peakMemoryResident, .mallocCountTotal],
        maxDuration: .seconds(10),
        maxIterations: 20,
        thresholds: [
            .wallClock: .init(relative: [.p50: 30]),
            .peakMemoryResident: .init(relative: [.p50: 10]),
            .mallocCountTotal: .init(relative: [.p50: 10], absolute: [.p50: 200]),
        ]
    )
    let rows = "\(rowCount / 1000)k"

    Benchmark("FeatureMatrix,default-schema,zscores,\(rows)-tracks") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(FeatureSchema.default.makeSpace(from: table))
        }
    }

    Benchmark("KMeans++Seeding,k=\(clusterCount),100k-sample-of-\(rows)") { benchmark in
        for _ in benchmark.scaledIterations {
            var rng = SplitMix64(seed: 1)
            blackHole(KMeans.seedCentroids(space.matrix.values, clusterCount: clusterCount, using: &rng))
        }
    }

    // One iteration plus the final assignment; subtract it from the 20-iteration fit and divide
    // by 19 for the time of one Lloyd iteration alone.
    Benchmark("Lloyd,1-iteration+final-assignment,\(rows)x\(space.matrix.columnCount),k=\(clusterCount)") {
        benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(
                try await KMeans.fit(
                    space.matrix.values,
                    initialCentroids: initialCentroids,
                    options: lloydOptions(iterations: 1)
                )
            )
        }
    }

    Benchmark("Lloyd,20-iterations,tol-0,\(rows)x\(space.matrix.columnCount),k=\(clusterCount)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(
                try await KMeans.fit(
                    space.matrix.values,
                    initialCentroids: initialCentroids,
                    options: lloydOptions(iterations: 20)
                )
            )
        }
    }

    Benchmark("Lloyd,20-iterations,tol-0,\(rows)x\(space.matrix.columnCount),k=64") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(
                try await KMeans.fit(
                    space.matrix.values,
                    initialCentroids: initialCentroids64,
                    options: lloydOptions(iterations: 20)
                )
            )
        }
    }

    Benchmark("FullFit,k-means++-and-Lloyd-to-convergence,n-init-1,\(rows),k=\(clusterCount)") { benchmark in
        for _ in benchmark.scaledIterations {
            var rng = SplitMix64(seed: 3)
            blackHole(try await KMeans.fit(space.matrix.values, clusterCount: clusterCount, using: &rng))
        }
    }

    Benchmark("MiniBatchFit,batch-4096,\(rows),k=\(clusterCount)") { benchmark in
        for _ in benchmark.scaledIterations {
            var rng = SplitMix64(seed: 3)
            blackHole(try await KMeans.fitMiniBatch(space.matrix.values, clusterCount: clusterCount, using: &rng))
        }
    }
}
