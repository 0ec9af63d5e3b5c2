import Analytics
import Features
import Foundation
import Ingest
import Testing
import VibesEngine
import VibesTestSupport

struct LibraryStorePlaylistBuildingTests {
    static let songs = TidyTuesdaySongs.Song.synthetic(count: 80)

    /// A playlist of `count` tracks in `mood`, as `change` adjusts it.
    static func request(
        mood: MoodWord? = nil,
        count: Int = 20,
        _ change: (inout PlaylistRequest) -> Void = { _ in }
    ) -> PlaylistRequest {
        var request = PlaylistRequest()
        if let mood { request.recommendation.seeds.moods = [mood] }
        request.length = .trackCount(count)
        change(&request)
        return request
    }

    /// The two figures of "transition cost A (…) vs B (best-start greedy)".
    static func costs(in notes: [String]) throws -> (chosen: Double, greedy: Double) {
        let note = try #require(notes.first { $0.hasPrefix("transition cost ") })
        let words = note.split(separator: " ")
        let chosen = try #require(Double(words[2]))
        let versus = try #require(words.firstIndex(of: "vs"))
        let greedy = try #require(Double(words[versus + 1]))
        return (chosen, greedy)
    }

    @Test func flowPrintsItsCostBesideBestStartGreedy() throws {
        try withTemporaryDirectory { folder in
            let store = try makeStore(in: folder, songs: Self.songs)
            let built = try store.buildPlaylist(Self.request(mood: .energetic, count: 25) { $0.order = .flow })
            let note = try #require(built.notes.first { $0.hasPrefix("transition cost ") })
            #expect(note.contains("(flow) vs ") && note.contains("(best-start greedy)"))
            #expect(!note.contains("shape correlation"))
            let (chosen, greedy) = try Self.costs(in: built.notes)
            #expect(chosen <= greedy)
            // The cost said is the order's, to the three decimals shown.
            let ordering = PlaylistOrdering()
            let entries = built.playlist.entries
            let recomputed = zip(entries, entries.dropFirst()).reduce(0.0) {
                $0 + ordering.transitionCost(from: $1.0, to: $1.1)
            }
            #expect(abs(recomputed - chosen) <= 0.0005)
            #expect(built.notes.contains { $0.contains("transition score") })
        }
    }

    @Test func aCustomArcSaysItsShapeCorrelation() throws {
        try withTemporaryDirectory { folder in
            let store = try makeStore(in: folder, songs: Self.songs)
            let built = try store.buildPlaylist(
                Self.request(mood: .energetic) {
                    $0.order = .arc
                    $0.arc = .custom([0.2, 0.8, 0.4])
                }
            )
            #expect(built.playlist.description.hasSuffix("ordered arc 0.2,0.8,0.4 (vibes-analyze)"))
            let note = try #require(built.notes.first { $0.hasPrefix("transition cost ") })
            #expect(note.contains("(arc 0.2,0.8,0.4) vs "))
            let said = try #require(note.split(separator: " ").last.flatMap { Double($0) })
            #expect(said >= 0.8)
            // The energies placed in the middle are above those at the start, as the curve asks.
            let energies = built.playlist.entries.map { $0.features.energy! }
            let start = energies.prefix(4).reduce(0, +) / 4
            let middle = energies[8..<12].reduce(0, +) / 4
            #expect(middle > start)
        }
    }

