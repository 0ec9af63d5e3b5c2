import Features
import Synchronization
import Testing

@testable import Analytics

/// How the parallel passes share out rows, and the squared distances they compute.
struct KernelPassTests {
    @Test(arguments: [1, 2, 3, 5])
    func everyChunkRunsExactlyOnce(threads: Int) {
        let visits = Mutex([Int](repeating: 0, count: 37))
        Kernels.forEachChunk(count: 37, threadCount: threads) { chunk in
            visits.withLock { $0[chunk] += 1 }
        }
        #expect(visits.withLock { $0 } == [Int](repeating: 1, count: 37))
    }

    @Test func passChunksCoverTheRowsInOrder() {
        for (rows, threads) in [(1, 2), (7, 2), (20_000, 2), (1_000_000, 2), (1_000_000, 1), (100_000, 3)] {
            let chunks = Kernels.passChunks(rows: rows, threadCount: threads)
            #expect(chunks.first?.lowerBound == 0)
            #expect(chunks.last?.upperBound == rows)
            #expect(zip(chunks, chunks.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
            #expect(chunks.allSatisfy { !$0.isEmpty })
            // One thread: one chunk. Otherwise at least one per thread (rows allowing), at most 8
            // per thread, and none under 8,192 rows unless that is what one per thread takes.
            if threads == 1 {
                #expect(chunks.count == 1)
            } else {
                #expect(chunks.count >= min(threads, rows))
                #expect(chunks.count <= 8 * threads)
                #expect(chunks.count <= min(threads, rows) || chunks.allSatisfy { $0.count >= 8_192 })
            }
        }
    }

    @Test func squaredDistancesEqualAScalarLoopBitForBit() {
        // 1,003 rows: 125 groups of 8 and 3 left over; d = 5, so no column tile is a multiple of 4.
        var rng = SplitMix64(seed: 9)
        let data = Matrix(
            rowCount: 1_003,
            columnCount: 5,
            elements: (0..<5_015).map { _ in Float.random(in: -4...4, using: &rng) }
        )
        let centroids = Matrix(
            rowCount: 6,
            columnCount: 5,
            elements: (0..<30).map { _ in Float.random(in: -2...2, using: &rng) }
        )
        let labels = (0..<1_003).map { _ in Int32.random(in: 0..<6, using: &rng) }
        var expected = [Float](repeating: 0, count: 1_003)
        var expectedTotal = 0.0
        for i in 0..<1_003 {
            var sum: Float = 0
            for j in 0..<5 {
                let difference = data[i, j] - centroids[Int(labels[i]), j]
                sum += difference * difference
            }
            expected[i] = sum
            expectedTotal += Double(sum)
        }
        for threads in [1, 2] {
            var result = [Float](repeating: -1, count: 1_003)
            let total = Kernels.squaredDistances(
                data,
                labels: labels,
                centroids: centroids,
                threadCount: threads,
                into: &result
            )
            #expect(result == expected)
            #expect(total == expectedTotal)
        }
    }

    /// k-means++'s distances to a candidate: each row's minimum, and their sum added in `Float`
    /// over runs of 1,024 rows and each run into `Double`, in row order, on any thread count.
    @Test(arguments: [1, 2, 3, 7])
    func seedingDistancesEqualAScalarLoopBitForBit(threads: Int) {
        // 20,500 rows: 20 whole runs and one of 20 rows; d = 3.
        let (n, d) = (20_500, 3)
        var rng = SplitMix64(seed: 31)
        let data = Matrix(
            rowCount: n,
            columnCount: d,
            elements: (0..<(n * d)).map { _ in Float.random(in: -4...4, using: &rng) }
        )
        let point = data.row(17)
        let current = (0..<n).map { _ in Float.random(in: 0...30, using: &rng) }
        var expected = [Float](repeating: 0, count: n)
        var expectedTotal = 0.0
        var run: Float = 0
        for i in 0..<n {
            var sum: Float = 0
            for j in 0..<d {
                let difference = data[i, j] - point[point.startIndex + j]
                sum += difference * difference
            }
            expected[i] = Swift.min(sum, current[i])
            run += expected[i]
            if i % 1024 == 1023 || i == n - 1 {
                expectedTotal += Double(run)
                run = 0
            }
        }
        let result = Kernels.minimumSquaredDistances(data, to: point, current: current, threadCount: threads)
        #expect(result.distances == expected)
        #expect(result.total.bitPattern == expectedTotal.bitPattern)
        let first = Kernels.minimumSquaredDistances(data, to: point, current: nil, threadCount: threads)
        #expect(first.distances[17] == 0)
    }
}
