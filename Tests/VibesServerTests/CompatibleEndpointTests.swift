import Foundation
import Ingest
import Testing
import VibesServer
import VibesTestSupport

/// `GET /v1/audio-features` in the shape of Spotify's OpenAPI, over the stored features.
struct CompatibleEndpointTests {
    @Test func listHasNullForUnknownIDsInOrder() async throws {
        try await ServerHarness.withServer { harness async throws in
            let unknown = "7ouMYWpwJ422jRcDASZB7P"
            let ids = [ServerHarness.spotifyID(3), unknown, ServerHarness.spotifyID(15)]
            let answer = try await harness.get("/v1/audio-features?ids=" + ids.joined(separator: ","))
            #expect(answer.status == 200)
            let body = try answer.json()
            let list = try #require(body["audio_features"] as? [Any])
            #expect(list.count == 3)
            #expect(list[1] is NSNull)
            let first = try #require(list[0] as? [String: Any])
            #expect(first["id"] as? String == ids[0])
            #expect(first["type"] as? String == "audio_features")
            #expect(first["uri"] as? String == "spotify:track:" + ids[0])
            // Stored as Float: the answer is the shortest decimal of the stored value.
            #expect(abs((first["energy"] as? Double ?? 0) - ServerHarness.energy(3)) < 1e-6)
            #expect(first["key"] as? Int == 5)
            #expect(first["mode"] as? Int == 1)
            #expect(first["time_signature"] as? Int == 4)
            #expect(first["tempo"] as? Double == 120)
            #expect(first["duration_ms"] as? Int == 180_003)
            let third = try #require(list[2] as? [String: Any])
            #expect(abs((third["energy"] as? Double ?? 0) - ServerHarness.energy(15)) < 1e-6)
        }
    }

    @Test func singleUnknownIsNotFoundAndKnownIsTheObject() async throws {
        try await ServerHarness.withServer { harness async throws in
            let known = try await harness.get("/v1/audio-features/" + ServerHarness.spotifyID(7))
            #expect(known.status == 200)
            #expect((try known.json())["valence"] as? Double == 0.6)
            let unknown = try await harness.get("/v1/audio-features/7ouMYWpwJ422jRcDASZB7P")
            #expect(unknown.status == 404)
            #expect(unknown.errorCode == "not_found")
            #expect(try await harness.get("/v1/audio-features/not-an-id").status == 400)
        }
    }

    @Test func atMostOneHundredValidIDs() async throws {
        try await ServerHarness.withServer { harness async throws in
            let hundred = (1...100).map(ServerHarness.spotifyID).joined(separator: ",")
            let full = try await harness.get("/v1/audio-features?ids=" + hundred)
            #expect(full.status == 200)
            #expect(((try full.json())["audio_features"] as? [Any])?.count == 100)
            let tooMany = try await harness.get(
                "/v1/audio-features?ids=" + hundred + "," + ServerHarness.spotifyID(101)
            )
            #expect(tooMany.status == 400)
            #expect(try await harness.get("/v1/audio-features?ids=abc").status == 400)
            #expect(try await harness.get("/v1/audio-features").status == 400)
        }
    }

    @Test func outsideWriteIsSeenWithinTwoSeconds() async throws {
        try await ServerHarness.withServer { harness async throws in
            let newID = ServerHarness.spotifyID(42)
            #expect(try await harness.get("/v1/audio-features/" + newID).status == 404)
            // Another program imports: its own connection to the same file.
            let other = try LibraryStore(path: harness.store.path)
            try ServerHarness.importPlaylist("Later", indices: [42], into: other, folder: harness.folder)
            let path = "/v1/audio-features/" + newID
            #expect(try await harness.status(of: path, becoming: 200, within: .seconds(30)) == 200)
            #expect(((try await harness.get("/api/playlists").json())["playlists"] as? [Any])?.count == 3)
        }
    }
}
