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
            let target: PlaylistExtensionTarget =
                if dryRun {
                    .none
                } else if let newName {
                    .newPlaylist(
                        name: newName,
                        settings: CommandLine.arguments.dropFirst().joined(separator: " "),
                        push: push
                    )
                } else {
                    .playlist(push: push)
                }
            let extended = try await reportingSpotifyErrors {
                try await describingScope {
                    try await store.extendPlaylist(
                        named: name,
                        count: count,
                        diversity: diversity,
                        maximumPerArtist: maxPerArtist,
                        writing: target,
                        makeClient: { try spotify.makeClient(quiet: global.quiet).0 }
                    )
                }
            }
            let found = extended.found
            let output = Output(
                playlist: extended.name,
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
                newPlaylist: extended.newPlaylist,
                spotifyID: extended.spotifyID,
                snapshotID: extended.snapshotID,
                skippedWithoutID: extended.skippedWithoutID
            )
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
            let added = output.added.count
            print(
                "\(verb) \(added) track\(added == 1 ? "" : "s") like \(extended.name) "
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
    }
}
