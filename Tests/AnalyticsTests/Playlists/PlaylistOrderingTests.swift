import Analytics
import Features
import Numerics
import Testing
import VibesTestSupport

struct PlaylistOrderingTests {
    static func entry(
        _ id: Int64,
        key: Int?,
        mode: Int = 1,
        tempo: Double?,
        energy: Double?,
        artist: String = "",
        locked: Bool = false
    ) -> Playlist.Entry {
        Playlist.Entry(
            trackID: id,
            spotifyID: nil,
            name: "t\(id)",
            artists: artist.isEmpty ? ["artist \(id)"] : [artist],
            features: AudioFeatures(energy: energy, key: key, mode: mode, tempo: tempo),
            isLocked: locked
        )
    }

    /// `count` tracks with keys, tempos and energies scattered by a seeded generator; with
    /// `artists`, the main artists are drawn from that many names, and every seventh track lacks
    /// its key and every eleventh its tempo.
    static func scattered(seed: UInt64, count: Int = 12, artists: Int? = nil) -> [Playlist.Entry] {
        var generator = SplitMix64(seed: seed)
        return (1...count).map { id in
            let key = generator.next(below: 12)
            let mode = generator.next(below: 2)
            let tempo = 70 + Double(generator.next(below: 110))
            let energy = generator.nextUnitInterval()
            let artist = artists.map { "artist \(generator.next(below: $0))" } ?? ""
            return entry(
                Int64(id),
                key: artists != nil && id % 7 == 0 ? nil : key,
                mode: mode,
                tempo: artists != nil && id % 11 == 0 ? nil : tempo,
                energy: energy,
                artist: artist
            )
        }
    }

    // MARK: - The cost

