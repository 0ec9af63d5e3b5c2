import ArgumentParser
import Features
import Foundation
import Ingest
import VibesCommandSupport

extension VibesAnalyze {
    struct Library: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "library",
            abstract: "Show what the library holds: tracks, feature coverage by feature and source, history, top tags.",
            discussion: "Example: vibes-analyze library --json"
        )

        @OptionGroup var global: GlobalOptions
        @OptionGroup var layout: TableOptions

        func run() async throws {
            var timer = PhaseTimer(isEnabled: global.timings)
            let store = try global.openStore()
            timer.lap("open")
            let summary = try store.summary()
            timer.lap("load")
            if global.json {
                try Console.printJSON(summary)
            } else {
                print(Library.describe(summary, width: layout.width))
            }
            timer.lap("render")
            timer.report()
        }

        /// The summary for people; on a terminal of `width` columns, each line of top tags keeps
        /// the tags that fit and ends with "…".
        static func describe(_ summary: LibrarySummary, width: Int? = nil) -> String {
            var lines = ["Library: \(summary.path)"]
            func percent(_ part: Int, _ whole: Int) -> String {
                whole == 0 ? "0%" : String(format: "%.1f%%", Double(part) * 100 / Double(whole))
            }
            lines.append(
                "  tracks            \(summary.tracks)   (\(summary.tracksWithFeatures) with audio features, \(percent(summary.tracksWithFeatures, summary.tracks)))"
            )
            if summary.referenceTracks > 0 {
                lines.append(
                    "    in your library \(summary.tracks - summary.referenceTracks); reference pool \(summary.referenceTracks) (candidates only)"
                )
            }
            lines.append("  artists           \(summary.artists)")
            lines.append("  playlists         \(summary.playlists)   (\(summary.playlistItems) items)")
            lines.append("  saved tracks      \(summary.savedTracks)")
            lines.append(
                "  plays             \(summary.plays)   (\(summary.playsMatched) linked to tracks, \(percent(summary.playsMatched, summary.plays)))"
            )
            if let first = summary.firstPlay, let last = summary.lastPlay {
                lines.append("  history           \(first) … \(last)")
            }
            lines.append("  imports           \(summary.importRuns)")
            if summary.tracksWithFeatures > 0 {
                lines.append("")
                lines.append("Feature coverage (of \(summary.tracksWithFeatures) tracks with features):")
                for (feature, count) in summary.featureCoverage.sorted(by: { $0.key < $1.key }) {
                    let flagged = summary.outOfRange[feature].map { "   \($0) outside documented range" } ?? ""
                    lines.append(
                        "  \(feature.padding(toLength: 17, withPad: " ", startingAt: 0)) \(percent(count, summary.tracksWithFeatures).leftPadded(6))\(flagged)"
                    )
                }
                lines.append("")
                lines.append("Feature sources:")
                for source in summary.sources {
                    lines.append(
                        "  \(source.source.padding(toLength: 26, withPad: " ", startingAt: 0)) \(source.tracks) tracks (preferred for \(source.preferred))"
                    )
                }
            }
            if !summary.topTags.isEmpty {
                lines.append("")
                lines.append("Top tags:")
                var kinds: [String: [LibrarySummary.TagCount]] = [:]
                for tag in summary.topTags { kinds[tag.kind, default: []].append(tag) }
                for (kind, tags) in kinds.sorted(by: { $0.key < $1.key }) {
                    var line = "  \(kind): "
                    for (index, tag) in tags.enumerated() {
                        let text = (index == 0 ? "" : ", ") + "\(TerminalText.singleLine(tag.value)) (\(tag.tracks))"
                        if let width, line.count + text.count > width - 2 {
                            line += index == 0 ? text.fitted(to: Swift.max(1, width - line.count)) : ", …"
                            break
                        }
                        line += text
                    }
                    lines.append(line)
                }
            }
            return lines.joined(separator: "\n")
        }
    }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
