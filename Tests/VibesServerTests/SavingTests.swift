import Foundation
import Ingest
import Testing
import VibesServer
import VibesTestSupport

/// `POST /api/playlists`: a list saved as a playlist of the store, behind the CSRF token.
struct SavingTests {
    /// Posts `body` to /api/playlists with the session's CSRF token.
    static func post(_ body: String, to harness: ServerHarness) async throws -> ServerHarness.Answer {
        try await harness.post(body, to: "/api/playlists")
    }

    @Test func recommendationsSavedAsAPlaylistAreListedInOrder() async throws {
        try await ServerHarness.withServer { harness async throws in
            let recommended = try await RecommendationsTests.tracks(
                harness,
                "/v1/recommendations?seed_tracks=\(ServerHarness.spotifyID(3))&limit=5"
            )
            let ids = recommended.compactMap { ($0["vibes"] as? [String: Any])?["track_id"] as? Int }
            #expect(ids.count == 5)
            let answer = try await Self.post(
                "{\"name\": \"More like Song 3\", \"track_ids\": [\(ids.map(String.init).joined(separator: ","))]}",
                to: harness
            )
            #expect(answer.status == 201)
            let saved = try answer.json()
            #expect(saved["name"] as? String == "More like Song 3")
            #expect(saved["track_count"] as? Int == 5)
            let id = try #require(saved["id"] as? Int)
            // The store's own listing has it, with its tracks in the order sent.
            let listed = try harness.store.playlistOverviews(vibesOf: nil)
            #expect(listed.contains { $0.name == "More like Song 3" && $0.trackCount == 5 })
            let detail = try await harness.get("/api/playlists/\(id)")
            let entries = try #require((try detail.json())["entries"] as? [[String: Any]])
            #expect(entries.compactMap { ($0["track"] as? [String: Any])?["id"] as? Int } == ids)
            // Saving the same name again replaces it.
            #expect(
                try await Self.post("{\"name\": \"More like Song 3\", \"track_ids\": [1]}", to: harness).status == 201
            )
            let again = try harness.store.playlistOverviews(vibesOf: nil).filter { $0.name == "More like Song 3" }
            #expect(again.map(\.trackCount) == [1])
        }
    }

    /// Bodies that are refused, and what the message must name.
    static let badBodies = [
        "not json": "JSON",
        "{\"name\": \" \", \"track_ids\": [1]}": "name",
        "{\"name\": \"x\", \"track_ids\": []}": "track_ids",
        "{\"name\": \"x\", \"track_ids\": [1, 99999]}": "99999",
    ]

    @Test(arguments: badBodies)
    func badBodiesAreRefusedNamingTheProblem(body: String, named: String) async throws {
        try await ServerHarness.withServer { harness async throws in
            let answer = try await Self.post(body, to: harness)
            #expect(answer.status == 400)
            #expect(answer.errorMessage?.contains(named) == true, "\(answer.errorMessage ?? "")")
            #expect(try harness.store.playlistOverviews(vibesOf: nil).count == 2)
        }
    }
}
