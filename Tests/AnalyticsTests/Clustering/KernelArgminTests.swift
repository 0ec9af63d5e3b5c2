import Features
import Testing

@testable import Analytics

/// The fused kernel's scoring of 8 rows, with centroids taken 8 or 4 at a time and reduced as a
/// tree, against the same scores taken one centroid at a time in a scalar loop.
struct KernelArgminTests {
    /// Per lane: ‖c‖²/2 − x·c for every centroid, summed over features in order, as the kernel does
    /// (with fused multiply-adds on builds for this machine's CPU, as ``Kernels/multiplyAdd(_:_:_:)``).
    static func scalarScores(columns: [SIMD8<Float>], prepared: Kernels.PreparedCentroids, lane: Int) -> [Float] {
        let d = columns.count
        return (0..<prepared.centroids.rowCount).map { c in
            var dot: Float = 0
            for j in 0..<d {
                #if VIBES_HOST_CPU
                dot = dot.addingProduct(columns[j][lane], prepared.centroids[c, j])
                #else
                dot += columns[j][lane] * prepared.centroids[c, j]
                #endif
            }
            return prepared.halfNorms[c] - dot
        }
    }

    /// Centroids with duplicates (exact ties) and rows that repeat a centroid.
    static func makeCase(k: Int, d: Int, seed: UInt64) -> (columns: [SIMD8<Float>], prepared: Kernels.PreparedCentroids)
    {
        var rng = SplitMix64(seed: seed)
        var centroids = Matrix(rowCount: k, columnCount: d)
        for c in 0..<k {
            for j in 0..<d {
                // Every third centroid copies an earlier one, so scores tie exactly.
                centroids[c, j] = c >= 3 && c % 3 == 0 ? centroids[c / 2, j] : Float.random(in: -2...2, using: &rng)
            }
        }
        var columns = [SIMD8<Float>](repeating: .zero, count: d)
        for lane in 0..<8 {
            for j in 0..<d {
                // Lanes 0 and 1 sit on centroids; the others are random.
                columns[j][lane] = lane < 2 ? centroids[(lane * 7) % k, j] : Float.random(in: -3...3, using: &rng)
            }
        }
        return (columns, Kernels.PreparedCentroids(centroids))
    }

    static func score<Argmin: Kernels.EightRowArgmin>(
        _ columns: [SIMD8<Float>],
        _ prepared: Kernels.PreparedCentroids,
        as type: Argmin.Type,
        eightAtATime: Bool
    ) -> Argmin {
        columns.withUnsafeBufferPointer { columns in
            prepared.splatted.withUnsafeBufferPointer { splatted in
                prepared.halfNorms.withUnsafeBufferPointer { halfNorms in
                    Kernels.scoreEightRows(
                        columns.baseAddress!,
                        d: prepared.centroids.columnCount,
                        k: prepared.centroids.rowCount,
                        centroids: splatted.baseAddress!,
                        halfNorms: halfNorms,
                        as: type,
                        eightAtATime: eightAtATime
                    )
                }
            }
        }
    }

    @Test(arguments: [1, 2, 3, 4, 5, 7, 8, 9, 12, 16, 17, 24, 33, 64])
    func groupsFindTheFirstNearestAndTheRunnerUp(k: Int) {
        for (d, seed) in [(12, UInt64(k)), (3, UInt64(100 + k)), (10, UInt64(200 + k))] {
            let (columns, prepared) = Self.makeCase(k: k, d: d, seed: seed)
            for eightAtATime in [true, false] {
                let nearest = Self.score(columns, prepared, as: Kernels.Nearest.self, eightAtATime: eightAtATime)
                let two = Self.score(columns, prepared, as: Kernels.NearestTwo.self, eightAtATime: eightAtATime)
                for lane in 0..<8 {
                    let scores = Self.scalarScores(columns: columns, prepared: prepared, lane: lane)
                    let smallest = scores.min()!
                    // Ties go to the lowest index, as in a loop over centroids in order.
                    let first = scores.firstIndex(of: smallest)!
                    var others = scores
                    others.remove(at: first)
                    let context = "k \(k), d \(d), lane \(lane), eight at a time: \(eightAtATime)"
                    #expect(nearest.index[lane] == Int32(first), "\(context)")
                    #expect(nearest.best[lane] == smallest, "\(context)")
                    #expect(two.index[lane] == Int32(first), "\(context)")
                    #expect(two.best[lane] == smallest, "\(context)")
                    #expect(two.second[lane] == (others.min() ?? .infinity), "\(context)")
                }
            }
        }
    }

    /// The 16-row scoring of full passes on AVX builds: both tiles against the scalar loop, the
    /// first tile from `makeCase` (exact ties, rows on centroids), the second from other rows.
    @Test(arguments: [1, 3, 4, 5, 8, 12, 16, 17, 64])
    func sixteenRowsFindTheFirstNearest(k: Int) {
        for (d, seed) in [(12, UInt64(300 + k)), (10, UInt64(400 + k)), (5, UInt64(500 + k))] {
            let (low, prepared) = Self.makeCase(k: k, d: d, seed: seed)
            var rng = SplitMix64(seed: seed &* 31)
            let high = (0..<d).map { _ in SIMD8<Float>((0..<8).map { _ in Float.random(in: -3...3, using: &rng) }) }
            let scores = (low + high).withUnsafeBufferPointer { tiles in
                prepared.splatted.withUnsafeBufferPointer { splatted in
                    prepared.halfNorms.withUnsafeBufferPointer { halfNorms in
                        Kernels.scoreSixteenRows(
                            tiles.baseAddress!,
                            tiles.baseAddress! + d,
                            d: d,
                            k: k,
                            centroids: splatted.baseAddress!,
                            halfNorms: halfNorms
                        )
                    }
                }
            }
            for (tile, result) in [(low, scores.low), (high, scores.high)] {
                for lane in 0..<8 {
                    let expected = Self.scalarScores(columns: tile, prepared: prepared, lane: lane)
                    let smallest = expected.min()!
                    let context = "k \(k), d \(d), lane \(lane)"
                    #expect(result.index[lane] == Int32(expected.firstIndex(of: smallest)!), "\(context)")
                    #expect(result.best[lane] == smallest, "\(context)")
                }
            }
        }
    }

    @Test func tiesAcrossGroupsGoToTheLowestIndex() {
        // All 20 centroids equal: every score ties, across pairs, groups and the remainder.
        var centroids = Matrix(rowCount: 20, columnCount: 12)
        for c in 0..<20 { for j in 0..<12 { centroids[c, j] = Float(j) / 4 } }
        let prepared = Kernels.PreparedCentroids(centroids)
        let columns = (0..<12).map { j in SIMD8<Float>((0..<8).map { lane in Float(lane + j) / 8 }) }
        for eightAtATime in [true, false] {
            let two = Self.score(columns, prepared, as: Kernels.NearestTwo.self, eightAtATime: eightAtATime)
            #expect(two.index == .zero)
            #expect(two.second == two.best)
        }
    }
}
