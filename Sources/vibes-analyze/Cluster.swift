import Analytics
import ArgumentParser
import Features
import Foundation
import Ingest
import VibesCommandSupport

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
            var chosen: [AudioFeature] = []
            for name in features.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) })
            where !name.isEmpty {
                guard let feature = FeatureSchema.feature(named: name) else {
                    throw ValidationError(FeatureSchemaError.unknownFeature(name).description)
                }
                chosen.append(feature)
            }
            var weightsByFeature = FeatureSchema.defaultWeights.filter { chosen.contains($0.key) }
            for text in weights {
                let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, let weight = Double(parts[1]) else {
                    throw ValidationError("Please write a weight as feature=number, such as tempo=0.5 (got '\(text)').")
                }
                guard let feature = FeatureSchema.feature(named: parts[0]) else {
                    throw ValidationError(FeatureSchemaError.unknownFeature(parts[0]).description)
                }
                weightsByFeature[feature] = weight
            }
            do {
                return try FeatureSchema(features: chosen, weights: weightsByFeature, scaling: scaling.scaling)
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

        /// Writes a run that could not be saved to `unsaved-run-<time>-<pid>.json` beside the store
        /// (mode 0600), or in the temporary folder when that folder cannot be written.
        static func keep(_ unsaved: UnsavedClusteringRun, beside storePath: String) throws -> String {
            let data = try unsaved.encoded()
            let stamp = Date().formatted(.iso8601.year().month().day().time(includingFractionalSeconds: false))
                .replacingOccurrences(of: ":", with: "")
            let name = "unsaved-run-\(stamp)-\(ProcessInfo.processInfo.processIdentifier).json"
            let folder = (storePath as NSString).deletingLastPathComponent
            for directory in [folder.isEmpty ? "." : folder, NSTemporaryDirectory()] {
                let path = (directory as NSString).appendingPathComponent(name)
                if FileManager.default.createFile(atPath: path, contents: data, attributes: [.posixPermissions: 0o600])
                {
                    return path
                }
            }
            throw CocoaError(.fileWriteUnknown)
        }

        func run() async throws {
            var timer = PhaseTimer(isEnabled: global.timings)
            defer { timer.report() }
            let store = try global.openStore(activity: "cluster")
            timer.lap("open")
            if let restore {
                guard let data = FileManager.default.contents(atPath: restore) else {
                    throw CommandFailure("\(restore): no such file (expected a run kept by `vibes-analyze cluster`).")
                }
                let unsaved: UnsavedClusteringRun
                do {
                    unsaved = try UnsavedClusteringRun(json: data)
                } catch {
                    throw CommandFailure("\(restore) is not a run kept by `vibes-analyze cluster`.")
                }
                let runID = try store.saveClusteringRun(unsaved)
                try? FileManager.default.removeItem(atPath: restore)
                let report = try VibesReport(store: store, runID: runID, exampleCount: examples)
                if global.json {
                    try Console.printJSON(report)
                } else {
                    print(report.renderedTable(width: layout.width), terminator: "")
                }
                if !global.quiet { Console.diagnostic("Saved run \(runID) from \(restore).") }
                return
            }
            let clock = ContinuousClock()
            var start = clock.now
            let table = try describingScope { try store.featureTable(scope: scope.scope(from: pool)) }
            let loadMS = (clock.now - start).milliseconds
            timer.lap("load")
            if table.rowCount == 0 {
                let reference = try store.summary().referenceTracks
                Console.diagnostic(
                    reference > 0 && pool == .library && scope.playlist == nil
                        ? "Error: your library has no tracks with audio features; its \(reference) reference tracks are candidates only. Cluster them too with --from all, or import your own tracks without --reference."
                        : "Error: there are no tracks with audio features to cluster. Run `vibes-analyze sync` or `vibes-analyze import FILE` first; `vibes-analyze features status` says what is missing."
                )
                throw ExitCode.failure
            }

            var schema = try makeSchema()
            if !noPersonal, let personal = try store.personalWeights() { schema = schema.applying(personal) }
            var settings = VibeClustering.Settings(
                schema: schema,
                clusterCount: clusterCount == .auto ? .best(among: minK...maxK) : .fixed(clusterCount.fixedValue!)
            )
            settings.algorithm = algorithm
            settings.seed = seed
            settings.kMeans.restartCount = restartCount
            settings.kMeans.maxIterations = maxIterations
            settings.kMeans.threadCount = threads
            settings.miniBatch.batchSize = batchSize
            settings.miniBatch.maxSteps = maxIterations
            settings.tags = try LoadedLibrary.nameTags(store: store)
            let bar = clusterCount == .auto ? ProgressBar(label: "Choosing k", quiet: global.quiet) : nil
            // The scaled space from the store's cache when the last command used this table and
            // schema (as `recommend` does with the default one).
            let space = try store.featureSpace(of: table, schema: settings.schema)
            timer.lap("space")
            let outcome = try await VibeClustering.cluster(table, settings: settings, space: space) { done, total in
                bar?.update(done: done, total: total)
            }
            bar?.finish()
            timer.lap("k-means and names")
            let missing = outcome.missingCounts.filter { $0.value > 0 }
            if !missing.isEmpty && !global.quiet {
                let counts = missing.sorted { $0.key.rawValue < $1.key.rawValue }
                    .map { "\($0.key.rawValue) \($0.value)" }.joined(separator: ", ")
                Console.diagnostic(
                    "Left out \(outcome.run.excludedTrackCount) tracks that miss a clustered feature (\(counts))."
                )
            }
            if !outcome.imputedCounts.isEmpty && !global.quiet {
                let filled = outcome.imputedCounts.sorted { $0.key.rawValue < $1.key.rawValue }
                    .map { "\($0.key.rawValue) for \($0.value) tracks" }.joined(separator: ", ")
                Console.diagnostic("Filled in the library's mean \(filled) (no source measures it for them).")
            }

            start = clock.now
            var timings = outcome.timings
            timings["load"] = loadMS
            let unsaved = UnsavedClusteringRun(
                run: outcome.run,
                timings: timings,
                clusters: outcome.vibes.map { ClusterRecord(runID: 0, vibe: $0) },
                trackIDs: outcome.trackIDs,
                labels: outcome.labels,
                distances: outcome.distances
            )
            let runID: Int64
            do {
                runID = try store.saveClusteringRun(unsaved)
            } catch let error as StoreError {
                // The work is done: keep it in a file rather than lose it.
                let file = try Self.keep(unsaved, beside: store.path)
                Console.diagnostic(
                    "Error: the run could not be saved. \(Console.message(for: error)) It was kept in \(file); "
                        + "save it with `vibes-analyze cluster --restore \(file)`."
                )
                throw ExitCode.failure
            }
            let playlist = try scope.playlist.map { text in try describingScope { try store.playlist(matching: text) } }
            try store.setScope(playlist.map { .playlist($0.name) } ?? .library, makeCurrent: makeCurrent, ofRun: runID)
            let saving = (clock.now - start).milliseconds
            timer.lap("save")

            let report = try VibesReport(store: store, runID: runID, exampleCount: examples)
            if global.json {
                try Console.printJSON(report)
            } else {
                print(report.renderedTable(width: layout.width), terminator: "")
            }
            timer.lap("render")
            if !global.quiet {
                var saved = "Saved run \(runID) of the library."
                if let playlist {
                    let current = try store.currentClusteringRunID()
                    saved =
                        "Saved run \(runID) of playlist '\(TerminalText.singleLine(playlist.name))'; "
                        + (makeCurrent
                            ? "vibes, report and --vibe use it until the next run of the library."
                            : "vibes, report and --vibe keep using "
                                + (current.map { "run \($0)" } ?? "the library's runs")
                                + " (--make-current would have made this one current; `vibes --run \(runID)` shows it).")
                }
                for line in TerminalWidth.wrap(saved, to: TerminalWidth.standardError) { Console.diagnostic(line) }
                let times =
                    "Times: load \(format(loadMS)), matrix \(format(timings["matrix"]!)), "
                    + "k-means \(format(timings["clustering"]!)) (\(outcome.run.iterationCount) iterations), save \(format(saving))."
                for line in TerminalWidth.wrap(times, to: TerminalWidth.standardError, indent: "  ") {
                    Console.diagnostic(line)
                }
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
