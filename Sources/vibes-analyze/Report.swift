import Analytics
import ArgumentParser
import Features
import Foundation
import Ingest
import VibesCommandSupport
import VibesEngine

extension VibesAnalyze {
    /// `vibes-analyze report`: the mood report of the library, its vibes and its listening history.
    struct Report: AsyncParsableCommand {
        /// What the report suggests when there are no vibes yet.
        static let noVibesHint = "Run `vibes-analyze cluster` to find them."

        static let configuration = CommandConfiguration(
            commandName: "report",
            abstract: "Write a mood report: what the library feels like, its vibes, and mood over time.",
            discussion: """
                The report covers the library's feature distributions and valence–energy moods, the vibes \
                of a saved clustering run (the latest unless --run is given) with a PCA map, listening \
                history by month, weekday and hour weighted by time played (skips counted apart, or \
                "skips not recorded" for a history that does not say), and the tracks least like any \
                vibe. Plays are bucketed in the local time zone unless --utc or --time-zone is given. \
                The HTML report is one self-contained file that works offline; its explorer draws every \
                track on any two features, opens a track on Spotify or as a local file, and sorts and \
                downloads (M3U, CSV) each vibe's tracks.

                Example: vibes-analyze report --out report.html
                """
        )

        /// An output format of the report; `md` is read as `markdown`.
        enum Format: String, ExpressibleByArgument, CaseIterable {
            case text, markdown, json, html

            init?(argument: String) {
                self.init(rawValue: argument == "md" ? "markdown" : argument.lowercased())
            }

            /// The format a file name's extension says: .html/.htm, .md/.markdown, .json, else text.
            init(extensionOf path: String) {
                switch (path as NSString).pathExtension.lowercased() {
                case "html", "htm": self = .html
                case "md", "markdown": self = .markdown
                case "json": self = .json
                default: self = .text
                }
            }
        }

        @OptionGroup var global: GlobalOptions
        @OptionGroup var layout: TableOptions
        @OptionGroup(title: "Scope") var scope: PlaylistScopeOptions

        @Option(help: "The clustering run whose vibes are reported, as printed by `cluster`; the latest by default.")
        var run: Int64?

        @Option(
            help:
                "The output format: text, markdown (or md), json or html; by default the --out file's extension (.html, .md, .json, .txt), else text."
        )
        var format: Format?

        @Option(help: ArgumentHelp("Write the report to this file instead of standard output.", valueName: "file"))
        var out: String?

        @Flag(help: "Bucket listening history in UTC rather than the local time zone.")
        var utc = false

        @Option(
            help: ArgumentHelp(
                "Bucket listening history in this IANA time zone, such as Europe/Berlin.",
                valueName: "zone"
            )
        )
        var timeZone: String?

        func validate() throws {
            if utc && timeZone != nil { throw ValidationError("Please give either --utc or --time-zone, not both.") }
            if let timeZone, TimeZone(identifier: timeZone) == nil {
                throw ValidationError(
                    "'\(timeZone)' is not a time zone; use an IANA name such as Europe/Berlin or America/New_York."
                )
            }
            if global.json, let format, format != .text && format != .json {
                throw ValidationError("Please give either --json or --format \(format.rawValue), not both.")
            }
        }

        /// Colour for a terminal, unless `NO_COLOR` is set to anything non-empty (no-color.org).
        static func textStyle(isTerminal: Bool, environment: [String: String]) -> MoodReport.TextStyle {
            let noColor = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
            return isTerminal && !noColor ? .color : .plain
        }

        /// The zone plays are bucketed in.
        var zone: TimeZone {
            if utc { return TimeZone(identifier: "UTC")! }
            if let timeZone { return TimeZone(identifier: timeZone)! }
            return TimeZone.current
        }

