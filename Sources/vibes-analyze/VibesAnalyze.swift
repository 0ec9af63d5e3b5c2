import Analytics
import ArgumentParser

@main
struct VibesAnalyze: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vibes-analyze",
        abstract: "Turn a music library into vibes: import audio features, cluster, recommend and report.",
        version: "0.1.0",
        subcommands: [
            Import.self, Analyze.self, Library.self, Cluster.self, Vibes.self, Recommend.self, PlaylistCommand.self,
            Report.self,
            Eval.self, Auth.self, Sync.self, FeaturesCommand.self, Now.self, Recent.self, Top.self, Search.self,
            Bench.self, BenchKMeans.self, BenchKNN.self,
        ]
    )

    /// Ends OpenBLAS's idle worker threads before any command runs, while no other thread can be
    /// in a BLAS call, so that they do not spin on a core that the parallel passes need.
    static func main() async {
        OpenBLASThreads.endIdleWorkers()
        await main(nil)
    }
}
