import Analytics
import ArgumentParser
import Features
import Foundation
import VibesBenchmarking
import VibesCommandSupport

extension VibesAnalyze {
    /// Times exact cosine top-k on raw float32 files, for `Benchmarks/compare/compare_knn.py`.
    ///
    /// Hidden from help, like `bench-kmeans`: it lets the comparison script give faiss, numpy and
    /// us the same bytes.
    struct BenchKNN: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "bench-knn",
            abstract: "Time exact cosine top-k search on raw float32 data and queries.",
            shouldDisplay: false
        )

        @Option(help: "A file of N × d little-endian float32 values, row-major: the indexed items.")
        var data: String

        @Option(help: "A file of Q × d little-endian float32 values, row-major: the queries.")
        var queries: String

        @Option(help: "The number of columns d.")
        var columns: Int

        @Option(name: .customShort("k"), help: "The number of neighbours per query.")
        var neighbors = 10

        @Option(help: "The number of threads (tasks).")
        var threads = Parallelism.defaultThreadCount

        @Option(help: "The number of timed repetitions; the fastest is reported.")
        var repeats = 3

        @Option(help: "Write the neighbours' row numbers as Q × k int32 to this file.")
        var indicesOut: String?

        func validate() throws {
            guard columns >= 1 else { throw ValidationError("Please give at least one column (got \(columns)).") }
            guard neighbors >= 1, threads >= 1, repeats >= 1 else {
                throw ValidationError("Please give -k, --threads and --repeats of at least 1.")
            }
        }

        func run() async throws {
            let x = try BenchKMeans.readMatrix(path: data, columns: columns)
            let q = try BenchKMeans.readMatrix(path: queries, columns: columns)
            let clock = ContinuousClock()
            let buildStart = clock.now
            let index = CosineIndex(
                FeatureMatrix(
                    values: x,
                    trackIDs: (0..<Int64(x.rowCount)).map { $0 },
                    columnNames: (0..<columns).map { "c\($0)" }
                )
            )
            let buildTime = clock.now - buildStart
            var best = Duration.seconds(1_000_000)
            var result: [[Neighbor]] = []
            for _ in 0..<repeats {
                let start = clock.now
                result = await index.nearestNeighbors(of: q, count: neighbors, taskCount: threads)
                best = min(best, clock.now - start)
            }
            let seconds = Double(best.components.seconds) + Double(best.components.attoseconds) / 1e18
            if let indicesOut {
                var flat = [Int32](repeating: -1, count: q.rowCount * neighbors)
                for (query, found) in result.enumerated() {
                    for (slot, neighbor) in found.enumerated() { flat[query * neighbors + slot] = Int32(neighbor.row) }
                }
                try flat.map { $0.littleEndian }.withUnsafeBytes { Data($0) }.write(
                    to: URL(fileURLWithPath: indicesOut)
                )
            }
            let build = Double(buildTime.components.seconds) + Double(buildTime.components.attoseconds) / 1e18
            try Console.printJSON([
                "seconds": seconds, "queries_per_second": Double(q.rowCount) / seconds, "index_build_seconds": build,
            ])
        }
    }
}
