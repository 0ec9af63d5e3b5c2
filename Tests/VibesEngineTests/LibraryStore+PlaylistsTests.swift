import Analytics
import Features
import Foundation
import Ingest
import Testing
import VibesEngine
import VibesTestSupport

/// What `playlists`, `playlists show` and `--playlist` read: playlists with their vibes, named
/// loosely, and runs of one playlist that are not the library's unless made current.
struct LibraryStorePlaylistsTests {
    /// The request of `cluster --k k` (three restarts, as the command line makes).
    static func request(k: Int, scope: TrackScope = .library) -> VibeRequest {
        var settings = VibeClustering.Settings(schema: .default, clusterCount: .fixed(k))
        settings.kMeans.restartCount = 3
        var request = VibeRequest(settings: settings)
        request.scope = scope
        return request
    }

    /// ``LibrarySeeding/insertPlaylistLibrary(into:folder:)`` clustered with k = 3.
    func withPlaylistLibrary<T>(_ body: (LibraryStore) async throws -> T) async throws -> T {
        try await withTemporaryDirectory { folder in
            let store = try LibraryStore(path: folder + "/library.sqlite")
            try LibrarySeeding.insertPlaylistLibrary(into: store, folder: folder)
            _ = try await store.findVibes(Self.request(k: 3))
            return try await body(store)
        }
    }

    @Test func listsEveryPlaylistWithCoverageAndDominantVibes() async throws {
        try await withPlaylistLibrary { store in
            let runID = try #require(try store.currentClusteringRunID())
            let playlists = try store.playlistOverviews(vibesOf: runID)
            #expect(playlists.map(\.name) == ["Bass Music", "bath time ", "Road Trip"])
            #expect(playlists.map(\.trackCount) == [10, 12, 16])
            #expect(playlists.map(\.tracksWithFeatures) == [10, 12, 15])
            let bath = playlists[1]
            #expect(bath.vibes.map(\.tracks) == [10, 2])
            // The calm vibe is the one holding "calm 0"; its number is its rank by size.
            let ranked = try store.rankedClusters(ofRun: runID)
            let calmTrack = try #require(try store.searchTracks(matching: "calm 0").first).track.id
            let calmCluster = try #require(try store.assignments(ofRun: runID).first { $0.trackID == calmTrack })
                .cluster
            #expect(bath.vibes.first?.cluster == calmCluster)
            #expect(bath.vibes.first?.number == 1 + (ranked.firstIndex { $0.cluster == calmCluster } ?? -1))
            #expect(bath.vibes.first?.name == ranked.first { $0.cluster == calmCluster }?.name)
        }
    }

    @Test func showGivesTheVibeBreakdownFeaturesAndTracks() async throws {
        try await withPlaylistLibrary { store in
            let runID = try store.currentClusteringRunID()
            let detail = try store.playlistDetail(id: try store.playlistID(matching: "road"), vibesOf: runID)
            #expect(detail.overview.name == "Road Trip")
            #expect(detail.entries.count == 16)
            #expect(detail.entries.map(\.position) == Array(0..<16))
            #expect(detail.entries.last?.track.name == "Unmeasured")
            #expect(detail.entries.last?.hasFeatures == false && detail.entries.last?.vibe == nil)
            #expect(detail.entries.dropLast().allSatisfy { $0.hasFeatures && $0.vibe != nil })
            // The tense group's tempo is about 165 and its valence about 0.15.
            let tempo = try #require(detail.featureMeans[.tempo])
            let valence = try #require(detail.featureMeans[.valence])
            #expect(abs(tempo - 165) < 5 && abs(valence - 0.15) < 0.05)
        }
    }

