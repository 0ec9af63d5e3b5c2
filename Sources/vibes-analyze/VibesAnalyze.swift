import Analytics
import ArgumentParser
import Foundation
import Ingest
import VibesCommandSupport

@main
struct VibesAnalyze: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vibes-analyze",
        abstract: "Turn a music library into vibes: import audio features, cluster, recommend and report.",
        version: LibraryStore.softwareVersion,
        subcommands: [
            Import.self, Analyze.self, Library.self, Cluster.self, Vibes.self, Recommend.self, PlaylistCommand.self,
            Report.self,
            Eval.self, Auth.self, Sync.self, FeaturesCommand.self, Now.self, Recent.self, Top.self, Search.self,
            Play.self, Pause.self, Next.self, Previous.self, Seek.self, Devices.self, TokenServerCommand.self,
            Bench.self, BenchKMeans.self, BenchKNN.self,
        ]
    )

    /// Ends OpenBLAS's idle worker threads before any command runs, while no other thread can be
    /// in a BLAS call, so that they do not spin on a core that the parallel passes need.
    ///
    /// Command-line mistakes exit 64 with the subcommand's usage (argument-parser's own handling);
    /// a failure while running exits 1 with a one-line error and no usage, printed through the
    /// terminal-safe console.
    static func main() async {
        OpenBLASThreads.endIdleWorkers()
        var command: any ParsableCommand
        do {
            command = try parseAsRoot(nil)
        } catch {
            exit(withError: error)
        }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch  where String(reflecting: type(of: error)).hasPrefix("ArgumentParser.") {
            // Help, version, validation and exit codes: argument-parser's own handling.
            exit(withError: error)
        } catch {
            Console.diagnostic("Error: " + Console.message(for: error))
            Foundation.exit(1)
        }
    }
}
