import Features
import Foundation

extension MoodReport {
    /// The report as one self-contained HTML page with inline SVG charts and, when the report
    /// lists its tracks (``tracks``), an explorer.
    ///
    /// The page needs no font or network: styles and scripts are inline, light and dark follow
    /// `prefers-color-scheme`, and the layout reflows from a phone to a desktop. Every chart has a
    /// title, a description, axis titles and a data table beside it; every mark carries its value
    /// (see `SVGChart`). The charts need no script. The explorer's script draws every track (or an
    /// even sample of large libraries) on two chosen features, with zoom, pan, a hover card and a
    /// click that opens the track on Spotify or as a local file, and fills a sortable table per
    /// vibe with M3U and CSV downloads. The page is well-formed XML (XHTML syntax, the script in a
    /// CDATA section) so it can be checked by a parser, and the same report renders to the same
    /// bytes.
    ///
    /// - Parameter noVibesHint: What the reader can do when the report has no vibes, in the words
    ///   of the application showing it; appended to ``noVibesText``.
    public func renderedHTML(noVibesHint: String? = nil) -> String {
        var page = HTMLPage()
        page.add("<header><h1>Mood report</h1><p class=\"lede\">\(SVGChart.escape(overviewSentence))</p></header>")
        page.add(overviewSection())
        page.add(moodMapSection())
        page.add(vibesSection(noVibesHint: noVibesHint))
        if let tracks { page.add(explorerSection(tracks)) }
        page.add(mapSection())
        page.add(listeningSection())
        page.add(featuresSection())
        page.add(outliersSection())
        return page.document(title: "Mood report", extraCSS: tracks == nil ? "" : ExplorerScript.css)
    }

    private var overviewSentence: String {
        "\(ReportFormatting.count(overview.tracks)) tracks, \(ReportFormatting.count(overview.tracksWithFeatures)) with audio features, "
            + "by \(ReportFormatting.count(overview.artists)) artists; \(ReportFormatting.count(overview.plays)) plays. Times in \(timeZone)."
    }

    /// A data table, folded under the chart it stands in for.
    private func dataTable(_ header: [String], _ rows: [[String]], summary: String = "Data table") -> String {
        var html = "<details><summary>\(SVGChart.escape(summary))</summary><div class=\"scroll\"><table><thead><tr>"
        html += header.map { "<th scope=\"col\">\(SVGChart.escape($0))</th>" }.joined()
        html += "</tr></thead><tbody>"
        for row in rows {
            html += "<tr>" + row.map { "<td>\(SVGChart.escape($0))</td>" }.joined() + "</tr>"
        }
        return html + "</tbody></table></div></details>"
    }

    private func figure(_ svg: String, caption: String, table: String, wide: Bool = false) -> String {
        "<figure class=\"chart\(wide ? " wide" : "")\">\(svg)<figcaption>\(SVGChart.escape(caption))</figcaption>\(table)</figure>"
    }

    // MARK: - Sections

    private func overviewSection() -> String {
        var html = "<section id=\"overview\"><h2>Library</h2><dl class=\"stats\">"
        let stats: [(String, Int)] = [
            ("tracks", overview.tracks), ("with features", overview.tracksWithFeatures), ("artists", overview.artists),
            ("playlists", overview.playlists), ("saved tracks", overview.savedTracks), ("plays", overview.plays),
        ]
        for (name, value) in stats { html += "<div><dt>\(name)</dt><dd>\(ReportFormatting.count(value))</dd></div>" }
        html += "</dl>"
        if let sentence = overview.scopeSentence { html += "<p class=\"note\">\(SVGChart.escape(sentence))</p>" }
        if !overview.sources.isEmpty {
            html +=
                "<p>Feature sources: "
                + overview.sources.map {
                    SVGChart.escape(
                        "\($0.source): \(ReportFormatting.count($0.tracks)) tracks (preferred for \(ReportFormatting.count($0.preferred)))"
                    )
                }
                .joined(separator: "; ") + ".</p>"
        }
        if !overview.coverage.isEmpty {
            html += dataTable(
                ["feature", "tracks with a value"],
                overview.coverage.map { [$0.feature, String($0.tracks)] }
            )
        }
        return html + "</section>"
    }

