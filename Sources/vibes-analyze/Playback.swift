import ArgumentParser
import Features
import Foundation
import Ingest
import SpotifyWebAPI
import VibesCommandSupport

/// `--device`: the device a player command acts on.
struct DeviceOption: ParsableArguments {
    @Option(
        help: "The device to play on, by name or ID (`vibes-analyze devices` lists them); the active one by default."
    )
    var device: String?

    /// The ID of the named device, or `nil` for the active one.
    ///
    /// - Throws: ``CommandFailure`` when no device has that name or ID, or it cannot be controlled.
    func deviceID(using client: SpotifyClient) async throws -> String? {
        guard let device else { return nil }
        let devices = try await client.devices()
        let wanted = device.lowercased()
        let found =
            devices.first { $0.id == device } ?? devices.first { $0.name.lowercased() == wanted }
            ?? devices.first { $0.name.lowercased().hasPrefix(wanted) }
        guard let found, let id = found.id else {
            let names = devices.map(\.name).joined(separator: ", ")
            throw CommandFailure(
                "No device is called \"\(device)\"; "
                    + (devices.isEmpty
                        ? "Spotify lists none: open Spotify on a phone, computer or speaker."
                        : "Spotify lists \(names).")
            )
        }
        guard !found.isRestricted else {
            throw CommandFailure("\(found.name) does not let other apps control it (Spotify marks it restricted).")
        }
        return id
    }
}

/// One player command: sign in, resolve the device, act, say what happened.
private func runPlayerCommand(
    global: some OutputSettings,
    spotify: SpotifyOptions,
    device: DeviceOption,
    done: String,
    _ body: (SpotifyClient, String?) async throws -> Void
) async throws {
    try await reportingSpotifyErrors {
        let (client, _) = try spotify.makeClient(quiet: global.quiet)
        let deviceID = try await device.deviceID(using: client)
        try await body(client, deviceID)
        if global.json {
            try Console.printJSON(["ok": true])
        } else if !global.quiet {
            print(done)
        }
    }
}

/// A player command without arguments of its own: it acts on the device and says `done`.
protocol PlayerCommand: AsyncParsableCommand {
    static var done: String { get }
    var global: OutputOptions { get }
    var spotify: SpotifyOptions { get }
    var device: DeviceOption { get }
    func act(_ client: SpotifyClient, deviceID: String?) async throws
}

extension PlayerCommand {
    func run() async throws {
        try await runPlayerCommand(global: global, spotify: spotify, device: device, done: Self.done) {
            try await act($0, deviceID: $1)
        }
    }
}

