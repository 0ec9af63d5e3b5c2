import Analytics
import Features
import Testing

/// `PlaylistBuilder.assemble`: locks, length and order, the last step of `playlist build`.
struct PlaylistAssemblyTests {
    /// Ten tracks whose energy falls from 0.95 to 0.05 and whose keys jump around the wheel.
    static let chosen: [Playlist.Entry] = (1...10).map { index in
        PlaylistOrderingTests.entry(
            Int64(index),
            key: (index * 5) % 12,
            tempo: 90 + Double(index * 7 % 40),
            energy: 1.05 - Double(index) / 10,
            artist: "Artist \(index)"
        )
    }

    @Test func locksKeepTheirPositionsWhateverTheOrder() {
        let lockedTrack = PlaylistOrderingTests.entry(99, key: 0, tempo: 120, energy: 0.5, artist: "Pinned")
        let locks = [
            PlaylistBuilder.Lock(position: 1, entry: Self.chosen[6]),
            PlaylistBuilder.Lock(position: 4, entry: lockedTrack),
        ]
        for order in [PlaylistBuilder.Order.flow, .arc(.rising), .asChosen] {
            let arrangement = PlaylistBuilder.assemble(
                Self.chosen,
                locks: locks,
                length: .trackCount(10),
                order: order,
                isMoodPath: false
            )
            let ids = arrangement.entries.map(\.trackID)
            #expect(ids.count == 10, "\(order)")
            #expect(Set(ids).count == 10, "\(order): a locked track appears once")
            #expect(ids[0] == 7 && ids[3] == 99, "\(order)")
            #expect(arrangement.entries[0].isLocked && arrangement.entries[3].isLocked)
            #expect(arrangement.entries.filter(\.isLocked).count == 2)
            // The last unlocked track of the chosen ones made room for the new one.
            #expect(!ids.contains(10), "\(order)")
        }
    }

    @Test func flowNeverCostsMoreThanGreedyAndAsChosenKeepsTheOrder() {
        let flow = PlaylistBuilder.assemble(
            Self.chosen,
            locks: [],
            length: .trackCount(10),
            order: .flow,
            isMoodPath: false
        )
        #expect(flow.cost <= flow.greedyCost + 1e-9)
        #expect(Set(flow.entries.map(\.trackID)) == Set(1...10))
        let kept = PlaylistBuilder.assemble(
            Self.chosen,
            locks: [],
            length: .trackCount(10),
            order: .asChosen,
            isMoodPath: false
        )
        #expect(kept.entries.map(\.trackID) == Array(1...10))
        #expect(kept.cost == PlaylistOrdering().totalCost(of: Self.chosen))
        let rising = PlaylistBuilder.assemble(
            Self.chosen,
            locks: [],
            length: .trackCount(10),
            order: .arc(.rising),
            isMoodPath: false
        )
        let energies = rising.entries.compactMap(\.features.energy)
        #expect((rising.arcCorrelation ?? 0) >= PlaylistOrdering.minimumArcCorrelation)
        #expect(energies.first! < energies.last!)
    }

    @Test func aMoodPathFlowsOnlyWithinItsSteps() {
        let path = PlaylistBuilder.assemble(
            Self.chosen,
            locks: [],
            length: .trackCount(10),
            order: .flow,
            isMoodPath: true
        )
        let steps = PlaylistBuilder.moodPathSteps(trackCount: 10)
        for step in steps {
            #expect(Set(path.entries[step].map(\.trackID)) == Set(Self.chosen[step].map(\.trackID)))
        }
    }

    @Test func seedTracksComeFirstAndTheCountHolds() {
        let ids = PlaylistBuilder.startingWithSeeds([5, 3, 8, 1, 2], seeds: [8, 9], length: .trackCount(4))
        #expect(ids == [8, 9, 5, 3])
        let long = PlaylistBuilder.startingWithSeeds([5, 3], seeds: [3], length: .duration(milliseconds: 60_000))
        #expect(long == [3, 5])
    }
}
