import Analytics
import Benchmark
import Features
import Foundation

// package-benchmark suite for exact cosine top-k (`swift package benchmark --target CosineKNN` from
// Benchmarks/). The faiss comparison on the same bytes is Benchmarks/compare/compare_knn.py.

/// `rows` unit-length rows of `columns` standard-normal values from a seeded generator.
func unitRows(_ rows: Int, columns: Int, seed: UInt64) -> Matrix {
    var generator = SplitMix64(seed: seed)
    var elements = [Float]()
    elements.reserveCapacity(rows * columns)
    for _ in 0..<rows {
        // Box–Muller from two uniform draws, then scaled to unit length.
        var row = (0..<columns).map { _ -> Float in
            let u = Swift.max(generator.nextUnitInterval(), .leastNonzeroMagnitude)
            let v = generator.nextUnitInterval()
            return Float((-2 * log(u)).squareRoot() * cos(2 * .pi * v))
        }
        let norm = row.reduce(0) { $0 + $1 * $1 }.squareRoot()
        row = row.map { $0 / norm }
        elements += row
    }
    return Matrix(rowCount: rows, columnCount: columns, elements: elements)
}

let benchmarks: @Sendable () -> Void = {
    OpenBLASThreads.endIdleWorkers()  // see KMeans.swift
    // Tolerances for `swift package benchmark thresholds check` (see KMeans.swift).
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput],
        maxDuration: .seconds(30),
        maxIterations: 5,
        thresholds: [.wallClock: .init(relative: [.p50: 30]), .throughput: .init(relative: [.p50: 30])]
    )

    for itemCount in [100_000, 1_000_000] {
        let items = unitRows(itemCount, columns: 12, seed: 1)
        let index = CosineIndex(
            FeatureMatrix(
                values: items,
                trackIDs: (0..<Int64(itemCount)).map { $0 },
                columnNames: (0..<12).map { "f\($0)" }
            )
        )
        let queries = unitRows(10_000, columns: 12, seed: 2)

        Benchmark("ExactCosineTop10,N=\(itemCount),Q=10000,d=12,2-tasks") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(await index.nearestNeighbors(of: queries, count: 10, taskCount: 2))
            }
        }
    }

    let library = unitRows(30_000, columns: 12, seed: 3)
    let single = CosineIndex(
        FeatureMatrix(values: library, trackIDs: (0..<30_000).map { $0 }, columnNames: (0..<12).map { "f\($0)" })
    )
    let query = Array(library.row(42))
    Benchmark(
        "OneQuery,30000-track-library",
        configuration: .init(
            metrics: [.wallClock],
            maxIterations: 1_000,
            thresholds: [.wallClock: .init(relative: [.p50: 30])]
        )
    ) {
        benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(single.nearestNeighbors(of: query, count: 20))
        }
    }
}