    private func moodMapSection() -> String {
        var html = "<section id=\"mood\"><h2>What the library feels like</h2>"
        html +=
            "<p>Each track sits on the valence (sad → happy) and energy (calm → intense) plane; the lines split both at 0.5 into four moods.</p>"
        html += "<div class=\"pair\">"
        html += figure(
            moodGridChart(),
            caption: "\(ReportFormatting.count(moodMap.tracks)) tracks by valence and energy.",
            table: dataTable(
                ["quadrant", "tracks", "share"],
                moodMap.quadrants.map { [$0.mood, String($0.tracks), ReportFormatting.percent($0.share)] }
            )
        )
        let soft = moodMap.softMoods
        let softValues = [soft.happy, soft.chill, soft.sad, soft.angry]
        let softLabels = ["happy", "chill", "sad", "angry"]
        html += figure(
            SVGChart.bars(
                id: "soft-moods",
                title: "Soft moods of the library",
                description: "Mean Organize Your Music soft moods: "
                    + zip(softLabels, softValues).map { "\($0) \(ReportFormatting.number($1, digits: 2))" }.joined(
                        separator: ", "
                    ) + ".",
                labels: softLabels,
                values: softValues,
                valueText: { ReportFormatting.number($0, digits: 2) },
                xTitle: "soft mood",
                yTitle: "library mean",
                barClasses: ["happy", "calm", "sad", "tense"]
            ),
            caption:
                "Soft moods (Organize Your Music): happy = e·v, chill = (1−e)·v, sad = (1−e)(1−v), angry = e(1−v); they sum to 1.",
            table: dataTable(
                ["mood", "library mean"],
                zip(softLabels, softValues).map { [$0, ReportFormatting.number($1, digits: 3)] }
            )
        )
        return html + "</div></section>"
    }

