import ArgumentParser
import Foundation
import Ingest
import Synchronization
import VibesCommandSupport

extension VibesAnalyze {
    /// `vibes-analyze sync`: copy the Spotify library into the store.
    struct Sync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sync",
            abstract:
                "Copy your Spotify library into the store and fetch its audio features: saved tracks, playlists, top items, recent plays, genres.",
            discussion: """
                The sync is incremental: it fetches only tracks saved since the last sync and playlists \
                whose snapshot changed. It saves its place after every page, so a sync stopped by a rate \
                limit or Ctrl-C resumes where it stopped. Audio features for library tracks that lack \
                them come from Spotify's legacy /audio-features while it serves this app (apps created \
                after 2024-11-27 get 403, remembered), then from ReccoBeats, which serves Spotify's own \
                values by Spotify ID or ISRC. If ReccoBeats is unreachable the library still lands; \
                `vibes-analyze features fetch` retries. With no part selected, everything is synced. \
                Each part fails alone: the exit status is 0 when every requested part landed and 1 when \
                any failed, and the summary names the failed parts.

                Example: vibes-analyze sync --playlists
                """
        )

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

        @Flag(name: .long, help: "Sync the genres of your tracks' artists (stored as artist-genre tags).")
        var genres = false

        @Flag(name: .long, help: "Fetch audio features for library tracks that lack them (Spotify, then ReccoBeats).")
        var audioFeatures = false

        @Flag(name: .long, help: "Do not ask ReccoBeats for audio features.")
        var noReccobeats = false

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
            if genres { parts.insert(.genres) }
            if audioFeatures || recheckAudioFeatures { parts.insert(.audioFeatures) }
            return all || parts.isEmpty ? .all : parts
        }

        func run() async throws {
            try await reportingSpotifyErrors {
                let (client, _) = try spotify.makeClient(quiet: global.quiet)
                let store = try global.openStore(activity: "sync", createsMissingStore: true)
                let quiet = global.quiet
                let providers: [any FeatureProvider] =
                    noReccobeats ? [] : [ReccoBeatsProvider(client: Self.makeReccoBeatsClient(quiet: quiet))]
                var sync = SpotifySync(client: client, store: store, featureProviders: providers) { line in
                    if !quiet { Console.diagnostic(line) }
                }
                let bar = Mutex<ProgressBar?>(nil)
                if Console.stderrIsTerminal && !quiet {
                    sync.featureProgress = { step in
                        bar.withLock { current in
                            if current?.label != step.provider {
                                current?.finish()
                                current = ProgressBar(label: "Features from \(step.provider)", quiet: quiet)
                            }
                            current?.update(done: step.done, total: step.total)
                        }
                    }
                }
                let report = try await sync.run(parts, recheckAudioFeatures: recheckAudioFeatures)
                bar.withLock { $0?.finish() }
                try? store.prepareSnapshots()  // so the next command reads the library in one go
                if global.json {
                    try Console.printJSON(report)
                } else {
                    print(Self.summary(of: report))
                }
                // 0 when every requested part landed, 1 when any part failed (the summary names it).
                if !report.failedParts.isEmpty { throw ExitCode.failure }
            }
        }

        /// `features: 1,180 of 1,240 fetched (reccobeats 1,180)`, or why none were.
        static func featuresLine(_ report: FeatureFetchReport, legacyForbidden: Bool) -> String {
            var text = "\(report.fetched) of \(report.candidates) fetched"
            let found = report.providers.filter { $0.found > 0 }.map { "\($0.source) \($0.found)" }
            if !found.isEmpty { text += " (" + found.joined(separator: ", ") + ")" }
            if legacyForbidden { text += "; Spotify's /audio-features is closed to this app" }
            for failure in report.failures {
                let what = failure.unreachable ? "\(failure.name) unreachable" : "\(failure.name) stopped"
                text +=
                    " — \(what) (\(failure.failure ?? "")); \(report.remaining) tracks remain, run `vibes-analyze features fetch` to retry"
            }
            if report.failures.isEmpty && report.remaining > 0 {
                text += "; \(report.remaining) still missing (`vibes-analyze features status` says why)"
            }
            return text
        }

        /// A ReccoBeats client at `$VIBES_RECCOBEATS_API_URL` (else production) that reports its
        /// retry waits on stderr.
        static func makeReccoBeatsClient(quiet: Bool) -> ReccoBeatsClient {
            // Four attempts, not six: a keyless third-party service that is down should not hold
            // up a sync for long; `features fetch` retries later.
            ReccoBeatsClient(
                baseURL: ReccoBeatsClient.baseURL(),
                network: URLSessionTransport(timeout: SpotifyOptions.requestTimeout),
                retryPolicy: RetryPolicy(maxAttempts: 4),
                onRetry: { event in
                    guard !quiet else { return }
                    Console.diagnostic(
                        SpotifyOptions.describe(event).replacingOccurrences(of: "Spotify", with: "ReccoBeats")
                    )
                }
            )
        }

        static func summary(of report: SpotifySync.Report) -> String {
            var lines = [
                "Synced from Spotify with \(report.requests) request\(report.requests == 1 ? "" : "s"):",
                "  Saved tracks:    \(report.savedTracksAdded) new",
                "  Playlists:       \(report.playlistsUpdated) updated, \(report.playlistsUnchanged) unchanged, \(report.playlistsSkipped.count) skipped (\(report.playlistItemsWritten) items)",
                "  Top items:       \(report.topTracks) tracks, \(report.topArtists) artists",
                "  Recent plays:    \(report.playsAdded) new",
                "  New tracks:      \(report.tracksNew)",
            ]
            if report.artistsWithGenres + report.genreTagsAdded > 0 {
                lines.append(
                    "  Genres:          \(report.artistsWithGenres) artists, \(report.genreTagsAdded) track tags added"
                )
            }
            if let features = report.features {
                lines.append(
                    "  Audio features:  " + featuresLine(features, legacyForbidden: report.audioFeaturesForbidden)
                )
            }
            if report.localFiles + report.episodesSkipped + report.removedSkipped > 0 {
                lines.append(
                    "  Kept by name only: \(report.localFiles) local files; skipped: \(report.episodesSkipped) episodes, \(report.removedSkipped) removed tracks"
                )
            }
            lines += report.notes.map { "Note: \($0)" }
            lines += report.failedParts.map { "Failed: \($0.part): \($0.reason)" }
            return lines.joined(separator: "\n")
        }
    }
}
