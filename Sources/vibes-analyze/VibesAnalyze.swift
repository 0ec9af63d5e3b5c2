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

@main
struct VibesAnalyze: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vibes-analyze",
        abstract: "Turn a music library into vibes: import audio features, cluster, recommend and report.",
        discussion: """
            Exit status: 0 on success; 1 when a command fails (one line on stderr saying why and what \
            to do, and under --json an {"error": …} object on stdout); 64 for a mistake on the command \
            line (with the command's usage); 130 when interrupted with Ctrl-C, keeping everything \
            finished so far.

            \(environmentHelp)
            """,
        version: "\(LibraryStore.softwareVersion) (\(gitDescription))",
        subcommands: [
            Import.self, Analyze.self, Library.self, Playlists.self, Cluster.self, Vibes.self, Recommend.self,
            PlaylistCommand.self,
            Report.self,
            Eval.self, Weights.self, Auth.self, Sync.self, FeaturesCommand.self, Now.self, Recent.self, Top.self,
            Search.self,
            Play.self, Pause.self, Next.self, Previous.self, Seek.self, Devices.self, TokenServerCommand.self,
            Bench.self, BenchKMeans.self, BenchKNN.self, Serve.self,
        ]
    )

    /// Ends OpenBLAS's idle worker threads before any command runs, while no other thread can be
    /// in a BLAS call, so that they do not spin on a core that the parallel passes need.
    ///
    /// Command-line mistakes exit 64 with the subcommand's usage (argument-parser's own handling);
    /// a failure while running exits 1 with a one-line error and no usage, printed through the
    /// terminal-safe console.
    static func main() async {
        keepLargeAllocationsApart()
        OpenBLASThreads.endIdleWorkers()
        let arguments = Array(CommandLine.arguments.dropFirst())
        let wantsJSON = Console.wantsJSON(arguments)
        var command: any ParsableCommand
        if let unknown = unknownSubcommand(in: arguments) {
            var message = "Error: '\(unknown.typed)' is not a command of \(unknown.path.joined(separator: " "))."
            if let suggestion = unknown.suggestion { message += " Did you mean '\(suggestion)'?" }
            Console.diagnostic(message)
            Console.diagnostic("  See '\(unknown.path.joined(separator: " ")) --help' for its commands.")
            if wantsJSON {
                Console.write(JSONStyle.errorText(code: ExitCode.validationFailure.rawValue, message: message))
            }
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
        do {
            command = try parseAsRoot(arguments)
        } catch {
            exitPrintingJSON(for: error, if: wantsJSON)
        }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            // Help, version, validation and exit codes: argument-parser's own handling; any other
            // failure exits 1 with one line (and one JSON document under --json).
            exitPrintingJSON(for: error, if: wantsJSON)
        }
    }

    /// Gives every allocation of 256 KB or more its own mapping, returned to the system when it
    /// is freed.
    ///
    /// glibc raises its threshold for that to the size of each large block freed (up to 32 MB),
    /// so the arrays of an import's snapshot builds, freed one after the other, stayed in the heap
    /// and counted in the peak. Measured on `import` (peak RSS): a million rows 256 → 235 MB, two
    /// million 425 → 346 MB, at the same speed.
    static func keepLargeAllocationsApart() {
        #if canImport(CMalloc)
        _ = mallopt(M_MMAP_THRESHOLD, 256 << 10)
        #endif
    }

    /// Gives the heap's free memory back to the system (`malloc_trim`): called between an
    /// import's rows and its snapshot builds, so that what the rows' many small allocations left
    /// free does not count again under the builds' arrays.
    static func returnFreeMemory() {
        #if canImport(CMalloc)
        _ = malloc_trim(0)
        #endif
    }

    /// argument-parser's own exit for `error`; under `--json`, a failure (not help, not an exit
    /// status of 0) also prints the error object on stdout.
    /// The engine's errors are worded here, with what to run next.
    static func exitPrintingJSON(for error: any Error, if wantsJSON: Bool) -> Never {
        let error = (error as? EngineError).map { CommandFailure($0.commandLineMessage) } ?? error
        Console.exit(for: error, of: self, wantsJSON: wantsJSON)
    }
}

extension VibesAnalyze {
    /// The environment variables the tool reads, for `--help` and the manual's ENVIRONMENT section
    /// (`scripts/man-sections.py` reads them back from `--help`).
    static let environment: [(name: String, meaning: String)] = [
        ("VIBES_DB", "The library database file, when --db is not given."),
        ("XDG_DATA_HOME", "Where the library is kept by default ($XDG_DATA_HOME/vibes-analyze/library.sqlite)."),
        ("XDG_CONFIG_HOME", "Where the Spotify sign-in is kept ($XDG_CONFIG_HOME/vibes-analyze)."),
        ("SPOTIFY_CLIENT_ID", "The Spotify app's client ID, for auth and the Spotify commands."),
        ("SPOTIFY_CLIENT_SECRET", "The Spotify app's client secret, when the app has one."),
        ("VIBES_HTTP_TIMEOUT", "Seconds a Spotify or ReccoBeats request may take."),
        ("VIBES_AUDIO_ANALYZER", "The vibes-analyze-audio program `analyze` runs."),
        ("NO_COLOR", "When set and not empty, no colour in reports (no-color.org)."),
        ("COLUMNS", "The width tables and progress keep to when the terminal does not say."),
    ]

    /// The "Environment:" paragraph of the root `--help`.
    static var environmentHelp: String {
        "Environment:\n" + environment.map { "  \($0.name): \($0.meaning)" }.joined(separator: "\n")
    }

    /// A word in a command's place that names none of its subcommands, with the closest name
    /// when one is near (an edit distance of at most a third of the word, and at least 1).
    ///
    /// `nil` when every word names a command, or the words reach a command without subcommands
    /// (whose own arguments follow), an option, or `help`.
    static func unknownSubcommand(in arguments: [String]) -> (typed: String, suggestion: String?, path: [String])? {
        var command: any ParsableCommand.Type = VibesAnalyze.self
        var path = [VibesAnalyze._commandName]
        for argument in arguments {
            let subcommands = command.configuration.subcommands
            guard !subcommands.isEmpty, command.configuration.defaultSubcommand == nil, !argument.hasPrefix("-"),
                argument != "help"
            else { return nil }
            if let next = subcommands.first(where: {
                $0._commandName == argument || $0.configuration.aliases.contains(argument)
            }) {
                command = next
                path.append(argument)
                continue
            }
            let names = subcommands.filter { $0.configuration.shouldDisplay }.map { $0._commandName }
            let scored = names.map { (name: $0, distance: editDistance($0, argument)) }
            let best = scored.min { ($0.distance, $0.name) < ($1.distance, $1.name) }
            let limit = Swift.max(1, argument.count / 3)
            let prefixed = names.filter { $0.hasPrefix(argument) }
            let suggestion =
                best.flatMap { $0.distance <= limit ? $0.name : nil } ?? (prefixed.count == 1 ? prefixed[0] : nil)
            return (argument, suggestion, path)
        }
        return nil
    }

    /// The edit distance between two words (``NameMatch/editDistance(_:_:)``).
    static func editDistance(_ a: String, _ b: String) -> Int {
        NameMatch.editDistance(a, b)
    }
}
