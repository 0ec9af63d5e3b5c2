import Features
import Foundation

extension MoodReport {
    /// How terminal text is decorated.
    public enum TextStyle: Sendable {
        /// No escape codes: for pipes, files and `NO_COLOR`.
        case plain
        /// ANSI colours and bold headings, for a terminal.
        case color
    }

    /// The report as terminal text with bar and sparkline charts.
    ///
    /// - Parameters:
    ///   - style: ``TextStyle/color`` only when writing to a terminal and `NO_COLOR` is unset.
    ///   - noVibesHint: What the reader can do when the report has no vibes, in the words of the
    ///     application showing it; appended to ``noVibesText``.
    public func renderedText(style: TextStyle = .plain, noVibesHint: String? = nil) -> String {
        var writer = TextWriter(style: style)
        writer.heading("Mood report")
        writer.line(
            "\(ReportFormatting.count(overview.tracks)) tracks (\(ReportFormatting.count(overview.tracksWithFeatures)) with features), "
                + "\(ReportFormatting.count(overview.artists)) artists, \(ReportFormatting.count(overview.playlists)) playlists, "
                + "\(ReportFormatting.count(overview.savedTracks)) saved, \(ReportFormatting.count(overview.plays)) plays; "
                + "times in \(timeZone)."
        )
        if let sentence = overview.scopeSentence { writer.line(sentence) }
        if !overview.sources.isEmpty {
            writer.line(
                "Sources: "
                    + overview.sources.map {
                        "\($0.source) \(ReportFormatting.count($0.tracks)) (preferred \(ReportFormatting.count($0.preferred)))"
                    }
                    .joined(separator: ", ") + "."
            )
        }
        writeFeatures(&writer)
        writeMoodMap(&writer)
        writeVibes(&writer, noVibesHint: noVibesHint)
        writeMap(&writer)
        writeListening(&writer)
        writeOutliers(&writer)
        return writer.text
    }

    private func writeFeatures(_ writer: inout TextWriter) {
        writer.heading("Features")
        writer.line(writer.dim("  feature           median      mean  histogram     range"))
        for distribution in features where distribution.count > 0 {
            let digits = distribution.unit == "0–1" ? 2 : 1
            let counts = distribution.bins.map { Double($0.count) }
            let peak = counts.max() ?? 0
            writer.line(
                "  " + ReportFormatting.pad(distribution.feature, 16)
                    + ReportFormatting.pad(ReportFormatting.number(distribution.median, digits: digits), 8, right: true)
                    + ReportFormatting.pad(ReportFormatting.number(distribution.mean, digits: digits), 10, right: true)
                    + "  "
                    + writer.accent(
                        ReportFormatting.pad(ReportFormatting.sparkline(counts, range: 0...Swift.max(peak, 1)), 12)
                    )
                    + "  " + ReportFormatting.rangeLabel(distribution)
                    + (distribution.missing > 0 ? writer.dim(" (\(distribution.missing) missing)") : "")
            )
        }
    }

    private func writeMoodMap(_ writer: inout TextWriter) {
        writer.heading("Mood map")
        writer.line(
            "\(ReportFormatting.count(moodMap.tracks)) tracks with valence and energy, split at 0.5 on each axis."
        )
        for quadrant in moodMap.quadrants {
            writer.line(
                "  " + ReportFormatting.pad(quadrant.mood, 16)
                    + ReportFormatting.pad(ReportFormatting.percent(quadrant.share), 7, right: true) + "  "
                    + ReportFormatting.pad(ReportFormatting.count(quadrant.tracks), 6, right: true) + "  "
                    + writer.mood(quadrant.mood, ReportFormatting.bar(quadrant.share, width: 30))
            )
        }
        let soft = moodMap.softMoods
        writer.line(
            "Soft moods (Organize Your Music): happy \(ReportFormatting.number(soft.happy, digits: 2)), "
                + "sad \(ReportFormatting.number(soft.sad, digits: 2)), angry \(ReportFormatting.number(soft.angry, digits: 2)), "
                + "chill \(ReportFormatting.number(soft.chill, digits: 2))."
        )
    }

