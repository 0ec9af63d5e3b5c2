import Analytics
import ArgumentParser
import Features
import Foundation
import Ingest
import VibesCommandSupport
import VibesEngine

extension VibesAnalyze.PlaylistCommand {
    /// `vibes-analyze playlist extend`: more tracks like a playlist someone already curated.
    struct Extend: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "extend",
            abstract: "Find more tracks like a playlist's and append them, or write them as a new playlist.",
            discussion: """
                The playlist's own tracks are the seeds, each weighted by how central it is to the \\
                playlist's sound (the tracks nearest its centre count three times, the outliers once), \\
                so a stray track pulls the extension less. Its own tracks are never suggested, and at \\
                most --max-per-artist tracks (2 by default) come from one artist. The tracks are \\
                appended to the playlist in the library; --push appends them on Spotify too (the \\
                playlist must be on Spotify: synced, or pushed by `playlist push`), and --new NAME \\
                writes them as a playlist of their own instead. --dry-run only lists them.

                Example: vibes-analyze playlist extend "Road trip" -n 20 --push
                """
        )

        @OptionGroup var global: GlobalOptions
        @OptionGroup var spotify: SpotifyOptions

        @Argument(help: "The playlist: its name, or its row or origin key as `library` lists them.")
        var name: String

        @Option(name: [.customShort("n"), .long], help: "How many tracks to add (1–500).")
        var count = 20

        @Option(name: .customLong("max-per-artist"), help: "At most this many new tracks by one artist.")
        var maxPerArtist = 2

        @Option(name: .long, help: "Variety against similarity, 0 to 1, as in `recommend`.")
        var diversity = 0.1

        @Flag(name: .long, help: "Append the tracks on Spotify too.")
        var push = false

        @Option(name: .customLong("new"), help: "Write the tracks as a new playlist with this name instead.")
        var newName: String?

        @Flag(name: .long, help: "Only list the tracks; change nothing.")
        var dryRun = false

        func validate() throws {
            guard (1...500).contains(count) else {
                throw ValidationError("Please ask for 1 to 500 tracks with -n (got \(count)).")
            }
            guard maxPerArtist >= 1 else {
                throw ValidationError("Please give --max-per-artist of at least 1 (got \(maxPerArtist)).")
            }
            guard (0...1).contains(diversity) else {
                throw ValidationError("Please give --diversity from 0 to 1 (got \(diversity)).")
            }
            if dryRun && (push || newName != nil) {
                throw ValidationError("--dry-run changes nothing; leave out --push and --new with it.")
            }
        }

        /// What `--json` prints.
        struct Output: Encodable {
            struct Track: Encodable {
                var trackID: Int64
                var name: String
                var artists: [String]
                var spotifyID: String?
                var similarity: Double
                /// `false` for a reference-pool track, new to the user.
                var inLibrary: Bool
                enum CodingKeys: String, CodingKey {
                    case trackID = "track_id"
                    case name, artists
                    case spotifyID = "spotify_id"
                    case similarity
                    case inLibrary = "in_library"
                }
            }
            var playlist: String
            var seeds: Int
            var added: [Track]
            /// `library`, `spotify`, `new` or `none` (a dry run).
            var written: String
            var newPlaylist: String?
            var spotifyID: String?
            var snapshotID: String?
            var skippedWithoutID: Int
            enum CodingKeys: String, CodingKey {
                case playlist, seeds, added, written
                case newPlaylist = "new_playlist"
                case spotifyID = "spotify_id"
                case snapshotID = "snapshot_id"
                case skippedWithoutID = "skipped_without_id"
            }
        }

        func run() async throws {
            let store = try global.openStore(activity: "playlist extend")
            let stored = try store.pushablePlaylist(named: name)
            if push && newName == nil && stored.spotifyID == nil {
                throw CommandFailure(
                    "\(stored.name) is not on Spotify; `vibes-analyze playlist push \"\(stored.name)\"` puts it there first."
                )
            }
            let found = try store.extendPlaylist(
                rowID: stored.rowID,
                name: stored.name,
                count: count,
                diversity: diversity,
                maximumPerArtist: maxPerArtist
            )
            let ids = found.recommendations.map(\.trackID)
            var output = Output(
                playlist: stored.name,
                seeds: found.seedCount,
                added: found.recommendations.map { recommendation in
                    let summary = found.summaries[recommendation.trackID]
                    return Output.Track(
                        trackID: recommendation.trackID,
                        name: summary?.name ?? "track \(recommendation.trackID)",
                        artists: summary?.artists ?? [],
                        spotifyID: summary?.spotifyID,
                        similarity: recommendation.similarity,
                        inLibrary: !found.referenceTrackIDs.contains(recommendation.trackID)
                    )
                },
                written: dryRun ? "none" : (newName != nil ? "new" : (push ? "spotify" : "library")),
                skippedWithoutID: 0
            )
            if !dryRun && !ids.isEmpty {
                try await write(ids, output: &output, store: store, stored: stored)
            }
            if global.json {
                try Console.printJSON(output)
                return
            }
            let verb =
                switch output.written {
                case "none": "Would add"
                case "new": "Wrote a new playlist \"\(output.newPlaylist ?? "")\" with"
                case "spotify": "Appended on Spotify and in the library"
                default: "Appended in the library"
                }
            print(
                "\(verb) \(ids.count) track\(ids.count == 1 ? "" : "s") like \(stored.name) "
                    + "(seeded by its \(output.seeds) tracks with features):"
            )
            for (index, track) in output.added.enumerated() {
                let artist = track.artists.first.map { "\($0) – " } ?? ""
                print(
                    "\(String(index + 1).leftPadded(3))  \(TerminalText.singleLine(artist + track.name))  "
                        + String(format: "%.2f", track.similarity) + (track.inLibrary ? "" : "  new")
                )
            }
            if output.skippedWithoutID > 0 {
                print("Left out on Spotify: \(output.skippedWithoutID) tracks without a Spotify ID.")
            }
        }

        /// Appends, pushes or saves the new tracks.
        private func write(
            _ ids: [Int64],
            output: inout Output,
            store: LibraryStore,
            stored: PushablePlaylist
        ) async throws {
            if let newName {
                let entries = try store.playlistEntries(for: ids)
                let playlist = Features.Playlist(
                    name: newName,
                    description: "More like \(stored.name) (vibes-analyze playlist extend)",
                    entries: entries,
                    transitionScore: PlaylistOrdering.transitionScore(of: entries)
                )
                try store.saveBuiltPlaylist(
                    playlist,
                    settings: CommandLine.arguments.dropFirst().joined(separator: " ")
                )
                output.newPlaylist = newName
                if push {
                    try await reportingSpotifyErrors {
                        let (client, _) = try spotify.makeClient(quiet: global.quiet)
                        let pushable = try store.pushablePlaylist(matching: newName)
                        let result = try await SpotifyPlaylistPusher(client: client, store: store).push(pushable)
                        output.spotifyID = result.spotifyID
                        output.snapshotID = result.snapshotID
                        output.skippedWithoutID = result.skippedWithoutID
                    }
                }
                return
            }
            var snapshot: String?
            if push, let spotifyID = stored.spotifyID {
                let summaries = try store.trackSummaries(for: ids)
                let uris = ids.compactMap { summaries[$0]?.spotifyID.flatMap { SpotifyID($0) }?.trackURI }
                output.skippedWithoutID = ids.count - uris.count
                try await reportingSpotifyErrors {
                    let (client, _) = try spotify.makeClient(quiet: global.quiet)
                    snapshot = try await client.addItems(uris, to: spotifyID)
                }
                output.spotifyID = spotifyID.rawValue
                output.snapshotID = snapshot
            }
            try store.appendToPlaylist(rowID: stored.rowID, trackIDs: ids, snapshotID: snapshot)
        }
    }
}
