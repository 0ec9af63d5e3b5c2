import Foundation

extension BenchmarkReport {
    /// The header of ``renderedCSV()``.
    public static let csvHeader = [
        "benchmark", "n", "d", "k", "threads", "metric", "unit", "median", "min", "max", "repeats",
    ]

    /// The results as CSV, one row per configuration and metric (long form, ready for a pivot):
    /// `benchmark` is `kmeans` or `cosine`, `k` is empty for cosine, and `min` and `max` are empty
    /// for figures measured once. Times are in seconds, sizes in bytes, rates per second.
    public func renderedCSV() -> String {
        var rows = [Self.csvHeader]
        for c in configurations {
            let prefix = [
                "kmeans", String(c.rowCount), String(c.columnCount), String(c.clusterCount), String(c.threadCount),
            ]
            func add(_ metric: String, _ unit: String, _ statistic: Statistic) {
                rows.append(prefix + [metric, unit] + Self.csvCells(statistic) + [String(c.repeats)])
            }
            func add(_ metric: String, _ unit: String, _ value: Double?) {
                guard let value else { return }
                rows.append(prefix + [metric, unit, Self.csvNumber(value), "", "", String(c.repeats)])
            }
            add("seeding", "s", c.seedingSeconds)
            add("lloyd_per_iteration", "s", c.secondsPerIteration)
            add("lloyd_iterations", "count", Double(c.iterationCount))
            add("fit", "s", c.fitSeconds)
            add("rows_per_second", "1/s", c.rowsPerSecond)
            add("bandwidth", "B/s", c.bandwidth)
            add("gflops", "GFLOP/s", c.gflops)
            add("roofline_per_iteration", "s", c.rooflineSecondsPerIteration)
            add("roofline_fraction", "ratio", c.rooflineFraction)
            add("inertia", "sum of squares", c.inertia)
            add("mini_batch_per_step", "s", c.miniBatchSecondsPerStep)
            add("mini_batch_steps", "count", Double(c.miniBatchSteps))
            add("mini_batch_inertia", "sum of squares", c.miniBatchInertia)
            add("mini_batch_inertia_ratio", "ratio", c.miniBatchInertiaRatio)
            add(
                c.peakMemoryScope == "process" ? "process_peak_memory" : "peak_memory", "B",
                c.peakMemoryBytes.map(Double.init))
            add("matrix", "B", Double(c.matrixBytes))
        }
        for r in searches {
            let prefix = ["cosine", String(r.rowCount), String(r.columnCount), "", String(r.threadCount)]
            func add(_ metric: String, _ unit: String, _ statistic: Statistic) {
                rows.append(prefix + [metric, unit] + Self.csvCells(statistic) + [String(r.repeats)])
            }
            func add(_ metric: String, _ unit: String, _ value: Double?) {
                guard let value else { return }
                rows.append(prefix + [metric, unit, Self.csvNumber(value), "", "", String(r.repeats)])
            }
            add("index_build", "s", r.indexSeconds)
            add("all_queries", "s", r.seconds)
            add("queries", "count", Double(r.queryCount))
            add("queries_per_second", "1/s", r.queriesPerSecond)
            add("gflops", "GFLOP/s", r.gflops)
            add("roofline", "s", r.rooflineSeconds)
            add("roofline_fraction", "ratio", r.rooflineFraction)
            add(
                r.peakMemoryScope == "process" ? "process_peak_memory" : "peak_memory", "B",
                r.peakMemoryBytes.map(Double.init))
        }
        return rows.map { $0.map(Self.csvField).joined(separator: ",") }.joined(separator: "\n") + "\n"
    }

    private static func csvCells(_ statistic: Statistic) -> [String] {
        [csvNumber(statistic.median), csvNumber(statistic.minimum), csvNumber(statistic.maximum)]
    }

    /// A number as CSV writes it: integers plainly, others with up to 9 significant digits.
    static func csvNumber(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(format: "%.9g", value)
    }

    /// A field quoted when it holds a comma, a quote or a line break (RFC 4180).
    static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
