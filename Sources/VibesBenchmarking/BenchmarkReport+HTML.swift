import Analytics
import Foundation

extension BenchmarkReport {
    /// The report as one self-contained HTML page: the machine and run, the busy warning if any,
    /// the three tables and the chart of ``renderedSVG()`` inline.
    ///
    /// Like the mood report's page it needs no script, font or network, follows the reader's light
    /// or dark preference, and is well-formed XML (XHTML syntax).
    public func renderedHTML() -> String {
        var page = HTMLPage()
        let e = SVGChart.escape
        page.add(
            "<header><h1>k-means and similarity benchmark</h1><p class=\"lede\">"
                + e("\(machine.cpuModel), \(machine.logicalCPUCount) logical CPUs, \(machine.buildConfiguration) build")
                + "</p></header>"
        )
        var facts = "<section id=\"machine\"><h2>Machine and run</h2><div class=\"scroll\"><table><tbody>"
        for line in headerLines {
            facts += "<tr><th scope=\"row\">\(e(line.label))</th><td>\(e(line.value))</td></tr>"
        }
        facts += "</tbody></table></div>"
        if let busyWarning { facts += "<p class=\"warning\">Warning: \(e(busyWarning))</p>" }
        page.add(facts + "</section>")

        var results = "<section id=\"results\"><h2>Results</h2>"
        for section in tableSections {
            results += "<h3>\(e(section.title))</h3><div class=\"scroll\"><table><thead><tr>"
            for (index, cell) in section.header.enumerated() {
                results +=
                    "<th scope=\"col\"\(section.rightAligned.contains(index) ? " class=\"num\"" : "")>\(e(cell))</th>"
            }
            results += "</tr></thead><tbody>"
            for row in section.rows {
                results += "<tr>"
                for (index, cell) in row.enumerated() {
                    results += "<td\(section.rightAligned.contains(index) ? " class=\"num\"" : "")>\(e(cell))</td>"
                }
                results += "</tr>"
            }
            results += "</tbody></table></div>"
        }
        page.add(results + "</section>")

        if !configurations.isEmpty {
            page.add(
                "<section id=\"chart\"><h2>How the time grows</h2><figure class=\"chart wide\">"
                    + timeChart(isStandalone: false)
                    + "<figcaption>Median time per Lloyd iteration, log–log; the bars show the fastest and slowest run.</figcaption></figure></section>"
            )
        }
        page.add(
            "<section id=\"notes\"><h2>Definitions</h2><ul>" + notes.map { "<li>\(e($0))</li>" }.joined()
                + "</ul></section>"
        )
        return page.document(
            title: "k-means and similarity benchmark",
            footer: "Made by vibes-analyze bench.",
            extraCSS: Self.chartCSS
        )
    }
}
