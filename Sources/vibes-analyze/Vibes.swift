import ArgumentParser
import Foundation
import Ingest
import VibesCommandSupport

extension VibesAnalyze {
    /// `vibes-analyze vibes [RUN]`: shows a saved clustering run.
    struct Vibes: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "vibes",
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
                    try Console.printJSON(["runs": runs])
                } else if runs.isEmpty {
                    print("No clustering runs yet; make one with `vibes-analyze cluster`.")
                } else {
                    for record in runs {
                        let run = record.run
                        let schema = run.scaling.schema
                        print(
                            TerminalWidth.fit(
                                "\(run.id ?? 0)  \(ISO8601DateFormatter().string(from: record.createdAt))  "
                                    + "k=\(run.clusterCount)  \(run.trackCount) tracks  seed \(run.seed)  "
                                    + "\(schema.scaling.rawValue) \(schema.features.map(\.rawValue).joined(separator: ","))",
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