    private func writeVibes(_ writer: inout TextWriter, noVibesHint: String?) {
        guard let section = vibes else {
            writer.heading("Vibes")
            writer.line(([MoodReport.noVibesText] + (noVibesHint.map { [$0] } ?? [])).joined(separator: " "))
            return
        }
        writer.heading("Vibes of run \(section.runID)")
        writer.line(
            "\(section.vibes.count) vibes over \(ReportFormatting.count(section.tracks)) tracks; "
                + "\(section.scaling) over \(section.features.joined(separator: ", "))."
        )
        if let sentence = section.scopeSentence { writer.line(sentence) }
        for (index, vibe) in section.vibes.enumerated() {
            writer.line("")
            writer.line(
                "  " + writer.bold("\(index + 1). \(vibe.name)")
                    + "  \(vibe.mood.rawValue), \(ReportFormatting.count(vibe.size, "track")), "
                    + ReportFormatting.percent(vibe.share) + " of \(section.whole)"
                    + (vibe.listenedShare.map { ", " + ReportFormatting.percent($0) + " of listening" } ?? "")
            )
            let strongest = vibe.profile.sorted { abs($0.zScore) > abs($1.zScore) }.prefix(4)
            for value in strongest {
                let bar = ReportFormatting.bar(Swift.min(abs(value.zScore), 2) / 2, width: 10)
                writer.line(
                    "     " + ReportFormatting.pad(value.feature, 16)
                        + ReportFormatting.pad(ReportFormatting.sigma(value.zScore), 6, right: true) + "  "
                        + (value.zScore >= 0 ? writer.positive(bar) : writer.negative(bar))
                )
            }
            if !vibe.topArtists.isEmpty {
                writer.line(
                    "     Top artists: " + vibe.topArtists.map { "\($0.artist) (\($0.tracks))" }.joined(separator: ", ")
                )
            }
            if let genres = vibe.topGenres {
                writer.line("     Top genres: " + genres.map { "\($0.genre) (\($0.tracks))" }.joined(separator: ", "))
            }
            for track in vibe.representatives { writer.line("     · " + ReportFormatting.label(track)) }
        }
    }

    private func writeMap(_ writer: inout TextWriter) {
        guard let map else { return }
        writer.heading("Library map")
        let ratios = map.explainedVarianceRatios
        writer.line(
            "PCA of \(ReportFormatting.count(map.trackCount)) tracks (\(map.basis)): PC1 explains "
                + ReportFormatting.percent(ratios.first ?? 0) + ", PC2 "
                + ReportFormatting.percent(ratios.count > 1 ? ratios[1] : 0) + " of the variance."
        )
        for (name, keyPath) in [("PC1", \LibraryMap.Loading.pc1), ("PC2", \LibraryMap.Loading.pc2)] {
            let top = map.loadings.sorted { abs($0[keyPath: keyPath]) > abs($1[keyPath: keyPath]) }.prefix(3)
            writer.line(
                "  \(name) loads "
                    + top.map {
                        "\($0.column) \($0[keyPath: keyPath] >= 0 ? "+" : "−")\(String(format: "%.2f", abs($0[keyPath: keyPath])))"
                    }
                    .joined(separator: ", ")
            )
        }
        // A character scatter: each cell shows the group (1-based) most of its points belong to.
        let width = 48
        let height = 12
        let xs = map.points.map(\.x)
        let ys = map.points.map(\.y)
        guard let minX = xs.min(), let maxX = xs.max(), let minY = ys.min(), let maxY = ys.max() else { return }
        var cells = [[Int: Int]](repeating: [:], count: width * height)
        for point in map.points {
            let column = maxX > minX ? Int((point.x - minX) / (maxX - minX) * Double(width - 1)) : width / 2
            let row = maxY > minY ? Int((maxY - point.y) / (maxY - minY) * Double(height - 1)) : height / 2
            cells[row * width + column][point.group, default: 0] += 1
        }
        for row in 0..<height {
            var line = "  │"
            for column in 0..<width {
                if let group = cells[row * width + column].max(by: {
                    $0.value != $1.value ? $0.value < $1.value : $0.key > $1.key
                })?.key {
                    line += writer.group(group, group < 9 ? "\(group + 1)" : "+")
                } else {
                    line += " "
                }
            }
            writer.line(line)
        }
        writer.line("  └" + String(repeating: "─", count: width) + " PC1")
        writer.line(
            "  " + map.groups.enumerated().map { writer.group($0, "\($0 + 1)") + " \($1)" }.joined(separator: "  ")
        )
    }

