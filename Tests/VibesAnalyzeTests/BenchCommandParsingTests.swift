import Testing

@testable import vibes_analyze

/// `bench`'s options and help; what it measures is tested through the built tool (`BenchCommandTests`).
struct BenchCommandParsingTests {
    @Test(arguments: [
        ("1e5,1e6", [100_000, 1_000_000]), ("250000", [250_000]), ("100k", [100_000]), ("1m", [1_000_000]),
        ("1.5e3, 2K", [1_500, 2_000]), ("1_000", [1_000]),
    ])
    func countListsTakeTheUsualForms(text: String, values: [Int]) {
        #expect(CountList(argument: text)?.values == values)
    }

    @Test(arguments: ["", "0", "-5", "1.5", "1e5,", "abc", "1e99", "k"])
    func countListsRejectTheRest(text: String) {
        #expect(CountList(argument: text) == nil)
    }

    @Test func benchHelpIsStable() {
        let expected = #"""
            OVERVIEW: Measure how fast clustering and similarity search run on this
            machine.

            Times k-means++ seeding, Lloyd's iterations, mini-batch k-means and exact
            cosine top-10 for every N, k and thread count given, on synthetic audio
            features drawn from a mixture fitted to the sample library (or on your library
            with --data library), z-scored as `cluster --scaling zscore` does. It reports
            medians with the fastest and slowest run, rows/s, GB/s, GFLOP/s, the share of
            this machine's roofline (it measures read bandwidth and multiply-add peak
            first, in under a second), peak memory and inertia, and warns when other work
            is running. With the defaults it takes about a minute on a 2-core machine; --n
            1e5 --repeats 1 takes a few seconds. Build with -c release for figures that
            mean something.

            Example: vibes-analyze bench --n 1e5 --repeats 1

            USAGE: vibes-analyze bench <options>

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
              --n <counts>            The row counts N, comma-separated, such as 1e5,1e6,
                                      250000, 100k or 1m. Default: 1e5,1e6; with --data
                                      library, the whole library (a given N draws that many
                                      tracks from it with replacement).
              --d <d>                 The number of columns: the first d of the 12
                                      benchmark features, or all 12 and d − 12 columns of
                                      noise. (default: 12)
              --k <counts>            The cluster counts, comma-separated. (default:
                                      8,16,64)
              --threads <counts>      The thread counts, comma-separated. (default: 1,2)
              --iterations <iterations>
                                      Lloyd's iterations per fit (tolerance 0). (default:
                                      20)
              --repeats <repeats>     The timed runs of every measurement; the median is
                                      reported with the spread. (default: 3)
              --data <data>           The data: synthetic (drawn from a mixture fitted to
                                      the sample library) or library (the store's tracks).
                                      (values: synthetic, library; default: synthetic)
              --seed <seed>           The seed of the data and of every random choice.
                                      (default: 42)
              --format <format>       The output format: table, json or csv. (values:
                                      table, json, csv; default: table)
              --batch-size <batch-size>
                                      The rows per mini-batch step. (default: 1024)
              --queries <queries>     The cosine top-10 queries: rows sampled from the
                                      data. (default: 1000)
              --svg <file>            Also write a chart of the time per Lloyd iteration
                                      against N and k as SVG to this file.
              --html <file>           Also write the results, the machine and the chart as
                                      one HTML page to this file.
              --version               Show the version.
              -h, --help              Show help information.
            """#
        let actual = VibesAnalyze.helpMessage(for: VibesAnalyze.Bench.self, columns: 80)
        #expect(actual.trimmingCharacters(in: .whitespacesAndNewlines) == expected)
    }
}
