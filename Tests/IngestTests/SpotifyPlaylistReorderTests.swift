import Features
import Foundation
import Ingest
import Testing
import VibesTestSupport

/// The store's reorder steps against the fake Spotify, where timing can be controlled.
struct SpotifyPlaylistReorderTests {
    @Test func aPlaylistChangedBetweenReadAndWriteIsNotWritten() async throws {
        try await withTemporaryDirectory { directory in
            try await FakeSpotify.withServer { fake in
                let playlist = await fake.state.addPlaylist(name: "Moving", trackCount: 5)
                let signedIn = try await makeSignedInClient(fake)
                let store = try LibraryStore(path: directory + "/library.sqlite")
                let id = try #require(SpotifyID(playlist.id))
                let read = try await store.readForReorder(id, using: signedIn.client)
                #expect(read.uris.count == 5 && read.snapshotID == "snap-\(playlist.id)-1")
                #expect(read.trackIDs.allSatisfy { $0 == nil })  // the library does not hold them

                await fake.state.appendTracks(1, toPlaylist: playlist.id)
                await #expect(throws: PlaylistReorderError.self) {
                    try await store.writeReorder(read, order: [4, 3, 2, 1, 0], using: signedIn.client)
                }
                #expect(await fake.state.writtenItems[playlist.id] == nil)
                await #expect(throws: PlaylistReorderError.notAPermutation) {
                    try await store.writeReorder(read, order: [0, 0, 1, 2, 3], using: signedIn.client)
                }

                let fresh = try await store.readForReorder(id, using: signedIn.client)
                let result = try await store.writeReorder(
                    fresh,
                    order: Array((0..<6).reversed()),
                    using: signedIn.client
                )
                #expect(result.itemCount == 6 && result.moved == 6)
                #expect(await fake.state.writtenItems[playlist.id] == fresh.uris.reversed())
            }
        }
    }
}
