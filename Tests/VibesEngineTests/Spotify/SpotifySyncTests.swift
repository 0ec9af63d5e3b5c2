import Features
import Foundation
import GRDB
import SpotifyTestSupport
import SpotifyWebAPI
import Synchronization
import Testing
import VibesEngine
import VibesTestSupport

@testable import Ingest

struct SpotifySyncTests {
    /// Runs `body` with a fake library, a fresh store and a signed-in client.
    private func withLibrary(
        saved: Int = 120,
        _ body: (FakeSpotify, LibraryStore, SignedInClient) async throws -> Void
    ) async throws {
        try await withTemporaryDirectory { directory in
            try await FakeSpotify.withServer { fake in
                await fake.state.setSavedTrackCount(saved)
                await fake.state.addPlaylist(
                    name: "Mixed",
                    trackCount: 130,
                    localFiles: 1,
                    episodes: 1,
                    removedTracks: 2
                )
                await fake.state.addPlaylist(name: "Someone else's", trackCount: 5, owner: "spotify")
                await fake.state.setPlayCount(3)
                let store = try LibraryStore(path: directory + "/library.sqlite")
                let signedIn = try await makeSignedInClient(fake)
                try await body(fake, store, signedIn)
            }
        }
    }

    private func count(_ sql: String, in store: LibraryStore) throws -> Int {
        try store.database.read { db in try Int.fetchOne(db, sql: sql)! }
    }