    @Test func transitionCostFollowsTheDocumentedFormula() {
        let ordering = PlaylistOrdering()
        let c = PlaylistOrderingTests.entry(1, key: 0, tempo: 120, energy: 0.5)  // 8B
        // G major is 9B, one hour away: Camelot 0.9, so 0.4 · 0.1.
        let g = PlaylistOrderingTests.entry(2, key: 7, tempo: 120, energy: 0.5)
        #expect(ordering.transitionCost(from: c, to: g).isApproximatelyEqual(to: 0.04, absoluteTolerance: 1e-12))
        // Half time is no tempo step; an energy step of 0.3 is fully rough: 0.2 · 1.
        let halfTime = PlaylistOrderingTests.entry(3, key: 0, tempo: 60, energy: 0.8)
        #expect(ordering.transitionCost(from: c, to: halfTime).isApproximatelyEqual(to: 0.2, absoluteTolerance: 1e-12))
        // 5 % faster: 1 − log₂1.05 / log₂1.12 = 0.569481 of the tempo part, so 0.4 · 0.430519.
        let faster = PlaylistOrderingTests.entry(4, key: 0, tempo: 126, energy: 0.5)
        #expect(
            ordering.transitionCost(from: c, to: faster).isApproximatelyEqual(to: 0.172208, absoluteTolerance: 1e-6)
        )
        // F♯ major (2B) is six hours from C: Camelot 0; unknown tempo 0.5: 0.4 + 0.2 + 0.
        let tritone = PlaylistOrderingTests.entry(5, key: 6, tempo: nil, energy: 0.5)
        #expect(ordering.transitionCost(from: c, to: tritone).isApproximatelyEqual(to: 0.6, absoluteTolerance: 1e-12))
        // The same main artist adds 1, unless artists are not separated.
        let sameArtist = PlaylistOrderingTests.entry(6, key: 0, tempo: 120, energy: 0.5, artist: "artist 1")
        #expect(ordering.transitionCost(from: c, to: sameArtist) == 1)
        #expect(PlaylistOrdering(separatesArtists: false).transitionCost(from: c, to: sameArtist) == 0)
    }

    @Test func transitionCostIsSymmetricBitForBit() {
        let entries = PlaylistOrderingTests.scattered(seed: 11, count: 40, artists: 5)
        let ordering = PlaylistOrdering()
        for a in entries {
            for b in entries {
                #expect(ordering.transitionCost(from: a, to: b) == ordering.transitionCost(from: b, to: a))
            }
        }
    }

    @Test func halfAndDoubleTimeMixAsWellAsTheSameTempo() {
        let a = PlaylistOrderingTests.entry(1, key: 0, tempo: 140, energy: 0.5)
        let half = PlaylistOrderingTests.entry(2, key: 0, tempo: 70, energy: 0.5)
        let same = PlaylistOrderingTests.entry(3, key: 0, tempo: 140, energy: 0.5)
        let off = PlaylistOrderingTests.entry(4, key: 0, tempo: 100, energy: 0.5)
        #expect(
            PlaylistOrdering.transitionSmoothness(from: a, to: half)
                == PlaylistOrdering.transitionSmoothness(from: a, to: same)
        )
        #expect(
            PlaylistOrdering.transitionSmoothness(from: a, to: off)
                < PlaylistOrdering.transitionSmoothness(from: a, to: half)
        )
    }

    // MARK: - Flow against best-start greedy

    @Test(arguments: 1...30)
    func flowNeverCostsMoreThanBestStartGreedy(seed: Int) {
        let input = PlaylistOrderingTests.scattered(seed: UInt64(seed), count: 4 + seed * 2, artists: 6)
        let ordering = PlaylistOrdering()
        let arrangement = ordering.arrange(input)
        let greedy = ReferenceGreedy.bestCost(of: input, ordering: ordering)
        #expect(Set(arrangement.entries.map(\.trackID)) == Set(input.map(\.trackID)))
        #expect(arrangement.entries.count == input.count)
        #expect(arrangement.cost <= greedy + 1e-9)
        #expect(arrangement.greedyCost.isApproximatelyEqual(to: greedy, absoluteTolerance: 1e-9))
        #expect(
            arrangement.cost.isApproximatelyEqual(
                to: ReferenceGreedy.cost(of: arrangement.entries, ordering: ordering),
                absoluteTolerance: 1e-9
            )
        )
    }

    @Test func flowImprovesOnGreedyOnMostRandomPlaylists() {
        let ordering = PlaylistOrdering()
        let lower = (1...20).filter { seed in
            let input = PlaylistOrderingTests.scattered(seed: UInt64(100 + seed), count: 30, artists: 6)
            return ordering.arrange(input).cost < ReferenceGreedy.bestCost(of: input, ordering: ordering) - 1e-9
        }
        #expect(lower.count >= 15, "strictly lower on \(lower.count) of 20")
    }

    @Test(arguments: [
        ("csv/tidytuesday-excerpt.csv", 3)
    ])
    func flowBeatsGreedyOnTheFixturePlaylists(fixture: String, minimumCount: Int) throws {
        let samples =
            try PlaylistSamples.tidyTuesday(path: Fixtures.path(fixture), minimumCount: minimumCount)
            + [try PlaylistSamples.exportify(path: Fixtures.path("exportify/Liked_Songs.csv"))]
        #expect(samples.map(\.entries.count).sorted() == [3, 20, 30])
        let ordering = PlaylistOrdering()
        for sample in samples {
            let arrangement = ordering.arrange(sample.entries)
            #expect(arrangement.cost <= ReferenceGreedy.bestCost(of: sample.entries, ordering: ordering) + 1e-9)
        }
    }

    @Test(arguments: 1...10)
    func lockedTracksStayInPlaceAndFlowStillBeatsGreedy(seed: Int) {
        var input = PlaylistOrderingTests.scattered(seed: UInt64(200 + seed), count: 25, artists: 5)
        for position in [0, 5, 6, 13, 24] { input[position].isLocked = true }
        let ordering = PlaylistOrdering()
        let arrangement = ordering.arrange(input)
        for position in [0, 5, 6, 13, 24] {
            #expect(arrangement.entries[position].trackID == input[position].trackID)
        }
        #expect(Set(arrangement.entries.map(\.trackID)) == Set(input.map(\.trackID)))
        #expect(arrangement.cost <= ReferenceGreedy.bestCost(of: input, ordering: ordering) + 1e-9)
        for arc in [PlaylistOrdering.Arc.rising, .peak, .falling] {
            let arced = PlaylistOrdering(arc: arc).ordered(input)
            for position in [0, 5, 6, 13, 24] { #expect(arced[position].trackID == input[position].trackID) }
        }
    }

    @Test func stepsKeepEveryTrackWithinItsStep() {
        let input = PlaylistOrderingTests.scattered(seed: 31, count: 14, artists: 4)
        let steps = [0..<3, 3..<6, 6..<9, 9..<12, 12..<14]
        let ordered = PlaylistOrdering().arrange(input, steps: steps).entries
        for step in steps {
            #expect(Set(ordered[step].map(\.trackID)) == Set(input[step].map(\.trackID)))
        }
        // Without steps, flow moves tracks across them.
        let free = PlaylistOrdering().ordered(input)
        #expect(steps.contains { Set(free[$0].map(\.trackID)) != Set(input[$0].map(\.trackID)) })
    }

    @Test func sameArtistIsKeptApart() {
        // Six tracks by A and six by B, otherwise identical: alternating is the only way apart.
        let input = (1...12).map { id in
            PlaylistOrderingTests.entry(Int64(id), key: 0, tempo: 120, energy: 0.5, artist: id <= 6 ? "A" : "B")
        }
        let ordered = PlaylistOrdering().ordered(input)
        let adjacentSame = zip(ordered, ordered.dropFirst()).filter { $0.artists == $1.artists }.count
        #expect(adjacentSame == 0)
    }

    // MARK: - Determinism

    @Test func isDeterministicBitForBitAndIndependentOfInputOrder() {
        let input = PlaylistOrderingTests.scattered(seed: 9, count: 60, artists: 8)
        for ordering in [PlaylistOrdering(), PlaylistOrdering(arc: .peak)] {
            let first = ordering.arrange(input)
            let second = ordering.arrange(input)
            #expect(first.entries == second.entries)
            #expect(first.cost.bitPattern == second.cost.bitPattern)
        }
        var generator = SplitMix64(seed: 3)
        var shuffled = input
        for index in shuffled.indices.reversed() where index > 0 {
            shuffled.swapAt(index, generator.next(below: index + 1))
        }
        #expect(shuffled != input)
        #expect(PlaylistOrdering().ordered(shuffled) == PlaylistOrdering().ordered(input))
    }

    @Test func longPlaylistsSampleTheirStartsAndStillBeatTheirGreedy() {
        let input = PlaylistOrderingTests.scattered(seed: 77, count: 150, artists: 12)
        let arrangement = PlaylistOrdering().arrange(input)
        #expect(Set(arrangement.entries.map(\.trackID)).count == 150)
        #expect(arrangement.cost < arrangement.greedyCost)
        #expect(PlaylistOrdering().arrange(input) == arrangement)
    }

    // MARK: - Arcs

    @Test(arguments: [PlaylistOrdering.Arc.rising, .peak, .falling, .custom([0.2, 0.8, 0.4])])
    func arcsFollowTheirCurveOnTheFixtures(arc: PlaylistOrdering.Arc) throws {
        let samples =
            try PlaylistSamples.tidyTuesday(path: Fixtures.path("csv/tidytuesday-excerpt.csv"), minimumCount: 10)
            + [try PlaylistSamples.exportify(path: Fixtures.path("exportify/Liked_Songs.csv"))]
        for sample in samples {
            let arrangement = PlaylistOrdering(arc: arc).arrange(sample.entries)
            let correlation = ReferenceGreedy.correlation(of: arrangement.entries, arc: arc)
            #expect(correlation >= 0.8, "\(sample.name), \(arc): \(correlation)")
            let reported = try #require(arrangement.arcCorrelation)
            #expect(reported.isApproximatelyEqual(to: correlation, absoluteTolerance: 1e-9))
        }
    }

    @Test func risingArcBuildsEnergy() {
        let input = PlaylistOrderingTests.scattered(seed: 5)
        let energies = PlaylistOrdering(arc: .rising).ordered(input).map { $0.features.energy! }
        let firstThird = energies.prefix(4).reduce(0, +) / 4
        let lastThird = energies.suffix(4).reduce(0, +) / 4
        #expect(lastThird > firstThird + 0.2)
    }

    @Test func peakArcPeaksTwoThirdsInNotAtTheEnds() {
        let input = PlaylistOrderingTests.scattered(seed: 6)
        let energies = PlaylistOrdering(arc: .peak).ordered(input).map { $0.features.energy! }
        let peak = energies.indices.max { energies[$0] < energies[$1] }!
        #expect((6...9).contains(peak))
        #expect(energies[peak] > energies[0] && energies[peak] > energies[11])
    }

    @Test(arguments: [
        ("rising", PlaylistOrdering.Arc.rising), ("falling", .falling), ("0.2,0.8,0.4", .custom([0.2, 0.8, 0.4])),
        ("0, 1", .custom([0, 1])),
    ])
    func arcsParse(text: String, arc: PlaylistOrdering.Arc) {
        #expect(PlaylistOrdering.Arc(parsing: text) == arc)
    }

    @Test(arguments: ["0.5", "0.2,1.5", "0.2,,0.4", "zigzag", ""])
    func badArcsDoNotParse(text: String) {
        #expect(PlaylistOrdering.Arc(parsing: text) == nil)
    }
}

