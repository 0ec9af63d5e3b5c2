import Ingest
import Testing

@testable import VibesEngine

struct LibraryStoreRecipeRunningTests {
    @Test(
        arguments: [
            // Kept tracks stay where they were; new ones fill the free places in the build's order.
            ([1, 2, 3, 4], [3, 9, 1], [3, 2, 1, 4]),
            // A track whose old place is past the new length goes with the new ones.
            ([5, 6], [7, 8, 5], [5, 6]),
            // Nothing before: the build's own order.
            ([4, 3, 2], [], [4, 3, 2]),
            // A repeated old track keeps its first place only.
            ([1, 2, 3], [2, 2, 3], [2, 1, 3]),
        ] as [([Int64], [Int64], [Int64])]
    )
    func keepingPlaces(fresh: [Int64], previous: [Int64], expected: [Int64]) {
        #expect(LibraryStore.keepingPlaces(fresh, previous: previous) == expected)
    }
}
