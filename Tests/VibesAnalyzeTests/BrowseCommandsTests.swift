import Foundation
import SpotifyTestSupport
import Testing
import VibesTestSupport

/// `now`, `recent`, `top` and `search` through the built tool, against the fake Spotify.
struct BrowseCommandsTests {
    @Test func nowRecentTopAndSearchPrintWhatSpotifyHas() async throws {
        try await withTemporaryDirectory { directory in
            try await FakeSpotify.withServer { spotify in
                await spotify.state.setPlayCount(3)
                let env = try await signedInToolEnvironment(
                    directory: directory,
                    spotify: spotify,
                    reccoBeatsURL: try FakeReccoBeats.unreachableBaseURL()
                )

                let nothing = try await runTool(["now"], environment: env)
                #expect(nothing.exitCode == 0 && nothing.stdout == "Nothing playing.\n", "\(nothing.stderr)")
                await spotify.state.configure { $0.nothingPlaying = false }
                let now = try await runTool(["now", "--json"], environment: env)
                let playing = try JSONDecoder().decode(BrowseOutputShape.self, from: Data(now.stdout.utf8))
                #expect(playing.items.first?.name == "Now" && playing.items.first?.kind == "track")

                let recent = try await runTool(["recent", "--limit", "2"], environment: env)
                #expect(
                    recent.exitCode == 0 && recent.stdout.contains("Played 0") && recent.stdout.contains("Played 1")
                )
                #expect(await spotify.state.requests(to: "/v1/me/player/recently-played").last?.query["limit"] == "2")

                let top = try await runTool(
                    ["top", "--type", "artists", "--range", "short", "--limit", "5"],
                    environment: env
                )
                #expect(top.exitCode == 0 && top.stdout.split(separator: "\n").count == 5, "\(top.stderr)")
                let topRequest = await spotify.state.requests(to: "/v1/me/top/artists").last
                #expect(topRequest?.query["time_range"] == "short_term" && topRequest?.query["limit"] == "5")

                let found = try await runTool(["search", "one more time", "--json"], environment: env)
                let tracks = try JSONDecoder().decode(BrowseOutputShape.self, from: Data(found.stdout.utf8))
                #expect(tracks.items.first?.name == "one more time")
                let playlists = try await runTool(["search", "road", "--type", "playlist"], environment: env)
                #expect(playlists.stdout.contains("Found road by spotify"))
                #expect(await spotify.state.requests(to: "/v1/search").last?.query["type"] == "playlist")

                let bad = try await runTool(["top", "--limit", "99"], environment: env)
                #expect(bad.exitCode == 64 && bad.stderr.contains("--limit"))
            }
        }
    }
}

/// The documented JSON shape of one printed item.
private struct BrowseItemShape: Decodable {
    var kind: String
    var name: String
    var uri: String?
    var spotifyID: String?

    enum CodingKeys: String, CodingKey {
        case kind, name, uri
        case spotifyID = "spotify_id"
    }
}

/// What `now`, `recent`, `top` and `search` print under `--json`.
private struct BrowseOutputShape: Decodable {
    var items: [BrowseItemShape]
    var schemaVersion: Int

    enum CodingKeys: String, CodingKey {
        case items
        case schemaVersion = "schema_version"
    }
}