/// Best-start greedy nearest neighbour and the arc's shape correlation, written independently of
/// the library: the yardsticks the ordering is tested against.
enum ReferenceGreedy {
    /// The total transition cost of `entries` in their order.
    static func cost(of entries: [Playlist.Entry], ordering: PlaylistOrdering) -> Double {
        var total = 0.0
        for index in entries.indices.dropFirst() {
            total += ordering.transitionCost(from: entries[index - 1], to: entries[index])
        }
        return total
    }

    /// The lowest total over greedy tours from every start: locked entries keep their index, and
    /// each open position takes the free entry with the lowest cost from the one before (plus the
    /// cost into a locked entry after it), the lowest track ID on a tie.
    static func bestCost(of entries: [Playlist.Entry], ordering: PlaylistOrdering) -> Double {
        let n = entries.count
        guard n > 1 else { return 0 }
        var matrix = [[Double]](repeating: [Double](repeating: 0, count: n), count: n)
        for a in 0..<n {
            for b in 0..<n where a != b { matrix[a][b] = ordering.transitionCost(from: entries[a], to: entries[b]) }
        }
        let free = (0..<n).filter { !entries[$0].isLocked }.sorted { entries[$0].trackID < entries[$1].trackID }
        guard let opening = (0..<n).first(where: { !entries[$0].isLocked }) else {
            return cost(of: entries, ordering: ordering)
        }
        var best = Double.infinity
        for start in free {
            var remaining = free.filter { $0 != start }
            var tour = (0..<n).map { entries[$0].isLocked ? $0 : -1 }
            tour[opening] = start
            for position in (opening + 1)..<n where tour[position] < 0 {
                var pick = 0
                var pickCost = Double.infinity
                for (index, candidate) in remaining.enumerated() {
                    var c = matrix[tour[position - 1]][candidate]
                    if position + 1 < n, entries[position + 1].isLocked { c += matrix[candidate][position + 1] }
                    if c < pickCost { (pick, pickCost) = (index, c) }
                }
                tour[position] = remaining.remove(at: pick)
            }
            var total = 0.0
            for position in 1..<n { total += matrix[tour[position - 1]][tour[position]] }
            best = min(best, total)
        }
        return best
    }

