import Features
import Foundation
import Testing
import VibesTestSupport

@testable import Analytics

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Every element of an XML document with its attributes and the text inside it (CDATA included).
final class ElementCollector: NSObject, XMLCollecting {
    struct Element {
        var name: String
        var attributes: [String: String]
        var text = ""

        var classes: [Substring] { (attributes["class"] ?? "").split(separator: " ") }
    }

    private(set) var elements: [Element] = []
    private var open: [Int] = []
    private(set) var error: Error?

    func parser(
        _ parser: XMLParser,
        didStartElement name: String,
        namespaceURI: String?,
        qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        open.append(elements.count)
        elements.append(Element(name: name, attributes: attributes))
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        for index in open { elements[index].text += string }
    }

    func parser(_ parser: XMLParser, foundCDATA block: Data) {
        let string = String(decoding: block, as: UTF8.self)
        for index in open { elements[index].text += string }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        open.removeLast()
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) { error = parseError }

    /// The elements named `name` (and with `id`, when given).
    func all(_ name: String, id: String? = nil) -> [Element] {
        elements.filter { $0.name == name && (id == nil || $0.attributes["id"] == id) }
    }

}

/// A report of the small library with its track list, some tracks on Spotify, one only a file.
enum ExplorerLibrary {
    static let spotifyIDs: [Int64: String] = [
        1: "4uLU6hMCjMI75M1A2tKUQC", 3: "6f807x0ima9a1j3VPbc7VN", 5: "0VjIjW4GlUZAMYd2vXMi3b",
    ]
    static let filePaths: [Int64: String] = [2: "/music/My Song #2.flac", 3: "/music/three.mp3"]

    static func input(withRun: Bool = true) throws -> MoodReport.Input {
        var input = try SmallLibrary.input(withRun: withRun)
        input.includesTrackList = true
        for (id, spotifyID) in spotifyIDs { input.tracks[id]?.spotifyID = SpotifyID(spotifyID) }
        for (id, path) in filePaths { input.tracks[id]?.filePath = path }
        input.tracks[1]?.durationMS = 215_400
        return input
    }

    static func report(withRun: Bool = true) throws -> MoodReport {
        try MoodReport(input(withRun: withRun))
    }
}

struct MoodReportExplorerTests {
    /// A JSON number as a `Double`, or `nil` for `null`.
    private func number(_ value: Any) -> Double? {
        (value as? NSNumber)?.doubleValue
    }

    /// The embedded track data, decoded from the page.
    private func embeddedData(
        in collector: ElementCollector,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [String: Any] {
        let script = try #require(collector.all("script", id: "explorer-data").first, sourceLocation: sourceLocation)
        #expect(script.attributes["type"] == "application/json", sourceLocation: sourceLocation)
        let object = try JSONSerialization.jsonObject(with: Data(script.text.utf8))
        return try #require(object as? [String: Any], sourceLocation: sourceLocation)
    }

    @Test func pageIsWellFormedSelfContainedAndCarriesItsScriptSafely() throws {
        let html = try ExplorerLibrary.report().renderedHTML()
        let collector = ElementCollector.parse(html)
        // Two scripts, both inline: the data and the explorer in a CDATA section.
        let scripts = collector.all("script")
        #expect(scripts.count == 2)
        #expect(scripts.allSatisfy { $0.attributes["src"] == nil })
        let code = try #require(scripts.last)
        #expect(code.text.contains("\"use strict\""))
        #expect(html.contains("<script>//<![CDATA[\n"))
        #expect(!ExplorerScript.source.contains("]]>"))
        #expect(!ExplorerScript.source.lowercased().contains("</script"))
        #expect(!ExplorerScript.source.contains("<!--"))
        // No external resource: nothing loaded from anywhere, and the only web address is the
        // prefix of the Spotify links a click opens.
        for needle in ["<link", "src=", "@import", "url(http", "cdn"] { #expect(!html.contains(needle), "\(needle)") }
        #expect(
            html.components(separatedBy: "https://").dropFirst().allSatisfy {
                $0.hasPrefix("open.spotify.com/track/\"")
            }
        )
        #expect(
            html.components(separatedBy: "http://").dropFirst().allSatisfy { $0.hasPrefix("www.w3.org/") }
        )
        // The scatter and its controls, with a title for the plot.
        let plot = try #require(collector.all("svg").first { $0.attributes["id"] == "explorer-plot" })
        #expect(plot.attributes["tabindex"] == "0")
        #expect(collector.all("title", id: "explorer-plot-title").count == 1)
        for id in ["explorer-x", "explorer-y"] {
            let select = try #require(collector.all("select", id: id).first)
            #expect(!select.text.isEmpty)
        }
        let selected = collector.all("option").filter { $0.attributes["selected"] != nil }.map(\.text)
        #expect(selected == ["valence", "energy"])
        for id in ["explorer-zoom-in", "explorer-zoom-out", "explorer-reset"] {
            #expect(collector.all("button", id: id).count == 1, "\(id)")
        }
    }

