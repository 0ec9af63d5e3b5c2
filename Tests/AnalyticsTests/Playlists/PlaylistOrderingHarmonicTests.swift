import Analytics
import Features
import Numerics
import Testing
import VibesTestSupport

struct PlaylistOrderingHarmonicTests {
    /// An entry in Camelot notation: `8B` is C major, `8A` A minor.
    static func entry(
        _ id: Int64,
        _ camelot: String?,
        tempo: Double?,
        energy: Double? = 0.5,
        locked: Bool = false
    )
        -> Playlist.Entry
    {
        let (key, mode) = camelot.map(PlaylistOrderingHarmonicTests.spotifyKey(of:)) ?? (nil, nil)
        return Playlist.Entry(
            trackID: id,
            spotifyID: nil,
            name: "t\(id)",
            artists: ["artist \(id)"],
            features: AudioFeatures(energy: energy, key: key, mode: mode, tempo: tempo),
            isLocked: locked
        )
    }

    /// The Spotify key and mode whose Camelot position is `camelot`, found by search so the test
    /// does not restate the wheel's formula.
    static func spotifyKey(of camelot: String) -> (Int?, Int?) {
        for key in 0...11 {
            for mode in 0...1 where CamelotKey(pitchClass: key, mode: mode)?.description == camelot {
                return (key, mode)
            }
        }
        Issue.record("\(camelot) is no Camelot position")
        return (nil, nil)
    }

    static func camelotKey(_ entry: Playlist.Entry) -> CamelotKey? {
        guard let key = entry.features.key, let mode = entry.features.mode else { return nil }
        return CamelotKey(pitchClass: key, mode: mode)
    }

    static func camelot(_ entry: Playlist.Entry) -> String? {
        camelotKey(entry)?.description
    }

    @Test func walksToNeighbouringKeysWithTempoBreakingTies() {
        let entries = [
            PlaylistOrderingHarmonicTests.entry(1, "9B", tempo: 128),
            PlaylistOrderingHarmonicTests.entry(2, "8A", tempo: 120),
            PlaylistOrderingHarmonicTests.entry(3, "8B", tempo: 90),
            PlaylistOrderingHarmonicTests.entry(4, "8A", tempo: 100),
            PlaylistOrderingHarmonicTests.entry(5, "8B", tempo: 125),
        ]
        let ordered = PlaylistOrdering.harmonicOrder(entries)
        // 8A → 8B (relative major) → 9B (one hour): no other walk through these keys is as smooth.
        #expect(ordered.map(PlaylistOrderingHarmonicTests.camelot) == ["8A", "8A", "8B", "8B", "9B"])
        // Slow to fast in 8A, then fast to slow in 8B, so 120 BPM meets 125 BPM at the key change.
        #expect(ordered.map(\.trackID) == [4, 2, 5, 3, 1])
    }

    @Test func everyKeyChangeRoundAFullWheelIsANeighbour() {
        var generator = SplitMix64(seed: 7)
        var entries: [Playlist.Entry] = []
        for hour in 1...12 {
            for letter in ["A", "B"] {
                for _ in 0..<2 {
                    let tempo = 80 + Double(generator.next(below: 90))
                    entries.append(
                        PlaylistOrderingHarmonicTests.entry(Int64(entries.count + 1), "\(hour)\(letter)", tempo: tempo)
                    )
                }
            }
        }
        entries.shuffle(using: &generator)
        let keys = PlaylistOrdering.harmonicOrder(entries).compactMap(PlaylistOrderingHarmonicTests.camelotKey)
        #expect(keys.count == 48)
        // Each key is one block, and each change between blocks is a step the wheel calls smooth.
        let changes = zip(keys, keys.dropFirst()).filter { $0 != $1 }
        #expect(changes.count == 23)
        for (from, to) in changes {
            #expect(from.smoothness(to: to).isApproximatelyEqual(to: 0.9, absoluteTolerance: 1e-12), "\(from) → \(to)")
        }
    }

    @Test func theSameTracksInAnyInputOrderGiveTheSameOrder() {
        var generator = SplitMix64(seed: 42)
        let keys = ["1A", "2A", "2B", "5B", "11A", "12B", nil]
        let entries = (1...40).map { id in
            PlaylistOrderingHarmonicTests.entry(
                Int64(id),
                keys[generator.next(below: keys.count)],
                tempo: id % 9 == 0 ? nil : Double(70 + generator.next(below: 4) * 10),
                energy: generator.nextUnitInterval()
            )
        }
        let reference = PlaylistOrdering.harmonicOrder(entries).map(\.trackID)
        #expect(Set(reference) == Set(entries.map(\.trackID)))
        for _ in 0..<5 {
            #expect(PlaylistOrdering.harmonicOrder(entries.shuffled(using: &generator)).map(\.trackID) == reference)
        }
    }

    @Test func tracksWithoutAKeyGoLastByTempoAndLockedTracksStay() {
        let entries = [
            PlaylistOrderingHarmonicTests.entry(1, nil, tempo: 140),
            PlaylistOrderingHarmonicTests.entry(2, "3A", tempo: 100, locked: true),
            PlaylistOrderingHarmonicTests.entry(3, "4A", tempo: 110),
            PlaylistOrderingHarmonicTests.entry(4, nil, tempo: 95),
            PlaylistOrderingHarmonicTests.entry(5, "4B", tempo: 120),
        ]
        let ordered = PlaylistOrdering.harmonicOrder(entries)
        #expect(ordered[1].trackID == 2)
        // 4A and 4B are as smooth either way round; the first walk tried, from 4B, wins.
        #expect(ordered.map(\.trackID) == [5, 2, 3, 4, 1])
    }

    @Test func buildingWithTheKeyOrderKeepsLocksAndReportsTheCost() {
        let chosen = [
            PlaylistOrderingHarmonicTests.entry(1, "10B", tempo: 120),
            PlaylistOrderingHarmonicTests.entry(2, "8B", tempo: 120),
            PlaylistOrderingHarmonicTests.entry(3, "9B", tempo: 120),
        ]
        let lock = PlaylistBuilder.Lock(position: 1, entry: PlaylistOrderingHarmonicTests.entry(4, "3A", tempo: 80))
        let arrangement = PlaylistBuilder.assemble(
            chosen,
            locks: [lock],
            length: .trackCount(4),
            order: .key,
            isMoodPath: false
        )
        #expect(arrangement.entries.map(\.trackID) == [4, 2, 3, 1])
        let cost = PlaylistOrdering().totalCost(of: arrangement.entries)
        #expect(arrangement.cost.isApproximatelyEqual(to: cost, absoluteTolerance: 1e-12))
    }
}
