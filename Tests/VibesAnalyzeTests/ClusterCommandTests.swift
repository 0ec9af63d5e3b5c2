import ArgumentParser
import Foundation
import Testing
import VibesCommandSupport
import VibesEngine
import VibesTestSupport

@testable import Ingest
@testable import vibes_analyze

struct ClusterCommandTests {
    /// Parses and runs a command line, as the executable would.
    private func run(_ arguments: [String]) async throws {
        var command = try VibesAnalyze.parseAsRoot(arguments)
        if var asyncCommand = command as? AsyncParsableCommand {
            try await asyncCommand.run()
        } else {
            try command.run()
        }
    }

    private func withSyntheticLibrary<T>(
        perGroup: Int = 40,
        _ body: (String, LibraryStore) async throws -> T
    ) async throws -> T {
        try await withTemporaryDirectory { folder in
            let path = folder + "/library.sqlite"
            let store = try LibraryStore(path: path)
            try LibrarySeeding.insert(LibrarySeeding.syntheticTracks(perGroup: perGroup), into: store, folder: folder)
            return try await body(path, store)
        }
    }

    @Test func autoSearchesFourToTwelveByDefaultAndPrefersFinerVibesOnTheSample() async throws {
        try await withTemporaryDirectory { folder in
            let db = folder + "/library.sqlite"
            try await run(["import", "--db", db, SampleLibrary.path, "--quiet"])
            try await run(["cluster", "--db", db, "--k", "auto", "--n-init", "1", "--quiet"])
            let store = try LibraryStore(path: db)
            let run = try #require(try store.clusteringRun()).run
            let scan = try #require(run.clusterCountScan)
            #expect(scan.map(\.clusterCount) == Array(4...12))
            // Real audio features: the silhouette falls slowly with k, and the highest alone
            // would take the smallest k; the granularity prior takes more vibes.
            let highest = try #require(scan.max { ($0.silhouette ?? -1) < ($1.silhouette ?? -1) })
            #expect(run.clusterCount > highest.clusterCount)
            #expect(run.clusterCount >= 6)
        }
    }

