import Features
import Testing

@testable import Analytics

/// The best candidates of a lane: kept in a heap when track IDs are distinct, they are the ones,
/// in the order, that a sorted list keeps.
struct TopKCandidatesTests {
    @Test(arguments: [1, 7, 200] as [Int])
    func theHeapKeepsWhatTheSortedListKeeps(capacity: Int) {
        var rng = SplitMix64(seed: UInt64(capacity))
        // Many equal scores (ties go to the smaller track ID), a NaN now and then, and the best
        // candidates late, as in a library that holds each song many times.
        let ids = (1...3_000).map { Int64($0) }.shuffled(using: &rng)
        var heap = TopKCandidates(capacity: capacity, distinctTrackIDs: true)
        var sorted = TopKCandidates(capacity: capacity)
        for (row, id) in ids.enumerated() {
            let score =
                row % 97 == 0
                ? Double.nan
                : row % 3 == 0 ? Double(rng.next() % 5) : Double(rng.next() % 50) / 10 + Double(row) / 1_000
            let candidate = Candidate(row: row, trackID: id, similarity: score, score: score)
            if heap.admits(score: score, trackID: id) { heap.insert(candidate) }
            sorted.insert(candidate)
        }
        let kept = heap.candidates.map { [$0.row, Int($0.trackID)] }
        #expect(kept.count == capacity)
        #expect(kept == sorted.candidates.map { [$0.row, Int($0.trackID)] })
    }
}