    @Test func aFullSyncFillsTheStoreWithProvenance() async throws {
        try await withLibrary { fake, store, signedIn in
            let lines = Mutex<[String]>([])
            let sync = SpotifySync(client: signedIn.client, store: store) { line in lines.withLock { $0.append(line) } }
            let report = try await sync.run(.all)

            #expect(report.savedTracksAdded == 120)
            #expect(report.playlistsUpdated == 1 && report.playlistItemsWritten == 131)
            #expect(report.playlistsSkipped == ["Someone else's (403)"])
            #expect(report.localFiles == 1 && report.episodesSkipped == 1 && report.removedSkipped == 2)
            #expect(report.topTracks == 150 && report.topArtists == 150)
            #expect(report.playsAdded == 3)
            #expect(
                report.audioFeaturesWritten
                    == (try count("SELECT count(*) FROM tracks WHERE spotify_id IS NOT NULL", in: store))
            )
            #expect(report.requests == (await fake.state.requests(to: "/v1/").count))
            #expect(report.notes.contains { $0.contains("Someone else's") })

            #expect(try count("SELECT count(*) FROM saved_tracks WHERE source = 'spotify-api'", in: store) == 120)
            #expect(try count("SELECT count(*) FROM playlists WHERE source = 'spotify-api'", in: store) == 4)
            #expect(try count("SELECT count(*) FROM plays WHERE source = 'spotify-api'", in: store) == 3)
            #expect(
                try count(
                    "SELECT count(*) FROM all_features WHERE source = 'spotify-api' AND priority = \(FeatureSource.spotifyAPI.priority)",
                    in: store
                )
                    > 0
            )
            #expect(try count("SELECT count(*) FROM tracks WHERE is_local = 1 AND spotify_id IS NULL", in: store) == 1)
            #expect(try count("SELECT count(*) FROM import_runs WHERE format = 'spotify-api'", in: store) == 1)
            let positions = try await store.database.read { db in
                try Int.fetchAll(
                    db,
                    sql:
                        "SELECT position FROM playlist_items i JOIN playlists p ON p.id = i.playlist_id WHERE p.name = 'Mixed' ORDER BY position"
                )
            }
            #expect(positions == Array(0...130))
            #expect(lines.withLock { $0 }.contains { $0.hasPrefix("Saved tracks: 120 of 120") })
        }
    }

    @Test func aSecondSyncFetchesOnlyWhatChanged() async throws {
        try await withLibrary { fake, store, signedIn in
            let sync = SpotifySync(client: signedIn.client, store: store)
            _ = try await sync.run(.all)
            let before = await fake.state.requests.count
            let mixed = await fake.state.playlists[0]
            await fake.state.saveNewTracks(3)
            await fake.state.appendTracks(2, toPlaylist: mixed.id)

            let report = try await sync.run(.all)
            let requests = await fake.state.requests.dropFirst(before)
            #expect(report.savedTracksAdded == 3)
            #expect(report.playlistsUpdated == 1 && report.playlistsUnchanged == 0)
            #expect(report.topTracks == 0)  // Fresh within 12 hours.
            #expect(report.audioFeaturesWritten == 3 + 2)
            #expect(requests.filter { $0.path == "/v1/me/tracks" }.count == 1)
            #expect(requests.filter { $0.path.hasPrefix("/v1/me/top") }.isEmpty)
            #expect(requests.first { $0.path == "/v1/me/player/recently-played" }?.query["after"] == "1700000000000")
            #expect(try count("SELECT count(*) FROM saved_tracks", in: store) == 123)
            #expect(try count("SELECT count(*) FROM plays", in: store) == 3)

            let third = try await sync.run([.playlists])
            #expect(third.playlistsUnchanged == 1 && third.playlistsUpdated == 0)
            #expect(third.requests == 2)  // The playlist list, and the other user's playlist again (403).
        }
    }

    @Test func anInterruptedSyncResumesWhereItStopped() async throws {
        try await withLibrary(saved: 200) { fake, store, signedIn in
            await fake.state.inject(.rateLimited(retryAfter: "7200"), on: "/v1/me/tracks", after: 2)
            let sync = SpotifySync(client: signedIn.client, store: store)
            do {
                _ = try await sync.run([.savedTracks])
                Issue.record("the sync should have stopped at the rate limit")
            } catch let error as SpotifySyncInterruptedError {
                #expect(error.report.savedTracksAdded == 100 && error.report.requests == 3)
                #expect(error.description.contains("2 h") && error.description.contains("resumes"))
                #expect(!error.description.contains("vibes-analyze"))
            }
            #expect(try count("SELECT count(*) FROM saved_tracks", in: store) == 100)
            #expect(try store.spotifySyncValue(forKey: "saved.resume_offset") == "100")

            let report = try await sync.run([.savedTracks])
            #expect(report.savedTracksAdded == 100)
            let offsets = await fake.state.requests(to: "/v1/me/tracks").map { $0.query["offset"] }
            #expect(offsets == ["0", "50", "100", "100", "150"])
            #expect(try count("SELECT count(*) FROM saved_tracks", in: store) == 200)
            #expect(try store.spotifySyncValue(forKey: "saved.resume_offset") == nil)
            #expect(try store.spotifySyncValue(forKey: "saved.newest_added_at") == "2023-11-14T22:13:20Z")
        }
    }

    @Test func aRefusedEndpointFailsItsPartAloneAndTheRestLands() async throws {
        try await withLibrary(saved: 30) { fake, store, signedIn in
            await fake.state.inject(.status(404, message: "Service not found"), on: "/v1/me/top/artists", times: 5)
            await fake.state.inject(.malformedJSON, on: "/v1/me/player/recently-played")
            let sync = SpotifySync(client: signedIn.client, store: store)
            let report = try await sync.run(.all)
            #expect(report.failedParts.map(\.part) == ["top", "recent"])
            #expect(
                report.failedParts[0].reason.contains("404")
                    && report.failedParts[0].reason.contains("/v1/me/top/artists")
            )
            // Everything else landed, the features part included.
            #expect(report.savedTracksAdded == 30 && report.playlistsUpdated == 1)
            #expect(report.features != nil && report.audioFeaturesWritten > 0)
            #expect(report.artistsWithGenres > 0)
            #expect(try count("SELECT count(*) FROM saved_tracks", in: store) == 30)
        }
    }

    @Test func aPlaylistSpotifyWillNotServeFailsAlone() async throws {
        try await withLibrary(saved: 0) { fake, store, signedIn in
            let broken = await fake.state.addPlaylist(name: "Broken", trackCount: 3)
            await fake.state.inject(.status(500, message: "Server error"), on: "/v1/playlists/\(broken.id)", times: 6)
            let report = try await SpotifySync(client: signedIn.client, store: store).run([.playlists])
            #expect(report.playlistsSkipped.contains("Broken (500)"))
            #expect(report.playlistsUpdated == 1 && report.failedParts.isEmpty)
        }
    }

    @Test func forbiddenAudioFeaturesAreRecordedAndNotAskedAgain() async throws {
        try await withLibrary(saved: 10) { fake, store, signedIn in
            await fake.state.configure { $0.audioFeaturesForbidden = true }
            let sync = SpotifySync(client: signedIn.client, store: store)
            let first = try await sync.run([.savedTracks, .audioFeatures])
            #expect(first.audioFeaturesForbidden && first.audioFeaturesWritten == 0)
            #expect(first.notes.contains { $0.contains("Exportify") && $0.contains("2024-11-27") })
            #expect(try store.spotifyCapability("audio-features", clientID: "fake-client-id") == "forbidden")

            let second = try await sync.run([.audioFeatures])
            #expect(second.audioFeaturesForbidden && second.requests == 0)
            #expect(await fake.state.requests(to: "/v1/audio-features").count == 1)

            await fake.state.configure { $0.audioFeaturesForbidden = false }
            let third = try await sync.run([.audioFeatures], recheckAudioFeatures: true)
            #expect(third.audioFeaturesWritten == 10)
            #expect(try store.spotifyCapability("audio-features", clientID: "fake-client-id") == "allowed")
        }
    }

    @Test func withoutASessionTheSyncSaysSignIn() async throws {
        try await withLibrary { _, store, signedIn in
            try await signedIn.tokens.clear()
            let error = await spotifyError {
                _ = try await SpotifySync(client: signedIn.client, store: store).run(.all)
            }
            #expect(error == .notSignedIn)
        }
    }

    @Test func tokensExpiringMidSyncAreRefreshed() async throws {
        try await withLibrary { fake, store, signedIn in
            await fake.state.inject(.expireAccessTokens, on: "/v1/me/tracks", after: 1)
            let report = try await SpotifySync(client: signedIn.client, store: store).run([.savedTracks])
            #expect(report.savedTracksAdded == 120)
            #expect(await fake.state.requests(to: "/accounts/api/token").count == 1)
        }
    }

    @Test func aRevokedSessionStopsTheSyncAndSaysSo() async throws {
        try await withLibrary { fake, store, signedIn in
            await fake.state.inject(.expireAccessTokens, on: "/v1/me/tracks", after: 1)
            await fake.state.revokeRefreshTokens()
            do {
                _ = try await SpotifySync(client: signedIn.client, store: store).run([.savedTracks])
                Issue.record("the sync should have stopped")
            } catch let error as SpotifySyncInterruptedError {
                #expect(error.underlying as? SpotifyError == .sessionRevoked(description: "Refresh token revoked"))
                #expect(
                    error.description.contains("revoked the stored sign-in") && error.description.contains("resumes")
                )
                #expect(error.report.savedTracksAdded == 50)
            }
        }
    }
}
