import Analytics
import Foundation
import Ingest
import Testing
import VibesTestSupport

#if canImport(FoundationXML)
import FoundationXML
#endif

struct ReportCommandTests {
    /// Runs the built tool and requires it to succeed.
    @discardableResult
    private func run(
        _ arguments: [String],
        environment: [String: String] = [:],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> CommandLineTool.Result {
        let result = try await CommandLineTool.run(arguments, environment: environment)
        #expect(result.status == 0, "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
        return result
    }

    private func report(_ arguments: [String], environment: [String: String] = [:]) async throws -> MoodReport {
        let result = try await run(["report", "--format", "json"] + arguments, environment: environment)
        return try MoodReport(json: Data(result.stdout.utf8))
    }

    /// Imports `file` into the store at `db` through the library, as `import` does; the report is
    /// what these tests run through the built tool.
    private func importing(_ file: String, into db: String) throws {
        _ = try LibraryStore(path: db).importFile(at: file)
    }

    @Test func reportsTheLibraryItsVibesAndItsListening() async throws {
        try await withTemporaryDirectory { folder in
            let db = folder + "/library.sqlite"
            try importing(Fixtures.path("csv/tidytuesday-excerpt.csv"), into: db)
            try importing(Fixtures.path("json/Streaming_History_Audio_2023-2024_0.json"), into: db)
            try importing(Fixtures.path("json/StreamingHistory0.json"), into: db)
            try await PlaylistsCommandTests.cluster(try LibraryStore(path: db), k: 3)
            let report = try await report(["--db", db, "--utc"])
            let summary = try JSONDecoder().decode(
                LibrarySummary.self,
                from: Data(try await run(["library", "--db", db, "--json"]).stdout.utf8)
            )

            #expect(report.schemaVersion == MoodReport.currentSchemaVersion)
            #expect(report.timeZone == "UTC")
            #expect(report.overview.tracks == summary.tracks)
            #expect(report.overview.tracksWithFeatures == 36)
            #expect(report.overview.plays == 43)
            #expect(report.moodMap.quadrants.map(\.tracks).reduce(0, +) == report.moodMap.tracks)

            let vibes = try #require(report.vibes)
            #expect(vibes.runID == 1 && vibes.vibes.count == 3)
            #expect(vibes.vibes.map(\.size).reduce(0, +) == vibes.tracks)
            // Genres come from the file's playlist_genre column; each vibe counts its members'.
            let genreCounts = vibes.vibes.flatMap { $0.topGenres ?? [] }
            #expect(!genreCounts.isEmpty)
            for vibe in vibes.vibes {
                for genre in vibe.topGenres ?? [] { #expect(genre.tracks <= vibe.size) }
            }
            #expect(Set(genreCounts.map(\.genre)).isSubset(of: ["edm", "latin", "pop", "r&b", "rap", "rock"]))
            let plainText = try await run(["report", "--db", db, "--utc"]).stdout
            #expect(plainText.contains("Top genres: "))
            let map = try #require(report.map)
            #expect(map.trackCount == vibes.tracks && map.groups == vibes.vibes.map(\.name))

            // 40 account-data plays match no track; of the 3 extended-history plays, one is a skip,
            // one is of a tidytuesday track (Memories, valence 0.693, energy 0.815) and one of a
            // track the import created without features.
            let listening = try #require(report.listening)
            #expect(listening.plays == 43)
            #expect(listening.skips == 1 && listening.skippedMS == 12_000)
            #expect(listening.playsWithSkipData == 3)  // the account-data plays do not say
            #expect(listening.unmatchedPlays == 40)
            #expect(listening.playsWithFeatures == 1 && listening.msWithFeatures == 215_000)
            #expect(listening.playsWithoutFeatures == 41)
            #expect(abs((listening.valence ?? 0) - 0.693) < 1e-6)
            #expect(abs((listening.energy ?? 0) - 0.815) < 1e-6)
            #expect(listening.vibes.map(\.msPlayed).reduce(0, +) == 215_000)

            let text = try await run(["report", "--db", db, "--utc"]).stdout
            #expect(text.contains("Vibes of run 1"))
            #expect(text.contains("Skips: 1 (12 s), counted apart; 40 plays without skip data."))
            #expect(!text.contains("\u{1B}["))
            let markdown = try await run(["report", "--db", db, "--utc", "--format", "markdown"]).stdout
            #expect(markdown.contains("## Vibes of run 1"))
        }
    }

    /// The extended history ends plays at 2023-08-07 21:07 and 21:08 UTC (a Monday) and
    /// 2024-02-01 23:59 UTC (a Thursday): in Tokyo (UTC+9) those are Tuesday 06:07/06:08 and
    /// Friday 08:59.
    @Test func bucketsInTheLocalZoneUnlessUTC() async throws {
        try await withTemporaryDirectory { folder in
            let db = folder + "/library.sqlite"
            try importing(Fixtures.path("json/Streaming_History_Audio_2023-2024_0.json"), into: db)
            let utc = try #require(
                try await report(["--db", db, "--utc"], environment: ["TZ": "Asia/Tokyo"]).listening
            )
            #expect(utc.byHour[21].plays == 2 && utc.byHour[23].plays == 1)
            #expect(utc.byWeekday.map(\.plays) == [2, 0, 0, 1, 0, 0, 0])
            #expect(utc.byMonth.first?.label == "2023-08" && utc.byMonth.last?.label == "2024-02")
            #expect(utc.byMonth.count == 7)

            for arguments in [["--time-zone", "Asia/Tokyo"], []] {
                let tokyo = try #require(
                    try await report(["--db", db] + arguments, environment: ["TZ": "Asia/Tokyo"]).listening
                )
                #expect(tokyo.byHour[6].plays == 2 && tokyo.byHour[8].plays == 1, "\(arguments)")
                #expect(tokyo.byWeekday.map(\.plays) == [0, 2, 0, 0, 1, 0, 0], "\(arguments)")
                #expect(tokyo.firstPlay == "2023-08-08T06:07:25+09:00", "\(arguments)")
            }
        }
    }

