import Features
import Foundation

extension MoodReport {
    /// The explorer of the HTML report: a scatter of every track on two chosen features, a legend
    /// of every group, and a sortable table per group with M3U and CSV downloads.
    ///
    /// The markup is static and the tracks travel as one compact JSON document (see
    /// ``explorerData(_:)``); ``ExplorerScript`` draws, sorts and exports them in the page.
    func explorerSection(_ list: TrackList) -> String {
        var html = "<section id=\"explore\"><h2>Explore the tracks</h2>"
        guard !list.entries.isEmpty else {
            return html + "<p class=\"note\">No tracks with audio features to explore yet.</p></section>"
        }
        let grouping = vibes == nil ? "mood quadrant" : "vibe"
        html +=
            "<p id=\"explorer-help\">Every track on two features of your choice, coloured by \(grouping). Hover a point to see the track; "
            + "click it to open it on Spotify, or its local file when it has one and no Spotify ID. "
            + "Zoom with the wheel or the buttons and drag to pan; with the plot focused, the arrow keys pan, + and − zoom and 0 resets. "
            + "Click a legend entry to hide or show its tracks. The tables below list "
            + (list.listsEveryTrack ? "every track" : "the drawn tracks")
            + ": Tab reaches each one and Enter opens it.</p>"
        if !list.listsEveryTrack {
            html +=
                "<p class=\"note\" id=\"explorer-sample\">The scatter, the tables and the downloads hold \(ReportFormatting.count(list.entries.count)) of the "
                + "\(ReportFormatting.count(list.trackCount)) tracks, an even sample by track ID, so that the page stays a few megabytes and opens quickly. "
                + "To take a vibe whole as a playlist file, build one: "
                + "<code>vibes-analyze playlist build --vibe 1 -n 10000 --order none --export m3u --out vibe-1.m3u</code>.</p>"
        } else if list.drawnCount < list.entries.count {
            html +=
                "<p class=\"note\" id=\"explorer-sample\">The scatter draws \(ReportFormatting.count(list.drawnCount)) of the "
                + "\(ReportFormatting.count(list.entries.count)) tracks, an even sample by track ID, so that the page stays quick; "
                + "the tables and downloads hold every track.</p>"
        }
        html +=
            "<noscript><p class=\"note\">The explorer and the track tables need JavaScript, which is off; the charts of the other sections do not.</p></noscript>"
        html += "<div class=\"explorer\" id=\"explorer\">"
        html += "<div class=\"explorer-controls\">"
        for (axis, label, initial) in [("x", "Across", "valence"), ("y", "Up", "energy")] {
            html += "<label>\(label) <select id=\"explorer-\(axis)\">"
            for (index, feature) in list.features.enumerated() {
                let selected = feature == initial ? " selected=\"selected\"" : ""
                html +=
                    "<option value=\"\(index)\"\(selected)>\(SVGChart.escape(axisTitle(list, index)))</option>"
            }
            html += "</select></label>"
        }
        html +=
            "<span class=\"zoom\" role=\"group\" aria-label=\"Zoom\">"
            + "<button type=\"button\" id=\"explorer-zoom-in\" aria-label=\"Zoom in\" title=\"Zoom in\">+</button>"
            + "<button type=\"button\" id=\"explorer-zoom-out\" aria-label=\"Zoom out\" title=\"Zoom out\">−</button>"
            + "<button type=\"button\" id=\"explorer-reset\">Reset view</button></span></div>"
        html +=
            "<div class=\"explorer-plot-area\">" + explorerPlot(list)
            + "<div id=\"explorer-card\" class=\"explorer-card\" hidden=\"hidden\"></div></div>"
        html += explorerLegend(list)
        html += "</div>"
        html += "<h3>Tracks by \(grouping)</h3>"
        html +=
            "<p>Click a column header to sort; the downloads follow the table's order. "
            + "M3U lists each track's local file, else its Spotify URI; CSV has Exportify's columns.</p>"
        for (index, group) in list.groups.enumerated() {
            html += explorerTable(list, group: group, index: index)
        }
        html +=
            "<script type=\"application/json\" id=\"explorer-data\">\(explorerData(list))</script>"
        html += "<script>//<![CDATA[\n\(ExplorerScript.source)\n//]]></script>"
        return html + "</section>"
    }

