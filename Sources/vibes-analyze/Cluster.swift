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
            abstract: "Group the library into vibes with k-means, name them and save the run.",
            discussion: """
                Tracks become points in a space of audio features (rank-normal scores by default, see \
                --scaling) and k-means \
                groups them. Each vibe is named from its valence–energy quadrant and its strongest \
                deviations, such as "Calm acoustic". With --k auto, every k from 2 to --max-k is \
                tried and the one with the best silhouette is kept; the scores are printed. \
                The same seed gives the same vibes.

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

        @Option(name: .customLong("k"), help: "The number of vibes, or 'auto' to choose by silhouette.")
        var clusterCount: ClusterCountChoice = .fixed(8)

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
        var algorithm: AlgorithmChoice = .lloyd

        @Option(help: "The rows per step of --algorithm minibatch.")
        var batchSize = 4096

        @Option(help: "The number of threads.")
        var threads = Parallelism.defaultThreadCount

        @Option(help: "The number of representative tracks shown per vibe.")
        var examples = 3

        func validate() throws {
            if case .fixed(let k) = clusterCount, k < 2 {
                throw ValidationError("Please choose at least 2 vibes (got \(k)).")
            }
            guard maxK >= 2 else { throw ValidationError("Please let --max-k be at least 2 (got \(maxK)).") }
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
            var timings: [String: Double] = [:]
            var start = clock.now
            let table = try describingScope { try store.featureTable(scope: scope.scope(from: pool)) }
            timings["load"] = (clock.now - start).milliseconds
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

            start = clock.now
            let space = try makeSchema().makeSpace(from: table)
            timings["matrix"] = (clock.now - start).milliseconds
            timer.lap("matrix")
            if space.excludedTrackCount > 0 && !global.quiet {
                let imputed = space.scaling.schema.imputedFeatures
                let missing = space.missingCounts.filter { $0.value > 0 && !imputed.contains($0.key) }
                    .sorted { $0.key.rawValue < $1.key.rawValue }
                    .map { "\($0.key.rawValue) \($0.value)" }.joined(separator: ", ")
                Console.diagnostic(
                    "Left out \(space.excludedTrackCount) tracks that miss a clustered feature (\(missing))."
                )
            }
            if !space.imputedCounts.isEmpty && !global.quiet {
                let filled = space.imputedCounts.sorted { $0.key.rawValue < $1.key.rawValue }
                    .map { "\($0.key.rawValue) for \($0.value) tracks" }.joined(separator: ", ")
                Console.diagnostic("Filled in the library's mean \(filled) (no source measures it for them).")
            }

            var options = KMeans.Options()
            options.restartCount = restartCount
            options.maxIterations = maxIterations
            options.threadCount = threads
            var rng = SplitMix64(seed: seed)
            let data = space.matrix.values
            let model: KMeans
            var quality: ClusterQuality
            var scan: [ClusterQuality]?
            start = clock.now
            switch clusterCount {
            case .auto:
                let bar = ProgressBar(label: "Choosing k", quiet: global.quiet)
                let result = try await KMeans.fitChoosingClusterCount(
                    data,
                    among: 2...maxK,
                    options: options,
                    using: &rng,
                    progress: { done, total in bar.update(done: done, total: total) }
                )
                bar.finish()
                model = result.model
                scan = result.qualities
                quality = result.qualities.first { $0.clusterCount == model.clusterCount }!
            case .fixed(let k) where algorithm == .minibatch:
                var miniBatch = KMeans.MiniBatchOptions()
                miniBatch.batchSize = batchSize
                miniBatch.maxSteps = maxIterations
                miniBatch.threadCount = threads
                model = try await KMeans.fitMiniBatch(data, clusterCount: k, options: miniBatch, using: &rng)
                quality = ClusterQuality.evaluate(model, on: data, using: &rng)
            case .fixed(let k):
                model = try await KMeans.fit(data, clusterCount: k, options: options, using: &rng)
                quality = ClusterQuality.evaluate(model, on: data, using: &rng)
            }
            timings["clustering"] = (clock.now - start).milliseconds
            timer.lap("k-means")
            timings["seeding"] = model.timings.seeding.milliseconds
            timings["iterations"] = model.timings.iterations.milliseconds
            quality.inertia = model.inertia

            let profiles = VibeNames.profiles(
                table: table,
                tableRows: space.tableRows,
                labels: model.labels,
                clusterCount: model.clusterCount
            )
            let runRecord = ClusteringRunRecord(
                createdAt: Date(),
                algorithm: algorithm.rawValue,
                clusterCount: model.clusterCount,
                seed: Int64(bitPattern: seed),
                restartCount: restartCount,
                maxIterations: maxIterations,
                tolerance: options.tolerance,
                threadCount: threads,
                scaling: space.scaling,
                trackCount: space.matrix.rowCount,
                excludedTrackCount: space.excludedTrackCount,
                iterationCount: model.iterationCount,
                hasConverged: model.hasConverged,
                inertia: model.inertia,
                silhouette: quality.silhouette,
                calinskiHarabasz: quality.calinskiHarabasz,
                daviesBouldin: quality.daviesBouldin,
                clusterCountScan: scan?.map(ClusterCountScore.init),
                timings: timings
            )
            let clusters = profiles.map { profile in
                let centroid = Array(model.centroids.row(profile.cluster))
                let original = space.scaling.originalValues(ofScaledRow: centroid)
                return ClusterRecord(
                    runID: 0,
                    cluster: profile.cluster,
                    name: profile.name,
                    mood: profile.mood.rawValue,
                    size: profile.size,
                    share: profile.share,
                    centroidScaled: centroid,
                    centroidOriginal: Dictionary(uniqueKeysWithValues: original.map { ($0.key.rawValue, $0.value) }),
                    means: profile.means,
                    zScores: profile.zScores,
                    distinguishingFeatures: profile.distinguishingFeatures
                )
            }
            start = clock.now
            let unsaved = UnsavedClusteringRun(
                run: runRecord,
                clusters: clusters,
                trackIDs: space.matrix.trackIDs,
                labels: model.labels,
                distances: model.squaredDistances.map { $0.squareRoot() }
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
            let saving = (clock.now - start).milliseconds
            timer.lap("names and save")

            let report = try VibesReport(store: store, runID: runID, exampleCount: examples)
            if global.json {
                try Console.printJSON(report)
            } else {
                print(report.renderedTable(width: layout.width), terminator: "")
            }
            timer.lap("render")
            if !global.quiet {
                Console.diagnostic(
                    "Saved run \(runID). Times: load \(format(timings["load"]!)), matrix \(format(timings["matrix"]!)), "
                        + "k-means \(format(timings["clustering"]!)) (\(model.iterationCount) iterations), save \(format(saving))."
                )
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

    var defaultValueDescription: String {
        switch self {
        case .fixed(let k): "\(k)"
        case .auto: "auto"
        }
    }
}

/// `--algorithm`.
enum AlgorithmChoice: String, ExpressibleByArgument, CaseIterable {
    case lloyd, minibatch
}

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

extension ClusterCountScore {
    init(_ quality: ClusterQuality) {
        self.init(
            clusterCount: quality.clusterCount,
            inertia: quality.inertia,
            silhouette: quality.silhouette,
            calinskiHarabasz: quality.calinskiHarabasz,
            daviesBouldin: quality.daviesBouldin
        )
    }
}

extension Duration {
    /// The duration in milliseconds.
    var milliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }
}