    @Test func writesASelfContainedHTMLFile() async throws {
        try await withTemporaryDirectory { folder in
            let db = folder + "/library.sqlite"
            try importing(Fixtures.path("csv/tidytuesday-excerpt.csv"), into: db)
            // Account-data plays say nothing about skips.
            try importing(Fixtures.path("json/StreamingHistory0.json"), into: db)
            let out = folder + "/out/report.html"
            try FileManager.default.createDirectory(atPath: folder + "/out", withIntermediateDirectories: true)
            let result = try await run(["report", "--db", db, "--format", "html", "--out", out, "--utc"])
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.contains("Wrote the html report to \(out)."))
            #expect(result.stderr.contains("run `vibes-analyze cluster`"))
            let data = try #require(FileManager.default.contents(atPath: out))
            let parser = XMLParser(data: data)
            #expect(parser.parse(), "line \(parser.lineNumber): \(String(describing: parser.parserError))")
            let html = String(decoding: data, as: UTF8.self)
            #expect(html.contains("data-chart=\"library-map\""))
            #expect(html.contains("No clustering run yet"))
            #expect(html.contains("skips not recorded"))
            // The explorer lists every track with features, with its Spotify ID for the link.
            #expect(html.contains("<section id=\"explore\">"))
            #expect(html.contains("Tracks by mood quadrant"))
            let start = try #require(html.range(of: "<script type=\"application/json\" id=\"explorer-data\">"))
            let end = try #require(html.range(of: "</script>", range: start.upperBound..<html.endIndex))
            let embedded = try JSONSerialization.jsonObject(with: Data(html[start.upperBound..<end.lowerBound].utf8))
            let tracks = try #require((embedded as? [String: Any])?["tracks"] as? [[Any]])
            #expect(tracks.count == 36)
            #expect(tracks.allSatisfy { ($0[3] as? String)?.utf8.count == 22 })
        }
    }

    /// The same store gives the same page byte for byte, from separate processes (whose hashing
    /// seeds, and so dictionary orders, differ).
    /// `--out` picks the format from its extension unless `--format` says otherwise; `md` is
    /// markdown; the note names the run the vibes came from.
    @Test func theOutFileExtensionChoosesTheFormat() async throws {
        try await withTemporaryDirectory { folder in
            let db = folder + "/library.sqlite"
            try importing(Fixtures.path("csv/tidytuesday-excerpt.csv"), into: db)
            try await PlaylistsCommandTests.cluster(try LibraryStore(path: db), k: 3)
            func written(_ name: String, _ extra: [String] = []) async throws -> (text: String, stderr: String) {
                let result = try await run(["report", "--db", db, "--out", folder + "/" + name] + extra)
                return (try String(contentsOfFile: folder + "/" + name, encoding: .utf8), result.stderr)
            }
            let html = try await written("r.html")
            #expect(html.text.hasPrefix("<!DOCTYPE html>") || html.text.hasPrefix("<!doctype html>"))
            #expect(html.stderr.contains("Wrote the html report"))
            #expect(html.stderr.contains("Vibes of run 1 (the library's latest)."))
            let markdown = try await written("r.md")
            #expect(markdown.text.hasPrefix("# "))
            #expect(try await written("r.markdown").text == markdown.text)
            let json = try await written("r.json")
            #expect((try JSONSerialization.jsonObject(with: Data(json.text.utf8))) is [String: Any])
            let text = try await written("r.txt")
            #expect(!text.text.hasPrefix("# ") && !text.text.contains("<html"))
            // --format wins over the extension, and md is markdown.
            #expect(try await written("other.html", ["--format", "text"]).text == text.text)
            #expect(try await written("notes.txt", ["--format", "md"]).text == markdown.text)
        }
    }

    /// A run of one playlist, made current, says so inside the written report in every format,
    /// and its vibes' shares are of that playlist, never "of the library"; `report --playlist`
    /// says what the report is limited to. The reports are written by the built tool.
    @Test func aPlaylistRunSaysItsScopeInsideTheReport() async throws {
        try await PlaylistsCommandTests.withPlaylistLibrary { path, store in
            let folder = (path as NSString).deletingLastPathComponent
            let libraryRun = try #require(try await report(["--db", path]).vibes?.runID)
            // A playlist's run is not the library's latest unless made current.
            try await PlaylistsCommandTests.cluster(store, k: 2, scope: .playlist("bath"))
            let unused = try await report(["--db", path])
            #expect(unused.vibes?.runID == libraryRun && unused.vibes?.playlist == nil)
            try await PlaylistsCommandTests.cluster(store, k: 2, scope: .playlist("bath"), makesCurrent: true)
            let runID = try #require(try await report(["--db", path]).vibes?.runID)
            #expect(runID > libraryRun)
            let list = try await run(["vibes", "--list", "--db", path]).stdout
            #expect(list.contains("playlist 'bath time '"), "\(list)")
            func written(_ name: String, _ extra: [String] = []) async throws -> String {
                try await run(["report", "--db", path, "--out", folder + "/" + name] + extra)
                return try String(contentsOfFile: folder + "/" + name, encoding: .utf8)
            }
            let sentence = "Run \(runID) was made of the playlist “bath time ” only (12 tracks)"
            for name in ["r.txt", "r.md", "r.html"] {
                let text = try await written(name)
                #expect(text.contains(sentence), "\(name)")
                // Shares: "75% of the playlist" in text and HTML, a Playlist column in Markdown.
                #expect(text.contains("% of the playlist") || text.contains("| Playlist |"), "\(name)")
                #expect(!text.contains("% of the library") && !text.contains("| Library |"), "\(name)")
            }
            let json = try await report(["--db", path])
            #expect(json.vibes?.playlist == "bath time " && json.vibes?.tracks == 12 && json.vibes?.runID == runID)

            // The library's own run says nothing of a playlist.
            try await PlaylistsCommandTests.cluster(store, k: 3)
            let library = try await written("library.txt")
            #expect(!library.contains("was made of the playlist") && library.contains("% of the library"))
            #expect(try await report(["--db", path]).vibes?.playlist == nil)

            // A report limited to a playlist says so at the top.
            let limited = try await written("limited.md", ["--playlist", "road"])
            #expect(limited.contains("Limited to the playlist “Road Trip”: 16 tracks."))
        }
    }

    @Test func theSameStoreGivesTheSameHTML() async throws {
        try await withTemporaryDirectory { folder in
            let db = folder + "/library.sqlite"
            try importing(Fixtures.path("csv/tidytuesday-excerpt.csv"), into: db)
            try importing(Fixtures.path("json/Streaming_History_Audio_2023-2024_0.json"), into: db)
            try await PlaylistsCommandTests.cluster(try LibraryStore(path: db), k: 3, seed: 7)
            var pages: [Data] = []
            for index in 0..<2 {
                let out = folder + "/report-\(index).html"
                try await run(["report", "--db", db, "--format", "html", "--out", out, "--utc", "--quiet"])
                pages.append(try #require(FileManager.default.contents(atPath: out)))
            }
            #expect(pages[0] == pages[1])
            let html = String(decoding: pages[0], as: UTF8.self)
            #expect(html.contains("Tracks by vibe"))
            #expect(!html.contains("skips not recorded"))
        }
    }

    /// Colour on a terminal unless `NO_COLOR` is set to anything non-empty (no-color.org); never
    /// when piped.
    @Test func colourOnlyOnATerminalWithoutNoColor() async throws {
        try await withTemporaryDirectory { folder in
            let db = folder + "/library.sqlite"
            _ = try LibraryStore(path: db).importFile(at: Fixtures.path("csv/tidytuesday-excerpt.csv"))
            let arguments = ["report", "--db", db, "--utc"]
            for (environment, isColoured) in [([:], true), (["NO_COLOR": ""], true), (["NO_COLOR": "1"], false)] {
                let terminal = try TerminalWidthCommandTests.runInTerminal(
                    arguments,
                    columns: 100,
                    environment: environment
                )
                #expect(terminal.status == 0, "\(environment)")
                #expect(terminal.output.contains("\u{1B}[1mMood report\u{1B}[0m") == isColoured, "\(environment)")
                #expect(terminal.output.contains("Mood report"), "\(environment)")
            }
            let piped = try await run(arguments, environment: ["NO_COLOR": ""])
            #expect(piped.stdout.contains("Mood report") && !piped.stdout.contains("\u{1B}["))
        }
    }

    @Test func explainsMissingRuns() async throws {
        try await withTemporaryDirectory { folder in
            let db = folder + "/library.sqlite"
            try importing(Fixtures.path("csv/tidytuesday-excerpt.csv"), into: db)
            let missing = try await CommandLineTool.run(["report", "--db", db, "--run", "99"])
            #expect(missing.status == 1)
            #expect(
                missing.stderr.contains(
                    "Clustering run 99 (list the runs with `vibes-analyze vibes --list`) is not in the library store."
                )
            )
        }
    }

    /// The whole tidytuesday dataset (28,356 tracks with features) with the 10,000 plays of the
    /// account-data export: every play is counted once, the map is sampled, the page stays XML.
    @Test(.enabled(if: SharedData.isAvailable, SharedData.skipReason))
    func reportsTheFullDatasetAndTenThousandPlays() async throws {
        try await withTemporaryDirectory { folder in
            let db = folder + "/library.sqlite"
            let export = "spotify-api/exports/account-data-jonas-mika/"
            try importing(SharedData.path("tidytuesday-2020-01-21/spotify_songs.csv"), into: db)
            try importing(SharedData.path(export + "YourLibrary.json"), into: db)
            try importing(SharedData.path(export + "StreamingHistory0.json"), into: db)
            let report = try await report(["--db", db, "--utc"])
            #expect(report.overview.tracksWithFeatures == 28_356)
            #expect(report.moodMap.tracks == 28_356)
            let listening = try #require(report.listening)
            #expect(listening.plays == 10_000)
            #expect(listening.skips == 0 && !listening.skipsAreRecorded)  // account data says nothing about skips
            #expect(listening.playsWithFeatures + listening.playsWithoutFeatures == 10_000)
            #expect(listening.byMonth.map(\.label) == ["2021-04", "2021-05", "2021-06"])
            for buckets in [listening.byMonth, listening.byWeekday, listening.byHour] {
                #expect(buckets.map(\.plays).reduce(0, +) == 10_000)
                #expect(buckets.map(\.msPlayed).reduce(0, +) == listening.msPlayed)
            }
            let map = try #require(report.map)
            #expect(map.points.count <= 1500 && map.trackCount > 28_000)

            let out = folder + "/report.html"
            try await run(["report", "--db", db, "--utc", "--format", "html", "--out", out, "--quiet"])
            let data = try #require(FileManager.default.contents(atPath: out))
            let parser = XMLParser(data: data)
            #expect(parser.parse())
            // Every track in the page, compactly; the scatter sampled, and saying so.
            #expect(data.count < 8_000_000, "\(data.count) bytes")
            let html = String(decoding: data, as: UTF8.self)
            #expect(html.contains("The scatter draws 20\u{2009}000 of the 28\u{2009}356 tracks"))
            #expect(html.contains("skips not recorded"))
            #expect(html.components(separatedBy: "],\n[").count == 28_356)
        }
    }
}
