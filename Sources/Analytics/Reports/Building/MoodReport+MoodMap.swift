import Features
import Foundation

extension MoodReport {
    /// The number of grid cells along each axis of the valence–energy map.
    static let moodGridSize = 10

    /// The quadrant of a track by absolute valence and energy, split at 0.5.
    static func quadrant(valence: Double, energy: Double) -> Mood {
        Mood(valence: valence - 0.5, energy: energy - 0.5)
    }

    /// The Organize Your Music soft moods of one point, in the order happy, sad, angry, chill.
    static func softMoods(
        valence v: Double,
        energy e: Double
    ) -> (
        happy: Double, sad: Double, angry: Double, chill: Double
    ) {
        (e * v, (1 - e) * (1 - v), e * (1 - v), (1 - e) * v)
    }

    static func moodMap(of table: FeatureTable) -> MoodMap {
        let size = moodGridSize
        var grid = [[Int]](repeating: [Int](repeating: 0, count: size), count: size)
        var quadrantCounts: [Mood: Int] = [:]
        var sums = (happy: 0.0, sad: 0.0, angry: 0.0, chill: 0.0)
        var count = 0
        for row in 0..<table.rowCount {
            guard let valence = table.value(row: row, feature: .valence).map(decimal),
                let energy = table.value(row: row, feature: .energy).map(decimal)
            else { continue }
            let v = Swift.min(1, Swift.max(0, valence))
            let e = Swift.min(1, Swift.max(0, energy))
            count += 1
            quadrantCounts[quadrant(valence: v, energy: e), default: 0] += 1
            // The tiny offset keeps 0.3 × 10 in cell 3 whatever the rounding of the product.
            grid[Swift.min(size - 1, Int(e * Double(size) + 1e-9))][
                Swift.min(size - 1, Int(v * Double(size) + 1e-9))
            ] += 1
            let moods = softMoods(valence: v, energy: e)
            sums.happy += moods.happy
            sums.sad += moods.sad
            sums.angry += moods.angry
            sums.chill += moods.chill
        }
        let n = Double(Swift.max(count, 1))
        return MoodMap(
            tracks: count,
            quadrants: Mood.allCases.map { mood in
                let tracks = quadrantCounts[mood] ?? 0
                return MoodMap.Quadrant(mood: mood.rawValue, tracks: tracks, share: count > 0 ? Double(tracks) / n : 0)
            },
            softMoods: MoodMap.SoftMoods(
                happy: sums.happy / n,
                sad: sums.sad / n,
                angry: sums.angry / n,
                chill: sums.chill / n
            ),
            gridSize: size,
            grid: grid
        )
    }
}
