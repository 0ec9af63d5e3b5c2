import Features
import Foundation
import SpotifyTestSupport
import SpotifyWebAPI
import SpotifyWebModel
import Testing
import VibesTestSupport

struct SpotifyClientTests {
    // MARK: - Reading

    @Test func decodesTheCurrentUserFromSpotifysExample() async throws {
        try await FakeSpotify.withServer { fake in
            let signedIn = try await makeSignedInClient(fake)
            let me = try await signedIn.client.currentUser()
            #expect(me.id == "wizzler")
            #expect(me.displayName == "JM Wizzler")
            let request = try #require(await fake.state.requests(to: "/v1/me").first)
            #expect(request.authorization?.hasPrefix("Bearer BQ-fake-access-") == true)
        }
    }

    @Test func pagesThroughSavedTracksFiftyAtATime() async throws {
        try await FakeSpotify.withServer { fake in
            await fake.state.setSavedTrackCount(123)
            let signedIn = try await makeSignedInClient(fake)
            var ids: [String] = []
            var offset = 0
            while true {
                let page = try await signedIn.client.savedTracks(offset: offset)
                ids += page.items.compactMap { $0?.object?.id }
                offset += page.items.count
                if page.next == nil { break }
            }
            #expect(ids == (0..<123).map(FakeSpotifyState.savedTrackID))
            let requests = await fake.state.requests(to: "/v1/me/tracks")
            #expect(requests.map { $0.query["offset"] } == ["0", "50", "100"])
            #expect(requests.allSatisfy { $0.query["limit"] == "50" })
            #expect(signedIn.client.requestCounter.value == 3)
        }
    }

    @Test func currentlyPlayingIsNilOn204() async throws {
        try await FakeSpotify.withServer { fake in
            let signedIn = try await makeSignedInClient(fake)
            #expect(try await signedIn.client.currentlyPlaying() == nil)
            await fake.state.configure { $0.nothingPlaying = false }
            #expect(try await signedIn.client.currentlyPlaying()?.item?.name == "Now")
        }
    }