    @Test func embeddedDataMatchesTheModel() throws {
        let report = try ExplorerLibrary.report()
        let list = try #require(report.tracks)
        let data = try embeddedData(in: ElementCollector.parse(report.renderedHTML()))
        #expect(data["features"] as? [String] == list.features)
        #expect(data["units"] as? [String] == list.units)
        let groups = try #require(data["groups"] as? [[String: Any]])
        #expect(groups.map { $0["name"] as? String } == list.groups.map(\.name))
        #expect(groups.map { $0["tracks"] as? Int } == list.groups.map(\.tracks))
        #expect(groups.map { $0["class"] as? String } == ["g0", "g1"])
        #expect(data["csvColumns"] as? [String] == PlaylistExport.exportifyColumns)
        let tracks = try #require(data["tracks"] as? [[Any]])
        #expect(tracks.count == list.entries.count)
        for (row, entry) in zip(tracks, list.entries) {
            #expect(row.count == 9 + list.features.count)
            #expect(row[0] as? Int == Int(entry.id))
            #expect(row[1] as? String == entry.name)
            #expect(row[2] as? [String] == entry.artists)
            #expect((row[3] as? String) == entry.spotifyID?.rawValue)
            #expect((row[4] as? String) == entry.filePath)
            #expect((row[5] as? Int) == entry.durationMS)
            #expect(row[6] as? Int == entry.group)
            #expect(number(row[7]) == entry.distance)
            #expect(row[8] as? Int == (entry.isDrawn ? 1 : 0))
            #expect(row[9...].map(number) == entry.values)
        }
        #expect(tracks[0][3] as? String == "4uLU6hMCjMI75M1A2tKUQC")
        #expect(tracks[1][4] as? String == "/music/My Song #2.flac")
        #expect(tracks[0][5] as? Int == 215_400)
    }

    @Test func namesCannotBreakOutOfTheData() throws {
        var input = try ExplorerLibrary.input()
        let name = "</script><script>alert(1)</script> & ]]> \"quoted\" \\ \u{2028}"
        input.tracks[4]?.name = name
        input.tracks[4]?.artists = ["<b>Bold</b> & Co"]
        let html = try MoodReport(input).renderedHTML()
        let collector = ElementCollector.parse(html)
        #expect(html.components(separatedBy: "</script>").count == 3)  // the two scripts' own ends
        #expect(!html.contains("alert(1)</script>"))
        let tracks = try #require(try embeddedData(in: collector)["tracks"] as? [[Any]])
        let row = try #require(tracks.first { $0[0] as? Int == 4 })
        #expect(row[1] as? String == name)
        #expect(row[2] as? [String] == ["<b>Bold</b> & Co"])
    }

    /// Twelve vibes of two tracks each: the library map and the explorer name every one of them,
    /// with its size; the map grows to hold its legend instead of clipping it.
    @Test func legendShowsEveryVibeAndItsSize() throws {
        var input = try ManyVibes.input(vibeCount: 12)
        input.includesTrackList = true
        let report = try MoodReport(input)
        let names = try #require(report.vibes).vibes.map(\.name)
        #expect(names.count == 12)
        let collector = ElementCollector.parse(report.renderedHTML())

        let legend = try #require(collector.all("ul", id: "explorer-legend").first)
        let buttons = collector.all("button").filter { $0.attributes["aria-pressed"] != nil }
        #expect(buttons.count == 12)
        for (index, name) in names.enumerated() {
            #expect(buttons[index].text == "\(name) (2)")
            #expect(legend.text.contains("\(name) (2)"))
        }

        let map = try #require(collector.all("svg").first { $0.attributes["data-chart"] == "library-map" })
        let height = try #require(map.attributes["viewBox"]?.split(separator: " ").last.flatMap { Double($0) })
        let labels = collector.all("text").filter { $0.classes.contains("legend-label") }
        #expect(labels.map(\.text) == names.map { "\($0) (2)" })
        for label in labels {
            let y = try #require(label.attributes["y"].flatMap(Double.init))
            #expect(y > 350 && y < height - 4, "\(label.text) at y \(y) of \(height)")
        }
        // One table per vibe, each with its downloads.
        #expect(collector.all("table").filter { $0.classes.contains("explorer-table") }.count == 12)
        #expect(collector.all("button").filter { $0.attributes["data-download"] == "m3u" }.count == 12)
        #expect(collector.all("button").filter { $0.attributes["data-download"] == "csv" }.count == 12)
    }

