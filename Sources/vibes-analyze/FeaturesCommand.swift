import ArgumentParser
import Features
import Foundation
import Ingest
import SpotifyWebAPI
import Synchronization
import VibesCommandSupport
import VibesEngine

/// `vibes-analyze features`: where the library's audio features come from, and filling the gaps.
struct FeaturesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "features",
        abstract: "Show where your tracks' audio features come from, and fetch the missing ones.",
        discussion: """
            Features come from a chain of sources, and every stored value keeps its source: files you \
            import (Exportify, Kaggle, tidytuesday, saved ReccoBeats answers), Spotify's legacy \
            /audio-features endpoint for apps that still have it, and ReccoBeats, which serves Spotify's \
            own values by Spotify ID or ISRC. When a track has values from several sources, the \
            precedence decides which one analyses use.

            Example: vibes-analyze features status
            """,
        subcommands: [Status.self, Fetch.self, Precedence.self]
    )
}

extension FeaturesCommand {
    /// `features status`.
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "Show feature coverage per source and per playlist, and what is missing and why.",
            discussion: "Example: vibes-analyze features status --playlist \"Road trip\""
        )

        @OptionGroup var global: GlobalOptions
        @OptionGroup(title: "Scope") var scope: PlaylistScopeOptions

        @Option(
            name: .customLong("from"),
            help: "Your library (the default), or the library and the reference pool (all)."
        )
        var pool: CandidatePool = .library

        init() {}

        func run() async throws {
            let store = try global.openStore(activity: "features")
            let status = try describingScope { try store.featureStatus(scope: scope.scope(from: pool)) }
            if global.json {
                try Console.printJSON(status)
            } else {
                print(Self.describe(status))
            }
        }

        static func describe(_ status: FeatureStatus) -> String {
            func percent(_ part: Int, _ whole: Int) -> String {
                whole == 0 ? "0.0%" : String(format: "%.1f%%", Double(part) * 100 / Double(whole))
            }
            var lines = [
                "Audio features: \(status.withFeatures) of \(status.tracks) tracks (\(percent(status.withFeatures, status.tracks)))"
            ]
            if !status.sources.isEmpty {
                lines.append("")
                lines.append("By source (precedence \(status.precedence)):")
                for source in status.sources {
                    lines.append(
                        "  \(source.source.padding(toLength: 24, withPad: " ", startingAt: 0)) \(String(source.tracks).leftPadded(7)) tracks  \(String(source.preferred).leftPadded(7)) used"
                    )
                }
            }
            let missing = status.missing
            if missing.total > 0 {
                lines.append("")
                lines.append("Missing: \(missing.total) tracks")
                lines.append(
                    "  not found at a provider  \(String(missing.notFound).leftPadded(7))   asked again after 30 days, or now with `features fetch --refresh`"
                )
                lines.append(
                    "  pending                  \(String(missing.pending).leftPadded(7))   `features fetch` or `sync` asks for them"
                )
                lines.append(
                    "  no Spotify ID or ISRC    \(String(missing.noID).leftPadded(7))   no provider can look them up"
                )
                lines.append(
                    "  local files (no source)  \(String(missing.noSource).leftPadded(7))   `analyze` measures your audio files"
                )
                for source in status.notFound {
                    let day = source.lastAsked.prefix(10)
                    lines.append("  not found at \(source.source) (last asked \(day)): \(source.tracks)")
                }
            }
            if let calibration = status.calibration {
                lines.append("")
                lines.append(contentsOf: calibration.describedLines)
            }
            if !status.playlists.isEmpty {
                lines.append("")
                lines.append("By playlist:")
                for playlist in status.playlists.prefix(30) {
                    let name = playlist.name.count > 36 ? String(playlist.name.prefix(35)) + "…" : playlist.name
                    lines.append(
                        "  \(name.padding(toLength: 36, withPad: " ", startingAt: 0)) \(String(playlist.withFeatures).leftPadded(6)) of \(String(playlist.tracks).leftPadded(6))  \(percent(playlist.withFeatures, playlist.tracks).leftPadded(6))"
                    )
                }
                if status.playlists.count > 30 {
                    lines.append("  … and \(status.playlists.count - 30) more (--json lists all)")
                }
            }
            return lines.joined(separator: "\n")
        }
    }

    /// The sources `features fetch` can ask.
    enum SourceChoice: String, ExpressibleByArgument, CaseIterable {
        case spotify, reccobeats
    }

    /// `features fetch`.
    struct Fetch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "fetch",
            abstract: "Fetch audio features for library tracks that lack them.",
            discussion: """
                Asks the sources in order for every library track without features: Spotify's legacy \
                /audio-features (only when you are signed in and it has not refused this app), then \
                ReccoBeats. A track a source does not know is remembered and not asked again for 30 days \
                unless --refresh is given. Each batch is saved as it arrives, so Ctrl-C keeps what was \
                fetched and a re-run resumes. ReccoBeats is reached at $VIBES_RECCOBEATS_API_URL when set.

                Example: vibes-analyze features fetch --playlist "Road trip"
                """
        )

        @OptionGroup var global: GlobalOptions
        @OptionGroup var spotify: SpotifyOptions
        @OptionGroup(title: "Scope") var scope: PlaylistScopeOptions

        @Option(name: .long, help: "Ask only this source: spotify or reccobeats. Repeatable; all by default.")
        var source: [SourceChoice] = []

        @Flag(name: .long, help: "Ask again for tracks a source did not know, however recently it was asked.")
        var refresh = false

        init() {}

        func run() async throws {
            let store = try global.openStore(activity: "features")
            let quiet = global.quiet
            let chosen = source.isEmpty ? SourceChoice.allCases : source
            var providers: [any FeatureProvider] = []
            var notes: [String] = []
            if chosen.contains(.spotify) {
                do {
                    let (client, tokens) = try spotify.makeClient(quiet: quiet)
                    if try await tokens.session() != nil {
                        providers.append(SpotifyAudioFeaturesProvider(client: client, store: store))
                    } else if source.contains(.spotify) {
                        throw SpotifyError.notSignedIn
                    }
                } catch let error as SpotifyError where !source.contains(.spotify) {
                    notes.append("Spotify's /audio-features not asked (\(error)).")
                }
            }
            if chosen.contains(.reccobeats) {
                providers.append(ReccoBeatsProvider(client: VibesAnalyze.Sync.makeReccoBeatsClient(quiet: quiet)))
            }
            var options = FeatureChain.Options(scope: scope.scope(from: .library), refresh: refresh)
            if source.count == 1 { options.onlyMissingFrom = source[0] == .spotify ? .spotifyAPI : .reccoBeats }
            let bar = Mutex<ProgressBar?>(nil)
            let chain = FeatureChain(
                store: store,
                providers: providers,
                progress: { step in
                    bar.withLock { current in
                        if current?.label != step.provider { current = ProgressBar(label: step.provider, quiet: quiet) }
                        current?.update(done: step.done, total: step.total)
                    }
                }
            )
            let report: FeatureFetchReport
            do {
                report = try await describingScope { try await chain.run(options) }
            } catch let error as SpotifyError {
                bar.withLock { $0?.finish() }
                Console.diagnostic("Error: " + SpotifyAdvice.message(for: error))
                throw ExitCode.failure
            }
            bar.withLock { $0?.finish() }
            if !quiet {
                for note in notes { Console.diagnostic("Note: \(note)") }
            }
            if global.json {
                try Console.printJSON(report)
            } else {
                print(Self.summary(of: report))
            }
            if !report.failures.isEmpty { throw ExitCode.failure }
        }

        static func summary(of report: FeatureFetchReport) -> String {
            var lines = [
                "Features: \(report.fetched) of \(report.candidates) fetched; \(report.remaining) still missing."
            ]
            for outcome in report.providers {
                var text = "  \(outcome.name): "
                if let reason = outcome.skippedBecause, outcome.asked == 0 {
                    text += "not asked (\(reason))"
                } else {
                    text += "\(outcome.found) found, \(outcome.notFound) not found"
                    if outcome.matchedByISRC > 0 { text += " (\(outcome.matchedByISRC) by ISRC)" }
                    if outcome.rememberedNotFound > 0 {
                        text += ", \(outcome.rememberedNotFound) skipped (not found recently; --refresh asks anyway)"
                    }
                    if outcome.ignoredItems > 0 { text += ", \(outcome.ignoredItems) unrequested items ignored" }
                    text += ", \(outcome.requests) request\(outcome.requests == 1 ? "" : "s")"
                }
                lines.append(text)
                if let failure = outcome.failure {
                    lines.append(
                        "  \(outcome.name) stopped: \(failure) What was fetched is saved; run `vibes-analyze features fetch` to continue."
                    )
                }
            }
            return lines.joined(separator: "\n")
        }
    }

    /// `features precedence`.
    struct Precedence: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "precedence",
            abstract: "Show or set which source wins when a track has features from several.",
            discussion: """
                The order is a list of sources, best first: spotify-api (the legacy endpoint), export \
                (Exportify, saved Spotify JSON), reccobeats, dataset (Kaggle, tidytuesday) and local. \
                Join sources with '=' to rank them equally; the most recently fetched then wins. The \
                default is spotify-api=export=reccobeats,dataset,local.

                Example: vibes-analyze features precedence reccobeats,spotify-api=export,dataset,local
                """
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The new order; omit it to show the current one.")
        var order: String?

        @Flag(name: .long, help: "Go back to the default order.")
        var reset = false

        init() {}

        func validate() throws {
            if let order {
                do {
                    _ = try FeatureSourcePrecedence(parsing: order)
                } catch let error as FeatureSourcePrecedenceError {
                    throw ValidationError(error.description)
                }
            }
            if reset && order != nil { throw ValidationError("Please give either an order or --reset, not both.") }
        }

        func run() async throws {
            let store = try global.openStore(activity: "features", createsMissingStore: order != nil || reset)
            if reset {
                try store.setFeatureSourcePrecedence(.default)
            } else if let order {
                try store.setFeatureSourcePrecedence(try FeatureSourcePrecedence(parsing: order))
            }
            let current = try store.featureSourcePrecedence()
            if global.json {
                try Console.printJSON(["precedence": current.description])
            } else {
                print("Feature source precedence: \(current)")
            }
        }
    }
}
