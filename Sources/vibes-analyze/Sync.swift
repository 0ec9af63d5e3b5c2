import ArgumentParser
import Foundation
import Ingest

extension VibesAnalyze {
    /// `vibes-analyze sync`: copy the Spotify library into the store.
    struct Sync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Copy your Spotify library into the store: saved tracks, playlists, top items, recent plays.",
            discussion: """
                The sync is incremental: it fetches only tracks saved since the last sync and playlists \
                whose snapshot changed. It saves its place after every page, so a sync stopped by a rate \
                limit or Ctrl-C resumes where it stopped. Audio features are asked for only where \
                Spotify still serves them; apps created after 2024-11-27 get 403, and the sync then \
                points to `vibes-analyze import` for feature files. With no part selected, everything \
                is synced.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var spotify: SpotifyOptions

        @Flag(name: .long, help: "Sync saved tracks (Liked Songs).")
        var saved = false

        @Flag(name: .long, help: "Sync your playlists and their items.")
        var playlists = false

        @Flag(name: .long, help: "Sync top tracks and artists for the last 4 weeks, 6 months and year.")
        var top = false

        @Flag(name: .long, help: "Sync recently played tracks (Spotify keeps the last 50).")
        var recent = false

        @Flag(name: .long, help: "Fetch audio features for tracks that lack them, where Spotify still allows it.")
        var audioFeatures = false

        @Flag(name: .long, help: "Sync everything (the default when no part is selected).")
        var all = false

        @Flag(name: .long, help: "Ask for audio features even though this client ID was refused before.")
        var recheckAudioFeatures = false

        /// The parts the flags select.
        var parts: SpotifySync.Parts {
            var parts: SpotifySync.Parts = []
            if saved { parts.insert(.savedTracks) }
            if playlists { parts.insert(.playlists) }
            if top { parts.insert(.top) }
            if recent { parts.insert(.recentlyPlayed) }
            if audioFeatures || recheckAudioFeatures { parts.insert(.audioFeatures) }
            return all || parts.isEmpty ? .all : parts
        }

        func run() async throws {
            try await reportingSpotifyErrors {
                let (client, _) = try spotify.makeClient(quiet: global.quiet)
                let store = try global.openStore()
                let quiet = global.quiet
                let sync = SpotifySync(client: client, store: store) { line in
                    if !quiet { Console.diagnostic(line) }
                }
                let report = try await sync.run(parts, recheckAudioFeatures: recheckAudioFeatures)
                if global.json {
                    try Console.printJSON(report)
                } else {
                    print(Self.summary(of: report))
                }
            }
        }

        static func summary(of report: SpotifySync.Report) -> String {
            var lines = [
                "Synced from Spotify with \(report.requests) request\(report.requests == 1 ? "" : "s"):",
                "  Saved tracks:    \(report.savedTracksAdded) new",
                "  Playlists:       \(report.playlistsUpdated) updated, \(report.playlistsUnchanged) unchanged, \(report.playlistsSkipped.count) skipped (\(report.playlistItemsWritten) items)",
                "  Top items:       \(report.topTracks) tracks, \(report.topArtists) artists",
                "  Recent plays:    \(report.playsAdded) new",
                "  Audio features:  "
                    + (report.audioFeaturesForbidden
                        ? "not available to this app" : "\(report.audioFeaturesWritten) tracks"),
                "  New tracks:      \(report.tracksNew)",
            ]
            if report.localFiles + report.episodesSkipped + report.removedSkipped > 0 {
                lines.append(
                    "  Kept by name only: \(report.localFiles) local files; skipped: \(report.episodesSkipped) episodes, \(report.removedSkipped) removed tracks"
                )
            }
            lines += report.notes.map { "Note: \($0)" }
            return lines.joined(separator: "\n")
        }
    }
}
