import Analytics
import ArgumentParser
import Features
import Foundation
import Ingest
import VibesCommandSupport
import VibesEngine

#if canImport(CMalloc)
import CMalloc
#endif

extension VibesAnalyze {
    /// `vibes-analyze cluster`: finds the vibes of the library with k-means and saves the run.
    struct Cluster: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "cluster",
            abstract: "Group the library into vibes with k-means, name them and save the run.",
            discussion: """
                Tracks become points in a space of audio features (rank-normal scores by default, see \
                --scaling) and k-means \
                groups them. Each vibe is named from its valence–energy quadrant and its strongest \
                deviations, such as "Calm acoustic". With --k auto, every k from --min-k to --max-k \
                (4 to 12) is tried, and the most vibes whose silhouette is within 0.01 of the best \
                are kept; the scores of every k are printed. The same seed gives the same vibes.

                Example: vibes-analyze cluster --k auto --seed 42
                """
        )

        @OptionGroup var global: GlobalOptions
        @OptionGroup var layout: TableOptions
        @OptionGroup(title: "Scope") var scope: PlaylistScopeOptions

        @Option(
            name: .customLong("from"),
            help: "Cluster your library (the default), or the library and the reference pool (all)."
        )
        var pool: CandidatePool = .library

        @Option(
            name: .customLong("k"),
            help: "The number of vibes, or 'auto' to choose from --min-k to --max-k by silhouette."
        )
        var clusterCount: ClusterCountChoice = .fixed(8)

        @Option(help: "The smallest number of vibes --k auto tries.")
        var minK = 4

        @Option(help: "The largest number of vibes --k auto tries.")
        var maxK = 12

        @Option(
            help: ArgumentHelp(
                "The features to cluster on, comma-separated.",
                valueName: "features"
            )
        )
        var features: String = FeatureSchema.defaultFeatures.map(\.rawValue).joined(separator: ",")

        @Option(
            name: .customLong("weight"),
            help: ArgumentHelp(
                "A feature weight, such as tempo=0.5; repeatable. Mode, when clustered, weighs 0.5 unless given.",
                valueName: "feature=weight"
            )
        )
        var weights: [String] = []

        @Flag(
            name: .long,
            help: "Use the default feature weights, not the personal ones `weights learn` stored."
        )
        var noPersonal = false

        @Option(
            help: """
                How features are scaled: ranknormal (acousticness, instrumentalness, speechiness and \
                liveness as the normal scores of their ranks in the library, tempo on a log scale, the \
                rest z-scored; the default), zscore (each feature by its library mean and standard \
                deviation), minmax or raw.
                """
        )
        var scaling: ScalingChoice = .ranknormal

        @Option(help: "The seed of every random choice; the same seed gives the same vibes.")
        var seed: UInt64 = 42

        @Option(name: .customLong("n-init"), help: "The number of k-means restarts; the best is kept.")
        var restartCount = 3

        @Option(name: .customLong("max-iter"), help: "The most k-means iterations per restart.")
        var maxIterations = 300

        @Option(help: "The algorithm: lloyd (exact, the default) or minibatch (for very large libraries).")
        var algorithm: ClusteringRun.Algorithm = .lloyd

        @Option(help: "The rows per step of --algorithm minibatch.")
        var batchSize = 4096

        @Option(help: "The number of threads.")
        var threads = Parallelism.defaultThreadCount

        @Option(help: "The number of representative tracks shown per vibe.")
        var examples = 3

        @Flag(
            help:
                "Make a --playlist run the current one, which vibes, report and --vibe use (by default they keep the library's latest)."
        )
        var makeCurrent = false

        func validate() throws {
            if makeCurrent && scope.playlist == nil {
                throw ValidationError(
                    "--make-current is for a run of one playlist (--playlist NAME); a run of the library is current already."
                )
            }
            if case .fixed(let k) = clusterCount, k < 2 {
                throw ValidationError("Please choose at least 2 vibes (got \(k)).")
            }
            guard minK >= 2 else { throw ValidationError("Please let --min-k be at least 2 (got \(minK)).") }
            guard maxK >= minK else {
                throw ValidationError("Please let --max-k be at least --min-k, \(minK) (got \(maxK)).")
            }
            guard restartCount >= 1 else {
                throw ValidationError("Please choose at least 1 restart (got \(restartCount)).")
            }
            guard maxIterations >= 1 else {
                throw ValidationError("Please allow at least 1 iteration (got \(maxIterations)).")
            }
            guard (1...64).contains(threads) else {
                throw ValidationError("Please choose 1 to 64 threads (got \(threads)).")
            }
            guard batchSize >= 1 else {
                throw ValidationError("Please choose a batch size of at least 1 (got \(batchSize)).")
            }
            if algorithm == .minibatch && clusterCount == .auto {
                throw ValidationError(
                    "Please choose a fixed --k with --algorithm minibatch; --k auto runs Lloyd's algorithm."
                )
            }
            guard examples >= 0 else { throw ValidationError("Please choose 0 or more examples (got \(examples)).") }
            _ = try makeSchema()
        }

        /// The schema the options describe.
        func makeSchema() throws -> FeatureSchema {
            do {
                return try FeatureSchema(parsing: features, weights: weights, scaling: scaling.scaling)
            } catch let error as FeatureSchemaError {
                throw ValidationError(error.description)
            }
        }

        @Option(
            help: ArgumentHelp(
                "Save a run that was kept in a file because the library was busy, then show it.",
                valueName: "file"
            )
        )
        var restore: String?

        func run() async throws {
            Self.reuseFreedMemory()
            var timer = PhaseTimer(isEnabled: global.timings)
            defer { timer.report() }
            let store = try global.openStore(activity: "cluster")
            timer.lap("open")
            if let restore {
                let restored = try store.restoreClusteringRun(from: restore, exampleCount: examples)
                if global.json {
                    try Console.printJSON(restored.report)
                } else {
                    print(restored.report.renderedTable(width: layout.width), terminator: "")
                }
                if !global.quiet { Console.diagnostic("Saved run \(restored.runID) from \(restore).") }
                return
            }
            let bar = clusterCount == .auto ? ProgressBar(label: "Choosing k", quiet: global.quiet) : nil
            let found = try await describingScope {
                try await store.findVibes(request) {
                    timer.lap($0)
                } progress: { done, total in
                    bar?.update(done: done, total: total)
                }
            }
            bar?.finish()
            let missing = found.missingCounts.filter { $0.value > 0 }
            if !missing.isEmpty && !global.quiet {
                let counts = missing.sorted { $0.key.rawValue < $1.key.rawValue }
                    .map { "\($0.key.rawValue) \($0.value)" }.joined(separator: ", ")
                Console.diagnostic(
                    "Left out \(found.excludedTrackCount) tracks that miss a clustered feature (\(counts))."
                )
            }
            if !found.imputedCounts.isEmpty && !global.quiet {
                let filled = found.imputedCounts.sorted { $0.key.rawValue < $1.key.rawValue }
                    .map { "\($0.key.rawValue) for \($0.value) tracks" }.joined(separator: ", ")
                Console.diagnostic("Filled in the library's mean \(filled) (no source measures it for them).")
            }
            if global.json {
                try Console.printJSON(found.report)
            } else {
                print(found.report.renderedTable(width: layout.width), terminator: "")
            }
            timer.lap("render")
            if !global.quiet {
                let runID = found.runID
                var saved = "Saved run \(runID) of the library."
                if let playlist = found.playlistName {
                    saved =
                        "Saved run \(runID) of playlist '\(TerminalText.singleLine(playlist))'; "
                        + (makeCurrent
                            ? "vibes, report and --vibe use it until the next run of the library."
                            : "vibes, report and --vibe keep using "
                                + (found.currentRunID.map { "run \($0)" } ?? "the library's runs")
                                + " (--make-current would have made this one current; `vibes --run \(runID)` shows it).")
                }
                for line in TerminalWidth.wrap(saved, to: TerminalWidth.standardError) { Console.diagnostic(line) }
                let timings = found.timings
                let times =
                    "Times: load \(format(timings["load"]!)), matrix \(format(timings["matrix"]!)), "
                    + "k-means \(format(timings["clustering"]!)) (\(found.iterationCount) iterations), save \(format(timings["save"]!))."
                for line in TerminalWidth.wrap(times, to: TerminalWidth.standardError, indent: "  ") {
                    Console.diagnostic(line)
                }
            }
        }

        /// Keeps the memory of freed arrays in the heap for the next ones, instead of giving every
        /// large array a mapping of its own that is returned to the system when it is freed
        /// (``VibesAnalyze/keepLargeAllocationsApart()``, which suits `import`'s peak).
        ///
        /// A run reads the snapshots, builds the space, fits and scores, and writes the run, each
        /// step with arrays of megabytes that the last one freed: with a mapping each, every page
        /// of them faulted in anew. Measured on a million tracks (`make build`, AMD EPYC, 2 cores,
        /// `perf stat`), without and with this: 106,000 and 39,000 page faults, 0.25 and 0.10 s of
        /// kernel CPU, peak RSS 178 and 192–193 MB (`Benchmarks/RESULTS.md`).
        static func reuseFreedMemory() {
            #if canImport(CMalloc)
            _ = mallopt(M_MMAP_MAX, 0)
            _ = mallopt(M_TRIM_THRESHOLD, Int32.max)
            #endif
        }

        /// The clustering the options ask for, as the engine takes it.
        var request: VibeRequest {
            get throws {
                var settings = VibeClustering.Settings(
                    schema: try makeSchema(),
                    clusterCount: clusterCount == .auto ? .best(among: minK...maxK) : .fixed(clusterCount.fixedValue!)
                )
                settings.algorithm = algorithm
                settings.seed = seed
                settings.kMeans.restartCount = restartCount
                settings.kMeans.maxIterations = maxIterations
                settings.kMeans.threadCount = threads
                settings.miniBatch.batchSize = batchSize
                settings.miniBatch.maxSteps = maxIterations
                var request = VibeRequest(settings: settings)
                request.scope = scope.scope(from: pool)
                request.usesPersonalWeights = !noPersonal
                request.makesCurrent = makeCurrent
                request.exampleCount = examples
                return request
            }
        }

        private func format(_ milliseconds: Double) -> String {
            String(format: "%.1f ms", milliseconds)
        }
    }
}

/// `--k`: a number of clusters or `auto`.
enum ClusterCountChoice: ExpressibleByArgument, Equatable {
    case fixed(Int)
    case auto

    init?(argument: String) {
        if argument.lowercased() == "auto" {
            self = .auto
        } else if let k = Int(argument) {
            self = .fixed(k)
        } else {
            return nil
        }
    }

    /// The fixed count, or `nil` for `auto`.
    var fixedValue: Int? {
        if case .fixed(let k) = self { return k }
        return nil
    }

    var defaultValueDescription: String {
        switch self {
        case .fixed(let k): "\(k)"
        case .auto: "auto"
        }
    }
}

/// `--algorithm`.
extension ClusteringRun.Algorithm: ExpressibleByArgument {}

/// `--scaling`.
enum ScalingChoice: String, ExpressibleByArgument, CaseIterable {
    case ranknormal, zscore, minmax, raw

    var scaling: FeatureSchema.Scaling {
        switch self {
        case .ranknormal: .rankNormal
        case .zscore: .zScore
        case .minmax: .minMax
        case .raw: .raw
        }
    }
}

extension Duration {
    /// The duration in milliseconds.
    var milliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }
}