    @Test func featuresAndWeightsShapeTheSchema() async throws {
        let command = try #require(
            try VibesAnalyze.parseAsRoot([
                "cluster", "--k", "3", "--features", "energy,valence,tempo,key",
                "--weight", "tempo=0.5", "--scaling", "minmax", "--quiet",
            ]) as? VibesAnalyze.Cluster
        )
        let request = try command.request
        try await withSyntheticLibrary(perGroup: 20) { _, store in
            let record = try await store.findVibes(request).report.run
            #expect(record.scaling.schema.features.map(\.rawValue) == ["energy", "valence", "tempo", "key"])
            #expect(record.scaling.columns.map(\.name) == ["energy", "valence", "tempo", "key_sin", "key_cos"])
            #expect(record.scaling.columns[2].weight == 0.5)
            #expect(record.scaling.schema.scaling == .minMax)
        }
    }

    @Test(arguments: [
        ["cluster", "--k", "1"],
        ["cluster", "--k", "many"],
        ["cluster", "--features", "energy,loudnes"],
        ["cluster", "--weight", "tempo=-1"],
        ["cluster", "--features", "energy,tempo", "--weight", "valence=2"],
        ["cluster", "--weight", "tempo"],
        ["cluster", "--scaling", "log"],
        ["cluster", "--n-init", "0"],
    ])
    func badOptionsExitWithUsageError(arguments: [String]) {
        #expect(throws: (any Error).self) { _ = try VibesAnalyze.parseAsRoot(arguments) }
        do {
            _ = try VibesAnalyze.parseAsRoot(arguments)
        } catch {
            #expect(VibesAnalyze.exitCode(for: error) == .validationFailure)
        }
    }

    @Test func emptyLibraryIsARuntimeError() async throws {
        await withTemporaryDirectory { folder in
            let path = folder + "/empty.sqlite"
            _ = try? LibraryStore(path: path)  // a library with nothing in it (reading commands make none)
            let result = try? await CommandLineTool.run(["cluster", "--db", path, "--k", "3"])
            #expect(result?.status == 1)
            #expect(result?.stderr.contains("no tracks with audio features to cluster") == true)
            #expect(result?.stderr.contains("features status") == true)
        }
    }

    @Test func clusterHelpIsStable() {
        let expected = #"""
            OVERVIEW: Group the library into vibes with k-means, name them and save the
            run.

            Tracks become points in a space of audio features (rank-normal scores by
            default, see --scaling) and k-means groups them. Each vibe is named from its
            valence–energy quadrant and its strongest deviations, such as "Calm acoustic".
            With --k auto, every k from --min-k to --max-k (4 to 12) is tried, and the most
            vibes whose silhouette is within 0.01 of the best are kept; the scores of every
            k are printed. The same seed gives the same vibes.

            Example: vibes-analyze cluster --k auto --seed 42

            USAGE: vibes-analyze cluster <options>

            SCOPE:
              --playlist <playlist>   Analyse only the tracks of this playlist (its name or
                                      Spotify ID).

            OPTIONS:
              --db <db>               The library database file. Defaults to $VIBES_DB,
                                      else $XDG_DATA_HOME/vibes-analyze/library.sqlite,
                                      else ~/.local/share/vibes-analyze/library.sqlite.
              --json                  Print results as JSON for scripts.
              -q, --quiet             Print only results and errors, no progress.
              -v, --verbose           Print diagnostics while working.
              --timings               Print how long each phase took (open, load, compute,
                                      save, render) to stderr.
              --wait <seconds>        How long a write waits while another vibes-analyze
                                      writes to the library (default: as long as it takes).
              --no-wait               Fail at once instead of waiting when another program
                                      is writing to the library.
              --wide                  On a terminal, print every column (the reasons a
                                      track was chosen, every feature) even past its width.
              --from <from>           Cluster your library (the default), or the library
                                      and the reference pool (all). (values: library, all;
                                      default: library)
              --k <k>                 The number of vibes, or 'auto' to choose from --min-k
                                      to --max-k by silhouette. (default: 8)
              --min-k <min-k>         The smallest number of vibes --k auto tries.
                                      (default: 4)
              --max-k <max-k>         The largest number of vibes --k auto tries. (default:
                                      12)
              --features <features>   The features to cluster on, comma-separated.
                                      (default:
                                      danceability,energy,valence,acousticness,instrumentalness,speechiness,liveness,loudness,tempo)
              --weight <feature=weight>
                                      A feature weight, such as tempo=0.5; repeatable.
                                      Mode, when clustered, weighs 0.5 unless given.
              --no-personal           Use the default feature weights, not the personal
                                      ones `weights learn` stored.
              --scaling <scaling>     How features are scaled: ranknormal (acousticness,
                                      instrumentalness, speechiness and liveness as the
                                      normal scores of their ranks in the library, tempo on
                                      a log scale, the rest z-scored; the default), zscore
                                      (each feature by its library mean and standard
                                      deviation), minmax or raw. (values: ranknormal,
                                      zscore, minmax, raw; default: ranknormal)
              --seed <seed>           The seed of every random choice; the same seed gives
                                      the same vibes. (default: 42)
              --n-init <n-init>       The number of k-means restarts; the best is kept.
                                      (default: 3)
              --max-iter <max-iter>   The most k-means iterations per restart. (default:
                                      300)
              --algorithm <algorithm> The algorithm: lloyd (exact, the default) or
                                      minibatch (for very large libraries). (values: lloyd,
                                      minibatch; default: lloyd)
              --batch-size <batch-size>
                                      The rows per step of --algorithm minibatch. (default:
                                      4096)
              --threads <threads>     The number of threads. (default: 2)
              --examples <examples>   The number of representative tracks shown per vibe.
                                      (default: 3)
              --make-current          Make a --playlist run the current one, which vibes,
                                      report and --vibe use (by default they keep the
                                      library's latest).
              --restore <file>        Save a run that was kept in a file because the
                                      library was busy, then show it.
              --version               Show the version.
              -h, --help              Show help information.
            """#
        let actual = VibesAnalyze.helpMessage(for: VibesAnalyze.Cluster.self, columns: 80)
        #expect(actual.trimmingCharacters(in: .whitespacesAndNewlines) == expected)
    }
}
