import Analytics
import ArgumentParser
import Features
import Foundation
import Ingest
import VibesCommandSupport

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
                between their moods). The playlist is rewritten only if nobody changed it \
                meanwhile. The old order is kept in the library, and --undo writes it back, unless \
                the playlist changed on Spotify since. Local files and podcast episodes cannot be \
                written by Spotify's API, so a playlist holding them is left alone.

                Example: vibes-analyze playlist reorder "Road trip" --order arc --arc peak
                """
        )

        enum Mode: String, ExpressibleByArgument, CaseIterable {
            case flow, arc, path
        }

        @OptionGroup var global: GlobalOptions
        @OptionGroup var spotify: SpotifyOptions

        @Argument(help: "The playlist: its name, or its row or origin key as `library` lists them.")
        var name: String

        @Option(help: "The order: flow, arc or path.")
        var order: Mode = .flow

        @Option(
            help:
                "The energy curve for --order arc: flat, rising, peak, falling, or energies evenly spread over the playlist, such as 0.2,0.8,0.4."
        )
        var arc: PlaylistOrdering.Arc = .peak

        @Flag(help: "Put back the order the playlist had before its last reorder.")
        var undo = false

        func run() async throws {
            let store = try global.openStore(activity: "playlist reorder")
            let stored = try store.pushablePlaylist(matching: name)
            guard let spotifyID = stored.spotifyID else {
                throw CommandFailure(
                    "\(stored.name) is not on Spotify; `vibes-analyze playlist push \"\(stored.name)\"` puts it there."
                )
            }
            try await reportingSpotifyErrors {
                let (client, _) = try spotify.makeClient(quiet: global.quiet)
                if undo {
                    let result = try await store.undoReorder(of: spotifyID, name: stored.name, using: client)
                    if global.json {
                        try Console.printJSON(result)
                    } else {
                        print("Put back the earlier order of \(stored.name): \(result.itemCount) tracks.")
                    }
                    return
                }
                let playlist = try await store.readForReorder(spotifyID, using: client)
                let entries = try Self.entries(of: playlist, store: store)
                let before = PlaylistOrdering.transitionScore(of: entries)
                let ordered = Self.ordered(entries, mode: order, arc: arc)
                let after = PlaylistOrdering.transitionScore(of: ordered)
                let result = try await store.writeReorder(
                    playlist,
                    order: ordered.map { Int($0.trackID) },
                    using: client
                )
                if global.json {
                    try Console.printJSON(result)
                } else {
                    let how = order == .arc ? "arc \(arc)" : order.rawValue
                    print(
                        "Reordered \(stored.name) (\(how)): \(result.itemCount) tracks, \(result.moved) moved; "
                            + "transition score \(String(format: "%.3f", before)) → \(String(format: "%.3f", after)). "
                            + "`vibes-analyze playlist reorder \"\(stored.name)\" --undo` puts the old order back."
                    )
                }
            }
        }

        /// One entry per item; its `trackID` is the item's position, so repeats stay apart.
        static func entries(of playlist: ReorderablePlaylist, store: LibraryStore) throws -> [Features.Playlist.Entry] {
            let known = Array(Set(playlist.trackIDs.compactMap { $0 })).sorted()
            let facts = Dictionary(uniqueKeysWithValues: zip(known, try store.trackFacts(for: known)))
            let table = try store.featureTable(scope: .all)
            var rows: [Int64: Int] = [:]
            for (row, id) in table.trackIDs.enumerated() { rows[id] = row }
            return playlist.uris.enumerated().map { index, uri in
                let trackID = playlist.trackIDs[index]
                var features = AudioFeatures()
                if let trackID, let row = rows[trackID] {
                    for feature in AudioFeature.all {
                        features[feature] = table.value(row: row, feature: feature).map(Double.init)
                    }
                }
                let fact = trackID.flatMap { facts[$0] }
                return Features.Playlist.Entry(
                    trackID: Int64(index),
                    spotifyID: SpotifyID(uri: uri, category: "track"),
                    name: fact?.name ?? uri,
                    artists: fact?.artists ?? [],
                    durationMS: fact?.durationMS,
                    features: features
                )
            }
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
            case .path:
                // First and last stay; the middle is sorted by its projection on the line between
                // their valence–energy points (tracks without both features keep their order, last).
                guard entries.count > 3,
                    let start = point(entries.first!), let end = point(entries.last!)
                else { return entries }
                let direction = (end.0 - start.0, end.1 - start.1)
                let middle = entries.dropFirst().dropLast()
                let placed = middle.compactMap { entry in
                    point(entry).map { p in (entry, (p.0 - start.0) * direction.0 + (p.1 - start.1) * direction.1) }
                }
                .sorted { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0.trackID < $1.0.trackID }
                .map(\.0)
                let unplaced = middle.filter { point($0) == nil }
                return [entries.first!] + placed + unplaced + [entries.last!]
            }
        }

        private static func point(_ entry: Features.Playlist.Entry) -> (Double, Double)? {
            guard let valence = entry.features.valence, let energy = entry.features.energy else { return nil }
            return (valence, energy)
        }
    }
}
