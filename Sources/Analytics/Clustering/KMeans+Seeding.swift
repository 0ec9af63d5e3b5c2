import Features
import Foundation

extension KMeans {
    /// Chooses `clusterCount` initial centres by greedy k-means++ (Arthur and Vassilvitskii 2007,
    /// with scikit-learn's 2 + ⌊ln k⌋ candidates per step, keeping the one that lowers the
    /// potential most).
    ///
    /// On more than `sampleSize` rows, seeding runs on a seeded random sample of `sampleSize` rows:
    /// over all rows it would cost more than the iterations themselves.
    ///
    /// - Parameters:
    ///   - data: One point per row, at least `clusterCount` rows.
    ///   - clusterCount: The number of centres.
    ///   - sampleSize: The most rows to seed on.
    ///   - threadCount: The threads that compute the distances to a candidate; the centres do not
    ///     depend on it.
    ///   - generator: The source of randomness.
    /// - Returns: A `clusterCount × d` matrix of rows of `data`.
    /// - Complexity: O(*k* · (2 + ln *k*) · *m* · *d*) for *m* = min(*n*, `sampleSize`).
    public static func seedCentroids(
        _ data: Matrix,
        clusterCount: Int,
        sampleSize: Int = 100_000,
        threadCount: Int = 1,
        using generator: inout some RandomNumberGenerator
    ) -> Matrix {
        precondition(
            clusterCount >= 1 && clusterCount <= data.rowCount,
            "Cannot seed \(clusterCount) centres from \(data.rowCount) rows."
        )
        var rng = SplitMix64(seed: generator.next())
        let d = data.columnCount
        let points = data.rowCount > sampleSize ? sample(data, count: sampleSize, using: &rng) : data
        let n = points.rowCount
        let trialCount = 2 + Int(log(Double(clusterCount)))

        var centres = Matrix(rowCount: clusterCount, columnCount: d)
        var chosen = [rng.next(below: n)]
        var (closest, potential) = Kernels.minimumSquaredDistances(
            points,
            to: points.row(chosen[0]),
            current: nil,
            threadCount: threadCount
        )
        while chosen.count < clusterCount {
            var candidates: [Int] = []
            if potential > 0 {
                var cumulative = [Double](repeating: 0, count: n)
                var running = 0.0
                for i in 0..<n {
                    running += Double(closest[i])
                    cumulative[i] = running
                }
                for _ in 0..<trialCount {
                    let target = rng.nextUnitInterval() * running
                    candidates.append(Swift.min(n - 1, cumulative.partitioningIndex { $0 >= target }))
                }
            } else {
                // Every point coincides with a chosen centre: any point will do.
                candidates = (0..<trialCount).map { _ in rng.next(below: n) }
            }
            var bestCandidate = candidates[0]
            var bestDistances: [Float] = []
            var bestPotential = Double.infinity
            for candidate in candidates {
                let (distances, total) = Kernels.minimumSquaredDistances(
                    points,
                    to: points.row(candidate),
                    current: closest,
                    threadCount: threadCount
                )
                if total < bestPotential {
                    bestPotential = total
                    bestDistances = distances
                    bestCandidate = candidate
                }
            }
            chosen.append(bestCandidate)
            closest = bestDistances
            potential = bestPotential
        }
        for (c, row) in chosen.enumerated() {
            for j in 0..<d { centres.elements[c * d + j] = points.elements[row * d + j] }
        }
        return centres
    }

    /// A seeded random sample of `count` distinct rows, in their original order.
    static func sample(_ data: Matrix, count: Int, using rng: inout SplitMix64) -> Matrix {
        let rows = sampleIndices(from: data.rowCount, count: count, using: &rng)
        let d = data.columnCount
        let elements = [Float](unsafeUninitializedCapacity: rows.count * d) { elements, initializedCount in
            data.elements.withUnsafeBufferPointer { source in
                for (position, row) in rows.enumerated() {
                    (elements.baseAddress! + position * d).initialize(from: source.baseAddress! + row * d, count: d)
                }
            }
            initializedCount = rows.count * d
        }
        return Matrix(rowCount: rows.count, columnCount: d, elements: elements)
    }

    /// `count` distinct indices of `0 ..< population` chosen uniformly (Floyd's algorithm), sorted.
    ///
    /// The chosen indices are marked in a bit set, one bit per index of the population, and read
    /// off it in order: a hundred thousand of a million took milliseconds in a `Set` and its sort.
    static func sampleIndices(from population: Int, count: Int, using rng: inout SplitMix64) -> [Int] {
        guard count < population else { return Array(0..<population) }
        var words = [UInt64](repeating: 0, count: (population + 63) / 64)
        /// Marks `index`; returns whether it was not marked yet.
        func mark(_ index: Int) -> Bool {
            let bit = UInt64(1) << UInt64(index % 64)
            defer { words[index / 64] |= bit }
            return words[index / 64] & bit == 0
        }
        for j in (population - count)..<population {
            let t = rng.next(below: j + 1)
            if !mark(t) { _ = mark(j) }
        }
        var chosen: [Int] = []
        chosen.reserveCapacity(count)
        for (wordIndex, word) in words.enumerated() {
            var remaining = word
            while remaining != 0 {
                chosen.append(wordIndex * 64 + remaining.trailingZeroBitCount)
                remaining &= remaining - 1
            }
        }
        return chosen
    }
}

extension RandomAccessCollection {
    /// The index of the first element for which `belongsInSecondPartition` is true, by binary
    /// search; the collection must be partitioned by it.
    func partitioningIndex(where belongsInSecondPartition: (Element) -> Bool) -> Index {
        var low = startIndex
        var length = count
        while length > 0 {
            let half = length / 2
            let middle = index(low, offsetBy: half)
            if belongsInSecondPartition(self[middle]) {
                length = half
            } else {
                low = index(after: middle)
                length -= half + 1
            }
        }
        return low
    }
}
