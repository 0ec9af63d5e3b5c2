import Foundation

/// Builders for the inline SVG charts of the HTML report.
///
/// Every chart is an `<svg role="img">` with a `<title>` and a `<desc>` it is labelled by, axis
/// titles in text, and marks that carry their data: each bar, cell, point or dot has a
/// `class="mark"`, a `data-label` and a `data-value` (points: `data-x`, `data-y`, `data-group`),
/// plus a `<title>` child that browsers show on hover and screen readers read. The output is
/// well-formed XML.
package enum SVGChart {
    /// Escapes text for XML content and attribute values.
    package static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }

    /// A number as an SVG coordinate, with at most two decimals.
    package static func coordinate(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(format: "%.2f", rounded)
    }

    /// A data value as written in `data-value`: integers plainly, others to ten significant digits.
    package static func dataValue(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(format: "%.10g", value)
    }

    /// The opening of a chart: `<svg>` with its accessible title and description.
    package static func open(id: String, width: Int, height: Int, title: String, description: String) -> String {
        """
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(width) \(height)" role="img" \
        aria-labelledby="\(id)-title \(id)-desc" data-chart="\(id)"><title id="\(id)-title">\(escape(title))</title>\
        <desc id="\(id)-desc">\(escape(description))</desc>
        """
    }

    package static func text(
        _ content: String,
        x: Double,
        y: Double,
        anchor: String = "middle",
        cssClass: String = "",
        rotate: Bool = false
    ) -> String {
        let transform = rotate ? " transform=\"rotate(-90 \(coordinate(x)) \(coordinate(y)))\"" : ""
        let classAttribute = cssClass.isEmpty ? "" : " class=\"\(cssClass)\""
        return
            "<text x=\"\(coordinate(x))\" y=\"\(coordinate(y))\" text-anchor=\"\(anchor)\"\(classAttribute)\(transform)>\(escape(content))</text>"
    }

    /// One line series drawn over a bar chart, on a 0…1 scale.
    package struct Series {
        package var name: String
        package var values: [Double?]
        package var cssClass: String
    }

    /// A vertical bar chart, with optional 0…1 line series on a right-hand axis.
    ///
    /// - Parameters:
    ///   - labels: One label per bar; every `labelStride`-th is drawn on the axis.
    ///   - values: Bar heights; drawn from 0 to the largest.
    ///   - valueText: How a bar's value reads in its tooltip.
    package static func bars(
        id: String,
        title: String,
        description: String,
        labels: [String],
        values: [Double],
        valueText: (Double) -> String,
        xTitle: String,
        yTitle: String,
        series: [Series] = [],
        width: Int = 320,
        height: Int = 190,
        labelStride: Int = 1,
        barClasses: [String]? = nil,
        labelsAtEdges: Bool = false
    ) -> String {
        let left = 56.0
        let right = series.isEmpty ? 10.0 : 30.0
        let top = series.isEmpty ? 10.0 : 24.0
        let bottom = 40.0
        let plotWidth = Double(width) - left - right
        let plotHeight = Double(height) - top - bottom
        let peak = Swift.max(values.max() ?? 0, 1e-9)
        var svg = open(id: id, width: width, height: height, title: title, description: description)
        // Axes and gridlines at 0, ½ and the peak.
        for fraction in [0.0, 0.5, 1.0] {
            let y = top + plotHeight * (1 - fraction)
            svg +=
                "<line class=\"grid\" x1=\"\(coordinate(left))\" x2=\"\(coordinate(left + plotWidth))\" y1=\"\(coordinate(y))\" y2=\"\(coordinate(y))\"/>"
            svg += text(valueText(peak * fraction), x: left - 4, y: y + 4, anchor: "end", cssClass: "tick")
            if !series.isEmpty {
                svg += text(
                    ReportFormatting.number(fraction, digits: 1),
                    x: left + plotWidth + 4,
                    y: y + 4,
                    anchor: "start",
                    cssClass: "tick"
                )
            }
        }
        let slot = plotWidth / Double(Swift.max(values.count, 1))
        for (index, value) in values.enumerated() {
            let barHeight = plotHeight * value / peak
            let x = left + slot * Double(index) + slot * 0.1
            let barClass = barClasses.map { $0[index % $0.count] } ?? "bar"
            svg +=
                "<rect class=\"mark \(barClass)\" x=\"\(coordinate(x))\" y=\"\(coordinate(top + plotHeight - barHeight))\" "
                + "width=\"\(coordinate(slot * 0.8))\" height=\"\(coordinate(barHeight))\" "
                + "data-label=\"\(escape(labels[index]))\" data-value=\"\(dataValue(value))\">"
                + "<title>\(escape(labels[index])): \(escape(valueText(value)))</title></rect>"
            if index % labelStride == 0 {
                // A histogram's labels are bin edges, so they sit under the left edge of their bar.
                svg += text(
                    labels[index],
                    x: left + slot * (Double(index) + (labelsAtEdges ? 0 : 0.5)),
                    y: top + plotHeight + 14,
                    cssClass: "tick"
                )
            }
        }
        for line in series {
            var points: [String] = []
            var dots = ""
            for (index, value) in line.values.enumerated() {
                guard let value else { continue }
                let x = left + slot * (Double(index) + 0.5)
                let y = top + plotHeight * (1 - Swift.min(1, Swift.max(0, value)))
                points.append("\(coordinate(x)),\(coordinate(y))")
                dots +=
                    "<circle class=\"mark dot \(line.cssClass)\" cx=\"\(coordinate(x))\" cy=\"\(coordinate(y))\" r=\"3\" "
                    + "data-series=\"\(escape(line.name))\" data-label=\"\(escape(labels[index]))\" data-value=\"\(dataValue(value))\">"
                    + "<title>\(escape(labels[index])): \(escape(line.name)) \(ReportFormatting.number(value, digits: 2))</title></circle>"
            }
            if points.count > 1 {
                svg += "<polyline class=\"line \(line.cssClass)\" points=\"\(points.joined(separator: " "))\"/>"
            }
            svg += dots
        }
        // A legend of the line series, top right, naming their 0–1 axis.
        var legendX = left + plotWidth
        for line in series.reversed() {
            let label = line.name
            legendX -= Double(label.count) * 5.6 + 30
            svg +=
                "<line class=\"line \(line.cssClass)\" x1=\"\(coordinate(legendX))\" x2=\"\(coordinate(legendX + 18))\" y1=\"11\" y2=\"11\"/>"
            svg += text(label, x: legendX + 22, y: 15, anchor: "start", cssClass: "tick")
        }
        svg +=
            "<line class=\"axis\" x1=\"\(coordinate(left))\" x2=\"\(coordinate(left + plotWidth))\" y1=\"\(coordinate(top + plotHeight))\" y2=\"\(coordinate(top + plotHeight))\"/>"
        svg += text(xTitle, x: left + plotWidth / 2, y: Double(height) - 6, cssClass: "axis-title")
        svg += text(yTitle, x: 12, y: top + plotHeight / 2, cssClass: "axis-title", rotate: true)
        return svg + "</svg>"
    }

    /// Horizontal bars for values of either sign around 0, such as z-scores, clamped at ±`limit`.
    package static func diverging(
        id: String,
        title: String,
        description: String,
        labels: [String],
        values: [Double],
        limit: Double = 2,
        valueText: (Double) -> String,
        width: Int = 320,
        barClass: (Double) -> String
    ) -> String {
        let rowHeight = 18.0
        let left = 110.0
        let right = 48.0
        let height = Int(rowHeight * Double(values.count) + 24)
        let plotWidth = Double(width) - left - right
        let zero = left + plotWidth / 2
        var svg = open(id: id, width: width, height: height, title: title, description: description)
        svg +=
            "<line class=\"axis\" x1=\"\(coordinate(zero))\" x2=\"\(coordinate(zero))\" y1=\"0\" y2=\"\(coordinate(rowHeight * Double(values.count)))\"/>"
        for (index, value) in values.enumerated() {
            let y = rowHeight * Double(index)
            let length = plotWidth / 2 * Swift.min(abs(value), limit) / limit
            let x = value >= 0 ? zero : zero - length
            svg += text(labels[index], x: left - 6, y: y + 13, anchor: "end", cssClass: "tick")
            svg +=
                "<rect class=\"mark \(barClass(value))\" x=\"\(coordinate(x))\" y=\"\(coordinate(y + 3))\" width=\"\(coordinate(length))\" height=\"12\" "
                + "data-label=\"\(escape(labels[index]))\" data-value=\"\(dataValue(value))\">"
                + "<title>\(escape(labels[index])): \(escape(valueText(value)))</title></rect>"
            svg += text(valueText(value), x: Double(width) - 4, y: y + 13, anchor: "end", cssClass: "tick")
        }
        let axisY = rowHeight * Double(values.count) + 16
        svg += text(
            "−\(ReportFormatting.number(limit, digits: 0))σ",
            x: left,
            y: axisY,
            anchor: "start",
            cssClass: "tick"
        )
        svg += text("library mean", x: zero, y: axisY, cssClass: "tick")
        svg += text(
            "+\(ReportFormatting.number(limit, digits: 0))σ",
            x: left + plotWidth,
            y: axisY,
            anchor: "end",
            cssClass: "tick"
        )
        return svg + "</svg>"
    }
}
