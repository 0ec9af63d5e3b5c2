import Analytics
import Foundation

/// Number formatting shared by the benchmark report's table, CSV notes and HTML: three
/// significant digits, decimal units (1 MB = 10⁶ bytes, 1 GB/s = 10⁹ bytes per second).
enum BenchmarkFormatting {
    /// `value` with three significant digits (no exponent; whole above 100).
    static func significant(_ value: Double) -> String {
        guard value.isFinite else { return "–" }
        let magnitude = abs(value)
        if magnitude >= 100 || magnitude == 0 { return String(format: "%.0f", value) }
        if magnitude >= 10 { return String(format: "%.1f", value) }
        if magnitude >= 1 { return String(format: "%.2f", value) }
        return String(format: "%.3g", value)
    }

    /// The unit a duration is shown in, chosen by its size: s, ms or µs.
    static func timeUnit(for seconds: Double) -> (name: String, scale: Double) {
        if seconds >= 1 { return ("s", 1) }
        if seconds >= 1e-3 { return ("ms", 1e3) }
        return ("µs", 1e6)
    }

    /// A duration in seconds as `33.8 ms`.
    static func duration(_ seconds: Double) -> String {
        let unit = timeUnit(for: seconds)
        return significant(seconds * unit.scale) + " " + unit.name
    }

    /// A round duration for an axis tick, without trailing zeros: `50 ms`, `2 ms`, `500 µs`.
    static func tickDuration(_ seconds: Double) -> String {
        let unit = timeUnit(for: seconds * 1.000_001)
        let value = seconds * unit.scale
        let text = value == value.rounded() ? String(Int(value.rounded())) : significant(value)
        return text + " " + unit.name
    }

    /// A median duration with its spread, in the median's unit: `33.8 ms (32.9–35.1)`.
    static func duration(_ statistic: BenchmarkReport.Statistic) -> String {
        let unit = timeUnit(for: statistic.median)
        let median = significant(statistic.median * unit.scale)
        guard statistic.minimum != statistic.maximum else { return "\(median) \(unit.name)" }
        return
            "\(median) \(unit.name) (\(significant(statistic.minimum * unit.scale))–\(significant(statistic.maximum * unit.scale)))"
    }

    /// A count per second with a metric prefix: `65.8 M`.
    static func rate(_ value: Double) -> String {
        if value >= 1e9 { return significant(value / 1e9) + " G" }
        if value >= 1e6 { return significant(value / 1e6) + " M" }
        if value >= 1e3 { return significant(value / 1e3) + " k" }
        return significant(value)
    }

    /// Bytes with a decimal prefix: `48.0 MB`.
    static func bytes(_ value: Double) -> String {
        if value >= 1e9 { return significant(value / 1e9) + " GB" }
        if value >= 1e6 { return significant(value / 1e6) + " MB" }
        if value >= 1e3 { return significant(value / 1e3) + " kB" }
        return String(format: "%.0f B", value)
    }

    /// Bytes per second in GB/s, without the unit: `3.16`.
    static func gigabytesPerSecond(_ value: Double) -> String {
        significant(value / 1e9)
    }

    /// A share as a percentage: `12.3 %`, `0.84 %`.
    static func percent(_ share: Double) -> String {
        significant(share * 100) + " %"
    }

    /// An integer with thousands separated by commas: `1,000,000`.
    static func grouped(_ value: Int) -> String {
        ClusteringBenchmark.grouped(value)
    }

    /// A row count in short form for axes and labels: `100k`, `1M`, `2,500`.
    static func shortCount(_ value: Double) -> String {
        func trimmed(_ x: Double) -> String {
            x == x.rounded() ? String(Int(x)) : String(format: "%.1f", x)
        }
        if value >= 1e6 { return trimmed(value / 1e6) + "M" }
        if value >= 1e4 { return trimmed(value / 1e3) + "k" }
        return grouped(Int(value.rounded()))
    }

    /// Rows of cells as aligned text columns, two spaces apart; columns in `rightAligned` are
    /// right-aligned. The first row is the header, underlined.
    static func columns(_ rows: [[String]], rightAligned: Set<Int>) -> String {
        guard let header = rows.first else { return "" }
        var widths = [Int](repeating: 0, count: header.count)
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = Swift.max(widths[index], cell.count) }
        }
        func line(_ row: [String]) -> String {
            row.enumerated().map { index, cell in
                ReportFormatting.pad(cell, widths[index], right: rightAligned.contains(index))
            }.joined(separator: "  ").replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }
        var lines = [line(header)]
        lines.append(widths.map { String(repeating: "─", count: $0) }.joined(separator: "  "))
        lines += rows.dropFirst().map(line)
        return lines.joined(separator: "\n") + "\n"
    }
}