    private func moodGridChart() -> String {
        let size = moodMap.gridSize
        let left = 44.0
        let top = 10.0
        let plot = 260.0
        let cell = plot / Double(size)
        let peak = Double(moodMap.grid.flatMap { $0 }.max() ?? 0)
        let shares = moodMap.quadrants.map { "\($0.mood) \(ReportFormatting.percent($0.share))" }.joined(
            separator: ", "
        )
        var svg = SVGChart.open(
            id: "mood-map",
            width: 320,
            height: 320,
            title: "Valence–energy map of the library",
            description:
                "Track counts on a \(size)×\(size) grid of valence (across) and energy (up). Quadrant shares: \(shares)."
        )
        svg += "<rect class=\"plot\" x=\"\(left)\" y=\"\(top)\" width=\"\(plot)\" height=\"\(plot)\"/>"
        for (energyIndex, row) in moodMap.grid.enumerated() {
            for (valenceIndex, count) in row.enumerated() where count > 0 {
                let x = left + Double(valenceIndex) * cell
                let y = top + plot - Double(energyIndex + 1) * cell
                let valence = Double(valenceIndex) / Double(size)
                let energy = Double(energyIndex) / Double(size)
                let mood = MoodReport.quadrant(
                    valence: valence + 0.5 / Double(size),
                    energy: energy + 0.5 / Double(size)
                )
                let label =
                    "valence \(ReportFormatting.number(valence, digits: 1))–\(ReportFormatting.number(valence + 1 / Double(size), digits: 1)), "
                    + "energy \(ReportFormatting.number(energy, digits: 1))–\(ReportFormatting.number(energy + 1 / Double(size), digits: 1))"
                let opacity = 0.2 + 0.8 * Double(count) / Swift.max(peak, 1)
                svg +=
                    "<rect class=\"mark cell \(HTMLPage.moodClass(mood))\" x=\"\(SVGChart.coordinate(x))\" y=\"\(SVGChart.coordinate(y))\" "
                    + "width=\"\(SVGChart.coordinate(cell))\" height=\"\(SVGChart.coordinate(cell))\" fill-opacity=\"\(SVGChart.coordinate(opacity))\" "
                    + "data-label=\"\(SVGChart.escape(label))\" data-value=\"\(count)\"><title>\(SVGChart.escape(label)): \(count) tracks</title></rect>"
            }
        }
        svg +=
            "<line class=\"axis\" x1=\"\(left + plot / 2)\" x2=\"\(left + plot / 2)\" y1=\"\(top)\" y2=\"\(top + plot)\"/>"
        svg +=
            "<line class=\"axis\" x1=\"\(left)\" x2=\"\(left + plot)\" y1=\"\(top + plot / 2)\" y2=\"\(top + plot / 2)\"/>"
        let corners: [(Mood, Double, Double, String)] = [
            (.tense, left + 6, top + 16, "start"), (.happy, left + plot - 6, top + 16, "end"),
            (.sad, left + 6, top + plot - 8, "start"), (.calm, left + plot - 6, top + plot - 8, "end"),
        ]
        for (mood, x, y, anchor) in corners {
            let share = moodMap.quadrants.first { $0.mood == mood.rawValue }?.share ?? 0
            let isTop = y < top + plot / 2
            svg += SVGChart.text(mood.rawValue, x: x, y: isTop ? y : y - 14, anchor: anchor, cssClass: "quadrant")
            svg += SVGChart.text(
                ReportFormatting.percent(share),
                x: x,
                y: isTop ? y + 14 : y,
                anchor: anchor,
                cssClass: "quadrant"
            )
        }
        for (tick, label) in [(0.0, "0"), (0.5, "0.5"), (1.0, "1")] {
            svg += SVGChart.text(label, x: left + plot * tick, y: top + plot + 14, cssClass: "tick")
            svg += SVGChart.text(label, x: left - 4, y: top + plot * (1 - tick) + 4, anchor: "end", cssClass: "tick")
        }
        svg += SVGChart.text("valence →", x: left + plot / 2, y: top + plot + 30, cssClass: "axis-title")
        svg += SVGChart.text("energy →", x: 14, y: top + plot / 2, cssClass: "axis-title", rotate: true)
        return svg + "</svg>"
    }

