import Foundation
import Numerics
import Testing

@testable import Features

struct NormalScoreTableTests {
    // Standard normal quantiles from printed tables: Φ⁻¹(0.9), Φ⁻¹(0.7), Φ⁻¹(0.875), Φ⁻¹(0.975).
    static let z90 = 1.2815515655446004
    static let z70 = 0.5244005127080407
    static let z875 = 1.1503493803760079
    static let z975 = 1.959963984540054

    @Test func quantilesMatchTheNormalTable() {
        #expect(NormalScoreTable.inverseNormal(0.5) == 0)
        #expect(NormalScoreTable.inverseNormal(0.975).isApproximatelyEqual(to: Self.z975, absoluteTolerance: 1e-12))
        #expect(NormalScoreTable.inverseNormal(0.025).isApproximatelyEqual(to: -Self.z975, absoluteTolerance: 1e-12))
        // The lower tail branch: Φ⁻¹(0.001) = −3.090232306167813.
        #expect(
            NormalScoreTable.inverseNormal(0.001).isApproximatelyEqual(to: -3.090232306167813, absoluteTolerance: 1e-12)
        )
    }

    @Test func fiveValuesTakeTheNormalScoresOfTheirRanks() {
        // Ranks 1…5 of 5 sit at probabilities 0.1, 0.3, 0.5, 0.7 and 0.9.
        let table = NormalScoreTable(fitting: [0.5, 0.1, 0.3, 0.2, 0.4])
        #expect(table.values == [0.1, 0.2, 0.3, 0.4, 0.5])
        let expected = [-Self.z90, -Self.z70, 0, Self.z70, Self.z90]
        for (score, want) in zip(table.scores, expected) {
            #expect(score.isApproximatelyEqual(to: want, absoluteTolerance: 1e-12))
        }
        #expect(table.score(of: 0.3) == 0)
    }

    @Test func tiedValuesShareTheirAverageRank() {
        // Ranks 1, 2.5, 2.5, 4 of 4: probabilities 0.125, 0.5, 0.875.
        let table = NormalScoreTable(fitting: [2, 3, 2, 1])
        #expect(table.values == [1, 2, 3])
        #expect(table.scores[0].isApproximatelyEqual(to: -Self.z875, absoluteTolerance: 1e-12))
        #expect(table.scores[1] == 0)
        #expect(table.scores[2].isApproximatelyEqual(to: Self.z875, absoluteTolerance: 1e-12))
    }

    @Test func valuesBetweenKnotsAreInterpolatedAndOutsideThemClamped() {
        let table = NormalScoreTable(fitting: [0.1, 0.2, 0.3, 0.4, 0.5])
        #expect(table.score(of: 0.25).isApproximatelyEqual(to: -Self.z70 / 2, absoluteTolerance: 1e-12))
        // A target beyond every track sits at the library's edge, not beyond it.
        #expect(table.score(of: 0.8) == table.scores.last)
        #expect(table.score(of: -3) == table.scores.first)
        #expect(table.value(ofScore: 5) == 0.5)
        #expect(table.value(ofScore: -5) == 0.1)
        #expect(table.score(of: .nan).isNaN)
    }

    /// Values shaped like instrumentalness: a third exactly 0, the rest spread over four decades.
    private func skewedValues(count: Int) -> [Double] {
        (0..<count).map { index -> Double in
            guard index % 3 != 0 else { return 0 }
            let exponent: Double = -4 + 4 * Double((index * 7919) % count) / Double(count)
            return pow(10, exponent)
        }
    }

    @Test func theScorerGivesTheTablesBitsOnSkewedAndTiedLibraries() {
        var generator = SplitMix64(seed: 11)
        // Most values near 0 with a long tail (instrumentalness), many ties (key), one value.
        let libraries: [[Double]] = [
            (0..<20_000).map { _ in pow(Double(generator.next() % 1_000_000) / 1e6, 8) },
            (0..<5_000).map { _ in Double(generator.next() % 12) },
            [0.5, 0.5, 0.5],
            [],
        ]
        for library in libraries {
            let table = NormalScoreTable(fitting: library)
            let scorer = NormalScoreTable.Scorer(table)
            let probes =
                library + table.values + (0..<5_000).map { _ in Double(generator.next() % 1_300_000) / 1e6 - 0.1 }
                + [.nan, -.infinity, .infinity, 0, -0.0]
            for x in probes {
                #expect(scorer.score(of: x).bitPattern == table.score(of: x).bitPattern, "x = \(x)")
            }
        }
    }

    @Test(arguments: [2, 3, 17, 256])
    func theSearchFindsTheKnotALinearScanFinds(knotCount: Int) {
        var generator = SplitMix64(seed: UInt64(knotCount))
        let library = (0..<5_000).map { _ in Double(generator.next() % 100_000) / 997 }
        let table = NormalScoreTable(fitting: library, maximumKnotCount: knotCount)
        let scorer = NormalScoreTable.Scorer(table)
        let xs = table.values
        let probes =
            xs + zip(xs, xs.dropFirst()).map { ($0 + $1) / 2 } + [xs[0] - 1, xs[xs.count - 1] + 1]
            + (0..<2_000).map { _ in Double(generator.next() % 110_000) / 997 - 5 }
        for x in probes {
            let expected: Double
            if x <= xs[0] {
                expected = table.scores[0]
            } else if x >= xs[xs.count - 1] {
                expected = table.scores[xs.count - 1]
            } else {
                let low = xs.lastIndex { $0 <= x }!
                let fraction = (x - xs[low]) / (xs[low + 1] - xs[low])
                expected = table.scores[low] + fraction * (table.scores[low + 1] - table.scores[low])
            }
            #expect(table.score(of: x).bitPattern == expected.bitPattern, "x = \(x), \(knotCount) knots")
            #expect(scorer.score(of: x).bitPattern == expected.bitPattern, "scorer, x = \(x), \(knotCount) knots")
        }
    }

    @Test func aLargeLibraryKeepsAtMost256MonotoneKnotsSpanningItsRange() {
        let values = skewedValues(count: 5000)
        let table = NormalScoreTable(fitting: values)
        #expect(table.knotCount <= NormalScoreTable.maximumKnotCount)
        // The zeros, a third of the ranks, share one knot.
        #expect(table.knotCount > 150)
        #expect(table.values.first == values.min())
        #expect(table.values.last == values.max())
        // That knot has the normal score of their average rank.
        let zeros = Double(values.count { $0 == 0 })
        let zeroScore = NormalScoreTable.inverseNormal(((1 + zeros) / 2 - 0.5) / 5000)
        #expect(table.scores[0] == zeroScore)
        var previous = -Double.infinity
        for step in 0...1000 {
            let score = table.score(of: Double(step) / 1000)
            #expect(score >= previous)
            previous = score
        }
    }

    @Test func scoresMapBackToTheirValues() {
        let table = NormalScoreTable(fitting: skewedValues(count: 5000))
        for (value, score) in zip(table.values, table.scores) {
            #expect(table.score(of: value) == score)
            #expect(table.value(ofScore: score) == value)
        }
        for value in [0.0005, 0.01, 0.3, 0.77] {
            #expect(
                table.value(ofScore: table.score(of: value)).isApproximatelyEqual(to: value, relativeTolerance: 1e-9)
            )
        }
    }

    @Test func theSameLibraryGivesTheSameTableInAnyOrder() {
        let values = skewedValues(count: 3000)
        #expect(NormalScoreTable(fitting: values) == NormalScoreTable(fitting: values.reversed()))
    }

    @Test func degenerateLibraries() {
        let empty = NormalScoreTable(fitting: [Double]())
        #expect(empty.score(of: 0.4) == 0)
        // Every value maps to 0 and back, so a centroid still has a finite value to report.
        #expect(empty.value(ofScore: 0.3) == 0)
        let constant = NormalScoreTable(fitting: [0.2, 0.2, .nan, 0.2])
        #expect(constant.values == [0.2])
        #expect(constant.score(of: 0.9) == 0)
        #expect(constant.value(ofScore: 1) == 0.2)
    }

    /// The radix fit of stored floats is the comparison-sort fit of the same values as doubles:
    /// negatives, both zeros, NaN, ties, and more distinct values than knots.
    @Test(arguments: [0, 1, 2, 7, 300, 20_000])
    func radixFitOfStoredFloatsIsThePlainFit(count: Int) {
        var random = SplitMix64(seed: UInt64(count) + 1)
        var stored: [Float] = (0..<count).map { index in
            switch index % 7 {
            case 0: Float(random.next(below: 12))  // few distinct, many ties
            case 1: -Float(random.nextUnitInterval() * 60)
            case 2: .nan
            default: Float(random.nextUnitInterval() * 250)
            }
        }
        if count > 2 { stored[1] = -0.0 }
        if count > 3 { stored[2] = 0 }
        let plain = NormalScoreTable(fitting: stored.map(Double.init))
        #expect(NormalScoreTable(fittingStored: stored) == plain)
        let sorted = NormalScoreTable.radixSorted(stored)
        #expect(sorted == stored.filter { !$0.isNaN }.map { $0 == 0 ? 0 : $0 }.sorted())
        #expect(sorted.allSatisfy { $0 != 0 || $0.sign == .plus })
    }
}
