import ArgumentParser
import Foundation
import Ingest
import VibesCommandSupport

extension VibesAnalyze {
    struct Library: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show what the library holds: tracks, feature coverage by feature and source, history, top tags."
        )

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            var timer = PhaseTimer(isEnabled: global.timings)
            let store = try global.openStore()
            timer.lap("open")
            let summary = try store.summary()
            timer.lap("load")
            if global.json {
                try Console.printJSON(summary)
            } else {
                print(Library.describe(summary))
            }
            timer.lap("render")
            timer.report()
        }

        static func describe(_ summary: LibrarySummary) -> String {
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
                    lines.append("  \(kind): " + tags.map { "\($0.value) (\($0.tracks))" }.joined(separator: ", "))
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
