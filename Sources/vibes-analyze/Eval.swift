import Analytics
import ArgumentParser
import Features
import Ingest
import VibesCommandSupport

extension VibesAnalyze {
    /// `vibes-analyze eval`: how well neighbours and clusters agree with labels the user already has.
    struct Eval: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Measure recommendation quality against labels: precision@k versus chance, and cluster agreement (NMI).",
            discussion: """
                For every track with a label (a genre tag, a subgenre, or an imported playlist), the k most \
                similar labelled tracks are found; precision@k is the share that share a label with the seed, \
                and the random baseline is the exact share expected by chance. NMI compares a k-means \
                clustering of the same space with the labels (1 = the same grouping, 0 = unrelated).
                """
        )

        @OptionGroup var global: GlobalOptions
        @OptionGroup(title: "Scope") var scope: PlaylistScopeOptions

        @Option(
            name: .long,
            help: "The label: genre, subgenre or playlist (playlist_genre and playlist_subgenre also work)."
        )
        var label = "genre"

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
            help: "The number of k-means clusters for NMI; the number of labels by default, 0 to skip."
        )
        var clusters: Int?

        @Option(name: .long, help: "The random seed for sampling and k-means.")
        var seed: UInt64 = 42

        func validate() throws {
            let kinds = LibraryStore.labelKinds + ["playlist_genre", "playlist_subgenre"]
            guard kinds.contains(label) else {
                throw ValidationError("Please choose --label from \(kinds.joined(separator: ", ")) (got \"\(label)\").")
            }
            guard (1...100).contains(neighbors) else {
                throw ValidationError("Please choose -k from 1 to 100 (got \(neighbors)).")
            }
            if let sample, sample < 1 { throw ValidationError("Please give --sample of at least 1 (got \(sample)).") }
            if let clusters, clusters < 0 {
                throw ValidationError("Please give --clusters of 0 or more (got \(clusters)).")
            }
        }

        func run() async throws {
            let store = try global.openStore()
            let report = try await makeReport(store: store)
            if global.json { try Console.printJSON(report) } else { print(report.text()) }
        }

        func makeReport(store: LibraryStore) async throws -> EvalReport {
            let library = try LoadedLibrary(store: store, scope: scope.scope(from: .library))
            let labels = try store.trackLabels(kind: label)
            let features = library.recommender.features
            let labelled = features.trackIDs.filter { labels[$0] != nil }.count
            guard labelled > neighbors else {
                throw CommandFailure(
                    "Only \(labelled) tracks with features have a \(label) label; import a file with \(label) labels (such as tidytuesday's playlist_genre) first."
                )
            }
            let evaluation = await RetrievalEvaluation.measure(
                features: features,
                labels: labels,
                k: neighbors,
                sampleSize: sample,
                sampleSeed: seed
            )

            var nmi: Double?
            let labelCount = Set(labels.values.flatMap { $0 }).count
            let clusterCount = clusters ?? labelCount
            if clusterCount >= 2 {
                var generator = SplitMix64(seed: seed)
                let model = try await KMeans.fit(features.values, clusterCount: clusterCount, using: &generator)
                // One label per track for NMI: its most common label in the library (ties by name).
                var frequency: [String: Int] = [:]
                for set in labels.values { for value in set { frequency[value, default: 0] += 1 } }
                var clusterLabels: [Int32] = []
                var primary: [String] = []
                for (row, id) in features.trackIDs.enumerated() {
                    guard let set = labels[id] else { continue }
                    clusterLabels.append(model.labels[row])
                    primary.append(set.max { (frequency[$0]!, $1) < (frequency[$1]!, $0) }!)
                }
                nmi = RetrievalEvaluation.normalizedMutualInformation(clusterLabels, primary)
            }
            return EvalReport(
                label: label,
                evaluation: evaluation,
                clusterCount: nmi == nil ? nil : clusterCount,
                nmi: nmi,
                seed: seed
            )
        }
    }
}

/// What `eval` prints.
struct EvalReport: Codable {
    var label: String
    var evaluation: RetrievalEvaluation
    var clusterCount: Int?
    var nmi: Double?
    var seed: UInt64

    enum CodingKeys: String, CodingKey {
        case label, evaluation
        case clusterCount = "cluster_count"
        case nmi, seed
    }

    func text() -> String {
        let e = evaluation
        var lines = [
            "label \(label): \(e.labelCount) labels, \(e.seedCount) seed tracks",
            "precision@\(e.k): \(e.precision.formatted(digits: 3))  (random \(e.randomBaseline.formatted(digits: 3)), \(e.lift.formatted(digits: 2))× chance)",
        ]
        for item in e.perLabel.prefix(12) {
            lines.append(
                "  \(item.label.truncated(to: 24).padding(to: 24)) \(item.seedCount.padded(to: 6)) tracks  precision \(item.precision.formatted(digits: 3))  random \(item.randomBaseline.formatted(digits: 3))"
            )
        }
        if let nmi, let clusterCount {
            lines.append(
                "cluster agreement: NMI \(nmi.formatted(digits: 3)) (k-means, k = \(clusterCount), seed \(seed))"
            )
        }
        return lines.joined(separator: "\n")
    }
}