    @Test func tablesSortByDistanceWithARunAndByTrackWithout() throws {
        func sortedHeaders(_ report: MoodReport) -> [String?] {
            let collector = ElementCollector.parse(report.renderedHTML())
            return collector.all("th").filter { $0.attributes["aria-sort"] == "ascending" }.map {
                $0.attributes["aria-sort"] == nil ? nil : $0.text
            }
        }
        #expect(try sortedHeaders(ExplorerLibrary.report()) == ["distance to centre", "distance to centre"])
        let withoutRun = try ExplorerLibrary.report(withRun: false)
        #expect(sortedHeaders(withoutRun).allSatisfy { $0 == "Track" })
        let html = withoutRun.renderedHTML()
        #expect(html.contains("Tracks by mood quadrant"))
        #expect(!html.contains("distance to centre"))
    }

    @Test func aSampledScatterSaysSoAndTheTablesStayComplete() throws {
        var input = try ExplorerLibrary.input()
        input.trackListPointLimit = 4
        let report = try MoodReport(input)
        let html = report.renderedHTML()
        let collector = ElementCollector.parse(html)
        let note = try #require(collector.all("p", id: "explorer-sample").first)
        #expect(note.text.contains("draws 4 of the 6 tracks, an even sample by track ID"))
        #expect(note.text.contains("the tables and downloads hold every track"))
        let tracks = try #require(try embeddedData(in: collector)["tracks"] as? [[Any]])
        #expect(tracks.count == 6)
        #expect(tracks.compactMap { $0[8] as? Int }.reduce(0, +) == 4)
        #expect(!(try ExplorerLibrary.report().renderedHTML().contains("explorer-sample")))
    }

    @Test func theSameReportRendersToTheSameBytes() throws {
        let first = try ExplorerLibrary.report().renderedHTML()
        let second = try ExplorerLibrary.report().renderedHTML()
        #expect(first == second)
    }

    @Test func jsonRoundTripsWithTheTrackList() throws {
        let report = try ExplorerLibrary.report()
        let json = try report.renderedJSON()
        #expect(try MoodReport(json: Data(json.utf8)) == report)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let tracks = try #require(object["tracks"] as? [String: Any])
        #expect(
            Set(tracks.keys) == ["features", "units", "groups", "point_limit", "drawn_count", "track_count", "entries"]
        )
        let entries = try #require(tracks["entries"] as? [[String: Any]])
        #expect(
            Set(entries[0].keys) == [
                "id", "name", "artists", "spotify_id", "duration_ms", "group", "distance", "values", "is_drawn",
            ]
        )
        #expect(entries[1]["file_path"] as? String == "/music/My Song #2.flac")
    }

    @Test func numbersAndStringsAreWrittenExactly() {
        #expect(ExplorerJSON.number(0.5) == "0.5")
        #expect(ExplorerJSON.number(-3) == "-3")
        #expect(ExplorerJSON.number(-0.0) == "0")
        #expect(ExplorerJSON.number(120.051) == "120.051")
        #expect(ExplorerJSON.number(nil) == "null")
        #expect(ExplorerJSON.number(.nan) == "null")
        #expect(ExplorerJSON.string("a<b>&\"\\\n") == #""a\u003cb\u003e\u0026\"\\\n""#)
        #expect(ExplorerJSON.string("\u{1}\u{2028}\u{FFFF}é") == #""\u0001\u2028\uffffé""#)
    }
}

/// A library of `vibeCount` vibes of two tracks each, for legends.
enum ManyVibes {
    static func input(vibeCount: Int) throws -> MoodReport.Input {
        var table = FeatureTable()
        var tracks: [Int64: TrackCredit] = [:]
        var assignments: [Int64: ReportRun.Assignment] = [:]
        for index in 0..<(vibeCount * 2) {
            let id = Int64(index + 1)
            let cluster = index / 2
            let valence = Double(cluster) / Double(vibeCount) + 0.01 * Double(index % 2)
            let energy = 1 - valence
            table.append(trackID: id, features: AudioFeatures(danceability: 0.5, energy: energy, valence: valence))
            tracks[id] = TrackCredit(id: id, name: "Song \(id)", artists: ["Artist \(cluster)"])
            assignments[id] = ReportRun.Assignment(cluster: cluster, distance: 0.1 * Double(index % 2))
        }
        let vibes = (0..<vibeCount).map {
            VibeProfile(
                cluster: $0,
                name: "Vibe number \($0 + 1)",
                mood: .calm,
                size: 2,
                share: 1 / Double(vibeCount),
                means: [:],
                zScores: [:]
            )
        }
        return try SmallLibrary.input(table: table, tracks: tracks, vibes: vibes, assignments: assignments)
    }
}
