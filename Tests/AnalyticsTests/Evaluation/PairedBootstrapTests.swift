import Analytics
import Features
import Numerics
import Testing

struct PairedBootstrapTests {
    /// 400 pairs whose differences are exactly 0.05 ± 0.2, half each way: the mean difference is
    /// 0.05 by construction and its standard error is 0.2 / √400 = 0.01.
    private static let pairs: (a: [Double], b: [Double]) = {
        var generator = SplitMix64(seed: 7)
        var a: [Double] = []
        var b: [Double] = []
        for index in 0..<400 {
            let base = generator.nextUnitInterval()
            b.append(base)
            a.append(base + 0.05 + (index.isMultiple(of: 2) ? 0.2 : -0.2))
        }
        return (a, b)
    }()

    @Test func sameSeedGivesTheSameIntervalBitForBit() {
        let (a, b) = PairedBootstrapTests.pairs
        let first = PairedBootstrap.meanDifference(a, b, seed: 42)
        let second = PairedBootstrap.meanDifference(a, b, seed: 42)
        // Reproducibility is the property under test, so equality is exact here, not approximate.
        #expect(first == second)
        #expect(first.lower.bitPattern == second.lower.bitPattern && first.upper.bitPattern == second.upper.bitPattern)
        let other = PairedBootstrap.meanDifference(a, b, seed: 43)
        #expect(other.lower != first.lower || other.upper != first.upper)
    }

    @Test func intervalContainsTheTrueDifferenceWithTheExpectedWidth() {
        let (a, b) = PairedBootstrapTests.pairs
        let interval = PairedBootstrap.meanDifference(a, b, resampleCount: 2_000, seed: 42)
        #expect(interval.estimate.isApproximatelyEqual(to: 0.05, absoluteTolerance: 1e-12))
        #expect(interval.lower < 0.05 && 0.05 < interval.upper)
        #expect(interval.isAboveZero)
        // A 95 % interval spans about ±1.96 standard errors: 0.0196 each side of 0.05.
        let halfWidth = (interval.upper - interval.lower) / 2
        #expect(halfWidth > 0.016 && halfWidth < 0.024)
        #expect(interval.confidenceLevel == 0.95 && interval.resampleCount == 2_000)
    }

    @Test func coversTheTrueMeanAboutAsOftenAsItsLevel() {
        // 200 samples of 60 pairs whose differences are uniform on −0.5…0.5 plus 0.1: the true
        // mean difference is 0.1. A 90 % interval should miss it about 20 times in 200.
        var generator = SplitMix64(seed: 2024)
        var covered = 0
        for experiment in 0..<200 {
            let b = (0..<60).map { _ in generator.nextUnitInterval() }
            let a = b.map { $0 + 0.1 + generator.nextUnitInterval() - 0.5 }
            let interval = PairedBootstrap.meanDifference(
                a,
                b,
                resampleCount: 400,
                confidenceLevel: 0.9,
                seed: UInt64(experiment)
            )
            if interval.lower <= 0.1 && 0.1 <= interval.upper { covered += 1 }
        }
        #expect((160...196).contains(covered))
    }

    @Test func noPairsGiveAnEmptyInterval() {
        let interval = PairedBootstrap.meanDifference([], [], seed: 1)
        #expect(interval.estimate == 0 && interval.lower == 0 && interval.upper == 0)
        #expect(!interval.isAboveZero && !interval.isBelowZero)
    }

    @Test(arguments: [1, 2, 3])
    func intervalsTakenTogetherAreEachTheIntervalAlone(threadCount: Int) {
        let (a, b) = PairedBootstrapTests.pairs
        var generator = SplitMix64(seed: 11)
        let others = (0..<4).map { _ in a.map { $0 * generator.nextUnitInterval() } }
        let pairs = [(a: a, b: b)] + others.map { (a: $0, b: b) } + [(a: b, b: others[0])]
        let together = PairedBootstrap.meanDifferences(pairs, resampleCount: 300, seed: 5, threadCount: threadCount)
        let alone = pairs.map { PairedBootstrap.meanDifference($0.a, $0.b, resampleCount: 300, seed: 5) }
        // The same figures bit for bit, so equality is exact here.
        #expect(together == alone)
        #expect(zip(together, alone).allSatisfy { $0.lower.bitPattern == $1.lower.bitPattern })
        // Pairs of different lengths each draw their own.
        let mixed = [(a: a, b: b), (a: Array(a.prefix(50)), b: Array(b.prefix(50)))]
        #expect(
            PairedBootstrap.meanDifferences(mixed, seed: 5, threadCount: threadCount)
                == mixed.map { PairedBootstrap.meanDifference($0.a, $0.b, seed: 5) }
        )
    }
}