extension VibesAnalyze {
    /// `vibes-analyze play`.
    struct Play: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "play",
            abstract: "Play a playlist, album, artist or tracks on a Spotify device, or resume (Premium).",
            discussion: """
                TARGET is a playlist of your library by name (one pushed to Spotify plays as that \
                playlist, one not pushed plays as its tracks), or Spotify URIs or open.spotify.com \
                links: one playlist, album or artist, or any number of tracks. Without TARGET, \
                playback resumes. Playback control needs Spotify Premium and the scopes \
                user-read-playback-state and user-modify-playback-state, which `vibes-analyze auth \
                login` asks for; when the session lacks one, the error names it and the command \
                that adds it.

                Example: vibes-analyze play "Calm evening" --device Kitchen --shuffle
                """
        )

        @OptionGroup var global: GlobalOptions
        @OptionGroup var spotify: SpotifyOptions
        @OptionGroup var device: DeviceOption

        @Argument(help: "A playlist name, or Spotify URIs or links.")
        var target: [String] = []

        @Flag(help: "Shuffle.")
        var shuffle = false

        /// The most tracks sent in one play request, for a playlist that was never pushed.
        static let trackLimit = 500

        /// What `target` asks to play: URIs and links as they are, else a playlist of the store.
        func playbackTarget() throws -> PlaybackTarget {
            guard !target.isEmpty else { return .resume }
            let uris = target.compactMap(Self.uri(from:))
            if uris.count == target.count {
                let contexts = uris.filter { !$0.hasPrefix("spotify:track:") }
                if contexts.isEmpty { return .tracks(uris: uris) }
                guard uris.count == 1 else {
                    throw ValidationError(
                        "Please give one playlist, album or artist, or tracks only (got \(uris.count) items)."
                    )
                }
                return .context(uri: contexts[0])
            }
            guard target.count == 1 else {
                throw ValidationError("Please give one playlist name, or Spotify URIs only.")
            }
            let store = try global.openStore()
            let playlist = try store.pushablePlaylist(matching: target[0])
            if let id = playlist.spotifyID { return .context(uri: "spotify:playlist:\(id)") }
            guard !playlist.uris.isEmpty else {
                throw CommandFailure("\(playlist.name) has no track with a Spotify ID to play.")
            }
            return .tracks(uris: Array(playlist.uris.prefix(Self.trackLimit)))
        }

        /// `spotify:kind:id` from a URI or an open.spotify.com link, or `nil`.
        static func uri(from text: String) -> String? {
            let kinds = ["track", "album", "artist", "playlist"]
            if text.hasPrefix("spotify:") {
                let parts = text.split(separator: ":")
                guard parts.count == 3, kinds.contains(String(parts[1])), SpotifyID(String(parts[2])) != nil else {
                    return nil
                }
                return text
            }
            guard let url = URL(string: text), url.host == "open.spotify.com" else { return nil }
            let path = url.pathComponents.filter { $0 != "/" && !$0.hasPrefix("intl-") }
            guard path.count == 2, kinds.contains(path[0]), SpotifyID(path[1]) != nil else { return nil }
            return "spotify:\(path[0]):\(path[1])"
        }

        func run() async throws {
            let target = try playbackTarget()
            let what =
                switch target {
                case .resume: "Resumed."
                case .context(let uri): "Playing \(uri)\(shuffle ? ", shuffled" : "")."
                case .tracks(let uris):
                    "Playing \(uris.count) \(uris.count == 1 ? "track" : "tracks")\(shuffle ? ", shuffled" : "")."
                }
            try await runPlayerCommand(global: global, spotify: spotify, device: device, done: what) { client, id in
                // Shuffle first, so that the first track is already a shuffled one.
                if shuffle { try await client.setShuffle(true, deviceID: id) }
                try await client.play(target, deviceID: id)
            }
        }
    }

    /// `vibes-analyze pause`.
    struct Pause: PlayerCommand {
        static let configuration = CommandConfiguration(
            commandName: "pause",
            abstract: "Pause Spotify playback (Premium).",
            discussion: "Example: vibes-analyze pause"
        )
        static let done = "Paused."
        @OptionGroup var global: OutputOptions
        @OptionGroup var spotify: SpotifyOptions
        @OptionGroup var device: DeviceOption

        func act(_ client: SpotifyClient, deviceID: String?) async throws {
            try await client.pause(deviceID: deviceID)
        }
    }

    /// `vibes-analyze next`.
    struct Next: PlayerCommand {
        static let configuration = CommandConfiguration(
            commandName: "next",
            abstract: "Skip to the next track (Premium).",
            discussion: "Example: vibes-analyze next"
        )
        static let done = "Skipped to the next track."
        @OptionGroup var global: OutputOptions
        @OptionGroup var spotify: SpotifyOptions
        @OptionGroup var device: DeviceOption

        func act(_ client: SpotifyClient, deviceID: String?) async throws {
            try await client.skipToNext(deviceID: deviceID)
        }
    }

    /// `vibes-analyze previous`.
    struct Previous: PlayerCommand {
        static let configuration = CommandConfiguration(
            commandName: "previous",
            abstract: "Go back to the previous track (Premium).",
            discussion: "Example: vibes-analyze previous"
        )
        static let done = "Back to the previous track."
        @OptionGroup var global: OutputOptions
        @OptionGroup var spotify: SpotifyOptions
        @OptionGroup var device: DeviceOption

        func act(_ client: SpotifyClient, deviceID: String?) async throws {
            try await client.skipToPrevious(deviceID: deviceID)
        }
    }

    /// `vibes-analyze seek`.
    struct Seek: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "seek",
            abstract: "Jump to a position in the current track (Premium).",
            discussion: "POSITION is seconds (95) or minutes and seconds (1:35).\n\nExample: vibes-analyze seek 1:35"
        )
        @OptionGroup var global: OutputOptions
        @OptionGroup var spotify: SpotifyOptions
        @OptionGroup var device: DeviceOption

        @Argument(help: "Where to jump to: seconds, or m:ss.")
        var position: String

        /// `position` in milliseconds, or `nil` when it is not seconds or m:ss.
        static func milliseconds(_ text: String) -> Int? {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count), let last = Double(parts.last!), last >= 0, last.isFinite else {
                return nil
            }
            var seconds = last
            if parts.count == 2 {
                guard let minutes = Int(parts[0]), minutes >= 0, last < 60 else { return nil }
                seconds += Double(minutes) * 60
            }
            guard seconds <= 360_000 else { return nil }
            return Int((seconds * 1000).rounded())
        }

        func validate() throws {
            guard Self.milliseconds(position) != nil else {
                throw ValidationError("Please give the position as seconds (95) or m:ss (1:35), got '\(position)'.")
            }
        }

        func run() async throws {
            let milliseconds = Self.milliseconds(position)!
            try await runPlayerCommand(global: global, spotify: spotify, device: device, done: "Jumped to \(position).")
            {
                try await $0.seek(toMilliseconds: milliseconds, deviceID: $1)
            }
        }
    }

    /// `vibes-analyze devices`.
    struct Devices: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "devices",
            abstract: "List the devices Spotify can play on; the active one is marked.",
            discussion: "Example: vibes-analyze devices --json"
        )
        @OptionGroup var global: OutputOptions
        @OptionGroup var spotify: SpotifyOptions

        struct Item: Encodable {
            var id: String?
            var name: String
            var type: String
            var isActive: Bool
            var isRestricted: Bool
            enum CodingKeys: String, CodingKey {
                case id, name, type
                case isActive = "is_active"
                case isRestricted = "is_restricted"
            }
        }

        func run() async throws {
            try await reportingSpotifyErrors {
                let (client, _) = try spotify.makeClient(quiet: global.quiet)
                let devices = try await client.devices()
                if global.json {
                    try Console.printJSON([
                        "devices": devices.map {
                            Item(
                                id: $0.id,
                                name: $0.name,
                                type: $0.type,
                                isActive: $0.isActive,
                                isRestricted: $0.isRestricted
                            )
                        }
                    ])
                } else if devices.isEmpty {
                    print("No devices: open Spotify on a phone, computer or speaker.")
                } else {
                    for device in devices {
                        let marks = (device.isActive ? " (active)" : "") + (device.isRestricted ? " (restricted)" : "")
                        print(
                            "\(device.isActive ? "▶" : " ") \(TerminalText.singleLine(device.name)) · \(device.type)\(marks)"
                        )
                    }
                }
            }
        }
    }
}
