import Analytics
import Foundation

extension BenchmarkReport {
    /// The report as text for a terminal: a header on the machine and the run, then three aligned
    /// tables (Lloyd, mini-batch and memory, cosine search) with medians and their spread.
    ///
    /// ```text
    ///         N   k  threads  seeding              Lloyd per iteration   iterations  rows/s  GB/s  …
    ///   100,000   8        1  7.12 ms (7.05–7.40)  1.52 ms (1.50–1.60)           20  65.8 M  3.16  …
    /// ```
    public func renderedTable() -> String {
        var text = ""
        let labelWidth = headerLines.map(\.label.count).max() ?? 0
        for line in headerLines {
            text += ReportFormatting.pad(line.label, labelWidth) + "  " + line.value + "\n"
        }
        if let busyWarning { text += "\nwarning: " + busyWarning + "\n" }
        for section in tableSections {
            text += "\n" + section.title + "\n"
            text += BenchmarkFormatting.columns([section.header] + section.rows, rightAligned: section.rightAligned)
        }
        text += "\n" + notes.joined(separator: "\n") + "\n"
        return text
    }

    /// The warning printed when the machine was busy, or `nil` when it was quiet.
    public var busyWarning: String? {
        guard isBusy else { return nil }
        let reasons =
            load.before.busyReasons(includingLoadAverage: true).map { $0 + " before the run" }
            + load.during.busyReasons(includingLoadAverage: false).map { $0 + " during it" }
        return "the machine was busy (" + reasons.joined(separator: "; ")
            + "): times are slower and noisier than on a quiet machine."
    }

    // MARK: - Parts shared with the HTML page

    /// One table: a title, a header row and rows of cells.
    struct TableSection {
        var title: String
        var header: [String]
        var rows: [[String]]
        var rightAligned: Set<Int>
    }

    /// The lines of the header: what ran where, and the measured ceilings.
    var headerLines: [(label: String, value: String)] {
        var lines: [(String, String)] = []
        let dateStyle = Date.ISO8601FormatStyle(timeZone: .gmt).year().month().day().time(
            includingFractionalSeconds: false
        )
        lines.append(("date", date.formatted(dateStyle) + " UTC"))
        if let commandLine { lines.append(("command", commandLine)) }
        var machineLine = "\(machine.cpuModel), \(machine.logicalCPUCount) logical CPUs"
        if !machine.cpuFeatures.isEmpty { machineLine += " (" + machine.cpuFeatures.joined(separator: " ") + ")" }
        machineLine += "; " + machine.operatingSystem
        if let kernel = machine.kernel { machineLine += ", kernel " + kernel }
        lines.append(("machine", machineLine))
        var build = "\(machine.compiler), \(machine.buildConfiguration) build"
        if machine.buildConfiguration.hasPrefix("debug") {
            build += " (debug figures say little about the code's speed)"
        }
        if let blas = machine.blas { build += "; " + blas }
        lines.append(("build", build))
        let ceilings = machine.rooflines.map { roofline in
            "\(roofline.threadCount) thread\(roofline.threadCount == 1 ? "" : "s"): read "
                + BenchmarkFormatting.gigabytesPerSecond(roofline.readBandwidth) + " GB/s, multiply-add "
                + BenchmarkFormatting.significant(roofline.multiplyAddPeak / 1e9) + " GFLOP/s"
        }
        lines.append(
            (
                "roofline",
                ceilings.joined(separator: "; ")
                    + " (measured in \(BenchmarkFormatting.duration(machine.probeSeconds)))"
            )
        )
        var loadLine =
            load.before.loadAverage.map { "load average \(String(format: "%.2f", $0)) before the run" }
            ?? "load average unknown"
        if let share = load.during.otherProcessesShare {
            loadLine += "; other processes \(BenchmarkFormatting.percent(share)) of the CPUs during it"
        }
        if let steal = load.during.stealShare { loadLine += ", steal \(BenchmarkFormatting.percent(steal))" }
        lines.append(("load", loadLine))
        lines.append(("data", data.summary + " Seed \(data.seed)."))
        return lines
    }

