import ArgumentParser
import Foundation
import Ingest
import Synchronization
import VibesCommandSupport
import VibesEngine
import VibesHTTP

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

                Spotify counts requests against a quota shared by every app of a developer account. \
                --plan says how many requests the sync needs (it sends a few itself: the first page of \
                saved tracks and the playlist list) and syncs nothing; --max-requests N stops cleanly \
                after N requests, keeping everything fetched, and the next sync resumes there. When \
                the quota runs out (429 QUOTA_EXCEEDED) the sync stops at once and says when it \
                resets.

                Example: vibes-analyze sync --playlists
                Example: vibes-analyze sync --plan
                Example: vibes-analyze sync --max-requests 200
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

        @Flag(name: .long, help: "Say how many requests the sync needs, and sync nothing.")
        var plan = false

        @Flag(
            name: .long,
            help: "After the sync, build every playlist recipe again and update the pushed ones on Spotify."
        )
        var refreshRecipes = false

        @Option(
            name: .customLong("max-requests"),
            help: "Stop cleanly after this many requests to Spotify, keeping what was fetched; the next sync resumes."
        )
        var maxRequests: Int?

        func validate() throws {
            if let maxRequests, maxRequests < 1 {
                throw ValidationError("Please give --max-requests of at least 1 (got \(maxRequests)).")
            }
        }

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
                let (client, _) = try spotify.makeClient(quiet: global.quiet, requestBudget: plan ? nil : maxRequests)
                let store = try global.openStore(activity: "sync", createsMissingStore: true)
                if plan {
                    let planned = try await SpotifySync(client: client, store: store)
                        .plan(parts, recheckAudioFeatures: recheckAudioFeatures)
                    if global.json {
                        try Console.printJSON(planned)
                    } else {
                        print(Self.describe(planned))
                    }
                    return
                }
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
                var report = try await sync.run(parts, recheckAudioFeatures: recheckAudioFeatures)
                bar.withLock { $0?.finish() }
                // So that the next command reads the library, and its similarity blocks, in one go.
                store.prepareAllSnapshots()
                var recipesFailed = false
                if refreshRecipes {
                    report.refreshedRecipes = []
                    for recipe in try store.recipes() {
                        do {
                            let outcome = try await VibesAnalyze.PlaylistCommand.Recipe.Runner.run(
                                recipe,
                                store: store,
                                spotify: spotify,
                                push: false,
                                quiet: quiet
                            )
                            report.refreshedRecipes?.append(recipe.name)
                            if !quiet { Console.diagnostic(outcome.line) }
                        } catch {
                            recipesFailed = true
                            Console.diagnostic("Error: recipe \(recipe.name): \(Console.message(for: error))")
                        }
                    }
                }
                if global.json {
                    try Console.printJSON(report)
                } else {
                    print(Self.summary(of: report))
                }
                // 0 when every requested part landed, 1 when any part failed (the summary names it).
                if !report.failedParts.isEmpty || recipesFailed { throw ExitCode.failure }
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
                networking: ClientNetworking(
                    network: URLSessionTransport(timeout: SpotifyOptions.requestTimeout),
                    retryPolicy: RetryPolicy(maxAttempts: 4),
                    onRetry: { event in
                        guard !quiet else { return }
                        Console.diagnostic(
                            SpotifyOptions.describe(event).replacingOccurrences(of: "Spotify", with: "ReccoBeats")
                        )
                    }
                )
            )
        }

        /// The plan as lines: the total, then each part.
        static func describe(_ plan: SpotifySync.Plan) -> String {
            let total = "\(plan.exact ? "" : "at least ")\(plan.requests) request\(plan.requests == 1 ? "" : "s")"
            var lines = [
                "This sync needs \(total) to Spotify (planning it took \(plan.planningRequests)):"
            ]
            for part in plan.parts {
                let count = "\(part.exact ? "" : "≥")\(part.requests)"
                lines.append(
                    "  \((part.part + ":").padding(toLength: 11, withPad: " ", startingAt: 0)) \(count.leftPadded(5))  \(part.detail)"
                )
            }
            lines.append(
                "Spotify counts every request against the developer account's quota; `--max-requests N` stops at a budget."
            )
            return lines.joined(separator: "\n")
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
            if report.budgetReached {
                lines[0] =
                    "Synced part of the library from Spotify with \(report.requests) request\(report.requests == 1 ? "" : "s") (the budget):"
            }
            lines += report.notes.map { "Note: \($0)" }
            lines += report.failedParts.map { "Failed: \($0.part): \($0.reason)" }
            return lines.joined(separator: "\n")
        }
    }
}
