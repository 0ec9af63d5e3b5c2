import Analytics
import Features
import Testing

struct PlaylistOrderingTests {
    static func entry(
        _ id: Int64,
        key: Int,
        mode: Int = 1,
        tempo: Double,
        energy: Double,
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

    /// Twelve tracks with keys, tempos and energies scattered by a seeded generator.
    static func scattered(seed: UInt64) -> [Playlist.Entry] {
        var generator = SplitMix64(seed: seed)
        return (1...12).map { id in
            entry(
                Int64(id),
                key: generator.next(below: 12),
                mode: generator.next(below: 2),
                tempo: 90 + Double(generator.next(below: 60)),
                energy: generator.nextUnitInterval()
            )
        }
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func flowOrderScoresAtLeastAsWellAsTheInput(seed: UInt64) {
        let input = PlaylistOrderingTests.scattered(seed: seed)
        let ordered = PlaylistOrdering().ordered(input)
        #expect(Set(ordered.map(\.trackID)) == Set(input.map(\.trackID)))
        #expect(PlaylistOrdering.transitionScore(of: ordered) > PlaylistOrdering.transitionScore(of: input))
    }

    @Test func lockedTracksStayInPlace() {
        var input = PlaylistOrderingTests.scattered(seed: 4)
        input[0].isLocked = true
        input[7].isLocked = true
        let ordered = PlaylistOrdering(arc: .rising).ordered(input)
        #expect(ordered[0].trackID == input[0].trackID)
        #expect(ordered[7].trackID == input[7].trackID)
    }

    @Test func risingArcBuildsEnergy() {
        let input = PlaylistOrderingTests.scattered(seed: 5)
        let ordered = PlaylistOrdering(arc: .rising).ordered(input)
        let energies = ordered.map { $0.features.energy! }
        let firstThird = energies.prefix(4).reduce(0, +) / 4
        let lastThird = energies.suffix(4).reduce(0, +) / 4
        #expect(lastThird > firstThird + 0.2)
    }

    @Test func peakArcPeaksInTheMiddleNotAtTheEnds() {
        let input = PlaylistOrderingTests.scattered(seed: 6)
        let energies = PlaylistOrdering(arc: .peak).ordered(input).map { $0.features.energy! }
        let middle = energies[6..<9].reduce(0, +) / 3
        #expect(middle > energies[0] && middle > energies[11])
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

    @Test func isDeterministic() {
        let input = PlaylistOrderingTests.scattered(seed: 9)
        #expect(PlaylistOrdering(arc: .peak).ordered(input) == PlaylistOrdering(arc: .peak).ordered(input))
    }
}
