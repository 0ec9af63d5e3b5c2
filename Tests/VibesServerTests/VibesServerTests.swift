import Foundation
import Ingest
import Testing
import VibesServer
import VibesTestSupport

/// The JSON API over a real store, through a real server on 127.0.0.1.
struct VibesServerTests {
    @Test func libraryCountsTracksPlaylistsAndSources() async throws {
        try await ServerHarness.withServer { harness async throws in
            let answer = try await harness.get("/api/library")
            #expect(answer.status == 200)
            #expect(answer.headers["content-type"]?.hasPrefix("application/json") == true)
            let body = try answer.json()
            #expect(body["schema_version"] as? Int == VibesServer.schemaVersion)
            #expect(body["tracks"] as? Int == 20)
            #expect(body["tracks_with_features"] as? Int == 20)
            #expect(body["playlists"] as? Int == 2)
            let sources = try #require(body["sources"] as? [[String: Any]])
            #expect(sources.reduce(0) { $0 + ($1["tracks"] as? Int ?? 0) } == 20)
        }
    }

    @Test func playlistsCarryTheirVibeBreakdown() async throws {
        try await ServerHarness.withServer { harness async throws in
            let body = try await harness.get("/api/playlists").json()
            #expect(body["schema_version"] as? Int == 1)
            #expect(body["run_id"] as? Int != nil)
            let playlists = try #require(body["playlists"] as? [[String: Any]])
            #expect(playlists.map { $0["name"] as? String } == ["Quiet Evening", "Workout"])
            // Quiet Evening is tracks 1–8, all calm; Workout is 9 and 10 (calm) and 11–20 (lively).
            let quiet = try #require(playlists.first?["vibes"] as? [[String: Any]])
            #expect(quiet.map { $0["name"] as? String } == ["Calm"])
            #expect(quiet.first?["tracks"] as? Int == 8)
            let workout = try #require(playlists.last?["vibes"] as? [[String: Any]])
            #expect(workout.map { $0["name"] as? String } == ["Lively", "Calm"])
            #expect(workout.map { $0["tracks"] as? Int } == [10, 2])

            let id = try #require(playlists.last?["id"] as? Int)
            let detail = try await harness.get("/api/playlists/\(id)").json()
            let entries = try #require(detail["entries"] as? [[String: Any]])
            #expect(entries.count == 12)
            let first = try #require(entries.first?["track"] as? [String: Any])
            #expect(first["spotify_id"] as? String == ServerHarness.spotifyID(9))
            #expect(entries.first?["has_features"] as? Bool == true)
            let means = try #require(detail["feature_means"] as? [String: Double])
            let expected = (9...20).map(ServerHarness.energy).reduce(0, +) / 12
            #expect(abs((means["energy"] ?? 0) - expected) < 1e-5)
        }
    }

    @Test func unknownPlaylistAndRouteAreJSONErrors() async throws {
        try await ServerHarness.withServer { harness async throws in
            let missing = try await harness.get("/api/playlists/999999")
            #expect(missing.status == 404)
            #expect(missing.errorCode == "not_found")
            #expect((try missing.json())["schema_version"] as? Int == 1)
            let notANumber = try await harness.get("/api/playlists/workout")
            #expect(notANumber.status == 400)
            let unknown = try await harness.get("/api/nothing-here")
            #expect(unknown.status == 404)
            #expect(unknown.errorCode == "not_found")
            #expect(unknown.headers["content-type"]?.hasPrefix("application/json") == true)
        }
    }

    @Test func vibesListTheCurrentRunLargestFirst() async throws {
        try await ServerHarness.withServer { harness async throws in
            let body = try await harness.get("/api/vibes").json()
            #expect(body["cluster_count"] as? Int == 2)
            #expect(body["track_count"] as? Int == 20)
            let vibes = try #require(body["vibes"] as? [[String: Any]])
            // Calm holds tracks 1–10 and Lively 11–20: a tie, broken by cluster index.
            #expect(vibes.map { $0["name"] as? String } == ["Calm", "Lively"])
            #expect(vibes.map { $0["number"] as? Int } == [1, 2])
            #expect(vibes.map { $0["size"] as? Int } == [10, 10])
            #expect(vibes.first?["mood"] as? String == "calm/content")
        }
    }

    @Test func tracksAreSearchedByName() async throws {
        try await ServerHarness.withServer { harness async throws in
            let body = try await harness.get("/api/tracks?q=Song%2017&limit=3").json()
            let tracks = try #require(body["tracks"] as? [[String: Any]])
            #expect(tracks.count <= 3)
            let best = try #require(tracks.first?["track"] as? [String: Any])
            #expect(best["name"] as? String == "Song 17")
            #expect(try await harness.get("/api/tracks").status == 400)
            #expect(try await harness.get("/api/tracks?q=song&limit=500").status == 400)
        }
    }
}