    private func writeListening(_ writer: inout TextWriter) {
        writer.heading("Listening")
        guard let listening else {
            writer.line(
                "No listening history: import StreamingHistory*.json or Streaming_History_Audio_*.json to see mood over time."
            )
            return
        }
        writer.line(
            "\(ReportFormatting.count(listening.plays)) plays, \(ReportFormatting.duration(ms: listening.msPlayed)), "
                + "\(listening.firstPlay) to \(listening.lastPlay)."
        )
        writer.line(
            "\(ReportFormatting.skipsSentence(of: listening)). "
                + "On the mood map: \(ReportFormatting.count(listening.playsWithFeatures, "play")) (\(ReportFormatting.duration(ms: listening.msWithFeatures))). "
                + "Without features: \(ReportFormatting.count(listening.playsWithoutFeatures, "play")) "
                + "(\(ReportFormatting.duration(ms: listening.msWithoutFeatures))); \(ReportFormatting.count(listening.unmatchedPlays)) plays match no track."
        )
        if let soft = listening.softMoods {
            writer.line(
                "Listening mood: valence \(ReportFormatting.number(listening.valence, digits: 2)), energy \(ReportFormatting.number(listening.energy, digits: 2)); "
                    + "happy \(ReportFormatting.number(soft.happy, digits: 2)), sad \(ReportFormatting.number(soft.sad, digits: 2)), "
                    + "angry \(ReportFormatting.number(soft.angry, digits: 2)), chill \(ReportFormatting.number(soft.chill, digits: 2)) "
                    + "(library: happy \(ReportFormatting.number(moodMap.softMoods.happy, digits: 2)), sad \(ReportFormatting.number(moodMap.softMoods.sad, digits: 2)))."
            )
        }
        func series(_ title: String, _ buckets: [TimeBucket]) {
            writer.line("")
            writer.line(
                "  " + writer.bold(title) + "  "
                    + writer.dim("\(buckets.first?.label ?? "") … \(buckets.last?.label ?? "")")
            )
            let peak = Double(buckets.map(\.msPlayed).max() ?? 0)
            writer.line(
                "    time     "
                    + writer.accent(
                        ReportFormatting.sparkline(buckets.map { Double($0.msPlayed) }, range: 0...Swift.max(peak, 1))
                    )
            )
            writer.line(
                "    valence  "
                    + writer.mood("happy/energetic", ReportFormatting.sparkline(buckets.map(\.valence), range: 0...1))
            )
            writer.line(
                "    energy   "
                    + writer.mood("tense/angry", ReportFormatting.sparkline(buckets.map(\.energy), range: 0...1))
            )
            writer.line(
                "    skips    "
                    + writer.dim(
                        listening.skipsAreRecorded
                            ? ReportFormatting.sparkline(
                                buckets.map { $0.skipsAreRecorded ? Double($0.skips) : nil },
                                range: 0...Double(Swift.max(1, buckets.map(\.skips).max() ?? 1))
                            ) : "not recorded"
                    )
            )
        }
        series("By month", listening.byMonth)
        series("By hour", listening.byHour)
        writer.line("")
        writer.line("  " + writer.bold("By weekday") + writer.dim("  time played, valence, energy"))
        let peak = Double(listening.byWeekday.map(\.msPlayed).max() ?? 1)
        for bucket in listening.byWeekday {
            writer.line(
                "    \(bucket.label)  "
                    + ReportFormatting.pad(ReportFormatting.duration(ms: bucket.msPlayed), 8, right: true) + "  "
                    + writer.accent(
                        ReportFormatting.pad(
                            ReportFormatting.bar(Double(bucket.msPlayed) / Swift.max(peak, 1), width: 20),
                            20
                        )
                    )
                    + "  v \(ReportFormatting.number(bucket.valence, digits: 2))  e \(ReportFormatting.number(bucket.energy, digits: 2))"
                    + (bucket.skips > 0 ? writer.dim("  " + ReportFormatting.count(bucket.skips, "skip")) : "")
            )
        }
        if !listening.vibes.isEmpty {
            writer.line("")
            writer.line(
                "  " + writer.bold("Vibes listened to")
                    + writer.dim("  share of listening vs share of \(vibes?.playlist == nil ? "library" : "playlist")")
            )
            let nameWidth = listening.vibes.map(\.name.count).max() ?? 0
            for vibe in listening.vibes {
                writer.line(
                    "    " + ReportFormatting.pad(vibe.name, nameWidth) + "  "
                        + ReportFormatting.pad(ReportFormatting.percent(vibe.listenedShare), 6, right: true) + " vs "
                        + ReportFormatting.pad(ReportFormatting.percent(vibe.libraryShare), 6, right: true) + "  "
                        + writer.accent(ReportFormatting.pad(ReportFormatting.bar(vibe.listenedShare, width: 20), 20))
                )
            }
        }
    }

