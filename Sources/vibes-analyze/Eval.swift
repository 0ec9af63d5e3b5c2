import Analytics
import ArgumentParser
import Features
import Foundation
import Ingest
import VibesCommandSupport
import VibesEngine

extension VibesAnalyze {
    /// `vibes-analyze eval`: how well neighbours and clusters agree with labels the user already has.
    struct Eval: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "eval",
            abstract:
                "Measure recommendation quality against labels: precision@k versus naive baselines and chance, and cluster agreement (NMI, ARI).",
            discussion: """
                For every track with a label (a genre tag, a subgenre, or an imported playlist), the k most \
                similar labelled tracks are found; precision@k is the share that share a label with the seed. \
                The same seeds are searched in three naive spaces (z-score cosine on the 11 audio features, \
                z-score cosine without key and mode, z-score Euclidean without key and mode), and each \
                difference "tool − baseline" comes with a paired bootstrap 95 % confidence interval over \
                the seeds. The random baseline is the exact share expected by chance. NMI and ARI compare a \
                k-means clustering of the same space, and with --run a saved clustering run, with the labels \
                (1 = the same grouping, 0 = unrelated). With --label playlist, catch-all playlists (Liked \
                Songs, or any holding more than 30 % of the tracks) are left out unless --include-catch-all \
                is given. The similarity evaluated never uses the label it is graded on.

                With --ordering, it judges playlist order instead: every imported playlist with 10 to 500 \
                tracks with features (catch-alls left out as above) is ordered by flow and by best-start \
                greedy nearest neighbour, and the mean transition cost per step of each (lower is \
                smoother) is compared, with paired bootstrap 95 % CIs over the playlists, with greedy's \
                and with the exact expected cost of a random order.

                Example: vibes-analyze eval --label genre --sample 2000
                """
        )

        @OptionGroup var global: GlobalOptions
        @OptionGroup(title: "Scope") var scope: PlaylistScopeOptions
        @OptionGroup var layout: TableOptions

        @Option(
            name: .long,
            help:
                "The label: genre, subgenre or playlist (playlist_genre and playlist_subgenre also work); by default playlist when the library has playlists, else genre, else subgenre."
        )
        var label: String?

        @Option(name: .customShort("k"), help: "The number of neighbours per seed.")
        var neighbors = 10

        @Option(
            name: .long,
            help:
                "Query only this many seeds, drawn with a fixed seed (all labelled tracks stay candidates); all by default."
        )
        var sample: Int?

        @Option(
            name: .long,
            help: "The number of k-means clusters for NMI and ARI; the number of labels by default, 0 to skip."
        )
        var clusters: Int?

        @Option(
            name: .long,
            help: "A saved clustering run to compare with the labels (NMI, ARI), as `cluster` numbers it."
        )
        var run: Int64?

        @Option(name: .long, help: "The number of bootstrap resamples of each confidence interval.")
        var resamples = 1_000

        @Flag(
            name: .long,
            help: "With --label playlist, keep Liked Songs and playlists holding more than 30 % of the tracks."
        )
        var includeCatchAll = false

        @Flag(
            name: .long,
            help:
                "Judge playlist order instead: flow against best-start greedy and a random order, per imported playlist."
        )
        var ordering = false

        @Option(name: .long, help: "The random seed for sampling, k-means and the bootstrap.")
        var seed: UInt64 = 42

        @Option(
            name: .long,
            help:
                "Grade these similarity weights instead of the defaults: a JSON file as `weights show --json` prints it (or its \"weights\" object)."
        )
        var weights: String?

        func validate() throws {
            if let label, EvaluationLabel(name: label) == nil {
                let kinds = EvaluationLabel.allCases.map(\.rawValue) + ["playlist_genre", "playlist_subgenre"]
                throw ValidationError("Please choose --label from \(kinds.joined(separator: ", ")) (got \"\(label)\").")
            }
            guard (1...100).contains(neighbors) else {
                throw ValidationError("Please choose -k from 1 to 100 (got \(neighbors)).")
            }
            if let sample, sample < 1 { throw ValidationError("Please give --sample of at least 1 (got \(sample)).") }
            if let clusters, clusters < 0 {
                throw ValidationError("Please give --clusters of 0 or more (got \(clusters)).")
            }
            guard (1...100_000).contains(resamples) else {
                throw ValidationError("Please choose --resamples from 1 to 100000 (got \(resamples)).")
            }
        }

        func run() async throws {
            let store = try global.openStore()
            if ordering {
                let bar = ProgressBar(label: "Ordering playlists (tracks)", quiet: global.quiet)
                let report = try describingScope {
                    try store.evaluateOrdering(request) { _, done, total in bar.update(done: done, total: total) }
                }
                bar.finish()
                if global.json { try Console.printJSON(report) } else { print(report.text(width: layout.width)) }
                return
            }
            // On a terminal only, and never under --json.
            let quiet = global.quiet || global.json
            let search = ProgressBar(label: "Searching the tool's and the baselines' spaces", quiet: quiet)
            let grading = ProgressBar(label: "Grading on held-out playlists (queries)", quiet: quiet)
            var evaluation = request
            evaluation.weights = try weights.map(Self.readWeights)
            let report = try await describingScope {
                try await store.evaluate(evaluation) { stage, done, total in
                    (stage == .heldOutPlaylists ? grading : search).update(done: done, total: total)
                }
            }
            search.finish()
            if global.json { try Console.printJSON(report) } else { print(report.text(width: layout.width)) }
        }

        /// The evaluation the options ask for, as the engine takes it.
        ///
        /// The weights of `--weights` are read when the evaluation needs them.
        var request: EvaluationRequest {
            var request = EvaluationRequest()
            request.scope = scope.scope(from: .library)
            request.label = label.flatMap(EvaluationLabel.init(name:))
            request.neighbors = neighbors
            request.sampleSize = sample
            request.clusterCount = clusters
            request.runID = run
            request.resampleCount = resamples
            request.includesCatchAll = includeCatchAll
            request.seed = seed
            return request
        }

        /// The weights of a JSON file: a `SimilarityWeights` object, alone or as the `weights` key of
        /// `weights show --json`.
        static func readWeights(path: String) throws -> SimilarityWeights {
            struct Wrapped: Decodable { var weights: SimilarityWeights }
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw CommandFailure("Cannot read the weights file \(path): \(error.localizedDescription)")
            }
            if let wrapped = try? JSONDecoder().decode(Wrapped.self, from: data) { return wrapped.weights }
            do {
                return try JSONDecoder().decode(SimilarityWeights.self, from: data)
            } catch {
                throw CommandFailure("The weights file \(path) is not weights as `weights show --json` prints them.")
            }
        }
    }
}
