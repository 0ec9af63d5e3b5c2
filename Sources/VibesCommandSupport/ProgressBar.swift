import Foundation

/// A one-line progress bar on stderr, drawn only when stderr is a terminal and output is not quiet:
/// `ReccoBeats [#######.....] 280/400  93.1/s  ETA 2 s`.
package struct ProgressBar: Sendable {
    /// What the counts count.
    package enum Unit: Sendable {
        /// Items, printed as they are: `280/400  93.1/s`.
        case items
        /// Bytes, printed in megabytes: `12.3/45.6 MB  8.1 MB/s`.
        case bytes
    }

    package let label: String
    package let unit: Unit
    package let isEnabled: Bool
    package let started = ContinuousClock.now
    /// The terminal's columns: the line keeps within them, so it never wraps.
    let columns: Int

    package init(label: String, quiet: Bool, unit: Unit = .items) {
        self.label = label
        self.unit = unit
        self.isEnabled = !quiet && Console.stderrIsTerminal
        self.columns = isEnabled ? TerminalWidth.standardError ?? 80 : 80
    }

    /// Redraws the line for `done` of `total`.
    package func update(done: Int, total: Int) {
        guard isEnabled else { return }
        let elapsed = Self.seconds(ContinuousClock.now - started)
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        let eta = rate > 0 ? Double(max(total - done, 0)) / rate : 0
        let counts: String
        switch unit {
        case .items:
            counts = "\(done)/\(total)  \(String(format: "%.1f", rate))/s"
        case .bytes:
            let megabytes = { (bytes: Double) in String(format: "%.1f", bytes / 1_000_000) }
            counts = "\(megabytes(Double(done)))/\(megabytes(Double(total))) MB  \(megabytes(rate)) MB/s"
        }
        let line = Self.line(
            label: label,
            fraction: total > 0 ? min(1, Double(done) / Double(total)) : 1,
            counts: counts + "  ETA " + Self.format(eta),
            columns: columns
        )
        FileHandle.standardError.write(Data("\r\u{1B}[K\(line)".utf8))
    }

    /// `label [####....] counts` in fewer than `columns` columns (the last is left free, so the
    /// terminal never wraps): the bar narrows from 24 to 8 cells, then the label is cut with "…",
    /// then the bar goes, then the counts are cut.
    static func line(label: String, fraction: Double, counts: String, columns: Int) -> String {
        let room = max(1, columns - 1)
        func bar(_ width: Int) -> String {
            let filled = min(width, Int(fraction * Double(width)))
            return "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "]"
        }
        let barWidth = min(24, room - label.count - counts.count - 4)
        if barWidth >= 8 { return "\(label) \(bar(barWidth)) \(counts)" }
        let labelWidth = room - counts.count - 8 - 4
        if labelWidth >= 4 { return "\(label.fitted(to: labelWidth)) \(bar(8)) \(counts)" }
        return "\(label.fitted(to: max(4, room / 3))) \(counts)".fitted(to: room)
    }

    /// Clears the line.
    package func finish() {
        guard isEnabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }

    package static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    package static func format(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        if whole < 60 { return "\(whole) s" }
        if whole < 3600 { return "\(whole / 60) min \(whole % 60) s" }
        return "\(whole / 3600) h \((whole % 3600) / 60) min"
    }
}