    private func vibesSection(noVibesHint: String?) -> String {
        guard let section = vibes else {
            let text = ([MoodReport.noVibesText] + (noVibesHint.map { [$0] } ?? [])).joined(separator: " ")
            return "<section id=\"vibes\"><h2>Vibes</h2><p class=\"note\">\(SVGChart.escape(text))</p></section>"
        }
        var html = "<section id=\"vibes\"><h2>Vibes of run \(section.runID)</h2>"
        html +=
            "<p>\(section.vibes.count) vibes over \(ReportFormatting.count(section.tracks)) tracks, k-means on \(SVGChart.escape(section.scaling)) "
            + "\(SVGChart.escape(section.features.joined(separator: ", "))). Bars show how far each vibe's mean lies from the library mean.</p>"
        if let sentence = section.scopeSentence { html += "<p class=\"note\">\(SVGChart.escape(sentence))</p>" }
        html += "<div class=\"cards\">"
        for (index, vibe) in section.vibes.enumerated() {
            let listened = vibe.listenedShare.map { ", " + ReportFormatting.percent($0) + " of listening" } ?? ""
            html +=
                "<article class=\"card\"><h3><span class=\"swatch g\(index % 10)\"></span>\(SVGChart.escape(vibe.name))</h3>"
            html +=
                "<p class=\"meta\">\(SVGChart.escape(vibe.mood.rawValue)) · \(ReportFormatting.count(vibe.size, "track")), \(ReportFormatting.percent(vibe.share)) of \(section.whole)\(listened)</p>"
            let profile = vibe.profile.filter { $0.feature != "time_signature" }
            html += SVGChart.diverging(
                id: "vibe-\(vibe.cluster)-profile",
                title: "Profile of \(vibe.name)",
                description: "Feature means of \(vibe.name) in library standard deviations: "
                    + profile.map { "\($0.feature) \(ReportFormatting.sigma($0.zScore))" }.joined(separator: ", ")
                    + ".",
                labels: profile.map(\.feature),
                values: profile.map(\.zScore),
                valueText: ReportFormatting.sigma,
                barClass: { $0 >= 0 ? "above" : "below" }
            )
            html += dataTable(
                ["feature", "mean", "z-score"],
                profile.map {
                    [
                        $0.feature, ReportFormatting.number($0.value, digits: 3),
                        ReportFormatting.number($0.zScore, digits: 2),
                    ]
                }
            )
            if !vibe.topArtists.isEmpty {
                html +=
                    "<p><strong>Top artists:</strong> "
                    + SVGChart.escape(vibe.topArtists.map { "\($0.artist) (\($0.tracks))" }.joined(separator: ", "))
                    + "</p>"
            }
            if let genres = vibe.topGenres {
                html +=
                    "<p><strong>Top genres:</strong> "
                    + SVGChart.escape(genres.map { "\($0.genre) (\($0.tracks))" }.joined(separator: ", ")) + "</p>"
            }
            if !vibe.representatives.isEmpty {
                html +=
                    "<p><strong>Sounds like:</strong></p><ul>"
                    + vibe.representatives.map { "<li>\(SVGChart.escape(ReportFormatting.label($0)))</li>" }.joined()
                    + "</ul>"
            }
            html += "</article>"
        }
        html += "</div>"
        if let listening, !listening.vibes.isEmpty {
            html += figure(
                libraryVersusListeningChart(listening.vibes),
                caption: "Share of \(section.whole) in each vibe against share of the time listened (skips apart).",
                table: dataTable(
                    ["vibe", "library", "listening", "time"],
                    listening.vibes.map {
                        [
                            $0.name, ReportFormatting.percent($0.libraryShare),
                            ReportFormatting.percent($0.listenedShare), ReportFormatting.duration(ms: $0.msPlayed),
                        ]
                    }
                ),
                wide: true
            )
        }
        return html + "</section>"
    }

    private func libraryVersusListeningChart(_ vibes: [VibeListening]) -> String {
        let width = 640
        let rowHeight = 30.0
        let left = 170.0
        let plotWidth = Double(width) - left - 60
        let height = Int(rowHeight * Double(vibes.count) + 40)
        let peak = Swift.max(vibes.map { Swift.max($0.libraryShare, $0.listenedShare) }.max() ?? 0, 1e-9)
        var svg = SVGChart.open(
            id: "vibes-listened",
            width: width,
            height: height,
            title: "Vibes held versus vibes listened to",
            description: vibes.map {
                "\($0.name): \(ReportFormatting.percent($0.libraryShare)) of the library, \(ReportFormatting.percent($0.listenedShare)) of listening"
            }
            .joined(separator: "; ") + "."
        )
        for (index, vibe) in vibes.enumerated() {
            let y = rowHeight * Double(index) + 4
            svg += SVGChart.text(vibe.name, x: left - 8, y: y + 16, anchor: "end", cssClass: "tick")
            for (offset, (kind, share)) in [("library", vibe.libraryShare), ("listening", vibe.listenedShare)]
                .enumerated()
            {
                let length = plotWidth * share / peak
                svg +=
                    "<rect class=\"mark \(kind == "library" ? "g\(index % 10) faint" : "g\(index % 10)")\" x=\"\(left)\" y=\"\(SVGChart.coordinate(y + Double(offset) * 12))\" "
                    + "width=\"\(SVGChart.coordinate(length))\" height=\"11\" data-label=\"\(SVGChart.escape(vibe.name)) \(kind)\" data-value=\"\(SVGChart.dataValue(share))\">"
                    + "<title>\(SVGChart.escape(vibe.name)): \(ReportFormatting.percent(share)) of \(kind == "library" ? "the library" : "listening")</title></rect>"
                svg += SVGChart.text(
                    ReportFormatting.percent(share),
                    x: left + length + 4,
                    y: y + Double(offset) * 12 + 10,
                    anchor: "start",
                    cssClass: "tick"
                )
            }
        }
        let legendY = Double(height) - 10
        svg +=
            "<rect class=\"g0 faint\" x=\"\(left)\" y=\"\(SVGChart.coordinate(legendY - 9))\" width=\"12\" height=\"10\"/>"
        svg += SVGChart.text("share of library (pale)", x: left + 16, y: legendY, anchor: "start", cssClass: "tick")
        svg +=
            "<rect class=\"g0\" x=\"\(left + 180)\" y=\"\(SVGChart.coordinate(legendY - 9))\" width=\"12\" height=\"10\"/>"
        svg += SVGChart.text("share of listening (solid)", x: left + 196, y: legendY, anchor: "start", cssClass: "tick")
        return svg + "</svg>"
    }

