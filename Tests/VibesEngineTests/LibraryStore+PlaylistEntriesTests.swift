import Analytics
import Features
import Ingest
import Testing
import VibesEngine
import VibesTestSupport

struct LibraryStorePlaylistEntriesTests {
    static let songs = TidyTuesdaySongs.Song.synthetic(count: 12)

    @Test func entriesKeepTheOrderAndRepeatsAndNameUnknownTracks() throws {
        try withTemporaryDirectory { folder in
            let store = try makeStore(in: folder, songs: Self.songs)
            let table = try store.featureTable()
            let ids = [table.trackIDs[3], table.trackIDs[0], table.trackIDs[3], 9_999]
            let entries = try store.playlistEntries(for: ids) { id in
                var features = AudioFeatures()
                features.energy = Double(id)
                return features
            }
            #expect(entries.map(\.trackID) == ids)
            #expect(entries.map(\.features.energy) == ids.map(Double.init))
            let summaries = try store.trackSummaries(for: ids)
            for entry in entries.prefix(3) {
                let summary = try #require(summaries[entry.trackID])
                #expect(entry.name == summary.name && entry.artists == summary.artists)
                #expect(entry.album == summary.album && entry.durationMS == summary.durationMS)
                #expect(entry.popularity == summary.popularity)
                #expect(entry.spotifyID?.rawValue == summary.spotifyID)
                #expect(!entry.isLocked && entry.filePath == nil)
            }
            #expect(entries[3].name == "track 9999" && entries[3].artists.isEmpty && entries[3].spotifyID == nil)
            // Without a source of features, none.
            #expect(try store.playlistEntries(for: ids).allSatisfy { $0.features == AudioFeatures() })
        }
    }

    /// The entries of a playlist read from Spotify are numbered by position, so repeats stay
    /// apart, and an item the store lacks is named by its URI.
    @Test func positionedEntriesAreNumberedByTheirPlace() throws {
        try withTemporaryDirectory { folder in
            let store = try makeStore(in: folder, songs: Self.songs)
            let table = try store.featureTable()
            let first = table.trackIDs[0]
            let summary = try #require(try store.trackSummaries(for: [first])[first])
            let uri = "spotify:track:" + (summary.spotifyID ?? "")
            let unknown = "spotify:track:0000000000000000000000"
            let entries = try store.positionedEntries(
                uris: [uri, "spotify:local:a:b:c:1", unknown, uri],
                trackIDs: [first, nil, nil, first],
                positions: [0, 2, 3]
            )
            #expect(entries.map(\.trackID) == [0, 2, 3])
            #expect(entries[0].name == summary.name && entries[2].name == summary.name)
            #expect(entries[0].features.energy == table.value(row: 0, feature: .energy).map(Double.init))
            #expect(entries[1].name == unknown && entries[1].features == AudioFeatures())
            #expect(entries[1].spotifyID?.trackURI == unknown)
        }
    }

    /// The path order keeps the ends and walks the mood line between them.
    @Test func thePathOrderWalksFromTheFirstMoodToTheLast() throws {
        func entry(_ id: Int64, valence: Double?, energy: Double?) -> Playlist.Entry {
            var features = AudioFeatures()
            features.valence = valence
            features.energy = energy
            return Playlist.Entry(trackID: id, spotifyID: nil, name: "\(id)", artists: [], features: features)
        }
        let entries = [
            entry(1, valence: 0, energy: 0), entry(2, valence: 0.9, energy: 0.9), entry(3, valence: nil, energy: 0.5),
            entry(4, valence: 0.2, energy: 0.1), entry(5, valence: 1, energy: 1),
        ]
        #expect(PlaylistOrdering.path(entries).map(\.trackID) == [1, 4, 2, 3, 5])
        #expect(PlaylistOrdering.path(Array(entries.prefix(3))).map(\.trackID) == [1, 2, 3])
    }
}
