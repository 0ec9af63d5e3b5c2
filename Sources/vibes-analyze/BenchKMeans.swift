import Analytics
import ArgumentParser
import Features
import Foundation
import VibesBenchmarking
import VibesCommandSupport

extension VibesAnalyze {
    /// Times Lloyd's iterations on raw float32 files, for `Benchmarks/compare/compare_kmeans.py`.
    ///
    /// Hidden from help: it exists so that the comparison script can feed the same bytes and the
    /// same initial centres to scikit-learn, faiss and us.
    struct BenchKMeans: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "bench-kmeans",
            abstract: "Time Lloyd's k-means iterations on raw float32 data and initial centres.",
            shouldDisplay: false
        )

        @Option(help: "A file of N × d little-endian float32 values, row-major.")
        var data: String

        @Option(help: "A file of k × d little-endian float32 initial centres, row-major.")
        var initial: String

        @Option(help: "The number of columns d.")
        var columns: Int

        @Option(help: "The number of Lloyd iterations (tolerance 0).")
        var maxIter = 20

        @Option(help: "The number of threads.")
        var threads = Parallelism.defaultThreadCount

        @Option(help: "The distance kernel: fused or blas.")
        var kernel: String = "fused"

        @Flag(
            inversion: .prefixedNo,
            help: "Skip rows by Hamerly's bound (exact); --no-bounds scans every row each iteration."
        )
        var bounds = true

        @Option(help: "Run mini-batch k-means with this batch size instead of Lloyd's algorithm.")
        var miniBatch: Int?

        @Flag(help: "Ignore --initial's centres and seed with k-means++ (seed 42), tolerance 1e-4, as `cluster` does.")
        var kMeansPlusPlus = false

        @Option(help: "Write the final labels as int32 to this file.")
        var labelsOut: String?

        func validate() throws {
            guard columns >= 1 else { throw ValidationError("Please give at least one column (got \(columns)).") }
            guard DistanceKernel(rawValue: kernel) != nil else {
                throw ValidationError("Please choose the kernel fused or blas (got '\(kernel)').")
            }
        }

        func run() async throws {
            let x = try Self.readMatrix(path: data, columns: columns)
            let c = try Self.readMatrix(path: initial, columns: columns)
            var options = KMeans.Options()
            options.maxIterations = maxIter
            options.tolerance = 0
            options.threadCount = threads
            options.kernel = DistanceKernel(rawValue: kernel)!
            options.usesBounds = bounds
            let clock = ContinuousClock()
            let start = clock.now
            let model: KMeans
            if let miniBatch {
                var miniOptions = KMeans.MiniBatchOptions()
                miniOptions.batchSize = miniBatch
                miniOptions.threadCount = threads
                var rng = SplitMix64(seed: 42)
                model = try await KMeans.fitMiniBatch(x, clusterCount: c.rowCount, options: miniOptions, using: &rng)
            } else if kMeansPlusPlus {
                options.tolerance = 1e-4
                var rng = SplitMix64(seed: 42)
                model = try await KMeans.fit(x, clusterCount: c.rowCount, options: options, using: &rng)
            } else {
                model = try await KMeans.fit(x, initialCentroids: c, options: options)
            }
            let fitMS = (clock.now - start).milliseconds
            let result: [String: Double] = [
                "iterations": Double(model.iterationCount),
                "ms_per_iteration": model.timings.iterations.milliseconds
                    / Double(max(1, model.timings.iterationCount)),
                "fit_ms": fitMS,
                "final_assignment_ms": model.timings.finalAssignment.milliseconds,
                "inertia": model.inertia,
                "scanned_share": Double(model.timings.scannedRowCount)
                    / Double(x.rowCount * max(1, model.timings.iterationCount)),
            ]
            if let labelsOut {
                let bytes = model.labels.map { $0.littleEndian }.withUnsafeBytes { Data($0) }
                try OutputFile.write(bytes, to: labelsOut)
            }
            try Console.printJSON(result)
        }

        /// Reads a raw float32 file straight into the matrix storage, without an intermediate
        /// copy, so that peak memory is the matrix itself.
        static func readMatrix(path: String, columns: Int) throws -> Matrix {
            guard let file = fopen(path, "rb") else { throw CommandFailure("Cannot read \(path).") }
            defer { fclose(file) }
            fseek(file, 0, SEEK_END)
            let byteCount = ftell(file)
            fseek(file, 0, SEEK_SET)
            guard byteCount > 0, byteCount % (4 * columns) == 0 else {
                throw CommandFailure("\(path) holds \(byteCount) bytes, not a whole number of \(columns)-float rows.")
            }
            var elements = [Float](repeating: 0, count: byteCount / 4)
            let read = elements.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            guard read == byteCount else {
                throw CommandFailure("Could read only \(read) of \(byteCount) bytes of \(path).")
            }
            return Matrix(rowCount: elements.count / columns, columnCount: columns, elements: elements)
        }
    }
}