    private func mapSection() -> String {
        guard let map else { return "" }
        let ratios = map.explainedVarianceRatios
        let first = ratios.first ?? 0
        let second = ratios.count > 1 ? ratios[1] : 0
        var html = "<section id=\"map\"><h2>Map of the library</h2>"
        html +=
            "<p>A principal component analysis (\(SVGChart.escape(map.basis))) flattens the feature space onto the two directions along which the library varies most; "
            + "together they explain \(ReportFormatting.percent(first + second)) of the variance. Nearby tracks sound alike.</p>"
        html += figure(
            scatterChart(map, first: first, second: second),
            caption:
                "\(ReportFormatting.count(map.trackCount)) tracks\(map.points.count < map.trackCount ? " (\(ReportFormatting.count(map.points.count)) drawn, an even sample)" : ""), coloured by \(vibes == nil ? "mood quadrant" : "vibe").",
            table: dataTable(
                ["column", "PC1 loading", "PC2 loading"],
                map.loadings.map {
                    [$0.column, ReportFormatting.number($0.pc1, digits: 3), ReportFormatting.number($0.pc2, digits: 3)]
                },
                summary: "Loadings"
            )
                + dataTable(
                    ["component", "explained variance"],
                    ratios.enumerated().map { ["PC\($0 + 1)", ReportFormatting.percent($1)] },
                    summary: "Explained variance"
                ),
            wide: true
        )
        return html + "</section>"
    }

