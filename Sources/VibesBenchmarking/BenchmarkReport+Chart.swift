import Analytics
import Foundation

extension BenchmarkReport {
    /// The chart of Lloyd's time per iteration as a standalone SVG file.
    ///
    /// With two or more row counts the chart plots time against *N* with one line per cluster count
    /// and thread count (colour by *k*, dash by threads); with one row count, against *k* with one
    /// line per thread count. Both axes are logarithmic, so equal slopes mean equal growth rates
    /// (slope 1: time proportional to *N*). Each point carries its data (`data-x`, `data-y` in ms,
    /// `data-group`) and a vertical bar shows the spread of the runs. The file is well-formed
    /// XML, styled with the mood report's palette, light or dark as the viewer prefers.
    public func renderedSVG() -> String {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + timeChart(isStandalone: true) + "\n"
    }

    /// The styles of the chart, added to the mood report's page styles.
    static let chartCSS = """
        .series { fill: none; stroke-width: 2; } .spread { stroke-width: 1.5; stroke-opacity: 0.6; }
        .series.g0, .spread.g0 { stroke: var(--g0); } .series.g1, .spread.g1 { stroke: var(--g1); }
        .series.g2, .spread.g2 { stroke: var(--g2); } .series.g3, .spread.g3 { stroke: var(--g3); }
        .series.g4, .spread.g4 { stroke: var(--g4); } .series.g5, .spread.g5 { stroke: var(--g5); }
        .series.g6, .spread.g6 { stroke: var(--g6); } .series.g7, .spread.g7 { stroke: var(--g7); }
        .series.g8, .spread.g8 { stroke: var(--g8); } .series.g9, .spread.g9 { stroke: var(--g9); }
        .series.t1 { stroke-dasharray: 7 4; } .series.t2 { stroke-dasharray: 2 3; } .series.t3 { stroke-dasharray: 9 3 2 3; }
        .chart-background { fill: var(--card); } svg text { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
        td.num, th.num { text-align: right; } .warning { color: var(--below); font-weight: 600; }
        """

    /// One line of the chart.
    private struct Series {
        var name: String
        var cssClass: String
        var points: [(x: Double, result: ClusteringResult)]
    }

