import ArgumentParser
import Features
import Foundation
import Ingest
import VibesCommandSupport

extension VibesAnalyze {
    /// `vibes-analyze playlists [show NAME]`: the person's playlists and the vibes they hold.
    struct Playlists: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "playlists",
            abstract: "List your playlists with their size, feature coverage and vibes, or show one.",
            discussion: """
                Vibes are those of the latest clustering run of the whole library (see `vibes --list`). \
                A playlist is named as imported, by its Spotify ID, or by the start of its name: case, \
                accents and spaces do not matter.

                Example: vibes-analyze playlists show "bath time"
                """,
            subcommands: [List.self, Show.self],
            defaultSubcommand: List.self
        )
    }
}

extension VibesAnalyze.Playlists {
    /// `vibes-analyze playlists` (`list`): every playlist.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List your playlists: tracks, audio-feature coverage and dominant vibes.",
            discussion: "Example: vibes-analyze playlists list --json"
        )

        @OptionGroup var global: GlobalOptions
        @OptionGroup var layout: TableOptions

        func run() async throws {
            let store = try global.openStore()
            let runID = try store.currentClusteringRunID()
            let playlists = try store.playlistOverviews(vibesOf: runID)
            if global.json {
                try Console.printJSON(Output(runID: runID, playlists: playlists))
            } else {
                print(Self.describe(playlists, runID: runID, width: layout.width))
            }
        }

        /// The `--json` output.
        struct Output: Encodable {
            var runID: Int64?
            var playlists: [PlaylistOverview]

            enum CodingKeys: String, CodingKey {
                case runID = "run_id"
                case playlists
            }
        }

        /// The list as a table; on a terminal of `width` columns, names and vibes are cut with "…".
        static func describe(_ playlists: [PlaylistOverview], runID: Int64?, width: Int?) -> String {
            guard !playlists.isEmpty else {
                return
                    "No playlists yet: import an Exportify CSV or a Spotify Playlist*.json, or run `sync --playlists`."
            }
            let names = playlists.map { TerminalText.singleLine($0.name) }
            let nameWidth = Swift.min(
                Swift.max(8, names.map(\.count).max() ?? 0),
                width.map { Swift.max(12, $0 / 3) } ?? .max
            )
            var lines = [
                "Playlist".padding(toLength: nameWidth, withPad: " ", startingAt: 0) + "  Tracks  Features  "
                    + (runID.map { "Vibes (run \($0))" } ?? "Vibes")
            ]
            for (playlist, name) in zip(playlists, names) {
                let clustered = playlist.vibes.reduce(0) { $0 + $1.tracks }
                let vibes = playlist.vibes.prefix(2).map { vibe in
                    "\(vibe.number) \(TerminalText.singleLine(vibe.name)) \(percent(vibe.tracks, of: clustered))"
                }
                let line =
                    name.fitted(to: nameWidth).padding(toLength: nameWidth, withPad: " ", startingAt: 0)
                    + "  " + "\(playlist.trackCount)".leftPadded(6)
                    + "  " + percent(playlist.tracksWithFeatures, of: playlist.trackCount).leftPadded(8)
                    + "  " + (vibes.isEmpty ? "–" : vibes.joined(separator: ", "))
                lines.append(line.fitted(to: width))
            }
            if runID == nil {
                lines.append("(no vibes yet: `vibes-analyze cluster` finds them)")
            }
            return lines.joined(separator: "\n")
        }
    }

    /// `vibes-analyze playlists show NAME`: one playlist's vibes, features and tracks.
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show a playlist: its vibe breakdown, a summary of its features, and its tracks.",
            discussion: "Example: vibes-analyze playlists show bath"
        )

        @OptionGroup var global: GlobalOptions
        @OptionGroup var layout: TableOptions

        @Argument(help: "The playlist: its name, the start of it, or its Spotify ID.")
        var name: String

        func run() async throws {
            let store = try global.openStore()
            let detail = try describingScope {
                try store.playlistDetail(
                    id: try store.playlistID(matching: name),
                    vibesOf: try store.currentClusteringRunID()
                )
            }
            if global.json {
                try Console.printJSON(Output(detail))
            } else {
                print(Self.describe(detail, width: layout.width))
            }
        }

        /// The features the summary shows, in order, with their digits.
        static let summaryFeatures: [(AudioFeature, Int)] = [
            (.energy, 2), (.valence, 2), (.danceability, 2), (.acousticness, 2), (.instrumentalness, 2),
            (.tempo, 0), (.loudness, 1),
        ]

        static func describe(_ detail: PlaylistDetail, width: Int?) -> String {
            let playlist = detail.overview
            var lines = TerminalWidth.wrap(
                "Playlist '\(TerminalText.singleLine(playlist.name))' (\(playlist.source)): \(playlist.trackCount) tracks, "
                    + "\(playlist.tracksWithFeatures) with audio features (\(percent(playlist.tracksWithFeatures, of: playlist.trackCount))).",
                to: width
            )
            lines.append("")
            if let runID = detail.runID {
                let clustered = playlist.vibes.reduce(0) { $0 + $1.tracks }
                lines.append("Vibes (run \(runID), \(clustered) of its tracks):")
                let nameWidth = Swift.min(
                    Swift.max(4, playlist.vibes.map { TerminalText.singleLine($0.name).count }.max() ?? 0),
                    width.map { Swift.max(8, $0 - 24) } ?? .max
                )
                lines.append(
                    "   #  " + "Vibe".padding(toLength: nameWidth, withPad: " ", startingAt: 0) + "  Tracks  Share"
                )
                for vibe in playlist.vibes {
                    let name = TerminalText.singleLine(vibe.name).fitted(to: nameWidth)
                    lines.append(
                        "\(vibe.number)".leftPadded(4) + "  "
                            + name.padding(toLength: nameWidth, withPad: " ", startingAt: 0)
                            + "  " + "\(vibe.tracks)".leftPadded(6) + "  "
                            + percent(vibe.tracks, of: clustered).leftPadded(5)
                    )
                }
            } else {
                lines.append("Vibes: none yet; `vibes-analyze cluster` finds them.")
            }
            lines.append("")
            if playlist.tracksWithFeatures > 0 {
                let means = summaryFeatures.compactMap { feature, digits in
                    detail.featureMeans[feature].map { "\(feature.rawValue) \(String(format: "%.\(digits)f", $0))" }
                }
                lines += TerminalWidth.wrap(
                    "Features (mean of \(playlist.tracksWithFeatures) tracks): " + means.joined(separator: ", "),
                    to: width,
                    indent: "  "
                )
                lines.append("")
            }
            lines.append("Tracks:")
            let numberWidth = "\(detail.entries.count)".count
            for entry in detail.entries {
                let artists = entry.track.artists.isEmpty ? "" : entry.track.artists.joined(separator: ", ") + " – "
                let tag = entry.vibe.map { "  [vibe \($0)]" } ?? (entry.hasFeatures ? "" : "  [no features]")
                let number = "\(entry.position + 1)".leftPadded(numberWidth + 2)
                let text = TerminalText.singleLine(artists + entry.track.name)
                if let width {
                    lines.append(
                        number + "  " + text.fitted(to: Swift.max(8, width - number.count - 2 - tag.count)) + tag
                    )
                } else {
                    lines.append(number + "  " + text + tag)
                }
            }
            return lines.joined(separator: "\n")
        }

        /// The `--json` output.
        struct Output: Encodable {
            struct Entry: Encodable {
                var position: Int
                var trackID: Int64
                var spotifyID: String?
                var name: String
                var artists: [String]
                var album: String?
                var durationMS: Int?
                var hasFeatures: Bool
                var vibe: Int?

                enum CodingKeys: String, CodingKey {
                    case position, name, artists, album, vibe
                    case trackID = "track_id"
                    case spotifyID = "spotify_id"
                    case durationMS = "duration_ms"
                    case hasFeatures = "has_features"
                }
            }

            var playlist: PlaylistOverview
            var runID: Int64?
            var featureMeans: [String: Double]
            var tracks: [Entry]

            enum CodingKeys: String, CodingKey {
                case playlist, tracks
                case runID = "run_id"
                case featureMeans = "feature_means"
            }

            init(_ detail: PlaylistDetail) {
                playlist = detail.overview
                runID = detail.runID
                featureMeans = Dictionary(uniqueKeysWithValues: detail.featureMeans.map { ($0.key.rawValue, $0.value) })
                tracks = detail.entries.map { entry in
                    Entry(
                        position: entry.position,
                        trackID: entry.track.id,
                        spotifyID: entry.track.spotifyID,
                        name: entry.track.name,
                        artists: entry.track.artists,
                        album: entry.track.album,
                        durationMS: entry.track.durationMS,
                        hasFeatures: entry.hasFeatures,
                        vibe: entry.vibe
                    )
                }
            }
        }
    }
}

/// `part` of `whole` as a whole percentage ("98%"); "–" of nothing.
private func percent(_ part: Int, of whole: Int) -> String {
    whole == 0 ? "–" : String(format: "%.0f%%", Double(part) * 100 / Double(whole))
}
