import Features
import Foundation
import GRDB
import Ingest
import Testing
import VibesTestSupport

struct SpotifyPlaylistPushTests {
    @Test func pushCreatesThenReplacesAndRecreatesWhenDeleted() async throws {
        try await withTemporaryDirectory { directory in
            try await FakeSpotify.withServer { fake in
                let store = try LibraryStore(path: directory + "/library.sqlite")
                // A playlist as `playlist build` would store it: 150 catalogue tracks and one local file.
                try await store.database.write { db in
                    let writer = try ImportWriter(db, runID: nil, fetchedAt: "2026-11-21T12:00:00Z")
                    var entries = try (0..<150).map { index in
                        let track = Track(
                            spotifyID: SpotifyID(FakeSpotifyState.savedTrackID(index)),
                            name: "Song \(index)",
                            artists: ["Band"]
                        )
                        return ImportWriter.PlaylistEntry(trackID: try writer.write(track).id)
                    }
                    let local = Track(spotifyID: nil, name: "Demo tape", artists: ["Me"], isLocal: true)
                    entries.insert(ImportWriter.PlaylistEntry(trackID: try writer.write(local).id), at: 3)
                    try writer.writePlaylist(
                        originKey: "vibes:late-night",
                        name: "Late night",
                        source: "vibes",
                        entries: entries
                    )
                }
                let signedIn = try await makeSignedInClient(fake)
                let playlist = try store.pushablePlaylist(matching: "late NIGHT")
                #expect(playlist.uris.count == 150 && playlist.tracksWithoutID == ["Demo tape"])
                #expect(playlist.uris.first == "spotify:track:" + FakeSpotifyState.savedTrackID(0))

                let first = try await signedIn.client.push(playlist)
                #expect(first.created && first.itemCount == 150 && first.skippedWithoutID == 1 && first.requests == 3)
                #expect(await fake.state.writtenItems[first.spotifyID] == playlist.uris)
                try store.recordPush(
                    of: playlist.rowID,
                    spotifyID: SpotifyID(first.spotifyID)!,
                    snapshotID: first.snapshotID
                )

                let again = try await signedIn.client.push(try store.pushablePlaylist(matching: "vibes:late-night"))
                #expect(!again.created && again.spotifyID == first.spotifyID)
                #expect(await fake.state.playlists.count == 1)

                await fake.state.deletePlaylist(first.spotifyID)
                let recreated = try await signedIn.client.push(try store.pushablePlaylist(matching: "Late night"))
                #expect(recreated.created && recreated.spotifyID != first.spotifyID)
                #expect(await fake.state.writtenItems[recreated.spotifyID] == playlist.uris)

                #expect(throws: StoreError.self) { try store.pushablePlaylist(matching: "Nope") }
            }
        }
    }
}
