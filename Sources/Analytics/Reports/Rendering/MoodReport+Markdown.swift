import Features
import Foundation

extension MoodReport {
    /// The report as GitHub-flavoured Markdown: tables, with sparklines in code spans.
    ///
    /// - Parameter noVibesHint: What the reader can do when the report has no vibes, in the words
    ///   of the application showing it; appended to ``noVibesText``.
    public func renderedMarkdown(noVibesHint: String? = nil) -> String {
        var lines: [String] = []
        func cell(_ text: String) -> String { MoodReport.markdownCell(text) }
        func row(_ cells: [String]) -> String { MoodReport.markdownRow(cells) }
        lines.append("# Mood report")
        lines.append("")
        lines.append(
            "\(ReportFormatting.count(overview.tracks)) tracks (\(ReportFormatting.count(overview.tracksWithFeatures)) with features), "
                + "\(ReportFormatting.count(overview.artists)) artists, \(ReportFormatting.count(overview.playlists)) playlists, "
                + "\(ReportFormatting.count(overview.savedTracks)) saved tracks and \(ReportFormatting.count(overview.plays)) plays. "
                + "Times are in \(timeZone)."
                + (overview.scopeSentence.map { " " + cell($0) } ?? "")
        )
        if !overview.sources.isEmpty {
            lines.append("")
            lines.append("| Source | Tracks | Preferred |")
            lines.append("|---|---:|---:|")
            for source in overview.sources {
                lines.append(row([source.source, "\(source.tracks)", "\(source.preferred)"]))
            }
        }

        lines.append(contentsOf: [
            "", "## Features", "", "| Feature | Median | Mean | Missing | Histogram | Range |",
            "|---|---:|---:|---:|---|---|",
        ])
        for distribution in features where distribution.count > 0 {
            let digits = distribution.unit == "0–1" ? 2 : 1
            let counts = distribution.bins.map { Double($0.count) }
            lines.append(
                row([
                    distribution.feature, ReportFormatting.number(distribution.median, digits: digits),
                    ReportFormatting.number(distribution.mean, digits: digits), "\(distribution.missing)",
                    "`\(ReportFormatting.sparkline(counts, range: 0...Swift.max(1, counts.max() ?? 1)))`",
                    ReportFormatting.rangeLabel(distribution),
                ])
            )
        }

        lines.append(contentsOf: [
            "", "## Mood map", "", "\(moodMap.tracks) tracks with valence and energy, split at 0.5 on each axis.", "",
        ])
        lines.append("| Quadrant | Tracks | Share |")
        lines.append("|---|---:|---:|")
        for quadrant in moodMap.quadrants {
            lines.append(row([quadrant.mood, "\(quadrant.tracks)", ReportFormatting.percent(quadrant.share)]))
        }
        let soft = moodMap.softMoods
        lines.append("")
        lines.append(
            "Soft moods (Organize Your Music): happy \(ReportFormatting.number(soft.happy, digits: 2)), sad \(ReportFormatting.number(soft.sad, digits: 2)), "
                + "angry \(ReportFormatting.number(soft.angry, digits: 2)), chill \(ReportFormatting.number(soft.chill, digits: 2))."
        )

        if let section = vibes {
            lines.append(contentsOf: ["", "## Vibes of run \(section.runID)", ""])
            lines.append(
                "\(section.vibes.count) vibes over \(section.tracks) tracks; \(section.scaling) over \(section.features.joined(separator: ", "))."
                    + (section.scopeSentence.map { " " + cell($0) } ?? "")
            )
            lines.append("")
            lines.append(
                "| # | Vibe | Mood | Tracks | \(section.playlist == nil ? "Library" : "Playlist") | Listening | Stands out | Top artists | Top genres |"
            )
            lines.append("|---:|---|---|---:|---:|---:|---|---|---|")
            for (index, vibe) in section.vibes.enumerated() {
                let standsOut = vibe.profile.sorted { abs($0.zScore) > abs($1.zScore) }.prefix(3)
                    .map { "\($0.feature) \(ReportFormatting.sigma($0.zScore))" }.joined(separator: ", ")
                lines.append(
                    row([
                        "\(index + 1)", vibe.name, vibe.mood.rawValue, "\(vibe.size)",
                        ReportFormatting.percent(vibe.share),
                        vibe.listenedShare.map(ReportFormatting.percent) ?? "–", standsOut,
                        vibe.topArtists.map { "\($0.artist) (\($0.tracks))" }.joined(separator: ", "),
                        (vibe.topGenres ?? []).map { "\($0.genre) (\($0.tracks))" }.joined(separator: ", "),
                    ])
                )
            }
            for vibe in section.vibes where !vibe.representatives.isEmpty {
                lines.append("")
                lines.append(
                    "**\(vibe.name)**: "
                        + vibe.representatives.map { cell(ReportFormatting.label($0)) }.joined(separator: "; ")
                )
            }
        } else {
            lines.append(contentsOf: [
                "", "## Vibes", "",
                ([MoodReport.noVibesText] + (noVibesHint.map { [$0] } ?? [])).joined(separator: " "),
            ])
        }

        if let map {
            let ratios = map.explainedVarianceRatios
            lines.append(contentsOf: ["", "## Library map", ""])
            lines.append(
                "PCA of \(map.trackCount) tracks (\(map.basis)): PC1 explains \(ReportFormatting.percent(ratios.first ?? 0)), "
                    + "PC2 \(ReportFormatting.percent(ratios.count > 1 ? ratios[1] : 0)) of the variance."
            )
            lines.append("")
            lines.append("| Column | PC1 | PC2 |")
            lines.append("|---|---:|---:|")
            for loading in map.loadings {
                lines.append(
                    row([
                        loading.column, ReportFormatting.number(loading.pc1, digits: 2),
                        ReportFormatting.number(loading.pc2, digits: 2),
                    ])
                )
            }
        }

        lines.append(contentsOf: ["", "## Listening", ""])
        if let listening {
            lines.append(
                "\(listening.plays) plays (\(ReportFormatting.duration(ms: listening.msPlayed))) from \(listening.firstPlay) to \(listening.lastPlay). "
                    + "\(ReportFormatting.skipsSentence(of: listening)). "
                    + "On the mood map: \(listening.playsWithFeatures) plays. Without features: \(listening.playsWithoutFeatures) plays "
                    + "(\(ReportFormatting.duration(ms: listening.msWithoutFeatures))); \(listening.unmatchedPlays) plays match no track."
            )
            func table(_ title: String, _ buckets: [TimeBucket]) {
                lines.append(contentsOf: [
                    "", "### \(title)", "",
                    "| \(title.dropFirst(3).capitalized) | Plays | Time | Skips | Valence | Energy |",
                    "|---|---:|---:|---:|---:|---:|",
                ])
                for bucket in buckets where bucket.plays > 0 {
                    lines.append(
                        row([
                            bucket.label, "\(bucket.plays)", ReportFormatting.duration(ms: bucket.msPlayed),
                            bucket.skipsAreRecorded ? String(bucket.skips) : "–",
                            ReportFormatting.number(bucket.valence, digits: 2),
                            ReportFormatting.number(bucket.energy, digits: 2),
                        ])
                    )
                }
            }
            table("By month", listening.byMonth)
            table("By weekday", listening.byWeekday)
            table("By hour", listening.byHour)
            if !listening.vibes.isEmpty {
                lines.append(contentsOf: [
                    "", "### Vibes listened to", "", "| Vibe | Listening | Library | Time |", "|---|---:|---:|---:|",
                ])
                for vibe in listening.vibes {
                    lines.append(
                        row([
                            vibe.name, ReportFormatting.percent(vibe.listenedShare),
                            ReportFormatting.percent(vibe.libraryShare), ReportFormatting.duration(ms: vibe.msPlayed),
                        ])
                    )
                }
            }
        } else {
            lines.append(
                "No listening history: import StreamingHistory*.json or Streaming_History_Audio_*.json to see mood over time."
            )
        }

        if !outliers.tracks.isEmpty {
            lines.append(contentsOf: ["", "## Outliers", "", "The tracks least like any vibe (\(outliers.basis)).", ""])
            lines.append("| # | Track | Distance | Vibe | Stands out |")
            lines.append("|---:|---|---:|---|---|")
            for (index, outlier) in outliers.tracks.enumerated() {
                lines.append(
                    row([
                        "\(index + 1)", ReportFormatting.label(outlier.track),
                        ReportFormatting.number(outlier.distance, digits: 2), outlier.vibe ?? "–",
                        outlier.standsOut.map { "\($0.feature) \(ReportFormatting.sigma($0.zScore))" }.joined(
                            separator: ", "
                        ),
                    ])
                )
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A table cell's text: on one line, with every `|` escaped so it cannot open a cell, and
    /// backslashes doubled so none escapes the pipe after it.
    static func markdownCell(_ text: String) -> String {
        var cell = ""
        for character in text {
            switch character {
            case "|": cell += "\\|"
            case "\\": cell += "\\\\"
            case "\n", "\r", "\r\n", "\t": cell += " "
            default: cell.append(character)
            }
        }
        return cell
    }

    /// One table row of escaped cells.
    static func markdownRow(_ cells: [String]) -> String {
        "| " + cells.map(markdownCell).joined(separator: " | ") + " |"
    }
}