    @Test func playlistItemsTolerateLocalFilesEpisodesAndRemovedTracks() async throws {
        try await FakeSpotify.withServer { fake in
            let playlist = await fake.state.addPlaylist(
                name: "Mixed",
                trackCount: 3,
                localFiles: 1,
                episodes: 1,
                removedTracks: 2
            )
            let signedIn = try await makeSignedInClient(fake)
            let items = try await signedIn.client.allPlaylistItems(of: try #require(SpotifyID(playlist.id)))
            #expect(items.count == 7)
            let objects = items.map { $0?.object }
            #expect(objects.compactMap { $0?.track }.filter { !$0.isLocal }.count == 3)
            let local = try #require(objects[3]?.track)
            #expect(local.isLocal && local.spotifyID == nil && local.name == "Killshot")
            #expect(objects[4]?.type == "episode" && objects[4]?.track == nil)
            #expect(objects[5] == nil && objects[6] == nil)
        }
    }

    @Test func playlistItemsFallBackToTheTracksPath() async throws {
        try await FakeSpotify.withServer { fake in
            let playlist = await fake.state.addPlaylist(name: "Old API", trackCount: 150)
            await fake.state.configure { $0.itemsPathMissing = true }
            let signedIn = try await makeSignedInClient(fake)
            let items = try await signedIn.client.allPlaylistItems(of: try #require(SpotifyID(playlist.id)))
            #expect(items.count == 150)
            let paths = await fake.state.requests(to: "/v1/playlists").map(\.path)
            // One 404 on /items, then /tracks for both pages without asking /items again.
            #expect(
                paths == ["/v1/playlists/\(playlist.id)/items"]
                    + Array(repeating: "/v1/playlists/\(playlist.id)/tracks", count: 2)
            )
        }
    }

    @Test func batchTracksFallBackToSingleRequestsWhenRefused() async throws {
        try await FakeSpotify.withServer { fake in
            await fake.state.configure { $0.batchTracksForbidden = true }
            let signedIn = try await makeSignedInClient(fake)
            let ids = try ["4iV5W9uYEdYUVa79Axb7Rh", "N000000000000000000001"].map { try #require(SpotifyID($0)) }
            let tracks = try await signedIn.client.tracks(ids)
            #expect(tracks.map { $0?.id } == ["4iV5W9uYEdYUVa79Axb7Rh", nil])
            #expect(try await signedIn.client.tracks([]).isEmpty)
            #expect(await fake.state.requests(to: "/v1/tracks").count == 3)
        }
    }

    @Test func artistsComeInBatchesWithGenres() async throws {
        try await FakeSpotify.withServer { fake in
            let signedIn = try await makeSignedInClient(fake)
            let ids = ["0oSGxfWSnnOXhD2fKuz2Gy", "3dBVyJ7JuOMt4GE9607Qin"].map { SpotifyID($0)! }
            let artists = try await signedIn.client.artists(ids)
            #expect(artists.map { $0?.name } == ["David Bowie", "T. Rex"])
            #expect(artists[0]?.genres?.isEmpty == false)
            #expect(
                await fake.state.requests(to: "/v1/artists").map { $0.query["ids"] } == [
                    ids.map(\.rawValue).joined(separator: ",")
                ]
            )
        }
    }

    @Test func searchFindsTracks() async throws {
        try await FakeSpotify.withServer { fake in
            let signedIn = try await makeSignedInClient(fake)
            let tracks = try await signedIn.client.searchTracks("artist:Radiohead track:Reckoner")
            #expect(tracks.map(\.name) == ["artist:Radiohead track:Reckoner"])
        }
    }

    // MARK: - Audio features

    @Test func audioFeaturesAreFetchedInBatchesOfOneHundred() async throws {
        try await FakeSpotify.withServer { fake in
            let signedIn = try await makeSignedInClient(fake)
            var ids = (0..<249).map { SpotifyID(FakeSpotifyState.savedTrackID($0))! }
            ids.append(SpotifyID("N000000000000000000001")!)  // Spotify answers null for it.
            let features = try await signedIn.client.audioFeatures(for: ids)
            #expect(features.count == 249)
            let energy = try #require(features[ids[0]]?.energy)
            #expect(abs(energy - 0.626) < 1e-9)
            let batches = await fake.state.requests(to: "/v1/audio-features").map {
                $0.query["ids"]?.split(separator: ",").count
            }
            #expect(batches == [100, 100, 50])
            #expect(try await signedIn.client.audioFeatures(for: []).isEmpty)
            #expect(await fake.state.requests(to: "/v1/audio-features").count == 3)
        }
    }

    @Test func audioFeatures403NamesTheAlternatives() async throws {
        try await FakeSpotify.withServer { fake in
            await fake.state.configure { $0.audioFeaturesForbidden = true }
            let signedIn = try await makeSignedInClient(fake)
            let error = await spotifyError {
                _ = try await signedIn.client.audioFeatures(for: [SpotifyID("4iV5W9uYEdYUVa79Axb7Rh")!])
            }
            #expect(error == .audioFeaturesForbidden(clientID: "fake-client-id"))
            let text = error?.description ?? ""
            #expect(text.contains("Exportify") && text.contains("ReccoBeats") && text.contains("2024-11-27"))
            #expect(!text.contains("vibes-analyze"))  // the library states facts; the tool gives advice
            #expect(await fake.state.requests(to: "/v1/audio-features").count == 1)
        }
    }

    // MARK: - Writes

    @Test func addsItemsInOrderInChunksOfOneHundred() async throws {
        try await FakeSpotify.withServer { fake in
            let signedIn = try await makeSignedInClient(fake)
            let created = try await signedIn.client.createPlaylist(
                name: "Vibes: late night",
                description: "made by vibes-analyze"
            )
            let id = try #require(SpotifyID(created.id))
            let uris = (0..<250).map { "spotify:track:" + FakeSpotifyState.savedTrackID($0) }
            let snapshot = try await signedIn.client.addItems(uris, to: id)
            #expect(snapshot != nil)
            #expect(await fake.state.writtenItems[created.id] == uris)
            let posts = await fake.state.requests(to: "/v1/playlists/\(created.id)/items").filter {
                $0.method == "POST"
            }
            #expect(posts.count == 3)
            #expect(try await signedIn.client.addItems([], to: id) == nil)
        }
    }

    @Test func replacesItemsThenAppendsTheRest() async throws {
        try await FakeSpotify.withServer { fake in
            let playlist = await fake.state.addPlaylist(name: "Old", trackCount: 5)
            let signedIn = try await makeSignedInClient(fake)
            let uris = (0..<150).map { "spotify:track:" + FakeSpotifyState.savedTrackID($0) }
            _ = try await signedIn.client.replaceItems(of: SpotifyID(playlist.id)!, with: uris)
            #expect(await fake.state.writtenItems[playlist.id] == uris)
            let methods = await fake.state.requests(to: "/v1/playlists/\(playlist.id)/items").map(\.method)
            #expect(methods == ["PUT", "POST"])
        }
    }

    // MARK: - Errors

    @Test func errorsCarryStatusMessageAndEndpoint() async throws {
        try await FakeSpotify.withServer { fake in
            await fake.state.inject(
                .status(403, message: "You cannot add tracks to a playlist you don't own."),
                on: "/v1/playlists"
            )
            let signedIn = try await makeSignedInClient(fake)
            let error = await spotifyError {
                try await signedIn.client.addItems(
                    ["spotify:track:4iV5W9uYEdYUVa79Axb7Rh"],
                    to: SpotifyID("P000000000000000000001")!
                )
            }
            #expect(
                error
                    == .http(
                        status: 403,
                        message: "You cannot add tracks to a playlist you don't own.",
                        endpoint: "POST /v1/playlists/P000000000000000000001/items"
                    )
            )
        }
    }