    private func scatterChart(_ map: LibraryMap, first: Double, second: Double) -> String {
        let width = 640.0
        let left = 40.0
        let top = 12.0
        let plotWidth = width - left - 12
        let plotHeight = 338.0
        var counts = [Int](repeating: 0, count: map.groups.count)
        for point in map.points where point.group < counts.count { counts[point.group] += 1 }
        // The legend wraps onto as many rows as its entries need, and the chart grows to hold them.
        var legend: [(x: Double, row: Int, label: String, index: Int)] = []
        var legendX = left
        var legendRow = 0
        for (index, name) in map.groups.enumerated() {
            let label = "\(name) (\(counts[index]))"
            let labelWidth = Double(label.count) * 6.6 + 24
            if legendX + labelWidth > width - 8 && legendX > left {
                legendX = left
                legendRow += 1
            }
            legend.append((legendX, legendRow, label, index))
            legendX += labelWidth
        }
        let height = top + plotHeight + 40 + Double(legendRow) * 18 + 12
        let xs = map.points.map(\.x)
        let ys = map.points.map(\.y)
        // 5% of padding keeps the extreme points off the frame.
        let padX = ((xs.max() ?? 1) - (xs.min() ?? -1)) * 0.05
        let padY = ((ys.max() ?? 1) - (ys.min() ?? -1)) * 0.05
        let minX = (xs.min() ?? -1) - padX
        let maxX = (xs.max() ?? 1) + padX
        let minY = (ys.min() ?? -1) - padY
        let maxY = (ys.max() ?? 1) + padY
        func px(_ x: Double) -> Double { left + (maxX > minX ? (x - minX) / (maxX - minX) : 0.5) * plotWidth }
        func py(_ y: Double) -> Double { top + (maxY > minY ? (maxY - y) / (maxY - minY) : 0.5) * plotHeight }
        var svg = SVGChart.open(
            id: "library-map",
            width: Int(width),
            height: Int(height),
            title: "Library map by principal components",
            description:
                "Scatter of \(map.points.count) tracks on PC1 (\(ReportFormatting.percent(first)) of variance) and PC2 (\(ReportFormatting.percent(second))). Groups: "
                + zip(map.groups, counts).map { "\($0) \($1) points" }.joined(separator: ", ") + "."
        )
        svg +=
            "<rect class=\"plot\" x=\"\(left)\" y=\"\(top)\" width=\"\(SVGChart.coordinate(plotWidth))\" height=\"\(SVGChart.coordinate(plotHeight))\"/>"
        if minX < 0 && maxX > 0 {
            svg +=
                "<line class=\"grid\" x1=\"\(SVGChart.coordinate(px(0)))\" x2=\"\(SVGChart.coordinate(px(0)))\" y1=\"\(top)\" y2=\"\(SVGChart.coordinate(top + plotHeight))\"/>"
        }
        if minY < 0 && maxY > 0 {
            svg +=
                "<line class=\"grid\" x1=\"\(left)\" x2=\"\(SVGChart.coordinate(left + plotWidth))\" y1=\"\(SVGChart.coordinate(py(0)))\" y2=\"\(SVGChart.coordinate(py(0)))\"/>"
        }
        let moodClasses = vibes == nil
        for point in map.points {
            let groupClass =
                moodClasses
                ? HTMLPage.moodClass(Mood(rawValue: map.groups[point.group]) ?? .calm) : "g\(point.group % 10)"
            svg +=
                "<circle class=\"mark point \(groupClass)\" cx=\"\(SVGChart.coordinate(px(point.x)))\" cy=\"\(SVGChart.coordinate(py(point.y)))\" r=\"3\" "
                + "data-x=\"\(SVGChart.dataValue(point.x))\" data-y=\"\(SVGChart.dataValue(point.y))\" data-group=\"\(point.group)\"/>"
        }
        svg += SVGChart.text(
            "PC1 (\(ReportFormatting.percent(first)) of variance)",
            x: left + plotWidth / 2,
            y: top + plotHeight + 18,
            cssClass: "axis-title"
        )
        svg += SVGChart.text(
            "PC2 (\(ReportFormatting.percent(second)))",
            x: 14,
            y: top + plotHeight / 2,
            cssClass: "axis-title",
            rotate: true
        )
        for entry in legend {
            let y = top + plotHeight + 40 + Double(entry.row) * 18
            let name = map.groups[entry.index]
            let groupClass = moodClasses ? HTMLPage.moodClass(Mood(rawValue: name) ?? .calm) : "g\(entry.index % 10)"
            svg +=
                "<circle class=\"legend \(groupClass)\" cx=\"\(SVGChart.coordinate(entry.x + 5))\" cy=\"\(SVGChart.coordinate(y - 4))\" r=\"5\"/>"
            svg += SVGChart.text(entry.label, x: entry.x + 14, y: y, anchor: "start", cssClass: "tick legend-label")
        }
        return svg + "</svg>"
    }

