import ArgumentParser
import Features
import Testing
import VibesEngine

@testable import vibes_analyze

/// `cluster`'s options, the engine request they make, and its help; what the engine does with the
/// request is tested in `LibraryStoreVibeClusteringTests`.
struct ClusterCommandParsingTests {
    /// The request of a parsed `cluster` command line.
    private func request(_ arguments: [String]) throws -> VibeRequest {
        let command = try #require(try VibesAnalyze.parseAsRoot(["cluster"] + arguments) as? VibesAnalyze.Cluster)
        return try command.request
    }

    @Test func autoSearchesFourToTwelveByDefault() throws {
        let settings = try request(["--k", "auto", "--n-init", "1", "--quiet"]).settings
        #expect(settings.clusterCount == .best(among: 4...12))
        #expect(settings.kMeans.restartCount == 1)
        #expect(
            try request(["--k", "auto", "--min-k", "3", "--max-k", "5"]).settings.clusterCount == .best(among: 3...5)
        )
    }

    @Test func featuresAndWeightsShapeTheSchema() throws {
        let request = try request([
            "--k", "3", "--features", "energy,valence,tempo,key", "--weight", "tempo=0.5", "--scaling", "minmax",
            "--quiet",
        ])
        let schema = request.settings.schema
        #expect(request.settings.clusterCount == .fixed(3))
        #expect(schema.features.map(\.rawValue) == ["energy", "valence", "tempo", "key"])
        #expect(schema.entries.map(\.weight) == [1, 1, 0.5, 1])
        #expect(schema.scaling == .minMax)
        #expect(
            schema == (try FeatureSchema(parsing: "energy,valence,tempo,key", weights: ["tempo=0.5"], scaling: .minMax))
        )
    }

    @Test func aPlaylistRunIsMadeCurrentOnlyWhenAsked() throws {
        let scoped = try request(["--playlist", "bath", "--k", "2"])
        #expect(scoped.scope == .playlist("bath") && !scoped.makesCurrent)
        #expect(try request(["--playlist", "bath", "--k", "2", "--make-current"]).makesCurrent)
        #expect(try request(["--k", "3"]).scope == .library)
        do {
            _ = try VibesAnalyze.parseAsRoot(["cluster", "--make-current"])
            Issue.record("--make-current without --playlist was taken")
        } catch {
            #expect(VibesAnalyze.exitCode(for: error) == .validationFailure)
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
