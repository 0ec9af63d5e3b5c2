import Analytics
import ArgumentParser
import Features
import Foundation
import Ingest
import SpotifyWebAPI
import VibesCommandSupport
import VibesEngine

extension VibesAnalyze.PlaylistCommand {
    /// `vibes-analyze playlist reorder`.
    struct Reorder: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reorder",
            abstract: "Reorder a Spotify playlist in place so it flows; --undo puts the old order back.",
            discussion: """
                NAME is a playlist of your library that is on Spotify (synced, or pushed by \
                `playlist push`). Its current tracks are read from Spotify and ordered with their \
                audio features: flow (the lowest transition cost over key, tempo, energy and \
                artist), arc (an energy curve, --arc) or path (first and last track stay; the rest walk the straight line \
                between their moods). The new order is written with Spotify's reorder operation, \
                one move per item that changes place (the longest run already in order stays put), \
                so every item keeps its date added and who added it; local files, podcast episodes \
                and tracks Spotify no longer serves keep their positions. Nothing is written if \
                somebody changed the playlist since it was read, and the playlist is read back at \
                the end to confirm the order. The old order is kept in the library, and --undo \
                moves the items back, unless the playlist changed on Spotify since. --rewrite \
                replaces the items instead (fewer requests for a large playlist, but every item is \
                added anew, with today's date and you as the adder).

                Example: vibes-analyze playlist reorder "Road trip" --order arc --arc peak
                """
        )

        enum Mode: String, ExpressibleByArgument, CaseIterable {
            case flow, arc, key, path

            /// The engine's order, with the curve `arc` for `arc`.
            func engineOrder(arc: PlaylistOrdering.Arc) -> PlaylistReorderOrder {
                switch self {
                case .flow: .flow
                case .arc: .arc(arc)
                case .key: .key
                case .path: .path
                }
            }
        }

        @OptionGroup var global: GlobalOptions
        @OptionGroup var spotify: SpotifyOptions

        @Argument(help: "The playlist: its name, or its row or origin key as `library` lists them.")
        var name: String

        @Option(help: "The order: flow, arc, key (round the Camelot wheel) or path.")
        var order: Mode = .flow

        @Option(
            help:
                "The energy curve for --order arc: flat, rising, peak, falling, or energies evenly spread over the playlist, such as 0.2,0.8,0.4."
        )
        var arc: PlaylistOrdering.Arc = .peak

        @Flag(help: "Put back the order the playlist had before its last reorder.")
        var undo = false

        @Flag(
            help:
                "Replace the playlist's items instead of moving them: every item's date added and adder are reset."
        )
        var rewrite = false

        /// Past this many moves, the command says what they cost before it sends them.
        static let manyMoves = 100

        /// What a rewrite resets, said before it starts.
        static let rewriteWarning =
            "--rewrite replaces every item of the playlist: each gets today's date as its date added and you as "
            + "its adder (in a collaborative playlist too), and Spotify's own order history is lost. Without "
            + "--rewrite the items are moved and keep both."

        func run() async throws {
            let store = try global.openStore(activity: "playlist reorder")
            let quiet = global.quiet || global.json
            let reordered = try await reportingSpotifyErrors {
                try await describingScope {
                    try await store.reorderPlaylist(
                        named: name,
                        order: order.engineOrder(arc: arc),
                        undo: undo,
                        rewrite: rewrite,
                        makeClient: { try spotify.makeClient(quiet: global.quiet).0 },
                        events: { event in
                            switch event {
                            case .connected:
                                if rewrite { Console.diagnostic("Note: " + Self.rewriteWarning) }
                            case .planned(let moves, let rewriteRequests):
                                if !quiet && moves > Self.manyMoves {
                                    Console.diagnostic(
                                        "Note: this order takes \(moves) moves, one request each, counted against the developer "
                                            + "quota; --rewrite would take \(rewriteRequests) but resets every date added."
                                    )
                                }
                            }
                        },
                        progress: { done, total in
                            if !quiet && total >= 20 && (done == total || done % 25 == 0) {
                                Console.diagnostic("Moved \(done) of \(total) items.")
                            }
                        }
                    )
                }
            }
            let result = reordered.result
            if global.json {
                try Console.printJSON(result)
            } else if let scores = reordered.transitionScores {
                let how = order == .arc ? "arc \(arc)" : order.rawValue
                var kept = ""
                if result.otherItems > 0 {
                    kept =
                        " \(result.otherItems) local \(result.otherItems == 1 ? "file, episode or removed track" : "files, episodes or removed tracks") kept \(result.otherItems == 1 ? "its" : "their") place."
                }
                print(
                    "Reordered \(reordered.name) (\(how)): \(result.itemCount) items, " + Self.how(result)
                        + kept
                        + " Transition score \(String(format: "%.3f", scores.before)) → \(String(format: "%.3f", scores.after)). "
                        + "`vibes-analyze playlist reorder \"\(reordered.name)\" --undo` puts the old order back."
                )
            } else {
                print("Put back the earlier order of \(reordered.name): \(result.itemCount) items, " + Self.how(result))
            }
        }

        /// "5 moved with 5 moves; dates added and adders kept, order confirmed."
        static func how(_ result: PlaylistReorderResult) -> String {
            switch result.method {
            case .moves:
                "\(result.moved) moved with \(result.operations) move\(result.operations == 1 ? "" : "s"); "
                    + "dates added and adders kept, order confirmed."
            case .rewrite:
                "rewritten with \(result.operations) request\(result.operations == 1 ? "" : "s") "
                    + "(dates added reset), order confirmed."
            }
        }
    }
}
