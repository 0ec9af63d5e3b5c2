import Foundation
import GRDB
import Ingest
import SpotifyTestSupport
import Testing
import VibesTestSupport

/// `playlist recipe` through the built tool: a playlist built again from the current library,
/// updated in place on Spotify, and refreshed by `sync --refresh-recipes`.
@Suite(.serialized, .timeLimit(.minutes(10)))
struct PlaylistRecipeCommandTests {
    @Test func aRecipeIsSavedRunListedShownAndDeleted() async throws {
        try await withTemporaryDirectory { directory in
            let environment = ["VIBES_DB": directory + "/library.sqlite", "HOME": directory]
            _ = try await runTool(["import", Fixtures.path("csv/tidytuesday-excerpt.csv")], environment: environment)
            let refused = try await runTool(
                ["playlist", "recipe", "save", "Calm", "--mood", "chill", "--name", "Other"],
                environment: environment
            )
            #expect(refused.exitCode != 0 && refused.stderr.contains("leave --name out"), "\(refused.stderr)")
            let save = try await runTool(
                ["playlist", "recipe", "save", "Calm", "--mood", "chill", "-n", "5"],
                environment: environment
            )
            #expect(save.exitCode == 0, "\(save.stderr)")
            let run = try await runTool(["playlist", "recipe", "run", "Calm", "--json"], environment: environment)
            #expect(run.exitCode == 0, "\(run.stderr)")
            let outcome = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
            #expect(outcome?["tracks"] as? Int == 5 && outcome?["kept_in_place"] as? Int == 0)
            // Run again on the same library: every track stays in its place.
            let again = try await runTool(["playlist", "recipe", "run", "Calm", "--json"], environment: environment)
            let second = try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any]
            #expect(second?["kept_in_place"] as? Int == 5)
            let list = try await runTool(["playlist", "recipe", "list"], environment: environment)
            #expect(list.stdout.contains("Calm: --mood chill -n 5"), "\(list.stdout)")
            let show = try await runTool(["playlist", "recipe", "show", "calm", "--json"], environment: environment)
            let shown = try JSONSerialization.jsonObject(with: Data(show.stdout.utf8)) as? [String: Any]
            #expect(shown?["arguments"] as? [String] == ["--mood", "chill", "-n", "5"])
            #expect(shown?["last_run_at"] as? String != nil)
            let delete = try await runTool(["playlist", "recipe", "delete", "Calm"], environment: environment)
            #expect(delete.exitCode == 0, "\(delete.stderr)")
            let gone = try await runTool(["playlist", "recipe", "run", "Calm"], environment: environment)
            #expect(gone.exitCode == 1 && gone.stderr.contains("no recipe named"), "\(gone.stderr)")
        }
    }

    @Test func aPushedRecipeIsUpdatedInPlaceOnSpotifyAndBySync() async throws {
        try await withTemporaryDirectory { directory in
            try await FakeSpotify.withServer { fake in
                let environment = try await signedInToolEnvironment(
                    directory: directory,
                    spotify: fake,
                    reccoBeatsURL: try FakeReccoBeats.unreachableBaseURL()
                )
                _ = try await runTool(
                    ["import", Fixtures.path("csv/tidytuesday-excerpt.csv")],
                    environment: environment
                )
                _ = try await runTool(
                    ["playlist", "recipe", "save", "Bright", "--target-energy", "0.99", "-n", "6", "--order", "none"],
                    environment: environment
                )
                let first = try await runTool(
                    ["playlist", "recipe", "run", "Bright", "--push"],
                    environment: environment
                )
                #expect(first.exitCode == 0, "\(first.stderr)")
                #expect(first.stdout.contains("created on Spotify"), "\(first.stdout)")
                let id = try #require(await fake.state.playlists.last?.id)
                let before = await fake.state.items(ofPlaylist: id)
                #expect(before.count == 6)

                // More energetic tracks arrive: the next run replaces some, keeps the rest with their dates.
                var csv =
                    "track_id,track_name,track_artist,danceability,energy,key,loudness,mode,speechiness,acousticness,instrumentalness,liveness,valence,tempo,duration_ms\n"
                for index in 0..<3 {
                    csv +=
                        "4uLU6hMCjMI75M1A2tKUQ\(index),Anthem \(index),Loud \(index),0.7,0.99,5,-4,1,0.05,0.01,0.0,0.2,0.6,128,200000\n"
                }
                try csv.write(toFile: directory + "/new.csv", atomically: true, encoding: .utf8)
                _ = try await runTool(["import", directory + "/new.csv"], environment: environment)
                let sync = try await runTool(
                    ["sync", "--top", "--refresh-recipes", "--json"],
                    environment: environment
                )
                #expect(sync.exitCode == 0, "\(sync.stderr)")
                let report = try JSONSerialization.jsonObject(with: Data(sync.stdout.utf8)) as? [String: Any]
                #expect(report?["refreshed_recipes"] as? [String] == ["Bright"])
                let after = await fake.state.items(ofPlaylist: id)
                #expect(after.count == 6)
                let added = after.filter { ($0.uri ?? "").hasPrefix("spotify:track:4uLU6hMCjMI75M1A2tKUQ") }
                #expect(!added.isEmpty, "\(after)")
                // The tracks that stayed kept their dates added.
                let dates = Dictionary(uniqueKeysWithValues: before.map { ($0.uri ?? "", $0.addedAt) })
                let stayed = after.filter { dates[$0.uri ?? ""] != nil }
                #expect(!stayed.isEmpty && stayed.allSatisfy { dates[$0.uri ?? ""] == $0.addedAt })
                // Spotify holds the order the library holds.
                let stored = try Self.storedURIs(environment["VIBES_DB"]!)
                #expect(after.map { $0.uri ?? "" } == stored)
            }
        }
    }

    static func storedURIs(_ path: String) throws -> [String] {
        try DatabaseQueue(path: path).read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT 'spotify:track:' || t.spotify_id FROM playlist_items i JOIN tracks t ON t.id = i.track_id
                    JOIN playlists p ON p.id = i.playlist_id WHERE p.name = 'Bright' ORDER BY i.position
                    """
            )
        }
    }
}
