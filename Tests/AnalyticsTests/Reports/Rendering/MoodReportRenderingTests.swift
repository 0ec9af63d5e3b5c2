import Features
import Foundation
import Numerics
import Testing
import VibesTestSupport

@testable import Analytics

#if canImport(FoundationXML)
import FoundationXML
#endif

/// What an XML parse of the HTML report found: every chart with its marks.
/// An XML parser delegate that collects what a test reads from a page.
protocol XMLCollecting: XMLParserDelegate {
    init()
    /// The first error the collector met, if any.
    var error: Error? { get }
}

extension XMLCollecting {
    /// Parses `html` and returns the collector, recording an issue when it is not well-formed XML.
    static func parse(_ html: String, sourceLocation: SourceLocation = #_sourceLocation) -> Self {
        let collector = Self()
        let parser = XMLParser(data: Data(html.utf8))
        parser.delegate = collector
        let isWellFormed = parser.parse()
        #expect(
            isWellFormed,
            "not well-formed XML: \(String(describing: collector.error ?? parser.parserError)) at line \(parser.lineNumber)",
            sourceLocation: sourceLocation
        )
        return collector
    }
}

final class ChartCollector: NSObject, XMLCollecting {
    struct Chart {
        var id: String
        var role: String?
        var labelledBy: [String]
        var titles: [String: String] = [:]
        var marks: [[String: String]] = []
    }

    var charts: [Chart] = []
    var elementCount = 0
    var error: Error?
    private var depthInChart = 0
    private var pendingTextID: String?
    private var text = ""

    func parser(
        _ parser: XMLParser,
        didStartElement name: String,
        namespaceURI: String?,
        qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        elementCount += 1
        if name == "svg", let id = attributes["data-chart"] {
            charts.append(
                Chart(
                    id: id,
                    role: attributes["role"],
                    labelledBy: (attributes["aria-labelledby"] ?? "").split(separator: " ").map(String.init)
                )
            )
            depthInChart = 0
        }
        guard !charts.isEmpty else { return }
        depthInChart += 1
        if name == "title" || name == "desc", let id = attributes["id"] {
            pendingTextID = id
            text = ""
        }
        if attributes["class"]?.split(separator: " ").contains("mark") == true {
            charts[charts.count - 1].marks.append(attributes)
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if pendingTextID != nil { text += string }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if let id = pendingTextID, name == "title" || name == "desc" {
            charts[charts.count - 1].titles[id] = text
            pendingTextID = nil
        }
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
        error = parseError
    }

}

struct MoodReportRenderingTests {
    private func report(withRun: Bool = true) throws -> MoodReport {
        try MoodReport(SmallLibrary.input(timeZone: "UTC", withRun: withRun))
    }

    private func chart(
        _ id: String,
        in collector: ChartCollector,
        sourceLocation: SourceLocation = #_sourceLocation
    )
        throws -> ChartCollector.Chart
    {
        try #require(collector.charts.first { $0.id == id }, "no chart \(id)", sourceLocation: sourceLocation)
    }

    @Test func htmlIsWellFormedAndEveryChartIsLabelled() throws {
        let html = try report().renderedHTML()
        let collector = ChartCollector.parse(html)
        #expect(collector.charts.count >= 10)
        for chart in collector.charts {
            #expect(chart.role == "img", "\(chart.id)")
            #expect(chart.labelledBy == ["\(chart.id)-title", "\(chart.id)-desc"], "\(chart.id)")
            #expect(!(chart.titles["\(chart.id)-title"] ?? "").isEmpty, "\(chart.id) has no title")
            #expect(!(chart.titles["\(chart.id)-desc"] ?? "").isEmpty, "\(chart.id) has no description")
            #expect(!chart.marks.isEmpty, "\(chart.id) draws no data")
        }
        // Self-contained: no script, no external resource.
        #expect(!html.contains("<script"))
        #expect(
            !html.contains("http://")
                || html.components(separatedBy: "http://").dropFirst().allSatisfy { $0.hasPrefix("www.w3.org/") }
        )
        #expect(!html.contains("https://"))
        #expect(html.contains("prefers-color-scheme: dark"))
        #expect(html.contains("name=\"viewport\""))
    }

    @Test func everyChartCarriesItsData() throws {
        let report = try report()
        let collector = ChartCollector.parse(report.renderedHTML())

        for distribution in report.features where distribution.count > 0 {
            let histogram = try chart("histogram-\(distribution.feature)", in: collector)
            #expect(
                histogram.marks.map { $0["data-value"] } == distribution.bins.map { String($0.count) },
                "\(distribution.feature)"
            )
        }
        #expect(!collector.charts.contains { $0.id == "histogram-tempo" })  // no tempo values in this library

        let moodMap = try chart("mood-map", in: collector)
        let cells = moodMap.marks.compactMap { $0["data-value"].flatMap(Int.init) }
        #expect(cells.reduce(0, +) == report.moodMap.tracks)
        #expect(cells.count == report.moodMap.grid.flatMap { $0 }.filter { $0 > 0 }.count)
        #expect(moodMap.titles["mood-map-desc"]?.contains("happy/energetic 33.3%") == true)

