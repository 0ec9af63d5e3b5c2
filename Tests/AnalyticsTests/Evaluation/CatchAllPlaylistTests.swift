import Analytics
import Testing

struct CatchAllPlaylistTests {
    /// Ten tracks: "Everything" holds 4 (40 %), "Third" exactly 3 (30 %, not more), "Liked Songs"
    /// one track each under two spellings, and "Calm" 3.
    private let labels: [Int64: Set<String>] = [
        1: ["Everything", "Calm"], 2: ["Everything", "Calm"], 3: ["Everything"], 4: ["Everything", "Third"],
        5: ["Third"], 6: ["Third"], 7: ["Liked Songs"], 8: ["liked songs", "Calm"],
    ]

    @Test func findsLikedSongsAndPlaylistsAboveTheShare() {
        let found = CatchAllPlaylist.find(in: labels, libraryTrackCount: 10)
        #expect(found.map(\.name) == ["Everything", "Liked Songs", "liked songs"])
        #expect(found.map(\.reason) == [.largeShare, .likedSongs, .likedSongs])
        #expect(found[0].trackCount == 4)
        #expect(found[0].share.isFinite && abs(found[0].share - 0.4) < 1e-12)
    }

    @Test func removingDropsTheirLabelsAndTracksLeftWithout() {
        let kept = CatchAllPlaylist.removing(CatchAllPlaylist.find(in: labels, libraryTrackCount: 10), from: labels)
        #expect(kept == [1: ["Calm"], 2: ["Calm"], 4: ["Third"], 5: ["Third"], 6: ["Third"], 8: ["Calm"]])
    }

    @Test func aLargerLibraryMakesNoPlaylistACatchAll() {
        // The same playlists in a library of 100 tracks: only the Liked Songs exports remain.
        let found = CatchAllPlaylist.find(in: labels, libraryTrackCount: 100)
        #expect(found.allSatisfy { $0.reason == .likedSongs })
    }
}
