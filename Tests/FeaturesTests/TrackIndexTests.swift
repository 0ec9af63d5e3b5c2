import Features
import Testing

/// Lookups by track ID, held to a plain search: ascending lists by galloping from where the last
/// lookup ended (in and out of order), and other lists through their dictionary.
struct TrackIndexTests {
    @Test(arguments: [0, 1, 2, 9, 1000])
    func findsWhatAPlainSearchFinds(count: Int) {
        var random = SplitMix64(seed: UInt64(count) + 3)
        var ids: [Int64] = []
        var next: Int64 = 1
        for _ in 0..<count {
            next += Int64(random.next(below: 5) + 1)
            ids.append(next)
        }
        let index = TrackIndex(ids)
        let probes = (0..<(2 * count + 5)).map { _ in Int64(random.next(below: Int(next) + 3)) }
        var from = 0
        for probe in probes.sorted() + probes {
            let expected = ids.firstIndex(of: probe)
            #expect(index.index(of: probe) == expected)
            #expect(index.index(of: probe, from: &from) == expected)
            #expect(TrackIndex.binarySearch(probe, inAscending: ids) == expected)
        }
        let shuffled = ids.shuffled(using: &random) + ids.prefix(1)
        let unsorted = TrackIndex(shuffled)
        for probe in probes { #expect(unsorted.index(of: probe) == shuffled.firstIndex(of: probe)) }
    }
}
