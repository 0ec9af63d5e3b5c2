import Foundation
import GRDB
import Ingest
import SpotifyTestSupport
import Testing
import VibesTestSupport

/// `playlist extend` through the built tool: the playlist's tracks are the seeds, its own tracks
/// are never suggested, artists are spread, and the tracks land in the library, on Spotify, or in a
/// new playlist.
@Suite(.serialized, .timeLimit(.minutes(10)))
struct PlaylistExtendCommandTests {
    static func itemCount(_ database: String, playlist: String) throws -> Int {
        try DatabaseQueue(path: database).read { db in
            try Int.fetchOne(
                db,
                sql: "SELECT count(*) FROM playlist_items i JOIN playlists p ON p.id = i.playlist_id WHERE p.name = ?",
                arguments: [playlist]
            ) ?? -1
        }
    }

    @Test func extendAppendsTracksLikeThePlaylistInTheLibraryOrAsANewPlaylist() async throws {
        try await withTemporaryDirectory { directory in
            let environment = ["VIBES_DB": directory + "/library.sqlite", "HOME": directory]
            _ = try await runTool(["import", Fixtures.path("csv/tidytuesday-excerpt.csv")], environment: environment)
            let build = try await runTool(
                ["playlist", "build", "--mood", "chill", "-n", "5", "--name", "Seed list", "--save"],
                environment: environment
            )
            #expect(build.exitCode == 0, "\(build.stderr)")
            let seeds = try PlaylistExtendCommandTests.itemCount(environment["VIBES_DB"]!, playlist: "Seed list")
            #expect(seeds == 5)

            let dry = try await runTool(
                ["playlist", "extend", "Seed list", "-n", "6", "--dry-run", "--json"],
                environment: environment
            )
            #expect(dry.exitCode == 0, "\(dry.stderr)")
            let object = try JSONSerialization.jsonObject(with: Data(dry.stdout.utf8)) as? [String: Any]
            let added = try #require(object?["added"] as? [[String: Any]])
            #expect(added.count == 6 && object?["written"] as? String == "none" && object?["seeds"] as? Int == 5)
            // No artist more than twice.
            var perArtist: [String: Int] = [:]
            for track in added { perArtist[(track["artists"] as? [String])?.first ?? "", default: 0] += 1 }
            #expect(perArtist.values.allSatisfy { $0 <= 2 }, "\(perArtist)")
            #expect(try PlaylistExtendCommandTests.itemCount(environment["VIBES_DB"]!, playlist: "Seed list") == 5)

            let appended = try await runTool(["playlist", "extend", "Seed list", "-n", "6"], environment: environment)
            #expect(appended.exitCode == 0, "\(appended.stderr)")
            #expect(appended.stdout.contains("Appended in the library 6 tracks like Seed list"), "\(appended.stdout)")
            #expect(try PlaylistExtendCommandTests.itemCount(environment["VIBES_DB"]!, playlist: "Seed list") == 11)
            // Its own tracks, old and new, are never suggested again.
            let again = try await runTool(
                ["playlist", "extend", "Seed list", "-n", "3", "--dry-run", "--json"],
                environment: environment
            )
            let more =
                (try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any])?["added"]
                as? [[String: Any]] ?? []
            let earlier = Set(added.compactMap { $0["track_id"] as? Int })
            #expect(more.count == 3 && more.allSatisfy { !earlier.contains($0["track_id"] as? Int ?? -1) })

            let new = try await runTool(
                ["playlist", "extend", "Seed list", "-n", "4", "--new", "More chill"],
                environment: environment
            )
            #expect(new.exitCode == 0, "\(new.stderr)")
            #expect(try PlaylistExtendCommandTests.itemCount(environment["VIBES_DB"]!, playlist: "More chill") == 4)
            #expect(try PlaylistExtendCommandTests.itemCount(environment["VIBES_DB"]!, playlist: "Seed list") == 11)
        }
    }

    @Test func pushAppendsOnSpotifyKeepingTheItemsThere() async throws {
        try await withTemporaryDirectory { directory in
            try await FakeSpotify.withServer { fake in
                let (environment, id) = try await PlaylistReorderCommandTests.setUp(directory: directory, fake: fake)
                // Every feature the similarity space uses, for the playlist's tracks.
                var csv =
                    "track_id,track_name,track_artist,danceability,energy,key,loudness,mode,speechiness,acousticness,instrumentalness,liveness,valence,tempo,duration_ms\n"
                for position in 0..<12 {
                    let energy = 0.3 + Double(position % 4) * 0.1
                    csv +=
                        "\(PlaylistReorderCommandTests.listedID(10_000 + position)),Song \(position),Artist \(position % 5),0.6,\(energy),5,-7,1,0.05,0.3,0.01,0.1,0.5,118,200000\n"
                }
                try csv.write(toFile: directory + "/full.csv", atomically: true, encoding: .utf8)
                let full = try await runTool(["import", directory + "/full.csv"], environment: environment)
                #expect(full.exitCode == 0, "\(full.stderr)")
                _ = try await runTool(
                    ["import", Fixtures.path("csv/tidytuesday-excerpt.csv")],
                    environment: environment
                )
                let before = await fake.state.items(ofPlaylist: id)
                let extend = try await runTool(
                    ["playlist", "extend", "Road trip", "-n", "5", "--push", "--json"],
                    environment: environment
                )
                #expect(extend.exitCode == 0, "\(extend.stderr)")
                let object = try JSONSerialization.jsonObject(with: Data(extend.stdout.utf8)) as? [String: Any]
                #expect(object?["written"] as? String == "spotify" && object?["spotify_id"] as? String == id)
                let after = await fake.state.items(ofPlaylist: id)
                #expect(after.count == 17 && Array(after.prefix(12)) == before)
                #expect(await fake.state.writtenItems[id]?.count == 5)
                // The library holds them too, with the new snapshot: the next sync has nothing to fetch.
                let sync = try await runTool(["sync", "--playlists", "--json"], environment: environment)
                let report = try JSONSerialization.jsonObject(with: Data(sync.stdout.utf8)) as? [String: Any]
                #expect(report?["playlists_unchanged"] as? Int == 1, "\(sync.stdout)")
                #expect(try PlaylistExtendCommandTests.itemCount(environment["VIBES_DB"]!, playlist: "Road trip") == 17)
            }
        }
    }
}