    private func listeningSection() -> String {
        guard let listening else {
            return
                "<section id=\"listening\"><h2>Listening</h2><p class=\"note\">No listening history: import StreamingHistory*.json or Streaming_History_Audio_*.json to see mood over time.</p></section>"
        }
        var html = "<section id=\"listening\"><h2>Mood over time</h2>"
        html +=
            "<p>\(ReportFormatting.count(listening.plays)) plays, \(ReportFormatting.duration(ms: listening.msPlayed)), from \(SVGChart.escape(listening.firstPlay)) to \(SVGChart.escape(listening.lastPlay)). "
            + "Bars are time played; lines are the valence and energy of what was played, weighted by time and leaving skips out.</p>"
        html += "<ul class=\"facts\">"
        if listening.skipsAreRecorded {
            let missing = listening.plays - listening.playsWithSkipData
            html +=
                "<li><strong>\(ReportFormatting.count(listening.skips))</strong> \(listening.skips == 1 ? "skip" : "skips") (\(ReportFormatting.duration(ms: listening.skippedMS))), counted apart"
                + (missing > 0 ? "; \(ReportFormatting.count(missing, "play")) without skip data" : "") + "</li>"
        } else {
            html +=
                "<li class=\"skips-not-recorded\">\(ReportFormatting.skipsNotRecorded): this listening history does not say which plays were skipped</li>"
        }
        html +=
            "<li><strong>\(ReportFormatting.count(listening.playsWithFeatures))</strong> \(listening.playsWithFeatures == 1 ? "play" : "plays") (\(ReportFormatting.duration(ms: listening.msWithFeatures))) on the mood map</li>"
        html +=
            "<li><strong>\(ReportFormatting.count(listening.playsWithoutFeatures))</strong> \(listening.playsWithoutFeatures == 1 ? "play" : "plays") (\(ReportFormatting.duration(ms: listening.msWithoutFeatures))) without features; "
            + "\(ReportFormatting.count(listening.unmatchedPlays)) match no track in the library</li>"
        if let soft = listening.softMoods {
            html +=
                "<li>Listening mood: valence \(ReportFormatting.number(listening.valence, digits: 2)), energy \(ReportFormatting.number(listening.energy, digits: 2)); "
                + "happy \(ReportFormatting.number(soft.happy, digits: 2)) (library \(ReportFormatting.number(moodMap.softMoods.happy, digits: 2))), "
                + "sad \(ReportFormatting.number(soft.sad, digits: 2)) (library \(ReportFormatting.number(moodMap.softMoods.sad, digits: 2)))</li>"
        }
        html += "</ul>"
        func chart(
            _ id: String,
            _ title: String,
            _ buckets: [TimeBucket],
            xTitle: String,
            stride: Int,
            wide: Bool
        )
            -> String
        {
            let hours = buckets.map { Double($0.msPlayed) / 3_600_000 }
            let svg = SVGChart.bars(
                id: id,
                title: title,
                description:
                    "\(title): hours played per \(xTitle) from \(buckets.first?.label ?? "") to \(buckets.last?.label ?? ""), with weighted valence and energy.",
                labels: buckets.map(\.label),
                values: hours,
                valueText: { ReportFormatting.number($0, digits: $0 < 10 ? 1 : 0) + " h" },
                xTitle: xTitle,
                yTitle: "hours played",
                series: [
                    SVGChart.Series(name: "valence", values: buckets.map(\.valence), cssClass: "valence"),
                    SVGChart.Series(name: "energy", values: buckets.map(\.energy), cssClass: "energy"),
                ],
                width: wide ? 640 : 320,
                height: 210,
                labelStride: stride
            )
            let table = dataTable(
                [xTitle, "plays", "time", "skips", "skipped time", "valence", "energy"],
                buckets.map {
                    [
                        $0.label, String($0.plays), ReportFormatting.duration(ms: $0.msPlayed),
                        $0.skipsAreRecorded ? String($0.skips) : "–",
                        $0.skipsAreRecorded ? ReportFormatting.duration(ms: $0.skippedMS) : "–",
                        ReportFormatting.number($0.valence, digits: 3),
                        ReportFormatting.number($0.energy, digits: 3),
                    ]
                }
            )
            return figure(
                svg,
                caption:
                    "\(title): bars are hours played; valence (solid line) and energy (dashed) on the right axis, 0–1.",
                table: table,
                wide: wide
            )
        }
        html += chart(
            "by-month",
            "Listening by month",
            listening.byMonth,
            xTitle: "month",
            stride: Swift.max(1, listening.byMonth.count / 8),
            wide: true
        )
        html += "<div class=\"pair\">"
        html += chart(
            "by-weekday",
            "Listening by weekday",
            listening.byWeekday,
            xTitle: "weekday",
            stride: 1,
            wide: false
        )
        html += chart("by-hour", "Listening by hour of day", listening.byHour, xTitle: "hour", stride: 3, wide: false)
        return html + "</div></section>"
    }