    /// As `playlists show`, `cluster --playlist` and `features status --playlist` take them.
    @Test(arguments: [
        ("bath time ", "bath time "), ("bath time", "bath time "), ("BATH TIME", "bath time "), ("bat", "bath time "),
        ("bass", "Bass Music"), ("road trip", "Road Trip"),
    ])
    func aPlaylistIsNamedLoosely(typed: String, stored: String) async throws {
        try await withPlaylistLibrary { store in
            #expect(try store.playlist(matching: typed).name == stored)
            #expect(
                try store.playlistDetail(id: try store.playlistID(matching: typed), vibesOf: nil).overview.name
                    == stored
            )
            // Wherever --playlist is taken.
            let status = try store.featureStatus(scope: .playlist(typed))
            #expect(status.tracks > 0)
            let found = try await store.findVibes(Self.request(k: 2, scope: .playlist(typed)))
            #expect(found.playlistName == stored)
        }
    }

    /// A miss names the nearest playlist, the playlists a start is ambiguous between, or none; the
    /// command line adds where to look for the last (`PlaylistsCommandTests`).
    @Test(arguments: [
        ("bath tiem", TrackScopeError.misspelledPlaylist(name: "bath tiem", closest: "bath time ")),
        ("ba", TrackScopeError.ambiguousPlaylist(name: "ba", candidates: ["bath time ", "Bass Music"])),
        ("opera", TrackScopeError.unknownPlaylist(name: "opera")),
    ])
    func aMissSaysWhatIsNear(typed: String, expected: TrackScopeError) async throws {
        try await withPlaylistLibrary { store in
            #expect(throws: expected) { try store.playlistID(matching: typed) }
            await #expect(throws: expected) {
                try await store.findVibes(Self.request(k: 2, scope: .playlist(typed)))
            }
            #expect(throws: expected) { try store.featureStatus(scope: .playlist(typed)) }
        }
    }

    @Test func aPlaylistRunIsNotTheLibrarysUnlessMadeCurrent() async throws {
        try await withPlaylistLibrary { store in
            let libraryRun = try #require(try store.currentClusteringRunID())
            let bath = Self.request(k: 2, scope: .playlist("bath"))
            let unused = try await store.findVibes(bath)
            let scoped = try #require(try store.clusteringRuns().first?.run.id)
            #expect(scoped != libraryRun && unused.runID == scoped)
            #expect(unused.playlistName == "bath time " && unused.currentRunID == libraryRun)
            #expect(try store.clusteringRunScopes()[scoped] == .playlist("bath time "))
            #expect(try store.clusteringRunScopes()[libraryRun] == .library)
            #expect(try store.currentClusteringRunID() == libraryRun)
            #expect(try store.clusteringRun()?.run.id == libraryRun)
            let report = try VibesReport(store: store, runID: nil, exampleCount: 1)
            #expect(report.run.id == libraryRun && report.scope == "library")
            #expect(try VibesReport(store: store, runID: scoped, exampleCount: 1).scope == "playlist:bath time ")

            var madeCurrent = bath
            madeCurrent.makesCurrent = true
            _ = try await store.findVibes(madeCurrent)
            let current = try #require(try store.currentClusteringRunID())
            #expect(current > scoped)
            #expect(try store.clusteringRun()?.run.id == current)
            // The next run of the library is current again.
            _ = try await store.findVibes(Self.request(k: 3))
            let next = try #require(try store.currentClusteringRunID())
            let nextScope = try store.clusteringRunScopes()[next]
            #expect(next > current && nextScope == .library)
        }
    }

    /// The real Exportify export in `shared/data`, saved under a name with a trailing space as
    /// Exportify's file names leave them, found by any case and by its start, with its vibes.
    @Test(.enabled(if: SharedData.isAvailable, SharedData.skipReason))
    func aRealExportifyPlaylistIsListedAndShown() async throws {
        try await withTemporaryDirectory { folder in
            let file = folder + "/Liked_Songs_.csv"
            try FileManager.default.copyItem(
                atPath: SharedData.path("spotify-api/exports/exportify/kofort9-mymusic/Liked_Songs.csv"),
                toPath: file
            )
            let store = try LibraryStore(path: folder + "/library.sqlite")
            _ = try store.importFile(at: file)
            _ = try await store.findVibes(Self.request(k: 6))
            let runID = try store.currentClusteringRunID()
            let clock = ContinuousClock()
            let start = clock.now
            let playlists = try store.playlistOverviews(vibesOf: runID)
            let listing = clock.now - start
            let liked = try #require(playlists.first)
            #expect(playlists.count == 1 && liked.name == "Liked Songs ")
            #expect(liked.trackCount > 7_000 && liked.tracksWithFeatures > 7_000)
            // Every clustered track of the playlist is in one of the run's vibes.
            let run = try #require(try store.clusteringRun()).run
            #expect(liked.vibes.reduce(0) { $0 + $1.tracks } == run.trackCount)
            #expect(listing < .seconds(2), "listing took \(listing)")
            let detail = try store.playlistDetail(id: try store.playlistID(matching: "LIKED"), vibesOf: runID)
            #expect(detail.entries.count >= liked.trackCount)
            for typed in ["likd songs", "likd"] {
                #expect(throws: TrackScopeError.misspelledPlaylist(name: typed, closest: "Liked Songs ")) {
                    try store.playlistID(matching: typed)
                }
            }
        }
    }
}
