import Features
import Foundation
import GRDB
import Ingest
import Testing
import VibesTestSupport

/// Writes songs into a store the way an importer would (tracks, artists, features, genre tags).
func insert(_ songs: [TidyTuesdaySongs.Song], into store: LibraryStore) throws {
    try store.insert(songs)
}

struct PlaylistStoreTests {
    @Test func savesReadsAndReplacesBuiltPlaylists() throws {
        try withTemporaryDirectory { folder in
            let store = try LibraryStore(path: folder + "/library.sqlite")
            #expect(try store.appliedMigrations().contains("v4-built-playlists"))
            let songs = TidyTuesdaySongs.Song.synthetic(count: 10)
            try insert(songs, into: store)
            let summaries = try store.allTrackSummaries()
            let ids = summaries.keys.sorted()
            func entry(_ id: Int64, locked: Bool = false) -> Playlist.Entry {
                let summary = summaries[id]!
                return Playlist.Entry(
                    trackID: id,
                    spotifyID: SpotifyID(summary.spotifyID!),
                    name: summary.name,
                    artists: summary.artists,
                    album: summary.album,
                    durationMS: summary.durationMS,
                    popularity: summary.popularity,
                    isLocked: locked
                )
            }
            let first = Playlist(
                name: "Night Drive",
                description: "test",
                entries: [entry(ids[2]), entry(ids[0], locked: true), entry(ids[5])],
                transitionScore: 0.75
            )
            try store.saveBuiltPlaylist(first, settings: "playlist build --mood chill")
            let read = try #require(try store.builtPlaylist(named: "night drive"))
            #expect(read.entries.map(\.trackID) == [ids[2], ids[0], ids[5]])
            #expect(read.entries.map(\.isLocked) == [false, true, false])
            #expect(read.transitionScore == 0.75)
            #expect(read.spotifyTrackURIs == first.spotifyTrackURIs)

            let second = Playlist(name: "NIGHT DRIVE", description: "again", entries: [entry(ids[9])])
            try store.saveBuiltPlaylist(second)
            #expect(try store.builtPlaylistNames() == ["NIGHT DRIVE"])
            #expect(try store.builtPlaylist(named: "Night Drive")?.entries.map(\.trackID) == [ids[9]])
            #expect(try store.builtPlaylist(named: "Morning") == nil)
        }
    }

    @Test func savingATrackThatIsNotInTheStoreFails() throws {
        try withTemporaryDirectory { folder in
            let store = try LibraryStore(path: folder + "/library.sqlite")
            let playlist = Playlist(
                name: "x",
                description: "",
                entries: [Playlist.Entry(trackID: 77, spotifyID: nil, name: "?", artists: [])]
            )
            #expect(throws: StoreError.self) { try store.saveBuiltPlaylist(playlist) }
            #expect(try store.builtPlaylistNames().isEmpty)
        }
    }

    @Test func labelsAndFuzzySearchFindWhatAnImporterWrote() throws {
        try withTemporaryDirectory { folder in
            let store = try LibraryStore(path: folder + "/library.sqlite")
            var songs = TidyTuesdaySongs.Song.synthetic(count: 12)
            songs[3].name = "One More Time"
            songs[3].artist = "Daft Punk"
            songs[4].artist = "Tiësto"
            try insert(songs, into: store)
            let labels = try store.trackLabels(kind: "playlist_genre")
            #expect(labels.count == 12)
            #expect(Set(labels.values.flatMap { $0 }).isSubset(of: ["loud", "soft"]))

            let match = try #require(try store.searchTracks(matching: "daft punk - one more tme").first)
            #expect(match.track.name == "One More Time")
            #expect(match.score > 0.6 && match.score < 1)
            #expect(try store.searchTracks(matching: "One More Time").first?.score == 1)
            #expect(try store.searchTracks(matching: "zzzz qqqq").isEmpty)
            let artist = try #require(try store.searchArtist(matching: "tiesto"))
            #expect(artist.name == "Tiësto" && artist.trackIDs.count == 1)
        }
    }
}
