import Foundation
import GRDB
import Ingest
import Testing
import VibesTestSupport

/// `playlist reorder` through the built tool against the fake Spotify.
@Suite(.serialized, .timeLimit(.minutes(10)))
struct PlaylistReorderCommandTests {
    /// The fake's ID of listed track `index`.
    static func listedID(_ index: Int) -> String {
        let digits = String(index)
        return "L" + String(repeating: "0", count: 21 - digits.count) + digits
    }

    /// A synced "Road trip" of 12 tracks whose energies run 0.9, 0.1, 0.8, 0.2, … (a zigzag), with
    /// features imported from a CSV.
    static func setUp(directory: String, fake: FakeSpotify) async throws -> (env: [String: String], id: String) {
        let playlist = await fake.state.addPlaylist(name: "Road trip", trackCount: 12)
        let environment = try await signedInToolEnvironment(
            directory: directory,
            spotify: fake,
            reccoBeatsURL: try FakeReccoBeats.unreachableBaseURL(),
            scopes: ["playlist-read-private", "playlist-modify-private"]
        )
        let sync = try await runTool(["sync", "--playlists"], environment: environment)
        #expect(sync.exitCode == 0, "\(sync.stderr)")
        var csv = "track_id,track_name,track_artist,energy,valence,danceability,tempo,key,mode\n"
        for position in 0..<12 {
            let energy = position.isMultiple(of: 2) ? 0.9 - Double(position) * 0.03 : 0.1 + Double(position) * 0.03
            csv += "\(listedID(10_000 + position)),Song \(position),Artist \(position % 5),\(energy),0.5,0.6,120,5,1\n"
        }
        let file = directory + "/features.csv"
        try csv.write(toFile: file, atomically: true, encoding: .utf8)
        let imported = try await runTool(["import", file], environment: environment)
        #expect(imported.exitCode == 0, "\(imported.stderr)")
        return (environment, playlist.id)
    }

    /// The original order the store kept for `playlist`, read outside the tool.
    static func keptOrder(database: String, playlist: String) throws -> String? {
        try DatabaseQueue(path: database).read { db in
            try String.fetchOne(
                db,
                sql: "SELECT original_uris FROM playlist_reorders WHERE spotify_id = ?",
                arguments: [playlist]
            )
        }
    }

    static func energies(_ uris: [String]) -> [Double] {
        uris.map { uri in
            let position = Int(uri.suffix(5))! - 10_000
            return position.isMultiple(of: 2) ? 0.9 - Double(position) * 0.03 : 0.1 + Double(position) * 0.03
        }
    }

