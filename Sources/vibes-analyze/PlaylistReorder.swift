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
            let stored = try store.pushablePlaylist(named: name)
            guard let spotifyID = stored.spotifyID else {
                throw CommandFailure(
                    "\(stored.name) is not on Spotify; `vibes-analyze playlist push \"\(stored.name)\"` puts it there."
                )
            }
            try await reportingSpotifyErrors {
                let (client, _) = try spotify.makeClient(quiet: global.quiet)
                if rewrite { Console.diagnostic("Note: " + Self.rewriteWarning) }
                let quiet = global.quiet || global.json
                let progress: @Sendable (Int, Int) -> Void = { done, total in
                    if !quiet && total >= 20 && (done == total || done % 25 == 0) {
                        Console.diagnostic("Moved \(done) of \(total) items.")
                    }
                }
                if undo {
                    let result = try await Self.reporting(stored.name) {
                        try await store.undoReorder(
                            of: spotifyID,
                            name: stored.name,
                            using: client,
                            rewrite: rewrite,
                            progress: progress
                        )
                    }
                    if global.json {
                        try Console.printJSON(result)
                    } else {
                        print(
                            "Put back the earlier order of \(stored.name): \(result.itemCount) items, "
                                + Self.how(result)
                        )
                    }
                    return
                }
                let playlist = try await store.readForReorder(spotifyID, using: client)
                let entries = try store.positionedEntries(
                    uris: playlist.uris,
                    trackIDs: playlist.trackIDs,
                    positions: playlist.trackPositions
                )
                let before = PlaylistOrdering.transitionScore(of: entries)
                let ordered = Self.ordered(entries, mode: order, arc: arc)
                let after = PlaylistOrdering.transitionScore(of: ordered)
                let full = Self.fullOrder(of: playlist, tracksInOrder: ordered.map { Int($0.trackID) })
                let moves = PlaylistMoves.moves(toReach: full).count
                if !rewrite && !quiet && moves > Self.manyMoves {
                    let rewriteRequests = (full.count + SpotifyClient.writeChunkSize - 1) / SpotifyClient.writeChunkSize
                    Console.diagnostic(
                        "Note: this order takes \(moves) moves, one request each, counted against the developer "
                            + "quota; --rewrite would take \(rewriteRequests) but resets every date added."
                    )
                }
                let result = try await Self.reporting(stored.name) {
                    try await store.writeReorder(
                        playlist,
                        order: full,
                        using: client,
                        rewrite: rewrite,
                        progress: progress
                    )
                }
                if global.json {
                    try Console.printJSON(result)
                } else {
                    let how = order == .arc ? "arc \(arc)" : order.rawValue
                    var kept = ""
                    if result.otherItems > 0 {
                        kept =
                            " \(result.otherItems) local \(result.otherItems == 1 ? "file, episode or removed track" : "files, episodes or removed tracks") kept \(result.otherItems == 1 ? "its" : "their") place."
                    }
                    print(
                        "Reordered \(stored.name) (\(how)): \(result.itemCount) items, " + Self.how(result)
                            + kept
                            + " Transition score \(String(format: "%.3f", before)) → \(String(format: "%.3f", after)). "
                            + "`vibes-analyze playlist reorder \"\(stored.name)\" --undo` puts the old order back."
                    )
                }
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

        /// Runs a reorder or undo, adding what to do next to a reorder failure.
        static func reporting(
            _ name: String,
            _ body: () async throws -> PlaylistReorderResult
        ) async throws -> PlaylistReorderResult {
            do {
                return try await body()
            } catch let error as PlaylistReorderError {
                var text = "\(error)"
                switch error {
                case .orderMismatch, .countMismatch:
                    text += " Run `vibes-analyze playlist reorder \"\(name)\"` again, or `--undo` to put it back."
                case .unwritableItems:
                    text += " Leave out --rewrite to reorder by moves."
                default: break
                }
                throw CommandFailure(text)
            }
        }

        /// The order of every item: the catalogue tracks in `tracksInOrder` (positions into the
        /// playlist, as `positionedEntries(uris:trackIDs:positions:)` numbers them), filling the
        /// tracks' places; local files, episodes and removed tracks stay where they are.
        static func fullOrder(of playlist: ReorderablePlaylist, tracksInOrder: [Int]) -> [Int] {
            var order = Array(playlist.uris.indices)
            for (slot, item) in zip(playlist.trackPositions, tracksInOrder) { order[slot] = item }
            return order
        }

        /// The entries in the chosen order.
        static func ordered(
            _ entries: [Features.Playlist.Entry],
            mode: Mode,
            arc: PlaylistOrdering.Arc
        ) -> [Features.Playlist.Entry] {
            switch mode {
            case .flow: return PlaylistOrdering(arc: nil).ordered(entries)
            case .arc: return PlaylistOrdering(arc: arc).ordered(entries)
            case .key: return PlaylistOrdering.harmonicOrder(entries)
            case .path: return PlaylistOrdering.path(entries)
            }
        }
    }
}