        let soft = try chart("soft-moods", in: collector)
        let softValues = soft.marks.compactMap { $0["data-value"].flatMap(Double.init) }
        #expect(softValues.count == 4)
        #expect(softValues[0].isApproximatelyEqual(to: report.moodMap.softMoods.happy, absoluteTolerance: 1e-6))

        let listening = try #require(report.listening)
        let months = try chart("by-month", in: collector)
        let monthBars = months.marks.filter { $0["data-series"] == nil }
        #expect(monthBars.map { $0["data-label"] } == listening.byMonth.map(\.label))
        #expect(
            monthBars.compactMap { $0["data-value"].flatMap(Double.init) }.map { ($0 * 3_600_000).rounded() }
                == listening.byMonth.map { Double($0.msPlayed) }
        )
        let valenceDots = months.marks.filter { $0["data-series"] == "valence" }
        #expect(valenceDots.count == listening.byMonth.compactMap(\.valence).count)
        #expect(try chart("by-hour", in: collector).marks.filter { $0["data-series"] == nil }.count == 24)
        #expect(try chart("by-weekday", in: collector).marks.filter { $0["data-series"] == nil }.count == 7)

        let map = try #require(report.map)
        let scatter = try chart("library-map", in: collector)
        #expect(scatter.marks.count == map.points.count)
        #expect(scatter.marks.map { $0["data-group"] } == map.points.map { String($0.group) })
        #expect(scatter.marks.map { $0["data-x"].flatMap(Double.init) } == map.points.map { $0.x })

        let section = try #require(report.vibes)
        for vibe in section.vibes {
            let profile = try chart("vibe-\(vibe.cluster)-profile", in: collector)
            // Time signature is left out of the profile chart (3 to 7 beats say little about a vibe).
            let profileFeatures = vibe.profile.map(\.feature).filter { $0 != "time_signature" }
            #expect(profile.marks.map { $0["data-label"] } == profileFeatures.map { Optional($0) })
            #expect(
                profile.marks.map { $0["data-value"].flatMap(Double.init) }
                    == vibe.profile.filter { $0.feature != "time_signature" }.map { Optional($0.zScore) }
            )
        }
        let versus = try chart("vibes-listened", in: collector)
        #expect(versus.marks.count == 2 * listening.vibes.count)
    }

    @Test func htmlEscapesNamesFromTheLibrary() throws {
        var input = try SmallLibrary.input()
        input.tracks[2] = TrackCredit(id: 2, name: "Rock & <Roll> \"Live\"", artists: ["AC/DC & Friends"])
        let html = try MoodReport(input).renderedHTML()
        _ = ChartCollector.parse(html)
        #expect(html.contains("Rock &amp; &lt;Roll&gt; &quot;Live&quot;"))
    }

    @Test func htmlWithoutRunOrPlaysSaysWhatToDo() throws {
        var input = try SmallLibrary.input(withRun: false)
        input.plays = []
        let report = try MoodReport(input)
        let html = report.renderedHTML(noVibesHint: "Cluster <first> & see.")
        let collector = ChartCollector.parse(html)
        // The library says what is missing; what to do is the caller's hint, escaped.
        #expect(html.contains(MoodReport.noVibesText + " Cluster &lt;first&gt; &amp; see."))
        #expect(!report.renderedHTML().contains("vibes-analyze cluster"))
        #expect(html.contains("No listening history"))
        let map = try chart("library-map", in: collector)
        #expect(map.marks.count == 6)  // all six tracks, coloured by quadrant
    }

    /// Every renderer says "skips not recorded" for a history without skip data, never "0 skips".
    @Test func skipsNotRecordedInEveryFormat() throws {
        var input = try SmallLibrary.input()
        input.plays = input.plays.map {
            PlayRecord(
                endedAt: $0.endedAt,
                msPlayed: $0.msPlayed,
                trackID: $0.trackID,
                isSkip: false,
                skipIsRecorded: false
            )
        }
        let report = try MoodReport(input)
        let html = report.renderedHTML()
        _ = ChartCollector.parse(html)
        #expect(html.contains("skips not recorded"))
        #expect(!html.contains("<strong>0</strong> skips"))
        #expect(!html.contains("counted apart</li>"))
        let text = report.renderedText(style: .plain)
        #expect(text.contains("Skips not recorded (this listening history does not say which plays were skipped)."))
        #expect(text.contains("skips    not recorded"))
        #expect(!text.contains("Skips: 0"))
        let markdown = report.renderedMarkdown()
        #expect(markdown.contains("Skips not recorded"))
        #expect(markdown.contains("| 2021-01 | 8 | 8 min | – | 0.80 | 0.90 |"))

        let recorded = try self.report().renderedHTML()
        #expect(recorded.contains("<strong>3</strong> skips (30 s), counted apart</li>"))
        #expect(!recorded.contains("skips not recorded"))
    }

    @Test func textHasColourOnlyWhenAsked() throws {
        let report = try report()
        let plain = report.renderedText(style: .plain)
        let colored = report.renderedText(style: .color)
        #expect(!plain.contains("\u{1B}["))
        #expect(colored.contains("\u{1B}[1m"))
        #expect(plain.contains("happy/energetic   33.3%       2"))
        #expect(plain.contains("Skips: 3 (30 s), counted apart."))
        #expect(plain.contains("Without features: 5 plays (3 min); 3 plays match no track."))
        #expect(plain.contains("1. Loud"))
        #expect(plain.contains("Loud    50.0% vs  66.7%"))
    }

    @Test func markdownHasTablesOfTheSameNumbers() throws {
        let markdown = try report().renderedMarkdown()
        #expect(markdown.hasPrefix("# Mood report\n"))
        #expect(markdown.contains("| happy/energetic | 2 | 33.3% |"))
        #expect(markdown.contains("| 2021-01 | 8 | 8 min | 0 | 0.80 | 0.90 |"))
        #expect(markdown.contains("| Loud | 50.0% | 66.7% | 8 min |"))
    }

    /// The cells of a Markdown table row: split at every `|` that no backslash escapes.
    static func markdownCells(_ row: Substring) -> [String] {
        var cells: [String] = []
        var current = ""
        var escaped = false
        for character in row.dropFirst().dropLast() {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                current.append(character)
                escaped = true
            } else if character == "|" {
                cells.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        return cells + [current]
    }

    /// Names holding pipes, backslashes and line breaks stay inside their cells: every row of every
    /// table has as many cells as its header.
    @Test func everyMarkdownRowHasTheHeadersCellCount() throws {
        var report = try report()
        let hostile = "A|B \\| C\nD\\"
        try #require(report.vibes?.vibes.first?.topArtists.isEmpty == false)
        report.overview.sources.append(.init(source: hostile, tracks: 1, preferred: 1))
        report.vibes?.vibes[0].name = hostile
        report.vibes?.vibes[0].topArtists[0].artist = hostile
        report.features[0].feature = hostile
        if !report.outliers.tracks.isEmpty {
            report.outliers.tracks[0].track.name = hostile
            report.outliers.tracks[0].vibe = hostile
        }
        let markdown = report.renderedMarkdown()
        let lines = markdown.split(separator: "\n", omittingEmptySubsequences: false)
        var tables = 0
        var index = 0
        while index < lines.count {
            guard lines[index].hasPrefix("|"), index + 1 < lines.count, lines[index + 1].hasPrefix("|-") else {
                index += 1
                continue
            }
            tables += 1
            let width = MoodReportRenderingTests.markdownCells(lines[index]).count
            #expect(MoodReportRenderingTests.markdownCells(lines[index + 1]).count == width)
            index += 2
            while index < lines.count, lines[index].hasPrefix("|") {
                #expect(
                    MoodReportRenderingTests.markdownCells(lines[index]).count == width,
                    "\(lines[index])"
                )
                #expect(lines[index].hasSuffix("|"), "\(lines[index])")
                index += 1
            }
        }
        #expect(tables >= 6)
        #expect(markdown.contains("A\\|B \\\\\\| C D\\\\"))
    }

    @Test func jsonRoundTripsWithAVersionedSnakeCaseSchema() throws {
        let report = try report()
        let json = try report.renderedJSON()
        let decoded = try MoodReport(json: Data(json.utf8))
        #expect(decoded == report)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["schema_version"] as? Int == MoodReport.currentSchemaVersion)
        #expect(MoodReport.currentSchemaVersion == 2)
        #expect(
            Set(object.keys) == [
                "schema_version", "time_zone", "overview", "features", "mood_map", "vibes", "map", "listening",
                "outliers",
            ]
        )
        let listening = try #require(object["listening"] as? [String: Any])
        #expect(listening["skipped_ms"] as? Int == 30_000)
        #expect(listening["plays_with_skip_data"] as? Int == 20)
        let months = try #require(listening["by_month"] as? [[String: Any]])
        #expect(months.map { $0["plays_with_skip_data"] as? Int } == [8, 7, 5])
        let vibes = try #require(object["vibes"] as? [String: Any])
        #expect(vibes["run_id"] as? Int == 1)
    }

    @Test func sparklinesAndBarsScale() {
        #expect(ReportFormatting.sparkline([0, 0.5, 1, nil], range: 0...1) == "▁▅█ ")
        #expect(ReportFormatting.bar(0.5, width: 4) == "██")
        #expect(ReportFormatting.bar(1.0 / 16, width: 2) == "▏")
        #expect(ReportFormatting.count(10000) == "10\u{2009}000")
        #expect(ReportFormatting.sigma(-0.44) == "−0.4σ")
    }
}