    @Test func flowKeepsAMoodPathWithinItsSteps() throws {
        try withTemporaryDirectory { folder in
            let store = try makeStore(in: folder, songs: Self.songs)
            let path = Self.request(count: 12) { $0.moodPath = (.calm, .energetic) }
            let asBuilt = try store.buildPlaylist(path).playlist
            var flow = path
            flow.order = .flow
            let flowing = try store.buildPlaylist(flow)
            for step in [0..<3, 3..<6, 6..<9, 9..<12] {
                #expect(
                    Set(flowing.playlist.entries[step].map(\.trackID)) == Set(asBuilt.entries[step].map(\.trackID))
                )
            }
            let (chosen, greedy) = try Self.costs(in: flowing.notes)
            #expect(chosen <= greedy)
        }
    }

    @Test func aMoodPathByDurationReachesItsLengthInItsOwnOrder() throws {
        try withTemporaryDirectory { folder in
            let store = try makeStore(in: folder, songs: Self.songs)
            let built = try store.buildPlaylist(
                Self.request {
                    $0.moodPath = (.calm, .energetic)
                    $0.length = .duration(milliseconds: 30 * 60_000)
                }
            )
            let playlist = built.playlist
            // Synthetic durations are 150–270 s, so 30 minutes is 7 to 12 tracks.
            #expect((7...12).contains(playlist.entries.count))
            #expect(playlist.description.hasPrefix("From calm to energetic"))
            #expect(playlist.name == "Calm → energetic, 30 min")
            // The path's own order is kept (no re-ordering by default), so it ends more energetic.
            let energies = playlist.entries.compactMap(\.features.energy)
            #expect(energies.first! < energies.last!)
            #expect(playlist.description.hasSuffix("ordered none (vibes-analyze)"))
        }
    }

    @Test func locksAreResolvedAndPlacedAndTheSavedPlaylistMatches() throws {
        try withTemporaryDirectory { folder in
            let store = try makeStore(in: folder, songs: Self.songs)
            let built = try store.buildPlaylist(
                Self.request(count: 8) {
                    $0.recommendation.seeds.artists = ["artist 2"]
                    $0.order = .arc
                    $0.arc = .rising
                    $0.locks = [(position: 3, track: "Song 50")]
                    $0.name = "Test mix"
                    $0.saves = true
                    $0.settings = "test"
                    $0.includesExportDetails = true
                }
            )
            let playlist = built.playlist
            #expect(playlist.entries.count == 8)
            #expect(playlist.entries[2].name == "Song 50" && playlist.entries[2].isLocked)
            #expect(Set(playlist.entries.map(\.trackID)).count == 8)
            #expect(built.notes.contains { $0.hasPrefix("lock 3: track \"Song 50\" → ") })
            #expect(built.notes.last == "saved as \"Test mix\"")
            let saved = try #require(try store.builtPlaylist(named: "test mix"))
            #expect(saved.entries.map(\.trackID) == playlist.entries.map(\.trackID))
            // Export details ride beside the playlist, not in it.
            #expect(playlist.entries.allSatisfy { $0.exportDetails == nil })
            #expect(built.exportedPlaylist.entries.allSatisfy { $0.exportDetails != nil })
            let m3u = try PlaylistExport.text(of: playlist, as: .m3u)
            #expect(m3u.hasPrefix("#EXTM3U\n#PLAYLIST:Test mix\n"))
            #expect(m3u.components(separatedBy: "#EXTINF:").count == 9)
        }
    }

    @Test func aVibeAloneGivesItsMembersStrongestFirst() async throws {
        try await withTemporaryDirectory { folder in
            let store = try makeStore(in: folder, songs: Self.songs)
            let found = try await store.findVibes(
                VibeRequest(settings: .init(schema: .default, clusterCount: .fixed(2)))
            )
            let built = try store.buildPlaylist(
                Self.request(count: 6) {
                    $0.recommendation.seeds.vibes = ["1"]
                    $0.order = PlaylistRequest.Order.none
                }
            )
            #expect(built.playlist.entries.count == 6)
            #expect(built.notes.contains { $0.hasPrefix("vibe 1 ") })
            let members = Set(
                try store.assignments(ofRun: found.runID).filter {
                    $0.cluster == found.report.vibes[0].cluster
                }.map(\.trackID)
            )
            #expect(built.playlist.entries.allSatisfy { members.contains($0.trackID) })
        }
    }

    /// A playlist of the library alone is ordered offline: its own tracks, each once, in the
    /// chosen order, whatever the count says.
    @Test func aPlaylistAloneIsOrderedOffline() throws {
        try withTemporaryDirectory { folder in
            let store = try LibraryStore(path: folder + "/library.sqlite")
            _ = try store.importFile(at: Fixtures.path("exportify/Older_Layout.csv"))
            let (rowID, name) = try store.playlist(matching: "older")
            let own = try store.playlistTrackIDs(rowID: rowID)
            #expect(own.count == 8)
            for order in PlaylistRequest.Order.allCases {
                let built = try store.buildPlaylist(
                    Self.request(count: 3) {
                        $0.recommendation.scope = .playlist("older")
                        $0.order = order
                    }
                )
                #expect(Set(built.playlist.entries.map(\.trackID)) == Set(own), "\(order)")
                #expect(built.playlist.entries.count == own.count)
                #expect(built.notes.contains { $0.contains("\"\(name)\": its 8 tracks with audio features") })
                if order == .none { #expect(built.playlist.entries.map(\.trackID) == own) }
            }
            let flow = Self.request { $0.recommendation.scope = .playlist("older") }
            let first = try store.buildPlaylist(flow).playlist
            let again = try store.buildPlaylist(flow).playlist
            #expect(first.entries.map(\.trackID) == again.entries.map(\.trackID))
        }
    }
}

/// Playlists longer than one Spotify request: counts and durations are honoured past 100 tracks.
struct LongPlaylistBuildingTests {
    static let songs = TidyTuesdaySongs.Song.synthetic(count: 1_400, seed: 9)

    @Test func aCountAboveOneHundredIsHonouredToTheTrack() throws {
        try withTemporaryDirectory { folder in
            let store = try makeStore(in: folder, songs: Self.songs)
            let playlist = try store.buildPlaylist(LibraryStorePlaylistBuildingTests.request(mood: .chill, count: 250))
                .playlist
            #expect(playlist.entries.count == 250)
            #expect(Set(playlist.entries.map(\.trackID)).count == 250)
        }
    }

    /// Ten hours from a library whose tracks last 2.5 to 4.5 minutes: well over 100 tracks, and
    /// the total reaches ten hours without going a whole track past it.
    @Test(arguments: [false, true])
    func aDurationOfHoursIsHonoured(isMoodPath: Bool) throws {
        try withTemporaryDirectory { folder in
            let store = try makeStore(in: folder, songs: Self.songs)
            let playlist = try store.buildPlaylist(
                LibraryStorePlaylistBuildingTests.request(mood: isMoodPath ? nil : .chill) {
                    if isMoodPath { $0.moodPath = (.calm, .energetic) }
                    $0.length = .duration(milliseconds: 36_000_000)
                }
            ).playlist
            let total = playlist.entries.reduce(0) { $0 + ($1.durationMS ?? 0) }
            #expect(playlist.entries.count > 100)
            #expect(Set(playlist.entries.map(\.trackID)).count == playlist.entries.count)
            if isMoodPath {
                // A mood path takes as many steps as tracks of the median length fill the duration.
                #expect(abs(Double(total) / 36_000_000 - 1) < 0.1, "\(total) ms")
            } else {
                // Tracks are added until the total reaches the duration.
                let last = playlist.entries.last?.durationMS ?? 0
                #expect(total >= 36_000_000 && total - last < 36_000_000, "\(total) ms")
            }
        }
    }
}