    @Test func reorderWritesAFlowingOrderAndUndoPutsTheOldOneBack() async throws {
        try await withTemporaryDirectory { directory in
            try await FakeSpotify.withServer { fake in
                let (environment, id) = try await Self.setUp(directory: directory, fake: fake)
                let original = (0..<12).map { "spotify:track:" + Self.listedID(10_000 + $0) }

                let reorder = try await runTool(
                    ["playlist", "reorder", "Road trip", "--order", "arc", "--arc", "rising"],
                    environment: environment
                )
                #expect(reorder.exitCode == 0, "\(reorder.stderr)")
                #expect(reorder.stdout.contains("Reordered Road trip (arc rising): 12 tracks"), "\(reorder.stdout)")
                let written = await fake.state.writtenItems[id] ?? []
                #expect(Set(written) == Set(original) && written.count == 12)
                let energies = Self.energies(written)
                let opening: Double = energies.prefix(4).reduce(0, +)
                let closing: Double = energies.suffix(4).reduce(0, +)
                #expect(opening < closing - 1, "\(energies)")
                // The playlist was replaced with one PUT (12 ≤ 100 items), after a fresh snapshot read.
                let writes = await fake.state.requests(to: "/v1/playlists/\(id)/").filter { $0.method != "GET" }
                #expect(writes.map(\.method) == ["PUT"])
                let kept = try Self.keptOrder(database: environment["VIBES_DB"]!, playlist: id)
                #expect(try JSONDecoder().decode([String].self, from: Data((kept ?? "").utf8)) == original)

                let undo = try await runTool(["playlist", "reorder", "Road trip", "--undo"], environment: environment)
                #expect(undo.exitCode == 0, "\(undo.stderr)")
                #expect(await fake.state.writtenItems[id] == original)
                let again = try await runTool(["playlist", "reorder", "Road trip", "--undo"], environment: environment)
                #expect(again.exitCode == 1 && again.stderr.contains("has no reorder to undo"), "\(again.stderr)")

                // An undo after someone else changed the playlist is refused and writes nothing.
                _ = try await runTool(
                    ["playlist", "reorder", "Road trip", "--order", "path"],
                    environment: environment
                )
                await fake.state.appendTracks(1, toPlaylist: id)
                let before = await fake.state.writtenItems[id]
                let refused = try await runTool(
                    ["playlist", "reorder", "Road trip", "--undo"],
                    environment: environment
                )
                #expect(
                    refused.exitCode == 1 && refused.stderr.contains("changed on Spotify since"),
                    "\(refused.stderr)"
                )
                #expect(await fake.state.writtenItems[id] == before)
            }
        }
    }

    @Test func aPlaylistWithLocalFilesOrNotOnSpotifyIsLeftAlone() async throws {
        try await withTemporaryDirectory { directory in
            try await FakeSpotify.withServer { fake in
                let playlist = await fake.state.addPlaylist(name: "Mixed", trackCount: 4, localFiles: 1)
                let environment = try await signedInToolEnvironment(
                    directory: directory,
                    spotify: fake,
                    reccoBeatsURL: try FakeReccoBeats.unreachableBaseURL(),
                    scopes: ["playlist-read-private", "playlist-modify-private"]
                )
                _ = try await runTool(["sync", "--playlists"], environment: environment)
                let mixed = try await runTool(["playlist", "reorder", "Mixed"], environment: environment)
                #expect(
                    mixed.exitCode == 1 && mixed.stderr.contains("holds 1 local file or episode"),
                    "\(mixed.stderr)"
                )
                #expect(await fake.state.writtenItems[playlist.id] == nil)

                _ = try await runTool(
                    ["import", Fixtures.path("csv/tidytuesday-excerpt.csv")],
                    environment: environment
                )
                _ = try await runTool(
                    ["playlist", "build", "--mood", "chill", "-n", "5", "--name", "Local only", "--save"],
                    environment: environment
                )
                let local = try await runTool(["playlist", "reorder", "Local only"], environment: environment)
                #expect(local.exitCode == 1 && local.stderr.contains("is not on Spotify"), "\(local.stderr)")
            }
        }
    }

    @Test func aReorderThatFailsPartWayCanBeUndone() async throws {
        try await withTemporaryDirectory { directory in
            try await FakeSpotify.withServer { fake in
                let playlist = await fake.state.addPlaylist(name: "Long", trackCount: 150)
                let environment = try await signedInToolEnvironment(
                    directory: directory,
                    spotify: fake,
                    reccoBeatsURL: try FakeReccoBeats.unreachableBaseURL(),
                    scopes: ["playlist-read-private", "playlist-modify-private"]
                )
                _ = try await runTool(["sync", "--playlists"], environment: environment)
                let original = (0..<150).map { "spotify:track:" + Self.listedID(10_000 + $0) }
                // The second write (the POST of items 101–150) fails every time.
                await fake.state.inject(
                    .status(502, message: "Bad gateway"),
                    on: "/v1/playlists/\(playlist.id)/",
                    times: 20,
                    after: 3
                )
                let failed = try await runTool(
                    ["playlist", "reorder", "Long", "--order", "path"],
                    environment: environment
                )
                #expect(failed.exitCode == 1, "\(failed.stdout)")
                #expect(await (fake.state.writtenItems[playlist.id] ?? []).count == 100)
                await fake.state.clearFaults()
                let undo = try await runTool(["playlist", "reorder", "Long", "--undo"], environment: environment)
                #expect(undo.exitCode == 0, "\(undo.stderr)")
                #expect(await fake.state.writtenItems[playlist.id] == original)
            }
        }
    }
}