    /// The CSS class that colours a group of the track list: a vibe's palette slot, a mood's
    /// colour, or grey for tracks outside the run.
    func explorerClass(_ list: TrackList, group index: Int) -> String {
        if let vibes {
            return index < vibes.vibes.count ? "g\(index % 10)" : "other"
        }
        return HTMLPage.moodClass(Mood(rawValue: list.groups[index].name) ?? .calm)
    }

    private func axisTitle(_ list: TrackList, _ index: Int) -> String {
        list.units[index] == "0–1" ? list.features[index] : "\(list.features[index]) (\(list.units[index]))"
    }

    /// The scatter's frame: the plot area (whose clip rectangle the script reads), empty layers for
    /// ticks and points, and the axis titles.
    private func explorerPlot(_ list: TrackList) -> String {
        let width = 640.0
        let height = 440.0
        let left = 56.0
        let top = 12.0
        let plotWidth = width - left - 16
        let plotHeight = height - top - 48
        var svg =
            "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"explorer-plot\" class=\"explorer-plot\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" "
            + "tabindex=\"0\" role=\"group\" aria-labelledby=\"explorer-plot-title\" aria-describedby=\"explorer-help\">"
            + "<title id=\"explorer-plot-title\">Tracks by the chosen features</title>"
        let frame =
            "x=\"\(SVGChart.coordinate(left))\" y=\"\(SVGChart.coordinate(top))\" width=\"\(SVGChart.coordinate(plotWidth))\" height=\"\(SVGChart.coordinate(plotHeight))\""
        svg += "<defs><clipPath id=\"explorer-clip\"><rect \(frame)/></clipPath></defs>"
        svg += "<rect class=\"plot\" \(frame)/>"
        svg += "<g class=\"explorer-ticks\"></g><g class=\"explorer-points\" clip-path=\"url(#explorer-clip)\"></g>"
        let x = list.features.firstIndex(of: "valence") ?? 0
        let y = list.features.firstIndex(of: "energy") ?? 0
        svg +=
            "<text id=\"explorer-x-title\" class=\"axis-title\" x=\"\(SVGChart.coordinate(left + plotWidth / 2))\" y=\"\(SVGChart.coordinate(height - 8))\" text-anchor=\"middle\">"
            + "\(SVGChart.escape(axisTitle(list, x))) →</text>"
        svg +=
            "<text id=\"explorer-y-title\" class=\"axis-title\" x=\"14\" y=\"\(SVGChart.coordinate(top + plotHeight / 2))\" text-anchor=\"middle\" "
            + "transform=\"rotate(-90 14 \(SVGChart.coordinate(top + plotHeight / 2)))\">\(SVGChart.escape(axisTitle(list, y))) →</text>"
        return svg + "</svg>"
    }

    /// Every group with its size, as toggle buttons; nothing is left out however many there are.
    private func explorerLegend(_ list: TrackList) -> String {
        var html = "<ul class=\"explorer-legend\" id=\"explorer-legend\" aria-label=\"Legend: click to hide or show\">"
        for (index, group) in list.groups.enumerated() {
            html +=
                "<li><button type=\"button\" aria-pressed=\"true\" data-group=\"\(index)\">"
                + "<span class=\"swatch \(explorerClass(list, group: index))\"></span>\(SVGChart.escape(group.name)) "
                + "<span class=\"size\">(\(ReportFormatting.count(group.tracks)))</span></button></li>"
        }
        return html + "</ul>"
    }

