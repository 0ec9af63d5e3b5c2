import Analytics
import ArgumentParser
import Features
import Foundation
import Ingest
import VibesBenchmarking
import VibesCommandSupport

extension VibesAnalyze {
    /// `vibes-analyze bench`: how fast clustering and similarity search run on this machine.
    struct Bench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "bench",
            abstract: "Measure how fast clustering and similarity search run on this machine.",
            discussion: """
                Times k-means++ seeding, Lloyd's iterations, mini-batch k-means and exact cosine top-10 for \
                every N, k and thread count given, on synthetic audio features drawn from a mixture fitted to \
                the sample library (or on your library with --data library), z-scored as `cluster --scaling zscore` does. It \
                reports medians with the fastest and slowest run, rows/s, GB/s, GFLOP/s, the share of this \
                machine's roofline (it measures read bandwidth and multiply-add peak first, in under a \
                second), peak memory and inertia, and warns when other work is running. With the defaults it \
                takes about a minute on a 2-core machine; --n 1e5 --repeats 1 takes a few seconds. Build with \
                -c release for figures that mean something.

                Example: vibes-analyze bench --n 1e5 --repeats 1
                """
        )

        /// An output format of the results.
        enum Format: String, ExpressibleByArgument, CaseIterable {
            case table, json, csv
        }

        /// Where the rows come from.
        enum DataChoice: String, ExpressibleByArgument, CaseIterable {
            case synthetic, library
        }

        @OptionGroup var global: GlobalOptions

        @Option(
            name: .customLong("n"),
            help: ArgumentHelp(
                "The row counts N, comma-separated, such as 1e5,1e6, 250000, 100k or 1m. Default: 1e5,1e6; with --data library, the whole library (a given N draws that many tracks from it with replacement).",
                valueName: "counts"
            )
        )
        var rowCounts: CountList?

        @Option(
            name: .customLong("d"),
            help:
                "The number of columns: the first d of the 12 benchmark features, or all 12 and d − 12 columns of noise."
        )
        var columnCount = 12

        @Option(name: .customLong("k"), help: ArgumentHelp("The cluster counts, comma-separated.", valueName: "counts"))
        var clusterCounts = CountList([8, 16, 64])

        @Option(help: ArgumentHelp("The thread counts, comma-separated.", valueName: "counts"))
        var threads = CountList([1, 2])

        @Option(help: "Lloyd's iterations per fit (tolerance 0).")
        var iterations = 20

        @Option(help: "The timed runs of every measurement; the median is reported with the spread.")
        var repeats = 3

        @Option(
            help:
                "The data: synthetic (drawn from a mixture fitted to the sample library) or library (the store's tracks)."
        )
        var data: DataChoice = .synthetic

        @Option(help: "The seed of the data and of every random choice.")
        var seed: UInt64 = 42

        @Option(help: "The output format: table, json or csv.")
        var format: Format = .table

        @Option(help: "The rows per mini-batch step.")
        var batchSize = 1_024

        @Option(help: "The cosine top-10 queries: rows sampled from the data.")
        var queries = 1_000

        @Option(
            help: ArgumentHelp(
                "Also write a chart of the time per Lloyd iteration against N and k as SVG to this file.",
                valueName: "file"
            )
        )
        var svg: String?

        @Option(
            help: ArgumentHelp(
                "Also write the results, the machine and the chart as one HTML page to this file.",
                valueName: "file"
            )
        )
        var html: String?

        @Option(help: .hidden)
        var fitMixture: String?

        @Option(help: .hidden)
        var probeMegabytes = 256

        func validate() throws {
            if let rowCounts, let k = clusterCounts.values.max(), let n = rowCounts.values.min(), k > n {
                throw ValidationError(
                    "Please choose every --k at most the smallest --n (k = \(k) is more than N = \(n))."
                )
            }
            guard (1...1_024).contains(columnCount) else {
                throw ValidationError("Please choose --d from 1 to 1024 (got \(columnCount)).")
            }
            if let bad = threads.values.first(where: { !(1...64).contains($0) }) {
                throw ValidationError("Please choose --threads from 1 to 64 (got \(bad)).")
            }
            guard iterations >= 1 else {
                throw ValidationError("Please allow at least 1 iteration (got \(iterations)).")
            }
            guard repeats >= 1 else { throw ValidationError("Please choose at least 1 repeat (got \(repeats)).") }
            guard batchSize >= 1 else {
                throw ValidationError("Please choose a batch size of at least 1 (got \(batchSize)).")
            }
            guard queries >= 1 else { throw ValidationError("Please choose at least 1 query (got \(queries)).") }
            guard probeMegabytes >= 1 else { throw ValidationError("Please give --probe-megabytes of at least 1.") }
            if global.json && format != .table && format != .json {
                throw ValidationError("Please give either --json or --format \(format.rawValue), not both.")
            }
        }

        func run() async throws {
            if let fitMixture {
                print(try await Self.fittedMixtureSource(csvPath: fitMixture), terminator: "")
                return
            }
            Console.bootstrapLogging(verbose: global.verbose)
            let source: ClusteringBenchmark.DataSource
            var libraryPath = ""
            switch data {
            case .synthetic:
                source = .synthetic(SyntheticLibrary())
            case .library:
                let store = try global.openStore()
                libraryPath = store.path
                let table = try store.featureTable()
                guard table.rowCount > 0 else {
                    throw CommandFailure(
                        "The library at \(store.path) has no tracks with audio features; run `vibes-analyze import FILE` first, or benchmark on synthetic data (the default)."
                    )
                }
                source = .library(table)
            }
            let benchmark = ClusteringBenchmark(settings: settings, data: source)
            do {
                try benchmark.validate()
            } catch AnalyticsError.tooFewSamples(let required, let available, _) where data == .library {
                if rowCounts == nil {
                    throw CommandFailure(
                        "--k \(required) needs at least \(required) tracks with all the benchmark features (the default features and key), but the library at \(libraryPath) has \(available); choose a smaller --k, or give --n to draw that many tracks from the library."
                    )
                }
                throw CommandFailure(
                    "The library at \(libraryPath) has no tracks with all the benchmark features (the default features and key); import a features CSV, or benchmark on synthetic data (the default)."
                )
            }

            let showsBar = Console.stderrIsTerminal && !global.quiet
            let isVerbose = global.verbose
            let width = ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init) ?? 80
            let report = try await benchmark.run(commandLine: Self.commandLine) { progress in
                if isVerbose && progress.isStartOfStep {
                    if showsBar { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
                    Console.diagnostic("running \(progress.configuration)")
                }
                if showsBar {
                    FileHandle.standardError.write(
                        Data(("\r" + progress.renderedLine(width: width - 1) + "\u{1B}[K").utf8)
                    )
                }
            }
            if showsBar { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
            let output = global.json ? .json : format
            // The table carries the warning itself; JSON and CSV get it on standard error.
            if let warning = report.busyWarning, !global.quiet, output != .table {
                Console.diagnostic("warning: " + warning)
            }

            switch output {
            case .table: print(report.renderedTable(), terminator: "")
            case .json: try Console.printJSON(report)
            case .csv: print(report.renderedCSV(), terminator: "")
            }
            if let svg { try write(report.renderedSVG(), to: svg, what: "SVG chart") }
            if let html { try write(report.renderedHTML(), to: html, what: "HTML page") }
        }

        /// The library's settings from the options.
        var settings: ClusteringBenchmark.Settings {
            var settings = ClusteringBenchmark.Settings()
            settings.rowCounts = rowCounts?.values ?? (data == .synthetic ? [100_000, 1_000_000] : nil)
            settings.columnCount = columnCount
            settings.clusterCounts = clusterCounts.values
            settings.threadCounts = threads.values
            settings.iterations = iterations
            settings.repeats = repeats
            settings.seed = seed
            settings.miniBatchSize = batchSize
            settings.queryCount = queries
            settings.probe.bandwidthBufferBytes = probeMegabytes << 20
            return settings
        }

        private func write(_ text: String, to path: String, what: String) throws {
            let url = URL(fileURLWithPath: path)
            do {
                try FileManager.default.createDirectory(
                    at: url.deletingLastPathComponent(),
                    withIntermediateDirectories: true
                )
            } catch {
                throw ReportError.cannotWrite(path: path, reason: error.localizedDescription)
            }
            try OutputFile.write(text, to: path)
            if !global.quiet { Console.diagnostic("Wrote the \(what) to \(path).") }
        }

        /// The command line as typed, arguments quoted for a POSIX shell where needed.
        static var commandLine: String {
            let arguments = CommandLine.arguments
            let name = arguments.first.map { URL(fileURLWithPath: $0).lastPathComponent } ?? "vibes-analyze"
            return
                ([name]
                + arguments.dropFirst().map { argument in
                    let isPlain =
                        !argument.isEmpty
                        && argument.allSatisfy { $0.isLetter || $0.isNumber || "-_.,/=:+@%".contains($0) }
                    return isPlain ? argument : "'" + argument.replacingOccurrences(of: "'", with: "'\\''") + "'"
                }).joined(separator: " ")
        }

        /// Imports the CSV at `csvPath` into a temporary store, fits the benchmark mixture to it and
        /// returns the Swift source of `AudioFeatureMixture.tidyTuesdaySample`.
        static func fittedMixtureSource(csvPath: String) async throws -> String {
            let folder = NSTemporaryDirectory() + "vibes-fit-mixture-" + UUID().uuidString
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let store = try LibraryStore(path: folder + "/library.sqlite")
            _ = try store.importFile(at: csvPath)
            let mixture = try await AudioFeatureMixture.fit(to: try store.featureTable())
            return mixture.swiftSource(
                name: "tidyTuesdaySample",
                documentation: [
                    "The mixture fitted to the bundled sample library, `samples/tidytuesday-sample.csv` (3,000 tracks,",
                    "500 in each of six genres): 12 components, k-means seed 42.",
                    "",
                    "Regenerate it after changing the fit with",
                    "`swift run vibes-analyze bench --fit-mixture samples/tidytuesday-sample.csv > Sources/VibesBenchmarking/AudioFeatureMixture+TidyTuesdaySample.swift`;",
                    "`AudioFeatureMixtureTests` checks that it matches a fresh fit.",
                ]
            )
        }
    }
}

