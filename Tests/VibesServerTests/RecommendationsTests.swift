import Foundation
import Ingest
import Testing
import VibesEngine
import VibesServer
import VibesTestSupport

/// `GET /v1/recommendations` over raw HTTP: Spotify's parameters and answer shape, answered by the
/// warm recommender over the harness's library (tracks 1–10 calm, 11–20 lively).
struct RecommendationsTests {
    /// The synthetic index of a track of an answer (its Spotify ID is the zero-padded index).
    static func index(of track: Any) -> Int? {
        ((track as? [String: Any])?["id"] as? String).flatMap { Int($0) }
    }

    /// The tracks of a 200 answer to `path`.
    static func tracks(
        _ harness: ServerHarness,
        _ path: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [[String: Any]] {
        let answer = try await harness.get(path)
        #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))", sourceLocation: sourceLocation)
        return try #require((try answer.json())["tracks"] as? [[String: Any]], sourceLocation: sourceLocation)
    }

    @Test func seedTrackGivesSimilarTracksInSpotifysShape() async throws {
        try await ServerHarness.withServer { harness async throws in
            let seed = ServerHarness.spotifyID(3)
            let answer = try await harness.get("/v1/recommendations?seed_tracks=\(seed)&limit=5")
            #expect(answer.status == 200)
            let body = try answer.json()
            #expect(body["schema_version"] as? Int == 1)
            let tracks = try #require(body["tracks"] as? [[String: Any]])
            #expect(tracks.count == 5)
            let indices = tracks.compactMap(Self.index(of:))
            // Calm like the seed, and never the seed itself.
            #expect(indices.count == 5 && indices.allSatisfy { (1...10).contains($0) && $0 != 3 }, "\(indices)")
            let first = try #require(tracks.first)
            let id = try #require(first["id"] as? String)
            #expect(first["type"] as? String == "track")
            #expect(first["uri"] as? String == "spotify:track:" + id)
            #expect(first["href"] as? String == "https://api.spotify.com/v1/tracks/" + id)
            #expect(first["name"] as? String == "Song \(Int(id) ?? 0)")
            #expect(first["duration_ms"] as? Int == 180_000 + (Int(id) ?? 0))
            #expect(
                ((first["artists"] as? [[String: Any]])?.first)?["name"] as? String == "Artist \((Int(id) ?? 0) % 4)"
            )
            let why = try #require(first["vibes"] as? [String: Any])
            #expect((why["similarity"] as? Double).map { $0 > 0 && $0 <= 1 } == true)
            #expect((why["why"] as? [String])?.isEmpty == false)
            let seeds = try #require(body["seeds"] as? [[String: Any]])
            #expect(seeds.count == 1)
            #expect(seeds.first?["id"] as? String == seed)
            #expect(seeds.first?["type"] as? String == "track")
            #expect(seeds.first?["href"] as? String == "https://api.spotify.com/v1/tracks/" + seed)
            // Every track but the seed was a candidate.
            #expect(seeds.first?["initialPoolSize"] as? Int == 19)
        }
    }

    /// The server answers what `recommend --seed ID --max-per-artist 2` answers: the same query
    /// (two tracks per artist, the seed's own included, none damped), track for track and score
    /// for score to the bit, with the same reasons.
    @Test(arguments: [1, 3, 9, 12, 20])
    func answersAreTheCommandLines(seed index: Int) async throws {
        /// What the answer says of each track under `vibes`, read exactly (`JSONDecoder`).
        struct Answer: Decodable {
            struct Vibes: Decodable {
                let trackID: Int64, similarity: Double, score: Double, why: [String]

                enum CodingKeys: String, CodingKey {
                    case similarity, score, why
                    case trackID = "track_id"
                }
            }
            struct Track: Decodable { var vibes: Vibes }
            var tracks: [Track]
        }
        try await ServerHarness.withServer { harness async throws in
            let seed = ServerHarness.spotifyID(index)
            let answer = try await harness.get("/v1/recommendations?seed_tracks=\(seed)&limit=7")
            #expect(answer.status == 200)
            let answered = try JSONDecoder().decode(Answer.self, from: answer.body).tracks.map(\.vibes)
            var request = RecommendRequest()
            request.seeds.tracks = [seed]
            request.query.count = 7
            request.maximumPerArtist = 2
            let expected = try harness.store.recommend(request).result.recommendations
            #expect(!expected.isEmpty)
            #expect(answered.map(\.trackID) == expected.map(\.trackID))
            #expect(answered.map(\.similarity.bitPattern) == expected.map(\.similarity.bitPattern))
            #expect(answered.map(\.score.bitPattern) == expected.map(\.score.bitPattern))
            #expect(answered.map(\.why) == expected.map(\.reasons))
        }
    }

