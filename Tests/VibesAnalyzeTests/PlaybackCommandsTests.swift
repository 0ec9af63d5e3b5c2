import Foundation
import Ingest
import SpotifyTestSupport
import Testing
import VibesTestSupport

/// Playback control through the built tool against the fake Spotify player.
@Suite(.serialized, .timeLimit(.minutes(10)))
struct PlaybackCommandsTests {
    /// A signed-in environment with two devices: an active laptop and an idle kitchen speaker.
    static func environment(directory: String, fake: FakeSpotify) async throws -> [String: String] {
        await fake.state.configure { state in
            state.devices = [
                FakeDevice(id: "d-laptop", name: "Fake Laptop", type: "Computer", isActive: true),
                FakeDevice(id: "d-kitchen", name: "Kitchen", type: "Speaker", isActive: false),
                FakeDevice(id: "d-car", name: "Car", type: "Automobile", isActive: false, isRestricted: true),
            ]
        }
        return try await signedInToolEnvironment(
            directory: directory,
            spotify: fake,
            reccoBeatsURL: try FakeReccoBeats.unreachableBaseURL(),
            scopes: ["user-modify-playback-state", "user-read-playback-state", "playlist-read-private"]
        )
    }

    @Test func devicesArePrintedAndTheActiveOneIsMarked() async throws {
        try await withTemporaryDirectory { directory in
            try await FakeSpotify.withServer { fake in
                let environment = try await Self.environment(directory: directory, fake: fake)
                let text = try await runTool(["devices"], environment: environment)
                #expect(text.exitCode == 0, "\(text.stderr)")
                #expect(text.stdout.contains("▶ Fake Laptop · Computer (active)"))
                #expect(text.stdout.contains("  Kitchen · Speaker"))
                let json = try await runTool(["devices", "--json"], environment: environment)
                let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
                let devices = try #require(object?["devices"] as? [[String: Any]])
                #expect(devices.map { $0["name"] as? String } == ["Fake Laptop", "Kitchen", "Car"])
                #expect(devices[0]["is_active"] as? Bool == true)
            }
        }
    }

    @Test func playAPlaylistOfTheLibraryOnANamedDeviceShuffled() async throws {
        try await withTemporaryDirectory { directory in
            try await FakeSpotify.withServer { fake in
                await fake.state.addPlaylist(name: "Road trip", trackCount: 12)
                let environment = try await Self.environment(directory: directory, fake: fake)
                let sync = try await runTool(["sync", "--playlists"], environment: environment)
                #expect(sync.exitCode == 0, "\(sync.stderr)")
                let playlistID = try #require(await fake.state.playlists.first?.id)

                let play = try await runTool(
                    ["play", "road trip", "--device", "kitch", "--shuffle"],
                    environment: environment
                )
                #expect(play.exitCode == 0, "\(play.stderr)")
                #expect(play.stdout.contains("Playing spotify:playlist:\(playlistID), shuffled."))
                let player = await fake.state.player
                #expect(player.deviceID == "d-kitchen" && player.isPlaying && player.isShuffled)
                #expect(player.contextURI == "spotify:playlist:\(playlistID)")
                // Shuffle goes first, both to the named device.
                let commands = await fake.state.requests(to: "/v1/me/player/").filter { $0.method == "PUT" }
                #expect(commands.map(\.path) == ["/v1/me/player/shuffle", "/v1/me/player/play"])
                #expect(commands.allSatisfy { $0.query["device_id"] == "d-kitchen" })
            }
        }
    }

    @Test func playTracksPauseSkipAndSeek() async throws {
        try await withTemporaryDirectory { directory in
            try await FakeSpotify.withServer { fake in
                let environment = try await Self.environment(directory: directory, fake: fake)
                let tracks = [
                    "spotify:track:4iV5W9uYEdYUVa79Axb7Rh",
                    "https://open.spotify.com/track/1301WleyT98MSxVHPZCA6M?si=x",
                ]
                let play = try await runTool(["play"] + tracks, environment: environment)
                #expect(play.exitCode == 0, "\(play.stderr)")
                #expect(play.stdout.contains("Playing 2 tracks."))
                var player = await fake.state.player
                #expect(
                    player.uris == ["spotify:track:4iV5W9uYEdYUVa79Axb7Rh", "spotify:track:1301WleyT98MSxVHPZCA6M"]
                )
                #expect(player.deviceID == "d-laptop")

                for (arguments, expected) in [
                    (["next"], "Skipped to the next track."), (["next"], "Skipped"),
                    (["previous"], "Back to the previous"),
                    (["seek", "1:35"], "Jumped to 1:35."), (["pause"], "Paused."),
                ] {
                    let result = try await runTool(arguments, environment: environment)
                    #expect(result.exitCode == 0 && result.stdout.contains(expected), "\(arguments): \(result.stderr)")
                }
                player = await fake.state.player
                #expect(player.trackIndex == 1 && player.positionMS == 95_000 && !player.isPlaying)

                let resume = try await runTool(["play"], environment: environment)
                #expect(resume.exitCode == 0 && resume.stdout.contains("Resumed."))
                #expect(await fake.state.player.isPlaying)

                let badPosition = try await runTool(["seek", "1:75"], environment: environment)
                #expect(badPosition.exitCode == 64)
                let mixed = try await runTool(
                    ["play", "spotify:album:4aawyAB9vmqN3uQ7FjRGTy", "spotify:track:4iV5W9uYEdYUVa79Axb7Rh"],
                    environment: environment
                )
                #expect(mixed.exitCode == 64)
            }
        }
    }

    @Test func refusalsSayWhatToDo() async throws {
        try await withTemporaryDirectory { directory in
            try await FakeSpotify.withServer { fake in
                let environment = try await Self.environment(directory: directory, fake: fake)
                let unknown = try await runTool(["pause", "--device", "Bathroom"], environment: environment)
                #expect(unknown.exitCode == 1)
                #expect(
                    unknown.stderr.contains(
                        "No device is called \"Bathroom\"; Spotify lists Fake Laptop, Kitchen, Car."
                    )
                )
                let restricted = try await runTool(["pause", "--device", "Car"], environment: environment)
                #expect(restricted.exitCode == 1 && restricted.stderr.contains("restricted"))

                await fake.state.configure { state in
                    for index in state.devices.indices { state.devices[index].isActive = false }
                }
                let idle = try await runTool(["next"], environment: environment)
                #expect(idle.exitCode == 1)
                #expect(idle.stderr.contains("no device is active (NO_ACTIVE_DEVICE"), "\(idle.stderr)")
                #expect(idle.stderr.contains("--device"))
                #expect(!idle.stderr.contains("Usage"))

                await fake.state.configure { $0.isPremium = false }
                let free = try await runTool(["play", "--device", "Kitchen"], environment: environment)
                #expect(free.exitCode == 1)
                #expect(free.stderr.contains("needs Spotify Premium (PREMIUM_REQUIRED"), "\(free.stderr)")
                #expect(!(await fake.state.player.isPlaying))
            }
        }
    }
}
