import ArgumentParser
import Features
import Foundation
import Ingest
import VibesCommandSupport
import VibesEngine

/// `vibes-analyze playlist push`: write a playlist from the store to Spotify.
///
/// Registered under the `playlist` group, next to `playlist build`.
struct PlaylistPush: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push",
        abstract: "Write a playlist from the store to your Spotify account.",
        discussion: """
            The first push creates a private Spotify playlist; later pushes of the same playlist \
            replace its items. Tracks without a Spotify ID (local files, rows from imports without \
            IDs) are left out and counted.

            Example: vibes-analyze playlist push "Calm evening"
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var spotify: SpotifyOptions

    @Argument(help: "The playlist: its number in the store, its origin key, or its name.")
    var playlist: String

    @Option(name: .long, help: "The name on Spotify. Defaults to the stored name.")
    var name: String?

    @Flag(name: .long, help: "Make a new playlist public.")
    var `public` = false

    @Flag(name: .long, help: "Create a new Spotify playlist even if this one was pushed before.")
    var new = false

    @Flag(
        name: .long,
        help: "Start playing it on your active device (Spotify Premium, scope user-modify-playback-state)."
    )
    var play = false

    func run() async throws {
        try await reportingSpotifyErrors {
            let (client, _) = try spotify.makeClient(quiet: global.quiet)
            let store = try global.openStore(activity: "playlist push")
            let pushable: PushablePlaylist
            do {
                pushable = try describingScope { try store.pushablePlaylist(named: playlist) }
            } catch let error as StoreError {
                Console.diagnostic("Error: \(error)")
                throw ExitCode.failure
            }
            guard !pushable.uris.isEmpty else {
                Console.diagnostic(
                    "Error: \"\(pushable.name)\" has no tracks with a Spotify ID, so there is nothing to push."
                )
                throw ExitCode.failure
            }
            // Resumable: an unfinished push of this playlist is finished, never duplicated.
            let result = try await SpotifyPlaylistPusher(client: client, store: store)
                .push(pushable, name: name, isPublic: `public`, createNew: new)
            if play {
                try await client.startPlayback(ofPlaylist: SpotifyID(result.spotifyID)!)
            }
            if global.json {
                try Console.printJSON(result)
            } else {
                print(
                    "\(result.created ? "Created" : "Replaced") \"\(name ?? pushable.name)\" with \(result.itemCount) tracks: \(result.url)"
                )
                if result.skippedWithoutID > 0 {
                    print(
                        "Left out \(result.skippedWithoutID) tracks without a Spotify ID: \(pushable.tracksWithoutID.prefix(5).joined(separator: ", "))\(result.skippedWithoutID > 5 ? ", …" : "")."
                    )
                }
            }
        }
    }
}