    @Test func malformedJSONKeepsTheRedactedBody() async throws {
        try await FakeSpotify.withServer { fake in
            await fake.state.inject(.malformedJSON, on: "/v1/me/tracks")
            let signedIn = try await makeSignedInClient(fake)
            let error = await spotifyError { _ = try await signedIn.client.savedTracks(offset: 0) }
            guard case .decoding(_, let status, let body, let endpoint) = error else {
                Issue.record("expected a decoding error, got \(String(describing: error))")
                return
            }
            #expect(status == 200 && endpoint == "GET /v1/me/tracks")
            #expect(body.contains("access_token=<redacted>") && !body.contains("leaky"))
        }
    }

    // MARK: - Real responses

    @Test(.enabled(if: SharedData.isAvailable, SharedData.skipReason))
    func clientObjectsDecodeRealResponses() throws {
        func load(_ name: String) throws -> Data {
            try #require(FileManager.default.contents(atPath: SharedData.path("spotify-api/responses/" + name)))
        }
        let decoder = JSONDecoder()
        let plays = try decoder.decode(
            SpotifyCursorPagingObject<SpotifyPlayHistoryObject>.self,
            from: load("peter-schorn-SpotifyAPI/get-me-player-recently-played.json")
        )
        #expect(plays.items.count == 45 && plays.cursors?.before != nil)
        #expect(plays.items.allSatisfy { $0?.track?.track != nil })
        for name in ["spotify-web-api-java/get-me-playlists.json", "spotify-web-api-raml-2015/get-user-playlists.json"]
        {
            let page = try decoder.decode(SpotifyPagingObject<SpotifySimplifiedPlaylistObject>.self, from: load(name))
            #expect(!page.items.isEmpty && page.items.allSatisfy { $0?.snapshotID != nil && $0?.itemCount != nil })
        }
        let me = try decoder.decode(SpotifyUserObject.self, from: load("peter-schorn-SpotifyAPI/get-me.json"))
        #expect(!me.id.isEmpty)
        let playing = try decoder.decode(
            SpotifyCurrentlyPlayingObject.self,
            from: load("peter-schorn-SpotifyAPI/get-me-player.json")
        )
        #expect(playing.item?.name != nil)
    }
}