    /// The three tables.
    var tableSections: [TableSection] {
        let s = settings
        var sections: [TableSection] = []
        if !configurations.isEmpty {
            sections.append(
                TableSection(
                    title: "k-means++ seeding and Lloyd's iterations (tolerance 0, up to \(s.iterations) iterations); "
                        + "medians of \(s.repeats) run\(s.repeats == 1 ? "" : "s") (min–max)",
                    header: [
                        "N", "d", "k", "threads", "seeding", "Lloyd per iteration", "iterations", "rows/s", "GB/s",
                        "GFLOP/s",
                        "of roofline", "rows scanned", "inertia",
                    ],
                    rows: configurations.map { c in
                        [
                            BenchmarkFormatting.grouped(c.rowCount), String(c.columnCount), String(c.clusterCount),
                            String(c.threadCount), BenchmarkFormatting.duration(c.seedingSeconds),
                            BenchmarkFormatting.duration(c.secondsPerIteration), String(c.iterationCount),
                            BenchmarkFormatting.rate(c.rowsPerSecond.median),
                            BenchmarkFormatting.gigabytesPerSecond(c.bandwidth.median),
                            BenchmarkFormatting.significant(c.gflops.median),
                            BenchmarkFormatting.percent(c.rooflineFraction.median),
                            c.scannedShare.map { BenchmarkFormatting.percent($0) } ?? "–",
                            String(format: "%.6g", c.inertia.median),
                        ]
                    },
                    rightAligned: [0, 1, 2, 3, 6, 7, 8, 9, 10, 11, 12]
                )
            )
            sections.append(
                TableSection(
                    title:
                        "Mini-batch k-means (\(BenchmarkFormatting.grouped(s.miniBatchSize)) rows per step) and memory",
                    header: [
                        "N", "d", "k", "threads", "mini-batch per step", "steps", "inertia vs Lloyd",
                        "whole fit (Lloyd)",
                        "peak memory", "matrix",
                    ],
                    rows: configurations.map { c in
                        [
                            BenchmarkFormatting.grouped(c.rowCount), String(c.columnCount), String(c.clusterCount),
                            String(c.threadCount), BenchmarkFormatting.duration(c.miniBatchSecondsPerStep),
                            String(c.miniBatchSteps),
                            c.miniBatchInertiaRatio.map { String(format: "%+.1f %%", ($0 - 1) * 100) } ?? "–",
                            BenchmarkFormatting.duration(c.fitSeconds),
                            peakMemory(c.peakMemoryBytes, scope: c.peakMemoryScope),
                            BenchmarkFormatting.bytes(Double(c.matrixBytes)),
                        ]
                    },
                    rightAligned: [0, 1, 2, 3, 5, 6, 8, 9]
                )
            )
        }
        if !searches.isEmpty {
            let queries = searches.map(\.queryCount).max() ?? 0
            sections.append(
                TableSection(
                    title: "Exact cosine top-\(s.neighborCount) of \(BenchmarkFormatting.grouped(queries)) rows "
                        + "sampled from the data, all at once",
                    header: [
                        "N", "d", "threads", "index build", "all queries", "queries/s", "GFLOP/s", "of roofline",
                        "peak memory",
                    ],
                    rows: searches.map { r in
                        [
                            BenchmarkFormatting.grouped(r.rowCount), String(r.columnCount), String(r.threadCount),
                            BenchmarkFormatting.duration(r.indexSeconds), BenchmarkFormatting.duration(r.seconds),
                            BenchmarkFormatting.rate(r.queriesPerSecond.median),
                            BenchmarkFormatting.significant(r.gflops.median),
                            BenchmarkFormatting.percent(r.rooflineFraction.median),
                            peakMemory(r.peakMemoryBytes, scope: r.peakMemoryScope),
                        ]
                    },
                    rightAligned: [0, 1, 2, 5, 6, 7, 8]
                )
            )
        }
        return sections
    }

    /// How the derived figures are defined.
    var notes: [String] {
        [
            "Times are medians of the runs, with the fastest and slowest in brackets; every run uses the same seed.",
            "GB/s counts reading the N × d float32 matrix once per iteration (N·d·4 bytes); GFLOP/s counts 2·N·d·k per "
                + "iteration (cosine: 2·queries·N·d); \"of roofline\" is max(bytes ÷ read bandwidth, FLOPs ÷ multiply-add peak) "
                + "at the same thread count, divided by the time. The multiply-add peak is this build's (\(machine.multiplyAddLoop)); "
                + "OpenBLAS, which the cosine search uses, picks its own kernels for the processor.",
            "\"rows scanned\" is the share of rows whose distances an iteration computed: Hamerly's bound skips the rows "
                + "whose nearest centroid provably did not change (the result is Lloyd's all the same). GB/s, GFLOP/s and "
                + "\"of roofline\" count every row, as a full pass would, so below 100 % scanned they are effective figures.",
            "Peak memory is the process's peak resident size during the configuration (all of the process: the data "
                + "matrix, the index and the tool itself); \"process\" marks a whole-process peak where it could not be reset.",
        ]
    }

    private func peakMemory(_ bytes: Int?, scope: String?) -> String {
        guard let bytes else { return "–" }
        return BenchmarkFormatting.bytes(Double(bytes)) + (scope == "process" ? " (process)" : "")
    }
}
