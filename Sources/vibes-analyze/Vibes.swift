import ArgumentParser
import Foundation
import Ingest
import VibesCommandSupport

extension VibesAnalyze {
    /// `vibes-analyze vibes [RUN]`: shows a saved clustering run.
    struct Vibes: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the vibes of a saved clustering run (the latest by default).",
            discussion: "Example: vibes-analyze vibes 2 --examples 5"
        )

        @OptionGroup var global: GlobalOptions
        @OptionGroup var layout: TableOptions

        @Argument(help: "The run number, as printed by `cluster`; the latest run when omitted.")
        var run: Int64?

        @Flag(help: "List the saved runs instead.")
        var list = false

        @Option(help: "The number of representative tracks shown per vibe.")
        var examples = 3

        func validate() throws {
            guard examples >= 0 else { throw ValidationError("Please choose 0 or more examples (got \(examples)).") }
            if list && run != nil { throw ValidationError("Please give either a run number or --list, not both.") }
        }

        func run() async throws {
            let store = try global.openStore()
            if list {
                let runs = try store.clusteringRuns()
                if global.json {
                    try Console.printJSON(["runs": runs.map { RunSummary(record: $0) }])
                } else if runs.isEmpty {
                    print("No clustering runs yet; make one with `vibes-analyze cluster`.")
                } else {
                    for run in runs {
                        let summary = RunSummary(record: run)
                        print(
                            TerminalWidth.fit(
                                "\(summary.id)  \(summary.createdAt)  k=\(summary.clusterCount)  \(summary.trackCount) tracks  "
                                    + "seed \(summary.seed)  \(summary.scaling) \(summary.features.joined(separator: ","))",
                                to: layout.width
                            )
                        )
                    }
                }
                return
            }
            let report = try VibesReport(store: store, runID: run, exampleCount: examples)
            if global.json {
                try Console.printJSON(report)
            } else {
                print(report.renderedTable(width: layout.width), terminator: "")
            }
        }
    }
}

/// One line of `vibes --list`.
struct RunSummary: Codable {
    var id: Int64
    var createdAt: String
    var clusterCount: Int
    var trackCount: Int
    var scaling: String
    var features: [String]
    var seed: UInt64

    init(record: ClusteringRunRecord) {
        id = record.id ?? 0
        createdAt = ISO8601DateFormatter().string(from: record.createdAt)
        clusterCount = record.clusterCount
        trackCount = record.trackCount
        scaling = record.scaling.schema.scaling.rawValue
        features = record.scaling.schema.features.map(\.rawValue)
        seed = UInt64(bitPattern: record.seed)
    }

    enum CodingKeys: String, CodingKey {
        case id
        case createdAt = "created_at"
        case clusterCount = "k"
        case trackCount = "track_count"
        case scaling, features, seed
    }
}