    /// The Pearson correlation between the arc at each position (0 first, 1 last) and the energies.
    static func correlation(of entries: [Playlist.Entry], arc: PlaylistOrdering.Arc) -> Double {
        let n = entries.count
        let pairs = entries.enumerated().compactMap { position, entry in
            entry.features.energy.map { (arc.value(at: Double(position) / Double(n - 1))!, $0) }
        }
        return pearson(pairs)
    }

    /// The Pearson correlation of the pairs' first and second values.
    static func pearson(_ pairs: [(Double, Double)]) -> Double {
        let count = Double(pairs.count)
        let meanX = pairs.map(\.0).reduce(0, +) / count
        let meanY = pairs.map(\.1).reduce(0, +) / count
        let sxy = pairs.map { ($0.0 - meanX) * ($0.1 - meanY) }.reduce(0, +)
        let sxx = pairs.map { ($0.0 - meanX) * ($0.0 - meanX) }.reduce(0, +)
        let syy = pairs.map { ($0.1 - meanY) * ($0.1 - meanY) }.reduce(0, +)
        return sxy / (sxx * syy).squareRoot()
    }

    /// The highest correlation any order could reach: calmest track to the lowest point, by rank.
    static func bestCorrelation(of entries: [Playlist.Entry], arc: PlaylistOrdering.Arc) -> Double {
        let n = entries.count
        let withEnergy = entries.filter { $0.features.energy != nil }
        let positions = (0..<n).map { arc.value(at: Double($0) / Double(n - 1))! }.sorted()
        let energies = withEnergy.map { $0.features.energy! }.sorted()
        // Only for playlists where every track has an energy.
        precondition(withEnergy.count == n)
        return pearson(zip(positions, energies).map { ($0, $1) })
    }
}