    private func writeOutliers(_ writer: inout TextWriter) {
        guard !outliers.tracks.isEmpty else { return }
        writer.heading("Outliers")
        writer.line("The tracks least like any vibe (\(outliers.basis)).")
        for (index, outlier) in outliers.tracks.enumerated() {
            writer.line(
                "  \(index + 1). " + ReportFormatting.label(outlier.track) + "  "
                    + writer.dim(
                        ReportFormatting.number(outlier.distance, digits: 2)
                            + (outlier.vibe.map { " from \($0)" } ?? "") + "; "
                            + outlier.standsOut.map { "\($0.feature) \(ReportFormatting.sigma($0.zScore))" }.joined(
                                separator: ", "
                            )
                    )
            )
        }
    }
}

/// Accumulates lines of terminal text, adding ANSI escapes only in colour style.
struct TextWriter {
    var style: MoodReport.TextStyle
    var text = ""

    mutating func line(_ line: String) { text += line + "\n" }

    mutating func heading(_ title: String) {
        if !text.isEmpty { text += "\n" }
        line(bold(title))
    }

    func wrap(_ text: String, _ code: String) -> String {
        style == .color ? "\u{1B}[\(code)m" + text + "\u{1B}[0m" : text
    }

    func bold(_ text: String) -> String { wrap(text, "1") }
    func dim(_ text: String) -> String { wrap(text, "2") }
    func accent(_ text: String) -> String { wrap(text, "36") }
    func positive(_ text: String) -> String { wrap(text, "32") }
    func negative(_ text: String) -> String { wrap(text, "31") }

    /// Text in the colour of a mood quadrant.
    func mood(_ mood: String, _ text: String) -> String {
        switch Mood(rawValue: mood) {
        case .happy: wrap(text, "33")
        case .calm: wrap(text, "32")
        case .sad: wrap(text, "34")
        case .tense: wrap(text, "31")
        case nil: text
        }
    }

    /// Text in the colour of group `index` of the library map.
    func group(_ index: Int, _ text: String) -> String {
        let codes = ["36", "33", "35", "32", "34", "31", "96", "93", "95", "92"]
        return wrap(text, codes[index % codes.count])
    }
}