    private func featuresSection() -> String {
        var html = "<section id=\"features\"><h2>Feature distributions</h2><div class=\"multiples\">"
        for distribution in features where distribution.count > 0 {
            let labels: [String] = distribution.bins.map { bin in
                switch distribution.feature {
                case "key": return AudioFeature.pitchClassName(of: bin.lower + 0.5)  // edges are k − 0.5
                case "mode": return bin.lower < 0 ? "minor" : "major"
                default: return ReportFormatting.number(bin.lower, digits: distribution.unit == "0–1" ? 1 : 0)
                }
            }
            let digits = distribution.unit == "0–1" ? 2 : 1
            let svg = SVGChart.bars(
                id: "histogram-\(distribution.feature)",
                title: "Distribution of \(distribution.feature)",
                description:
                    "Histogram of \(distribution.feature) over \(distribution.count) tracks (\(distribution.unit)); median \(ReportFormatting.number(distribution.median, digits: digits)), mean \(ReportFormatting.number(distribution.mean, digits: digits)).",
                labels: labels,
                values: distribution.bins.map { Double($0.count) },
                valueText: { ReportFormatting.count(Int($0.rounded())) },
                xTitle: "\(distribution.feature) (\(distribution.unit))",
                yTitle: "tracks",
                width: 260,
                height: 170,
                labelStride: distribution.bins.count > 6 ? 2 : 1,
                labelsAtEdges: distribution.feature != "key" && distribution.feature != "mode"
            )
            let summary: String
            switch distribution.feature {
            case "key":
                let commonest = distribution.bins.indices.max {
                    distribution.bins[$0].count < distribution.bins[$1].count
                        || (distribution.bins[$0].count == distribution.bins[$1].count && $0 > $1)
                }
                summary = "Most common key: \(commonest.map { labels[$0] } ?? "–")"
            case "mode": summary = "Major: \(ReportFormatting.percent(distribution.mean ?? 0))"
            default:
                summary =
                    "Median \(ReportFormatting.number(distribution.median, digits: digits)), mean \(ReportFormatting.number(distribution.mean, digits: digits))"
            }
            let caption =
                summary
                + (distribution.missing > 0
                    ? "; \(ReportFormatting.count(distribution.missing, "track")) without a value." : ".")
            html += figure(
                svg,
                caption: caption,
                table: dataTable(
                    ["from", "to", "tracks"],
                    distribution.bins.map {
                        [
                            ReportFormatting.number($0.lower, digits: 2), ReportFormatting.number($0.upper, digits: 2),
                            String($0.count),
                        ]
                    }
                )
            )
        }
        return html + "</div></section>"
    }

    private func outliersSection() -> String {
        guard !outliers.tracks.isEmpty else { return "" }
        var html =
            "<section id=\"outliers\"><h2>Outliers</h2><p>The tracks least like any vibe (\(SVGChart.escape(outliers.basis)), in scaled units).</p>"
        html +=
            "<div class=\"scroll\"><table><thead><tr><th scope=\"col\">#</th><th scope=\"col\">Track</th><th scope=\"col\">Distance</th><th scope=\"col\">Vibe</th><th scope=\"col\">Stands out</th></tr></thead><tbody>"
        for (index, outlier) in outliers.tracks.enumerated() {
            html +=
                "<tr><td>\(index + 1)</td><td>\(SVGChart.escape(ReportFormatting.label(outlier.track)))</td><td>\(ReportFormatting.number(outlier.distance, digits: 2))</td>"
                + "<td>\(SVGChart.escape(outlier.vibe ?? "–"))</td><td>"
                + SVGChart.escape(
                    outlier.standsOut.map { "\($0.feature) \(ReportFormatting.sigma($0.zScore))" }.joined(
                        separator: ", "
                    )
                ) + "</td></tr>"
        }
        return html + "</tbody></table></div></section>"
    }
}
