import ArgumentParser
import Foundation
import Ingest
import VibesCommandSupport
import VibesEngine

extension VibesAnalyze {
    /// `vibes-analyze vibes [RUN]`: shows a saved clustering run.
    struct Vibes: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "vibes",
            abstract: "Show the vibes of a saved clustering run (the current one by default), or one vibe.",
            discussion: """
                The current run is the latest run of the library (a run of one playlist only when made \
                current with `cluster --playlist NAME --make-current`). A vibe is named by its number \
                (1 for the largest) or its name: case and spaces do not matter, and the start of a name \
                is enough.

                Example: vibes-analyze vibes 2 --examples 10
                """
        )

        @OptionGroup var global: GlobalOptions
        @OptionGroup var layout: TableOptions

        @Argument(help: "One vibe to show: its number as `vibes` prints it (1 = the largest) or its name.")
        var vibe: String?

        @Option(help: "The run, as printed by `cluster` and `vibes --list`; the current run when omitted.")
        var run: Int64?

        @Flag(help: "List the saved runs instead.")
        var list = false

        @Option(help: "The number of representative tracks shown per vibe (default 3, or 10 for one vibe).")
        var examples: Int?

        func validate() throws {
            if let examples, examples < 0 {
                throw ValidationError("Please choose 0 or more examples (got \(examples)).")
            }
            if list && (vibe != nil || run != nil) {
                throw ValidationError("Please give either --list or a run or vibe, not both.")
            }
        }

        func run() async throws {
            let store = try global.openStore()
            if list {
                let listing = try store.listClusteringRuns()
                if global.json {
                    try Console.printJSON(["runs": listing.runs])
                } else if listing.runs.isEmpty {
                    print("No clustering runs yet; make one with `vibes-analyze cluster`.")
                } else {
                    for listed in listing.runs {
                        let run = listed.record.run
                        let schema = run.scaling.schema
                        print(
                            TerminalWidth.fit(
                                "\(run.id == listing.currentRunID ? "*" : " ")\(run.id ?? 0)  \(ISO8601DateFormatter().string(from: listed.record.createdAt))  "
                                    + "\(listed.scope)  k=\(run.clusterCount)  \(run.trackCount) tracks  seed \(run.seed)  "
                                    + "\(schema.scaling.rawValue) \(schema.features.map(\.rawValue).joined(separator: ","))",
                                to: layout.width
                            )
                        )
                    }
                    print("(* the current run: what vibes, report and --vibe use unless given --run)")
                }
                return
            }
            // `vibes N` meant run N before it meant vibe N: say so when N is also a run.
            let report = try store.vibesReport(
                runID: run,
                exampleCount: examples ?? (vibe == nil ? 3 : 10),
                vibe: vibe.map(VibeReference.init)
            ) { number in
                if !global.quiet {
                    Console.diagnostic(
                        "note: `vibes \(number)` shows vibe \(number) of the current run; `vibes --run \(number)` shows run \(number)."
                    )
                }
            }
            if global.json {
                try Console.printJSON(report)
            } else {
                print(report.renderedTable(width: layout.width), terminator: "")
            }
        }
    }
}
