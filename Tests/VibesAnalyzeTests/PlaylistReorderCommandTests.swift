import Foundation
import GRDB
import Ingest
import SpotifyTestSupport
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

    /// Whether every item of `after` has the date added it had in `before`.
    static func sameDates(_ before: [FakePlaylist.ListedItem], _ after: [FakePlaylist.ListedItem]) -> Bool {
        var dates: [String: String] = [:]
        for item in before { dates[item.uri ?? ""] = item.addedAt }
        return after.allSatisfy { dates[$0.uri ?? ""] == $0.addedAt }
    }

    static func energies(_ uris: [String]) -> [Double] {
        uris.map { uri in
            let position = Int(uri.suffix(5))! - 10_000
            return position.isMultiple(of: 2) ? 0.9 - Double(position) * 0.03 : 0.1 + Double(position) * 0.03
        }
    }

    @Test func reorderMovesItemsKeepingTheirDatesAndUndoPutsTheOldOrderBack() async throws {
        try await withTemporaryDirectory { directory in
            try await FakeSpotify.withServer { fake in
                let (environment, id) = try await Self.setUp(directory: directory, fake: fake)
                let original = (0..<12).map { "spotify:track:" + Self.listedID(10_000 + $0) }
                let before = await fake.state.items(ofPlaylist: id)
                let beforeURIs = before.map { $0.uri ?? "" }
                #expect(beforeURIs == original)

                let reorder = try await runTool(
                    ["playlist", "reorder", "Road trip", "--order", "arc", "--arc", "rising"],
                    environment: environment
                )
                #expect(reorder.exitCode == 0, "\(reorder.stderr)")
                #expect(reorder.stdout.contains("Reordered Road trip (arc rising): 12 items"), "\(reorder.stdout)")
                #expect(reorder.stdout.contains("dates added and adders kept, order confirmed"), "\(reorder.stdout)")
                let after = await fake.state.items(ofPlaylist: id)
                let written = after.compactMap { $0.uri }
                #expect(Set(written) == Set(original) && written.count == 12)
                // Each item kept its date added and adder.
                let keptDates = Self.sameDates(before, after)
                #expect(keptDates)
                let energies = Self.energies(written)
                let opening: Double = energies.prefix(4).reduce(0, +)
                let closing: Double = energies.suffix(4).reduce(0, +)
                #expect(opening < closing - 1, "\(energies)")
                // Moves only: no replace, no append.
                let methods = await fake.state.requests(to: "/v1/playlists/\(id)/").map(\.method).filter { $0 != "GET" }
                let reorders = await fake.state.reorders
                #expect(!methods.isEmpty && Set(methods) == ["PUT"])
                #expect(methods.count == reorders && reorders < 12)
                #expect(await fake.state.writtenItems[id] == nil)
                let kept = try Self.keptOrder(database: environment["VIBES_DB"]!, playlist: id)
                #expect(try JSONDecoder().decode([String].self, from: Data((kept ?? "").utf8)) == original)

                let undo = try await runTool(["playlist", "reorder", "Road trip", "--undo"], environment: environment)
                #expect(undo.exitCode == 0, "\(undo.stderr)")
                #expect(await fake.state.items(ofPlaylist: id) == before)
                let again = try await runTool(["playlist", "reorder", "Road trip", "--undo"], environment: environment)
                #expect(again.exitCode == 1 && again.stderr.contains("has no reorder to undo"), "\(again.stderr)")

                // An undo after someone else changed the playlist is refused and writes nothing.
                _ = try await runTool(
                    ["playlist", "reorder", "Road trip", "--order", "path"],
                    environment: environment
                )
                await fake.state.appendTracks(1, toPlaylist: id)
                let changed = await fake.state.items(ofPlaylist: id)
                let refused = try await runTool(
                    ["playlist", "reorder", "Road trip", "--undo"],
                    environment: environment
                )
                #expect(
                    refused.exitCode == 1 && refused.stderr.contains("changed on Spotify since"),
                    "\(refused.stderr)"
                )
                #expect(await fake.state.items(ofPlaylist: id) == changed)
            }
        }
    }

    @Test func localFilesAndEpisodesKeepTheirPlacesAndAPlaylistNotOnSpotifyIsRefused() async throws {
        try await withTemporaryDirectory { directory in
            try await FakeSpotify.withServer { fake in
                var entries: [FakePlaylist.Entry] = (0..<6).map { .track(index: 10_000 + $0) }
                entries.insert(.local, at: 1)
                entries.insert(.episode, at: 4)
                let playlist = await fake.state.addPlaylist(
                    name: "Mixed",
                    entries: entries,
                    adders: ["wizzler", "friend"]
                )
                let environment = try await signedInToolEnvironment(
                    directory: directory,
                    spotify: fake,
                    reccoBeatsURL: try FakeReccoBeats.unreachableBaseURL(),
                    scopes: ["playlist-read-private", "playlist-modify-private"]
                )
                _ = try await runTool(["sync", "--playlists"], environment: environment)
                var csv = "track_id,track_name,track_artist,energy,valence,danceability,tempo,key,mode\n"
                for position in 0..<6 {
                    csv +=
                        "\(Self.listedID(10_000 + position)),Song \(position),Artist \(position),\(0.9 - Double(position) * 0.15),0.5,0.6,120,5,1\n"
                }
                try csv.write(toFile: directory + "/features.csv", atomically: true, encoding: .utf8)
                _ = try await runTool(["import", directory + "/features.csv"], environment: environment)
                let before = await fake.state.items(ofPlaylist: playlist.id)

                let mixed = try await runTool(
                    ["playlist", "reorder", "Mixed", "--order", "arc", "--arc", "rising", "--json"],
                    environment: environment
                )
                #expect(mixed.exitCode == 0, "\(mixed.stderr)")
                let result = try JSONSerialization.jsonObject(with: Data(mixed.stdout.utf8)) as? [String: Any]
                #expect(result?["method"] as? String == "moves" && result?["verified"] as? Bool == true)
                #expect(result?["other_items"] as? Int == 2 && result?["item_count"] as? Int == 8)
                let after = await fake.state.items(ofPlaylist: playlist.id)
                #expect(after[1] == before[1] && after[4] == before[4])  // the local file and the episode
                #expect(after != before && Set(after.map(\.uri)) == Set(before.map(\.uri)))
                // Rising energy: the tracks now run from the calmest to the most energetic.
                let tracks = after.compactMap(\.uri).filter { $0.hasPrefix("spotify:track:") }
                #expect(tracks.first == "spotify:track:" + Self.listedID(10_005), "\(tracks)")

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
                var csv = "track_id,track_name,track_artist,energy,valence,danceability,tempo,key,mode\n"
                for position in 0..<150 {
                    let value = Double((position * 37) % 100) / 100
                    csv +=
                        "\(Self.listedID(10_000 + position)),Song \(position),Artist \(position % 9),\(value),\(1 - value),0.6,120,5,1\n"
                }
                try csv.write(toFile: directory + "/features.csv", atomically: true, encoding: .utf8)
                _ = try await runTool(["import", directory + "/features.csv"], environment: environment)
                let before = await fake.state.items(ofPlaylist: playlist.id)
                // The two item pages are read, then the 11th move is refused.
                await fake.state.inject(
                    .status(403, message: "Forbidden"),
                    on: "/v1/playlists/\(playlist.id)/",
                    times: 1,
                    after: 12
                )
                let failed = try await runTool(
                    ["playlist", "reorder", "Long", "--order", "path"],
                    environment: environment
                )
                #expect(failed.exitCode == 1, "\(failed.stdout)")
                #expect(await fake.state.reorders == 10)
                #expect(await fake.state.items(ofPlaylist: playlist.id) != before)
                let undo = try await runTool(["playlist", "reorder", "Long", "--undo"], environment: environment)
                #expect(undo.exitCode == 0, "\(undo.stderr)")
                #expect(await fake.state.items(ofPlaylist: playlist.id) == before)
            }
        }
    }

    @Test func aRewriteSaysWhatItResetsFirst() async throws {
        try await withTemporaryDirectory { directory in
            try await FakeSpotify.withServer { fake in
                let (environment, id) = try await Self.setUp(directory: directory, fake: fake)
                let rewrite = try await runTool(
                    ["playlist", "reorder", "Road trip", "--rewrite"],
                    environment: environment
                )
                #expect(rewrite.exitCode == 0, "\(rewrite.stderr)")
                #expect(rewrite.stderr.contains("--rewrite replaces every item"), "\(rewrite.stderr)")
                #expect(rewrite.stdout.contains("rewritten with 1 request (dates added reset)"), "\(rewrite.stdout)")
                #expect(await fake.state.writtenItems[id]?.count == 12)
                #expect(await fake.state.reorders == 0)
            }
        }
    }
}