/// Playlists longer than one ordering window.
struct LongPlaylistOrderingTests {
    /// A full window of 999 tracks and a part window of 101: what crosses the edge between them.
    static let input = PlaylistOrderingTests.scattered(seed: 5, count: 1_100, artists: 40)

    @Test func flowOrdersEveryWindowAndNeverCostsMoreThanGreedyInTheSameWindows() {
        var input = LongPlaylistOrderingTests.input
        for position in [0, 998, 999, 1_050, 1_099] { input[position].isLocked = true }
        let arrangement = PlaylistOrdering().arrange(input)
        #expect(arrangement.entries.count == 1_100)
        #expect(Set(arrangement.entries.map(\.trackID)) == Set(input.map(\.trackID)))
        for position in [0, 998, 999, 1_050, 1_099] {
            #expect(arrangement.entries[position].trackID == input[position].trackID)
        }
        // Each window holds the same tracks as before: no track crosses a window edge.
        for start in stride(from: 0, to: 1_100, by: PlaylistOrdering.windowLength) {
            let end = min(start + PlaylistOrdering.windowLength, 1_100)
            #expect(Set(arrangement.entries[start..<end].map(\.trackID)) == Set(input[start..<end].map(\.trackID)))
        }
        let greedy = PlaylistOrdering().greedyOrder(input)
        #expect(abs(PlaylistOrdering().totalCost(of: greedy) - arrangement.greedyCost) < 1e-9)
        #expect(arrangement.cost < arrangement.greedyCost)
        #expect(abs(PlaylistOrdering().totalCost(of: arrangement.entries) - arrangement.cost) < 1e-9)
    }

    @Test func anArcDealsTracksOverTheWholePlaylist() {
        let arrangement = PlaylistOrdering(arc: .rising).arrange(LongPlaylistOrderingTests.input)
        #expect(Set(arrangement.entries.map(\.trackID)).count == 1_100)
        let correlation = try? #require(arrangement.arcCorrelation)
        #expect((correlation ?? 0) >= PlaylistOrdering.minimumArcCorrelation)
        // The calmest 999 tracks play in the first window.
        let energies = LongPlaylistOrderingTests.input.compactMap(\.features.energy).sorted()
        let firstWindow = arrangement.entries.prefix(PlaylistOrdering.windowLength).compactMap(\.features.energy)
        #expect(firstWindow.allSatisfy { $0 <= energies[PlaylistOrdering.windowLength - 1] })
    }
}