/// A comma-separated list of positive counts, as `--n`, `--k` and `--threads` take them:
/// `1e5,1e6`, `250000`, `100k`, `1m`.
struct CountList: ExpressibleByArgument, Equatable {
    var values: [Int]

    init(_ values: [Int]) {
        self.values = values
    }

    init?(argument: String) {
        let parts = argument.split(separator: ",", omittingEmptySubsequences: false)
        var values: [Int] = []
        for part in parts {
            guard let value = CountList.count(from: String(part)) else { return nil }
            values.append(value)
        }
        guard !values.isEmpty else { return nil }
        self.values = values
    }

    /// One count: digits with an optional exponent (`1e5`) or a `k` or `m` suffix, a whole number
    /// of at least 1.
    static func count(from text: String) -> Int? {
        var text = text.trimmingCharacters(in: .whitespaces).lowercased().replacingOccurrences(of: "_", with: "")
        var factor = 1.0
        if text.hasSuffix("k") {
            factor = 1e3
            text.removeLast()
        } else if text.hasSuffix("m") {
            factor = 1e6
            text.removeLast()
        }
        guard !text.isEmpty, text.allSatisfy({ $0.isNumber || $0 == "." || $0 == "e" || $0 == "+" }),
            let number = Double(text)
        else { return nil }
        let value = number * factor
        guard value.isFinite, value >= 1, value <= 1e12, value == value.rounded() else { return nil }
        return Int(value)
    }

    var defaultValueDescription: String {
        values.map(String.init).joined(separator: ",")
    }
}
