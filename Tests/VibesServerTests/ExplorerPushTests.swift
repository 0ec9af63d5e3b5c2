import Foundation
import Ingest
import SpotifyTestSupport
import SpotifyWebAPI
import Testing
import VibesEngine
import VibesServer
import VibesTestSupport

/// `POST /api/playlists/{id}/push` and `GET /api/spotify`: a saved playlist written to a fake
/// Spotify account through VibesEngine's pusher, and the answers when nobody is signed in.
struct ExplorerPushTests {
    /// Runs `body` against a server whose pusher writes to a fake Spotify account.
    static func withPushingServer(_ body: (ServerHarness, FakeSpotify) async throws -> Void) async throws {
        try await FakeSpotify.withServer { fake in
            let signedIn = try await makeSignedInClient(fake)
            let account = SpotifyAccount { signedIn.client }
            try await ServerHarness.withServer(spotify: account) { harness async throws in
                try await body(harness, fake)
            }
        }
    }

    /// Saves synthetic tracks `numbers` as "Explorer picks", as the explorer's button does, and
    /// pushes the playlist: its ID and the push's answer.
    static func saveAndPush(_ numbers: [Int], _ harness: ServerHarness) async throws -> (id: Int, push: [String: Any]) {
        let ids = try numbers.map { try ExplorerAPITests.trackID($0, in: harness) }
        let saved = try await harness.post(
            "{\"name\": \"Explorer picks\", \"track_ids\": [\(ids.map(String.init).joined(separator: ","))]}",
            to: "/api/playlists"
        )
        let id = try #require(try saved.json()["id"] as? Int)
        let pushed = try await harness.post("{}", to: "/api/playlists/\(id)/push")
        #expect(pushed.status == 200, "\(pushed.errorMessage ?? "")")
        return (id, try pushed.json())
    }

    @Test func aSavedPlaylistIsPushedThenReplaced() async throws {
        try await Self.withPushingServer { harness, fake async throws in
            #expect(try await harness.get("/api/spotify").json()["signed_in"] as? Bool == true)
            let (id, body) = try await Self.saveAndPush([15, 3, 9], harness)
            let spotifyID = try #require(body["spotify_id"] as? String)
            #expect(body["created"] as? Bool == true)
            #expect(body["item_count"] as? Int == 3)
            #expect(body["url"] as? String == "https://open.spotify.com/playlist/\(spotifyID)")
            #expect(
                await fake.state.writtenItems[spotifyID]
                    == [15, 3, 9].map { "spotify:track:\(ServerHarness.spotifyID($0))" }
            )
            // A second push replaces the items of the same Spotify playlist.
            let again = try await harness.post("{}", to: "/api/playlists/\(id)/push").json()
            #expect(again["spotify_id"] as? String == spotifyID && again["created"] as? Bool == false)

            let missing = try await harness.post("{}", to: "/api/playlists/99999/push")
            #expect(missing.status == 404 && missing.errorCode == "not_found")
        }
    }

    /// The explorer's button saves the staging list before each push: saving over the playlist
    /// keeps the Spotify playlist the first push created, so the second push replaces its items.
    @Test func savingAgainThenPushingReplacesTheSameSpotifyPlaylist() async throws {
        try await Self.withPushingServer { harness, fake async throws in
            let first = try await Self.saveAndPush([15, 3, 9], harness)
            let spotifyID = try #require(first.push["spotify_id"] as? String)
            #expect(first.push["created"] as? Bool == true)

            let second = try await Self.saveAndPush([4, 15], harness)
            #expect(second.id == first.id)
            #expect(second.push["spotify_id"] as? String == spotifyID)
            #expect(second.push["created"] as? Bool == false)
            #expect(await fake.state.writtenItems.count == 1)
            #expect(
                await fake.state.writtenItems[spotifyID]
                    == [4, 15].map { "spotify:track:\(ServerHarness.spotifyID($0))" }
            )
        }
    }

    /// The ID in the path is a row ID and nothing else: a playlist named like a missing ID is not
    /// pushed in its place.
    @Test func aPushFindsThePlaylistByItsIDOnly() async throws {
        try await Self.withPushingServer { harness, fake async throws in
            let track = try ExplorerAPITests.trackID(3, in: harness)
            let saved = try await harness.post(
                "{\"name\": \"99999\", \"track_ids\": [\(track)]}",
                to: "/api/playlists"
            )
            #expect(saved.status == 201)
            #expect(try saved.json()["id"] as? Int != 99999)
            let missing = try await harness.post("{}", to: "/api/playlists/99999/push")
            #expect(missing.status == 404 && missing.errorCode == "not_found")
            #expect(await fake.state.writtenItems.isEmpty)
        }
    }

    @Test func withoutASpotifySessionThePushSaysHowToSignIn() async throws {
        try await ServerHarness.withServer { harness async throws in
            #expect(try await harness.get("/api/spotify").json()["signed_in"] as? Bool == false)
            let answer = try await harness.post("{}", to: "/api/playlists/1/push")
            #expect(answer.status == 409)
            #expect(answer.errorCode == "spotify_not_signed_in")
            #expect(answer.errorMessage?.contains("vibes-analyze auth login") == true)
            #expect(try await harness.get("/api/playlists/1/push").status == 405)
            // The CSRF token is needed as for every POST.
            #expect(try await harness.post("{}", to: "/api/playlists/1/push", sendsCSRFToken: false).status == 403)
        }
    }

    @Test(.enabled(if: HeadlessChromium.isAvailable, HeadlessChromium.skipReason))
    func thePushButtonSavesAndPushesTheStagingList() async throws {
        try await Self.withPushingServer { harness, fake async throws in
            try await ChromiumSession.withSession { browser in
                try await ExplorerTests.openExplorer(browser, harness: harness)
                try await ExplorerTests.choose("Quiet Evening", in: "explorer-playlist", browser)
                try await browser.waitUntil("document.getElementById('explorer-canvas').dataset.shown === '8'")
                try await ExplorerTests.click("#explorer-add-shown", browser)
                try await browser.waitUntil("!document.getElementById('staging-spotify').disabled")
                #expect(
                    try await browser.evaluate(
                        "document.getElementById('staging-spotify-why').hidden",
                        as: Bool.self
                    )
                )
                try await browser.evaluate("document.getElementById('staging-name').value = 'Quiet picks'")
                try await ExplorerTests.click("#staging-spotify", browser)
                try await browser.waitUntil(
                    "document.getElementById('staging-status').textContent.includes('on Spotify')"
                )
                #expect(
                    try await browser.evaluate(
                        "document.getElementById('staging-status').textContent",
                        as: String.self
                    )
                        == "Created “Quiet picks” on Spotify with 8 tracks."
                )
            }
            let saved = try #require(
                try harness.store.playlistOverviews(vibesOf: nil).first { $0.name == "Quiet picks" }
            )
            let pushable = try harness.store.pushablePlaylist(matching: String(saved.id))
            let spotifyID = try #require(pushable.spotifyID)
            #expect(
                await fake.state.writtenItems[spotifyID.rawValue]
                    == (1...8).map { "spotify:track:\(ServerHarness.spotifyID($0))" }
            )
        }
    }
}
