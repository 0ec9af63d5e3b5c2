import ArgumentParser
import Features
import Foundation
import Ingest
import VibesBenchmarking
import VibesCommandSupport
import VibesEngine

extension ImportFormat: ExpressibleByArgument {}
extension FeatureScale: ExpressibleByArgument {}

extension VibesAnalyze {
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Import music data files into the library.",
            discussion: """
                Reads audio-feature CSVs (Kaggle, tidytuesday), Exportify exports, Spotify "Download your \
                data" JSON (StreamingHistory*.json, Streaming_History_Audio_*.json, endsong_*.json, \
                YourLibrary.json, Playlist*.json), JSON saved from the Spotify Web API, and saved ReccoBeats \
                audio-features answers ({"content": [...]}). The format is detected from each file's header \
                or shape. Tracks join your library unless --reference is given: reference tracks (a public \
                dataset, say) are only candidates for `recommend` and `playlist build`, never part of your \
                vibes. Each file is imported in one transaction: a \
                file with a bad row changes nothing unless --skip-invalid is given. Importing the same \
                file again changes nothing.

                Example: vibes-analyze import ~/Downloads/Liked_Songs.csv
                """
        )

        @OptionGroup var global: GlobalOptions

        @Option(help: "The format of every file, instead of detecting it.")
        var format: ImportFormat?

        @Option(help: "How 0…1 features are written: unit (0.0–1.0) or percent (0–100). Detected when omitted.")
        var scale: FeatureScale?

        @Flag(help: "Import the good rows of a file with bad ones, and list the rejected rows.")
        var skipInvalid = false

        @Flag(help: "Read a file again even if the same content was imported before.")
        var force = false

        @Flag(
            help:
                "Add the files' new tracks to the reference pool: candidates for recommend and playlist build, left out of cluster, report and eval."
        )
        var reference = false

        /// The import's memory budget in MB (``memoryBudgetMB``); changed by tests only.
        @Option(name: .customLong("memory-budget-mb"), help: .hidden)
        var memoryBudgetMB = Import.memoryBudgetMB

        @Argument(help: "The files to import.", completion: .file())
        var files: [String]

        func validate() throws {
            if files.isEmpty { throw ValidationError("Please name at least one file to import.") }
            if memoryBudgetMB < 0 { throw ValidationError("--memory-budget-mb must be 0 or more.") }
        }

        /// The peak memory an import keeps to, whatever the size of its file. The rows are
        /// streamed (about 125 MB while a million-row CSV is written, flat with the file); the
        /// snapshot builds after them grow with the library, so they run only when they fit in
        /// what is left, and otherwise the next command builds them
        /// (``Ingest/LibraryStore/prepareSnapshots(memoryLimit:)``).
        static let memoryBudgetMB = 300

        func run() async throws {
            var timer = PhaseTimer(isEnabled: global.timings)
            let store = try global.openStore(activity: "import", createsMissingStore: true)
            timer.lap("open")
            var summaries: [ImportSummary] = []
            var failures: [String] = []
            for file in files {
                var options = ImportOptions(
                    format: format,
                    scale: scale,
                    skipInvalid: skipInvalid,
                    force: force,
                    isReference: reference
                )
                let bar = ProgressBar(
                    label: TerminalText.singleLine((file as NSString).lastPathComponent),
                    quiet: global.quiet,
                    unit: .bytes
                )
                if bar.isEnabled {
                    options.progress = { read, total in bar.update(done: read, total: total) }
                }
                do {
                    if SpotifyExportArchive.isExport(file) {  // Spotify's data-export zip, or a folder
                        bar.finish()
                        let export = try store.importSpotifyExport(at: file, options: options)
                        summaries += export.files
                        for summary in export.files where !global.json { Self.show(Import.describe(summary)) }
                        for note in export.notes { Console.diagnostic("note: " + note) }
                        for failure in export.failures { Console.diagnostic("error: " + failure.error) }
                        failures += export.failures.map(\.error)
                        continue
                    }
                    let summary = try store.importFile(at: file, options: options)
                    timer.lap("import", parts: summary.phases)
                    bar.finish()
                    summaries.append(summary)
                    if !global.json { Self.show(Import.describe(summary)) }
                } catch {
                    bar.finish()
                    let text = Console.message(for: error)
                    let message = text.contains(file) ? text : "\(file): " + text
                    failures.append(message)
                    Console.diagnostic("error: " + message)
                    if !global.json {
                        Console.diagnostic("\(file): not imported; the library is unchanged.")
                    }
                }
            }
            // The next command reads the library's features in one go instead of row by row.
            var snapshots = SnapshotsOutcome.unchanged
            if summaries.contains(where: { $0.status != .unchanged }) {
                VibesAnalyze.returnFreeMemory()
                let limit = (memoryBudgetMB << 20) - (ResidentMemory.statusValue("VmRSS") ?? 0)
                switch try? store.prepareSnapshots(memoryLimit: max(0, limit)) {
                case .prepared:
                    snapshots = .prepared
                    // The similarity blocks too, so that the first `recommend` from a seed track
                    // reads them (built in ordered passes, well within the budget).
                    timer.lap("snapshots")
                    _ = try? store.prepareBlockSnapshot()
                case .deferred(let tracks, let needed, _):
                    snapshots = .deferred
                    if !global.json {
                        Self.show(
                            Import.deferredSnapshotsNote(tracks: tracks, neededBytes: needed, budgetMB: memoryBudgetMB)
                        )
                    }
                case nil:
                    // The store could not be read for them: the next command builds them.
                    snapshots = .deferred
                }
                timer.lap(snapshots == .prepared ? "blocks" : "snapshots")
            }
            if global.json {
                // One document, failures included: the files imported and why the others were not.
                let error =
                    failures.isEmpty
                    ? nil : Output.Failure(code: 1, message: Self.failureMessage(failures, of: files.count))
                try Console.printJSON(Output(files: summaries, snapshots: snapshots, error: error))
            } else if files.count > 1 {
                Self.show(Self.totalsLine(summaries, failed: failures.count))
            }
            timer.report()
            if !failures.isEmpty {
                if files.count > 1 { Console.diagnostic("Error: " + Self.failureMessage(failures, of: files.count)) }
                throw ExitCode.failure
            }
        }

        /// Prints `text` for people: on a terminal, each line wrapped to its width, and a word
        /// longer than the width (a long path) cut to its end.
        static func show(_ text: String) {
            let width = TerminalWidth.standardOutput
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                for piece in TerminalWidth.wrap(String(line), to: width, indent: "    ") {
                    print(width.map { piece.count > $0 ? "…" + piece.suffix(Swift.max(1, $0 - 1)) : piece } ?? piece)
                }
            }
        }

        /// "1 of 3 files was not imported (bad.csv: …)".
        static func failureMessage(_ failures: [String], of fileCount: Int) -> String {
            fileCount == 1
                ? failures[0]
                : "\(failures.count) of \(fileCount) files \(failures.count == 1 ? "was" : "were") not imported ("
                    + failures.joined(separator: "; ") + ")."
        }

        /// The one line of totals after several files.
        static func totalsLine(_ summaries: [ImportSummary], failed: Int) -> String {
            func total(_ value: (ImportSummary) -> Int) -> Int { summaries.reduce(0) { $0 + value($1) } }
            let unchanged = summaries.count { $0.status == .unchanged }
            var parts = ["\(summaries.count) of \(summaries.count + failed) files imported"]
            if unchanged > 0 { parts[0] += " (\(unchanged) unchanged)" }
            parts.append("\(total(\.rowsRead)) rows")
            parts.append("tracks: \(total(\.tracksNew)) new, \(total(\.tracksUpdated)) updated")
            let playlists = total(\.playlists)
            if playlists > 0 { parts.append("playlists: \(playlists)") }
            let plays = total(\.playsNew)
            if plays > 0 { parts.append("plays: \(plays) new") }
            parts.append("rejected: \(total(\.rowsRejected))")
            if failed > 0 { parts.append("failed: \(failed)") }
            let seconds = summaries.reduce(0) { $0 + $1.seconds }
            return "Total: " + parts.joined(separator: "; ") + String(format: " in %.1f s", seconds)
        }

        /// What became of the library's snapshots (`snapshots` under `--json`).
        enum SnapshotsOutcome: String, Encodable {
            /// Built (or current already): the next command reads them.
            case prepared
            /// Left to the next command, which builds them once (past the memory budget).
            case deferred
            /// No file changed the library, so nothing was done.
            case unchanged
        }

        /// The `--json` output.
        struct Output: Encodable {
            /// Why some files were not imported (present only then).
            struct Failure: Encodable {
                var code: Int32
                var message: String
            }

            var files: [ImportSummary]
            var snapshots: SnapshotsOutcome
            var error: Failure?
        }

        static func deferredSnapshotsNote(tracks: Int, neededBytes: Int, budgetMB: Int) -> String {
            "note: the library's snapshots (\(tracks) tracks) would take about \((neededBytes + (1 << 20) - 1) >> 20) MB more to build, past the import's \(budgetMB) MB budget; the next command builds them, once"
        }

        static func describe(_ summary: ImportSummary) -> String {
            var lines: [String] = []
            switch summary.status {
            case .unchanged:
                lines.append("\(summary.path): unchanged (\(summary.format.summary))")
            case .imported:
                lines.append(
                    "\(summary.path): \(summary.format.summary), \(summary.rowsRead) rows in \(String(format: "%.2f", summary.seconds)) s"
                )
                var parts = ["tracks: \(summary.tracksNew) new, \(summary.tracksUpdated) updated"]
                if summary.featuresWritten > 0 || summary.format == .featuresCSV || summary.format == .exportify {
                    parts.append("features: \(summary.featuresWritten) written")
                }
                if summary.playsNew > 0 || summary.format == .streamingHistory || summary.format == .extendedHistory {
                    parts.append("plays: \(summary.playsNew) new")
                }
                if summary.playlists > 0 { parts.append("playlists: \(summary.playlists) written") }
                if summary.savedTracks > 0 { parts.append("saved: \(summary.savedTracks) new") }
                parts.append("rejected: \(summary.rowsRejected)")
                lines.append("  " + parts.joined(separator: "; "))
                if summary.playsMatched > 0 {
                    lines.append("  \(summary.playsMatched) plays linked to tracks by artist and title")
                }
                if summary.tracksWithoutFeatures > 0 {
                    lines.append("  \(summary.tracksWithoutFeatures) new tracks have no audio features")
                }
                if !summary.outOfRange.isEmpty {
                    let list = summary.outOfRange.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
                    lines.append("  kept but flagged outside the documented range: " + list.joined(separator: ", "))
                }
                if !summary.invalidKeptAsMissing.isEmpty {
                    let list = summary.invalidKeptAsMissing.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
                    lines.append(
                        "  warning: invalid values kept as missing (--skip-invalid): " + list.joined(separator: ", ")
                    )
                }
            }
            for note in summary.notes { lines.append("  note: \(note)") }
            if summary.rowsRejected > 0 {
                lines.append("  rejected rows (first \(summary.rejections.count) of \(summary.rowsRejected)):")
                for rejection in summary.rejections { lines.append("    \(rejection)") }
            }
            return lines.joined(separator: "\n")
        }
    }
}