    @Test func boundsFilterAndTargetsPull() async throws {
        try await ServerHarness.withServer { harness async throws in
            let seed = ServerHarness.spotifyID(3)
            let lively = try await Self.tracks(
                harness,
                "/v1/recommendations?seed_tracks=\(seed)&min_energy=0.7&limit=10"
            )
            let indices = lively.compactMap(Self.index(of:))
            #expect(!indices.isEmpty && indices.allSatisfy { $0 > 10 }, "\(indices)")
            let answer = try await harness.get("/v1/recommendations?seed_tracks=\(seed)&min_energy=0.7&limit=10")
            let seeds = try #require((try answer.json())["seeds"] as? [[String: Any]])
            #expect(seeds.first?["afterFilteringSize"] as? Int == 10)
            // Filters that leave nothing: an empty list, as Spotify answered.
            #expect(try await Self.tracks(harness, "/v1/recommendations?seed_tracks=\(seed)&min_tempo=200").isEmpty)
            // A target alone turns a lively seed's list calm.
            let pulled = try await Self.tracks(
                harness,
                "/v1/recommendations?seed_tracks=\(ServerHarness.spotifyID(15))&target_energy=0.1&max_energy=0.3&limit=3"
            )
            #expect(pulled.compactMap(Self.index(of:)).allSatisfy { $0 <= 10 })
            #expect(pulled.count == 3)
        }
    }

    @Test func genreAndArtistSeeds() async throws {
        try await ServerHarness.withServer { harness async throws in
            let byGenre = try await harness.get("/v1/recommendations?seed_genres=Pop&limit=3")
            #expect(byGenre.status == 200)
            let genreSeed = try #require(((try byGenre.json())["seeds"] as? [[String: Any]])?.first)
            #expect(genreSeed["type"] as? String == "genre")
            #expect(genreSeed["href"] is NSNull)
            let unknown = try await harness.get("/v1/recommendations?seed_genres=polka")
            #expect(unknown.status == 400)
            #expect(unknown.errorMessage?.contains("seed_genres") == true)

            #expect(try await Self.tracks(harness, "/v1/recommendations?seed_artists=Artist%201&limit=3").count == 3)
            // An artist's Spotify ID, as a sync stores it.
            let artistID = "1dfeR4HaWDbWqFHLkxsg1d"
            #expect(try await harness.get("/v1/recommendations?seed_artists=\(artistID)").status == 400)
            let run = try await harness.store.startSpotifySyncRun(
                baseURL: "http://127.0.0.1",
                startedAt: "2026-01-01T00:00:00Z"
            )
            _ = try await harness.store.writeSpotifySyncBatch(runID: run, fetchedAt: "2026-01-01T00:00:00Z") { batch in
                try batch.writeArtist(name: "Artist 2", spotifyID: artistID)
            }
            let byID = try await harness.get("/v1/recommendations?seed_artists=\(artistID)&limit=3")
            #expect(byID.status == 200)
            let artistSeed = try #require(((try byID.json())["seeds"] as? [[String: Any]])?.first)
            #expect(artistSeed["href"] as? String == "https://api.spotify.com/v1/artists/" + artistID)
        }
    }

    @Test(arguments: [
        ("", "seed"),
        ("seed_tracks=" + (1...6).map(ServerHarness.spotifyID).joined(separator: ","), "seeds"),
        ("seed_tracks=not-an-id", "seed_tracks"),
        ("seed_tracks=7ouMYWpwJ422jRcDASZB7P", "seed_tracks"),
        ("seed_tracks=\(ServerHarness.spotifyID(3))&limit=0", "limit"),
        ("seed_tracks=\(ServerHarness.spotifyID(3))&limit=101", "limit"),
        ("seed_tracks=\(ServerHarness.spotifyID(3))&min_energy=2", "min_energy"),
        ("seed_tracks=\(ServerHarness.spotifyID(3))&target_tempo=fast", "target_tempo"),
        ("seed_tracks=\(ServerHarness.spotifyID(3))&min_energy=0.9&max_energy=0.1", "max_energy"),
    ])
    func badParametersAreSpotifyErrorsNamingThem(query: String, named: String) async throws {
        try await ServerHarness.withServer { harness async throws in
            let answer = try await harness.get("/v1/recommendations?" + query)
            #expect(answer.status == 400)
            let error = try #require((try answer.json())["error"] as? [String: Any])
            // Spotify's ErrorObject: the status repeated, and a message.
            #expect(error["status"] as? Int == 400)
            #expect((error["message"] as? String)?.contains(named) == true, "\(error)")
        }
    }

    @Test func outsideWriteRebuildsTheRecommender() async throws {
        try await ServerHarness.withServer { harness async throws in
            let newID = ServerHarness.spotifyID(42)
            let path = "/v1/recommendations?seed_tracks=\(newID)&limit=3"
            #expect(try await harness.get(path).status == 400)
            let other = try LibraryStore(path: harness.store.path)
            try ServerHarness.importPlaylist("Later", indices: [42], into: other, folder: harness.folder)
            #expect(try await harness.status(of: path, becoming: 200, within: .seconds(30)) == 200)
        }
    }
}
