import Analytics
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
            var writer = MetricRows(
                prefix: [
                    "kmeans", String(c.rowCount), String(c.columnCount), String(c.clusterCount), String(c.threadCount),
                ],
                repeats: c.repeats
            )
            writer.add("seeding", "s", c.seedingSeconds)
            writer.add("lloyd_per_iteration", "s", c.secondsPerIteration)
            writer.add("lloyd_iterations", "count", Double(c.iterationCount))
            writer.add("fit", "s", c.fitSeconds)
            writer.add("rows_per_second", "1/s", c.rowsPerSecond)
            writer.add("bandwidth", "B/s", c.bandwidth)
            writer.add("gflops", "GFLOP/s", c.gflops)
            writer.add("roofline_per_iteration", "s", c.rooflineSecondsPerIteration)
            writer.add("roofline_fraction", "ratio", c.rooflineFraction)
            writer.add("scanned_share", "ratio", c.scannedShare)
            writer.add("inertia", "sum of squares", c.inertia)
            writer.add("mini_batch_per_step", "s", c.miniBatchSecondsPerStep)
            writer.add("mini_batch_steps", "count", Double(c.miniBatchSteps))
            writer.add("mini_batch_inertia", "sum of squares", c.miniBatchInertia)
            writer.add("mini_batch_inertia_ratio", "ratio", c.miniBatchInertiaRatio)
            writer.add(
                c.peakMemoryScope == "process" ? "process_peak_memory" : "peak_memory",
                "B",
                c.peakMemoryBytes.map(Double.init)
            )
            writer.add("matrix", "B", Double(c.matrixBytes))
            rows += writer.rows
        }
        for r in searches {
            var writer = MetricRows(
                prefix: ["cosine", String(r.rowCount), String(r.columnCount), "", String(r.threadCount)],
                repeats: r.repeats
            )
            writer.add("index_build", "s", r.indexSeconds)
            writer.add("all_queries", "s", r.seconds)
            writer.add("queries", "count", Double(r.queryCount))
            writer.add("queries_per_second", "1/s", r.queriesPerSecond)
            writer.add("gflops", "GFLOP/s", r.gflops)
            writer.add("roofline", "s", r.rooflineSeconds)
            writer.add("roofline_fraction", "ratio", r.rooflineFraction)
            writer.add(
                r.peakMemoryScope == "process" ? "process_peak_memory" : "peak_memory",
                "B",
                r.peakMemoryBytes.map(Double.init)
            )
            rows += writer.rows
        }
        return rows.map { $0.map(Self.csvField).joined(separator: ",") }.joined(separator: "\n") + "\n"
    }

    /// The CSV rows of one configuration: its columns, then one metric per row.
    private struct MetricRows {
        let prefix: [String]
        let repeats: Int
        var rows: [[String]] = []

        /// A measured metric: its median, minimum and maximum.
        mutating func add(_ metric: String, _ unit: String, _ statistic: Statistic) {
            rows.append(
                prefix + [metric, unit]
                    + [
                        BenchmarkReport.csvNumber(statistic.median), BenchmarkReport.csvNumber(statistic.minimum),
                        BenchmarkReport.csvNumber(statistic.maximum),
                    ]
                    + [String(repeats)]
            )
        }

        /// A figure known once, without a spread; nothing when it is `nil`.
        mutating func add(_ metric: String, _ unit: String, _ value: Double?) {
            guard let value else { return }
            rows.append(prefix + [metric, unit, BenchmarkReport.csvNumber(value), "", "", String(repeats)])
        }
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
