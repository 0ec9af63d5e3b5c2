import Analytics
import Features
import Testing
import VibesTestSupport

struct OrderingComparisonTests {
    /// Every permutation of `entries`.
    static func permutations(_ entries: [Playlist.Entry]) -> [[Playlist.Entry]] {
        guard entries.count > 1 else { return [entries] }
        return entries.indices.flatMap { index in
            var rest = entries
            let first = rest.remove(at: index)
            return permutations(rest).map { [first] + $0 }
        }
    }

    /// The random baseline is the exact mean cost per transition over every order of the playlist.
    @Test(arguments: [4, 5, 6])
    func theRandomBaselineIsTheMeanOverEveryOrder(count: Int) {
        let entries = PlaylistOrderingTests.scattered(seed: UInt64(count), count: count, artists: 2)
        let ordering = PlaylistOrdering()
        let all = OrderingComparisonTests.permutations(entries)
        let mean = all.reduce(0.0) { $0 + ordering.totalCost(of: $1) / Double(count - 1) } / Double(all.count)
        let comparison = OrderingComparison.measure(playlists: [("p", entries)], resampleCount: 10, seed: 1)
        #expect(abs(comparison.random - mean) < 1e-12)
        // The best order found is no worse than the best of every order, and greedy's is real.
        let best = all.map { ordering.totalCost(of: $0) / Double(count - 1) }.min()!
        #expect(comparison.flow >= best - 1e-12)
        #expect(comparison.flow <= comparison.greedy + 1e-12)
    }

    @Test func figuresAreMeansOverPlaylistsWithPairedIntervals() {
        let playlists = (0..<12).map {
            ("p\($0)", PlaylistOrderingTests.scattered(seed: UInt64(100 + $0), count: 25, artists: 6))
        }
        let comparison = OrderingComparison.measure(playlists: playlists, resampleCount: 500, seed: 7)
        #expect(comparison.playlists.count == 12)
        #expect(comparison.lower + comparison.equal + comparison.higher == 12)
        #expect(comparison.higher == 0)
        let flows = comparison.playlists.map(\.flow)
        let greedies = comparison.playlists.map(\.greedy)
        #expect(abs(comparison.flow - flows.reduce(0, +) / 12) < 1e-12)
        let expected = PairedBootstrap.meanDifference(flows, greedies, resampleCount: 500, seed: 7)
        #expect(comparison.greedyDifference == expected)
        #expect(comparison.greedyDifference.upper < 0)
        #expect(comparison.randomDifference.upper < comparison.greedyDifference.lower)
        // The same seed gives the same figures, bit for bit.
        #expect(OrderingComparison.measure(playlists: playlists, resampleCount: 500, seed: 7) == comparison)
    }
}
