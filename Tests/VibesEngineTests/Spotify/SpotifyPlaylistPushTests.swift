import Features
import Foundation
import GRDB
import SpotifyTestSupport
import SpotifyWebAPI
import Testing
import VibesEngine
import VibesTestSupport

@testable import Ingest

struct SpotifyPlaylistPushTests {
    /// A store holding "Late night" as `playlist build` would store it: `count` catalogue tracks
    /// and one local file.
    private func withPlaylist(
        count: Int = 150,
        _ body: (FakeSpotify, LibraryStore, SignedInClient) async throws -> Void
    ) async throws {
        try await withTemporaryDirectory { directory in
            try await FakeSpotify.withServer { fake in
                let store = try LibraryStore(path: directory + "/library.sqlite")
                try await store.database.write { db in
                    let writer = try LibraryWriter(db, runID: nil, fetchedAt: "2026-11-21T12:00:00Z")
                    var entries = try (0..<count).map { index in
                        let track = Track(
                            spotifyID: SpotifyID(FakeSpotifyState.savedTrackID(index)),
                            name: "Song \(index)",
                            artists: ["Band"]
                        )
                        return LibraryWriter.PlaylistEntry(trackID: try writer.write(track).id)
                    }
                    let local = Track(spotifyID: nil, name: "Demo tape", artists: ["Me"], isLocal: true)
                    entries.insert(LibraryWriter.PlaylistEntry(trackID: try writer.write(local).id), at: 3)
                    try writer.writePlaylist(
                        originKey: "vibes:late-night",
                        name: "Late night",
                        source: "vibes",
                        entries: entries
                    )
                }
                try await body(fake, store, try await makeSignedInClient(fake))
            }
        }
    }

    /// The playlists created on the fake account.
    private func creations(_ fake: FakeSpotify) async -> Int {
        await fake.state.requests(to: "/v1/me/playlists").filter { $0.method == "POST" }.count
    }

    @Test func pushCreatesThenReplacesAndRecreatesWhenDeleted() async throws {
        try await withPlaylist { fake, store, signedIn in
            let pusher = SpotifyPlaylistPusher(client: signedIn.client, store: store)
            let playlist = try store.pushablePlaylist(matching: "late NIGHT")
            #expect(playlist.uris.count == 150 && playlist.tracksWithoutID == ["Demo tape"])
            #expect(playlist.uris.first == "spotify:track:" + FakeSpotifyState.savedTrackID(0))

            let first = try await pusher.push(playlist)
            // Create, two chunks, and the count read back.
            #expect(first.created && first.itemCount == 150 && first.skippedWithoutID == 1 && first.requests == 4)
            #expect(await fake.state.writtenItems[first.spotifyID] == playlist.uris)

            let again = try await pusher.push(try store.pushablePlaylist(matching: "vibes:late-night"))
            #expect(!again.created && again.spotifyID == first.spotifyID)
            #expect(await fake.state.playlists.count == 1)
            // Replace mode: the first 100 with PUT, the rest with POST, in order.
            let writes = await fake.state.requests(to: "/v1/playlists/\(first.spotifyID)/items").filter {
                $0.method != "GET"
            }
            #expect(writes.suffix(2).map(\.method) == ["PUT", "POST"])
            #expect(await fake.state.writtenItems[first.spotifyID] == playlist.uris)

            await fake.state.deletePlaylist(first.spotifyID)
            let recreated = try await pusher.push(try store.pushablePlaylist(matching: "Late night"))
            #expect(recreated.created && recreated.spotifyID != first.spotifyID)
            #expect(await fake.state.writtenItems[recreated.spotifyID] == playlist.uris)

            #expect(throws: StoreError.self) { try store.pushablePlaylist(matching: "Nope") }
        }
    }

    @Test func aPushThatFailsOnAChunkIsFinishedByTheNextOneWithoutASecondPlaylist() async throws {
        try await withPlaylist(count: 250) { fake, store, signedIn in
            let pusher = SpotifyPlaylistPusher(client: signedIn.client, store: store)
            let playlist = try store.pushablePlaylist(matching: "Late night")
            // The third chunk fails for good (POSTs are not retried after a 500).
            await fake.state.inject(.status(500, message: "Server error"), on: "/v1/playlists/", times: 1, after: 2)
            do {
                _ = try await pusher.push(playlist, createNew: true)
                Issue.record("the push should have stopped at the third chunk")
            } catch let error as PlaylistPushInterruptedError {
                #expect(error.written == 200 && error.total == 250)
                #expect(error.description.contains("holds the first 200 of 250 tracks"))
                #expect(error.description.contains("open.spotify.com/playlist/\(error.spotifyID)"))
            }
            // The re-run, even with --new, finishes the same playlist from the third chunk.
            let resumed = try await pusher.push(playlist, createNew: true)
            let created = await creations(fake)
            #expect(created == 1 && resumed.created)
            #expect(await fake.state.writtenItems[resumed.spotifyID] == playlist.uris)
            let posts = await fake.state.requests(to: "/v1/playlists/\(resumed.spotifyID)/items").filter {
                $0.method == "POST"
            }
            #expect(posts.count == 4)  // three chunks, one of them twice (the failed one)
        }
    }

    @Test func aChunkWhoseAnswerWasLostIsNeverWrittenTwice() async throws {
        try await withPlaylist(count: 250) { fake, store, signedIn in
            let pusher = SpotifyPlaylistPusher(client: signedIn.client, store: store)
            let playlist = try store.pushablePlaylist(matching: "Late night")
            // The second chunk lands, but its answer is cut off: the client cannot know it landed.
            await fake.state.inject(.dropConnectionAfterApplying, on: "/v1/playlists/", times: 1, after: 1)
            await #expect(throws: PlaylistPushInterruptedError.self) { try await pusher.push(playlist) }
            let id = try #require(await fake.state.writtenItems.keys.first)
            #expect(await fake.state.writtenItems[id]?.count == 200)

            // The playlist holds more than was recorded, so the next push writes it afresh.
            let resumed = try await pusher.push(playlist)
            let created = await creations(fake)
            #expect(resumed.spotifyID == id && created == 1)
            #expect(await fake.state.writtenItems[id] == playlist.uris)
        }
    }
}
