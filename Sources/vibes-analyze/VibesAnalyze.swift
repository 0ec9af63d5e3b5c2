import ArgumentParser

@main
struct VibesAnalyze: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vibes-analyze",
        abstract: "Turn a music library into vibes: import audio features, cluster, recommend and report.",
        version: "0.1.0",
        subcommands: [
            Import.self, Library.self, Cluster.self, Vibes.self, Recommend.self, PlaylistCommand.self, Report.self,
            Eval.self, Auth.self, Sync.self, Bench.self, BenchKMeans.self, BenchKNN.self,
        ])
}