    /// The frame of one group's table: the script fills its rows from the embedded data.
    private func explorerTable(_ list: TrackList, group: TrackList.Group, index: Int) -> String {
        var html =
            "<details class=\"explorer-group\" data-group=\"\(index)\"><summary><span class=\"swatch \(explorerClass(list, group: index))\"></span>"
            + "\(SVGChart.escape(group.name)) · \(ReportFormatting.count(group.tracks, "track"))"
            + (list.listsEveryTrack ? "" : " (a sample listed)") + "</summary>"
        guard group.tracks > 0 else { return html + "<p class=\"note\">No tracks.</p></details>" }
        html +=
            "<p class=\"downloads\"><button type=\"button\" data-download=\"m3u\" data-group=\"\(index)\">Download M3U</button> "
            + "<button type=\"button\" data-download=\"csv\" data-group=\"\(index)\">Download CSV</button></p>"
        let hasDistance = vibes != nil
        html +=
            "<div class=\"scroll\"><table class=\"explorer-table\" data-group=\"\(index)\"><caption>\(SVGChart.escape(group.name))</caption><thead><tr>"
        func header(_ key: String, _ title: String, sorted: Bool) -> String {
            "<th scope=\"col\" aria-sort=\"\(sorted ? "ascending" : "none")\"><button type=\"button\" data-sort=\"\(key)\">\(SVGChart.escape(title))</button></th>"
        }
        html += header("track", "Track", sorted: !hasDistance)
        for (feature, name) in list.features.enumerated() {
            let unit = list.units[feature]
            html += header(String(feature), unit == "0–1" ? name : "\(name) (\(unit))", sorted: false)
        }
        if hasDistance { html += header("distance", "distance to centre", sorted: true) }
        html += "</tr></thead><tbody></tbody></table></div>"
        html +=
            "<p class=\"note explorer-rows\"></p><p><button type=\"button\" class=\"explorer-more\" hidden=\"hidden\">Show every track</button></p>"
        return html + "</details>"
    }

    /// The tracks as one compact JSON object for the page's script.
    ///
    /// `tracks` is an array of arrays, by ascending ID: `[id, name, [artists], spotifyID, filePath,
    /// durationMS, group, distance, drawn (0 or 1), values…]`, missing values `null`. Text is
    /// escaped so that the document stays well-formed XML and no `</script>` can end it early:
    /// `<`, `>` and `&` are written as `\u003c`, `\u003e` and `\u0026`.
    func explorerData(_ list: TrackList) -> String {
        var json = "{\"features\":[" + list.features.map(ExplorerJSON.string).joined(separator: ",") + "]"
        json += ",\"units\":[" + list.units.map(ExplorerJSON.string).joined(separator: ",") + "]"
        json +=
            ",\"groups\":["
            + list.groups.enumerated().map { index, group in
                "{\"name\":\(ExplorerJSON.string(group.name)),\"tracks\":\(group.tracks),\"class\":\(ExplorerJSON.string(explorerClass(list, group: index)))}"
            }
            .joined(separator: ",") + "]"
        json += ",\"hasDistance\":\(vibes != nil)"
        json +=
            ",\"csvColumns\":[" + PlaylistExport.exportifyColumns.map(ExplorerJSON.string).joined(separator: ",") + "]"
        json += ",\"tracks\":["
        var first = true
        for entry in list.entries {
            if !first { json += ",\n" }
            first = false
            json += "[\(entry.id),\(ExplorerJSON.string(entry.name)),["
            json += entry.artists.map(ExplorerJSON.string).joined(separator: ",") + "],"
            json += (entry.spotifyID.map { ExplorerJSON.string($0.rawValue) } ?? "null") + ","
            json += (entry.filePath.map(ExplorerJSON.string) ?? "null") + ","
            json += (entry.durationMS.map(String.init) ?? "null") + ","
            json += "\(entry.group),\(ExplorerJSON.number(entry.distance)),\(entry.isDrawn ? 1 : 0)"
            for value in entry.values { json += "," + ExplorerJSON.number(value) }
            json += "]"
        }
        return json + "]}"
    }
}

/// JSON text written by hand, so that the page is byte for byte the same for the same report.
enum ExplorerJSON {
    /// A JSON string literal that is also safe inside an XML text node and an HTML `<script>`.
    static func string(_ text: String) -> String {
        var result = "\""
        result.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "<", ">", "&": result += unicodeEscape(scalar.value)
            default:
                // Controls are not allowed in XML text; the line separators end JavaScript lines in
                // older engines; U+FFFE and U+FFFF are not XML characters.
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028
                    || scalar.value == 0x2029 || scalar.value == 0xFFFE || scalar.value == 0xFFFF
                {
                    result += unicodeEscape(scalar.value)
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }

    /// A number as the shortest text that reads back the same `Double`: integers plainly,
    /// non-finite or missing values as `null`.
    static func number(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "null" }
        if value == value.rounded() && abs(value) < 1e15 { return String(Int(value)) }
        return "\(value)"
    }

    private static func unicodeEscape(_ value: UInt32) -> String {
        let hex = String(value, radix: 16)
        return "\\u" + String(repeating: "0", count: Swift.max(0, 4 - hex.count)) + hex
    }
}