        func run() async throws {
            if let out { try CommandFailure.checkOutputFolder(of: out) }
            var timer = PhaseTimer(isEnabled: global.timings)
            defer { timer.report() }
            let store = try global.openStore()
            timer.lap("open")
            var (input, notes) = try describingScope {
                try store.moodReportInput(runID: run, timeZone: zone, scope: scope.scope()) { timer.lap($0) }
            }
            if !global.quiet { notes.map(Self.text(of:)).forEach(Console.diagnostic) }
            let chosen: Format = global.json ? .json : format ?? out.map(Format.init(extensionOf:)) ?? .text
            let style = Report.textStyle(
                isTerminal: out == nil && isatty(1) != 0,
                environment: ProcessInfo.processInfo.environment
            )
            if chosen == .text && style == .color {
                // Colour sequences survive printing, so names are made safe before they are styled.
                input.makeNamesTerminalSafe()
            }
            // The HTML page lists every track for its explorer; the other formats stay summaries.
            input.includesTrackList = chosen == .html
            let report = try MoodReport(input)
            timer.lap("compute")
            let text: String
            switch chosen {
            case .text:
                // On a terminal, prose wraps and tables and charts are cut to its width.
                text = TerminalWidth.fit(
                    report.renderedText(style: style, noVibesHint: Self.noVibesHint),
                    to: out == nil ? layout.width : nil
                )
            case .markdown: text = report.renderedMarkdown(noVibesHint: Self.noVibesHint)
            case .json: text = JSONStyle.roundingNumbers(in: try report.renderedJSON())
            case .html: text = report.renderedHTML(noVibesHint: "Run “vibes-analyze cluster” to find them.")
            }
            timer.lap("render")
            if let out {
                try OutputFile.write(text, to: out)
                if !global.quiet { Console.diagnostic("Wrote the \(chosen.rawValue) report to \(out).") }
            } else {
                Console.write(text, terminator: "", keepingStyles: chosen == .text && style == .color)
            }
        }
    }
}

extension MoodReport.Input {
    /// Track, artist and vibe names on one line and without control characters.
    mutating func makeNamesTerminalSafe() {
        for (id, track) in tracks {
            var safe = track
            safe.name = TerminalText.singleLine(track.name)
            safe.artists = track.artists.map(TerminalText.singleLine)
            safe.genres = track.genres.map(TerminalText.singleLine)
            tracks[id] = safe
        }
        if var run {
            run.vibes = run.vibes.map { vibe in
                var vibe = vibe
                vibe.name = TerminalText.singleLine(vibe.name)
                return vibe
            }
            run.playlist = run.playlist.map(TerminalText.singleLine)
            self.run = run
        }
        overview.playlist = overview.playlist.map(TerminalText.singleLine)
    }
}

/// A report that cannot be written.
enum ReportError: Error, CustomStringConvertible {
    /// The output file cannot be created.
    case cannotWrite(path: String, reason: String)

    var description: String {
        switch self {
        case .cannotWrite(let path, let reason):
            "Cannot write the report to \(path): \(reason). Check that the folder is writable."
        }
    }
}

extension VibesAnalyze.Report {
    /// A note of the report's input as a line for the user.
    static func text(of note: MoodReportNote) -> String {
        switch note {
        case .referenceTracksOnly(let count):
            "Your library has no tracks with audio features; the \(count) reference tracks (import --reference) are candidates only and stay out of the report."
        case .noFeatures:
            "The library has no tracks with audio features yet; import a features CSV (`vibes-analyze import FILE`) for moods and vibes."
        case .vibesOfRun(let id, .library, let isLatest):
            "Vibes of run \(id) (the library\(isLatest ? "'s latest" : ""))."
        case .vibesOfRun(let id, let scope, _):
            "Vibes of run \(id), made of \(scope) only: its vibes' shares are of that playlist, not of the library."
        case .noRun:
            "No clustering run yet, so the report has no vibes; run `vibes-analyze cluster` first to add them."
        case .unreadablePlayTimes(let count):
            "\(count) plays have an unreadable time and were left out of the listening charts."
        }
    }
}
