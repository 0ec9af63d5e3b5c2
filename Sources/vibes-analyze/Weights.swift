import Analytics
import ArgumentParser
import Features
import Ingest
import VibesCommandSupport
import VibesEngine

extension VibesAnalyze {
    /// `vibes-analyze weights`: personal similarity weights learned from the user's playlists.
    struct Weights: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "weights",
            abstract: "Learn, show or clear personal similarity weights learned from your playlists.",
            discussion: """
                `weights learn` chooses the weight of every block of the similarity (the artist context, \
                the same artist, the genre tags and playlist co-membership) that maximises same-playlist \
                precision@10 over your imported playlists (catch-alls left out; at least 5 playlists of 5 \
                tracks with features), by folds of playlists: co-membership is built from the other folds \
                only, and the weights are graded against the defaults on folds they were not chosen on. \
                It stores them. `recommend`, `playlist build` and \
                `cluster` then use them unless given --no-personal.

                Example: vibes-analyze weights learn
                """,
            subcommands: [Learn.self, Show.self, Clear.self]
        )
    }
}

extension VibesAnalyze.Weights {
    struct Learn: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "learn",
            abstract: "Learn personal weights from the imported playlists and store them.",
            discussion: "Example: vibes-analyze weights learn --seed 7"
        )

        @OptionGroup var global: GlobalOptions

        @Option(name: .long, help: "The random seed for the folds, the query sample and the bootstrap.")
        var seed: UInt64 = 42

        func run() async throws {
            let store = try global.openStore()
            let report: WeightsReport
            do {
                // On a terminal only, and never under --json.
                let bar = ProgressBar(label: "Learning weights (queries)", quiet: global.quiet || global.json)
                let outcome = try store.learnPersonalWeights(seed: seed) { done, total in
                    bar.update(done: done, total: total)
                }
                bar.finish()
                report = WeightsReport(
                    weights: outcome.weights,
                    isPersonal: true,
                    heldOut: outcome.heldOut(seed: seed)
                )
            } catch let error as AnalyticsError {
                guard case .tooFewPlaylists = error else { throw error }
                Console.diagnostic(
                    "\(error) Import more playlists (an Exportify export, or `vibes-analyze sync`) and run `vibes-analyze weights learn` again."
                )
                throw ExitCode.failure
            }
            if global.json { try Console.printJSON(report) } else { print(report.text) }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show the weights in use: personal or default.",
            discussion: "Example: vibes-analyze weights show --json"
        )

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let store = try global.openStore()
            let personal = try store.personalWeights()
            let report = WeightsReport(weights: personal ?? .default, isPersonal: personal != nil, heldOut: nil)
            if global.json { try Console.printJSON(report) } else { print(report.text) }
        }
    }

    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "clear",
            abstract: "Forget the personal weights; the defaults apply.",
            discussion: "Example: vibes-analyze weights clear"
        )

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let store = try global.openStore()
            let cleared = try store.clearPersonalWeights()
            print(cleared ? "Cleared the personal weights; the defaults apply." : "There were no personal weights.")
        }
    }
}

/// What `weights learn` and `weights show` print.
struct WeightsReport: Codable {
    var weights: SimilarityWeights
    /// Whether the weights are the store's personal ones rather than the defaults.
    var isPersonal: Bool
    /// With `learn`: the defaults against weights learned without the held-out playlists.
    var heldOut: HeldOutPlaylists?

    enum CodingKeys: String, CodingKey {
        case weights
        case isPersonal = "personal"
        case heldOut = "held_out_playlists"
    }

    var text: String {
        var lines = [
            isPersonal
                ? "Personal weights (learned from your playlists):" : "Default weights (no personal weights stored):"
        ]
        for feature in FeatureSchema.default.features {
            lines.append("  \(feature.rawValue.padding(to: 18)) \(weights.factor(of: feature).formatted(digits: 2))")
        }
        for feature in weights.features.keys.sorted(by: { $0.rawValue < $1.rawValue })
        where !FeatureSchema.default.features.contains(feature) {
            lines.append("  \(feature.rawValue.padding(to: 18)) \(weights.factor(of: feature).formatted(digits: 2))")
        }
        lines.append("  \("artist context".padding(to: 18)) \(weights.artistContext.formatted(digits: 2))")
        lines.append("  \("genre tags".padding(to: 18)) \(weights.tags.formatted(digits: 2))")
        lines.append("  \("co-membership".padding(to: 18)) \(weights.coMembership.formatted(digits: 2))")
        lines.append("  \("same artist".padding(to: 18)) \(weights.sameArtist.formatted(digits: 2))")
        if let heldOut, let learned = heldOut.variants.first(where: { $0.name.hasPrefix("personal") }) {
            lines.append(
                "held-out playlists (\(heldOut.playlistCount) playlists, \(heldOut.foldCount) folds, \(heldOut.queryCount) queries): precision@\(heldOut.k) default \(heldOut.defaultPrecision.formatted(digits: 4)), learned \(learned.precision.formatted(digits: 4)), difference \(learned.difference.summary) (paired bootstrap 95 % CI)"
            )
        }
        return lines.joined(separator: "\n")
    }
}