    /// The chart as an `<svg>` element; a standalone one carries its styles and a background.
    func timeChart(isStandalone: Bool) -> String {
        let rowCounts = Array(Set(configurations.map(\.rowCount))).sorted()
        let clusterCounts = Array(Set(configurations.map(\.clusterCount))).sorted()
        let threadCounts = Array(Set(configurations.map(\.threadCount))).sorted()
        let isByRowCount = rowCounts.count >= 2
        func threadsName(_ t: Int) -> String { "\(t) thread\(t == 1 ? "" : "s")" }

        var series: [Series] = []
        if isByRowCount {
            for (kIndex, k) in clusterCounts.enumerated() {
                for (tIndex, t) in threadCounts.enumerated() {
                    let points = configurations.filter { $0.clusterCount == k && $0.threadCount == t }
                        .sorted { $0.rowCount < $1.rowCount }.map { (x: Double($0.rowCount), result: $0) }
                    series.append(
                        Series(
                            name: "k=\(k), \(threadsName(t))",
                            cssClass: "g\(kIndex % 10) t\(tIndex % 4)",
                            points: points
                        )
                    )
                }
            }
        } else {
            for (tIndex, t) in threadCounts.enumerated() {
                let points = configurations.filter { $0.threadCount == t }.sorted { $0.clusterCount < $1.clusterCount }
                    .map { (x: Double($0.clusterCount), result: $0) }
                series.append(Series(name: threadsName(t), cssClass: "g\(tIndex % 10) t\(tIndex % 4)", points: points))
            }
        }

        let width = 720.0
        let height = 400.0
        let left = 72.0
        let right = 160.0
        let top = 16.0
        let bottom = 52.0
        let plotWidth = width - left - right
        let plotHeight = height - top - bottom
        let xs = configurations.map { Double(isByRowCount ? $0.rowCount : $0.clusterCount) }
        let ys = configurations.flatMap { [$0.secondsPerIteration.minimum, $0.secondsPerIteration.maximum] }
            .map { $0 * 1e3 }.filter { $0 > 0 }
        let xDomain = Self.logDomain(xs)
        let yDomain = Self.logDomain(ys)
        func px(_ x: Double) -> Double {
            left + (log10(x) - log10(xDomain.lowerBound)) / (log10(xDomain.upperBound) - log10(xDomain.lowerBound))
                * plotWidth
        }
        func py(_ milliseconds: Double) -> Double {
            let y = Swift.max(milliseconds, yDomain.lowerBound)
            return top + plotHeight
                - (log10(y) - log10(yDomain.lowerBound)) / (log10(yDomain.upperBound) - log10(yDomain.lowerBound))
                * plotHeight
        }
        let c = SVGChart.coordinate

        let subject = isByRowCount ? "rows N" : "clusters k"
        let fixed =
            isByRowCount
            ? "" : rowCounts.first.map { " at N = \(BenchmarkFormatting.grouped($0))" } ?? ""
        let description =
            "Median milliseconds per Lloyd iteration against \(subject)\(fixed), both axes logarithmic: "
            + series.map { line in
                line.name + ": "
                    + line.points.map {
                        "\(isByRowCount ? BenchmarkFormatting.shortCount($0.x) : String(Int($0.x))) "
                            + BenchmarkFormatting.duration($0.result.secondsPerIteration.median)
                    }.joined(separator: ", ")
            }.joined(separator: "; ") + "."
        var svg = SVGChart.open(
            id: "lloyd-time",
            width: Int(width),
            height: Int(height),
            title: "Lloyd time per iteration by \(isByRowCount ? "N and k" : "k")",
            description: description
        )
        if isStandalone {
            svg += "<style><![CDATA[\n" + HTMLPage.css + "\n" + Self.chartCSS + "\n]]></style>"
            svg +=
                "<rect class=\"chart-background\" x=\"0\" y=\"0\" width=\"\(Int(width))\" height=\"\(Int(height))\"/>"
        }
        svg +=
            "<rect class=\"plot\" x=\"\(c(left))\" y=\"\(c(top))\" width=\"\(c(plotWidth))\" height=\"\(c(plotHeight))\"/>"
        for tick in Self.logTicks(xDomain) {
            let x = px(tick)
            svg += "<line class=\"grid\" x1=\"\(c(x))\" x2=\"\(c(x))\" y1=\"\(c(top))\" y2=\"\(c(top + plotHeight))\"/>"
            let label = isByRowCount ? BenchmarkFormatting.shortCount(tick) : BenchmarkFormatting.significant(tick)
            svg += SVGChart.text(label, x: x, y: top + plotHeight + 15, cssClass: "tick")
        }
        for tick in Self.logTicks(yDomain) {
            let y = py(tick)
            svg +=
                "<line class=\"grid\" x1=\"\(c(left))\" x2=\"\(c(left + plotWidth))\" y1=\"\(c(y))\" y2=\"\(c(y))\"/>"
            svg += SVGChart.text(
                BenchmarkFormatting.tickDuration(tick / 1e3),
                x: left - 5,
                y: y + 4,
                anchor: "end",
                cssClass: "tick"
            )
        }
        for line in series {
            let path = line.points.enumerated().map { index, point in
                (index == 0 ? "M" : "L") + "\(c(px(point.x))),\(c(py(point.result.secondsPerIteration.median * 1e3)))"
            }.joined(separator: " ")
            svg +=
                "<path class=\"series \(line.cssClass)\" d=\"\(path)\" data-series=\"\(SVGChart.escape(line.name))\"/>"
            let colour = line.cssClass.split(separator: " ")[0]
            for point in line.points {
                let time = point.result.secondsPerIteration
                let x = px(point.x)
                svg +=
                    "<line class=\"spread \(colour)\" x1=\"\(c(x))\" x2=\"\(c(x))\" y1=\"\(c(py(time.minimum * 1e3)))\" "
                    + "y2=\"\(c(py(time.maximum * 1e3)))\"/>"
                let label =
                    "N=\(BenchmarkFormatting.grouped(point.result.rowCount)), k=\(point.result.clusterCount), "
                    + threadsName(point.result.threadCount)
                svg +=
                    "<circle class=\"mark \(colour)\" cx=\"\(c(x))\" cy=\"\(c(py(time.median * 1e3)))\" r=\"3.5\" "
                    + "data-x=\"\(SVGChart.dataValue(point.x))\" data-y=\"\(SVGChart.dataValue(time.median * 1e3))\" "
                    + "data-group=\"\(SVGChart.escape(line.name))\" data-label=\"\(SVGChart.escape(label))\" "
                    + "data-value=\"\(SVGChart.dataValue(time.median * 1e3))\">"
                    + "<title>\(SVGChart.escape(label)): \(SVGChart.escape(BenchmarkFormatting.duration(time))) per iteration</title></circle>"
            }
        }
        // The legend, right of the plot.
        for (index, line) in series.enumerated() {
            let y = top + 10 + Double(index) * 18
            let x = left + plotWidth + 14
            svg +=
                "<line class=\"series \(line.cssClass)\" x1=\"\(c(x))\" x2=\"\(c(x + 24))\" y1=\"\(c(y))\" y2=\"\(c(y))\"/>"
            svg += SVGChart.text(line.name, x: x + 30, y: y + 4, anchor: "start", cssClass: "tick")
        }
        svg +=
            "<line class=\"axis\" x1=\"\(c(left))\" x2=\"\(c(left + plotWidth))\" y1=\"\(c(top + plotHeight))\" y2=\"\(c(top + plotHeight))\"/>"
        svg += SVGChart.text(
            isByRowCount ? "rows N (log scale)" : "clusters k (log scale)\(fixed)",
            x: left + plotWidth / 2,
            y: height - 10,
            cssClass: "axis-title"
        )
        svg += SVGChart.text(
            "time per Lloyd iteration (log scale)",
            x: 14,
            y: top + plotHeight / 2,
            cssClass: "axis-title",
            rotate: true
        )
        return svg + "</svg>"
    }

    /// A logarithmic axis range around `values` with a margin of a quarter on each side.
    static func logDomain(_ values: [Double]) -> ClosedRange<Double> {
        let positive = values.filter { $0 > 0 && $0.isFinite }
        guard let low = positive.min(), let high = positive.max() else { return 1...10 }
        return (low / 1.25)...(high * 1.25)
    }

    /// Round values in `domain` for tick marks: 1, 2 and 5 times powers of ten, or only the powers
    /// of ten when those would be too many; at least the domain's ends.
    static func logTicks(_ domain: ClosedRange<Double>) -> [Double] {
        let low = Int(floor(log10(domain.lowerBound)))
        let high = Int(ceil(log10(domain.upperBound)))
        var ticks: [Double] = []
        for exponent in low...high {
            for mantissa in [1.0, 2.0, 5.0] {
                let value = mantissa * pow(10, Double(exponent))
                if domain.contains(value) { ticks.append(value) }
            }
        }
        if ticks.count > 9 { ticks = ticks.filter { log10($0) == log10($0).rounded() } }
        if ticks.count < 2 {
            let middle = pow(10, (log10(domain.lowerBound) + log10(domain.upperBound)) / 2)
            let rounded = Double(BenchmarkFormatting.significant(middle)) ?? middle
            ticks = [rounded]
        }
        return ticks
    }
}
