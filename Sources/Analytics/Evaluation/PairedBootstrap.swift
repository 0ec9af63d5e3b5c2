import Features

/// A percentile bootstrap confidence interval for the mean difference of paired measurements.
///
/// Each pair is one query measured two ways (the tool and a baseline, say). The interval resamples
/// whole queries with replacement, so it keeps the pairing: whatever makes one query easy for both
/// methods cancels out of the difference. The resamples come from `SplitMix64(seed:)`, so the same
/// seed gives the same interval, bit for bit, on every machine.
///
/// ```swift
/// let interval = PairedBootstrap.meanDifference(toolHitRates, baselineHitRates, seed: 42)
/// print(interval.estimate, interval.lower, interval.upper)
/// ```
public struct PairedBootstrap: Hashable, Sendable, Codable {
    /// The mean of `a − b` over all pairs.
    public var estimate: Double
    /// The lower end of the interval.
    public var lower: Double
    /// The upper end of the interval.
    public var upper: Double
    /// The confidence level, such as 0.95.
    public var confidenceLevel: Double
    /// The number of resamples.
    public var resampleCount: Int

    enum CodingKeys: String, CodingKey {
        case estimate, lower, upper
        case confidenceLevel = "confidence_level"
        case resampleCount = "resample_count"
    }

    /// Whether the whole interval lies above zero: `a` is better than `b` at this confidence.
    public var isAboveZero: Bool { lower > 0 }

    /// Whether the whole interval lies below zero.
    public var isBelowZero: Bool { upper < 0 }

    /// The bootstrap interval of the mean of `a[i] − b[i]`.
    ///
    /// Each resample draws `a.count` pair indices uniformly with replacement and takes the mean
    /// difference; the interval runs between the (1 − level)/2 and (1 + level)/2 quantiles of the
    /// resampled means, interpolated linearly between order statistics (the default of R's
    /// `quantile` and NumPy's `percentile`).
    ///
    /// - Parameters:
    ///   - a: One measurement per pair, such as the tool's hit rate per query.
    ///   - b: The other measurement of each pair; as many as `a`.
    ///   - resampleCount: The number of resamples; 1,000 by default, at least 1.
    ///   - confidenceLevel: The coverage, strictly between 0 and 1; 0.95 by default.
    ///   - seed: The seed of the resampling.
    /// - Returns: The estimate and interval; all three are 0 without pairs.
    /// - Complexity: O(*B* · *n* + *B* log *B*) for *B* resamples of *n* pairs.
    public static func meanDifference(
        _ a: [Double],
        _ b: [Double],
        resampleCount: Int = 1_000,
        confidenceLevel: Double = 0.95,
        seed: UInt64
    ) -> PairedBootstrap {
        precondition(
            a.count == b.count,
            "Paired measurements need as many values on each side (\(a.count), \(b.count))."
        )
        precondition(resampleCount >= 1, "At least one resample is needed.")
        precondition(confidenceLevel > 0 && confidenceLevel < 1, "The confidence level must lie in (0, 1).")
        let differences = zip(a, b).map { $0 - $1 }
        let n = differences.count
        guard n > 0 else {
            return PairedBootstrap(
                estimate: 0,
                lower: 0,
                upper: 0,
                confidenceLevel: confidenceLevel,
                resampleCount: resampleCount
            )
        }
        var generator = SplitMix64(seed: seed)
        var means: [Double] = []
        means.reserveCapacity(resampleCount)
        for _ in 0..<resampleCount {
            var sum = 0.0
            for _ in 0..<n { sum += differences[generator.next(below: n)] }
            means.append(sum / Double(n))
        }
        means.sort()
        return PairedBootstrap(
            estimate: differences.reduce(0, +) / Double(n),
            lower: quantile(means, (1 - confidenceLevel) / 2),
            upper: quantile(means, (1 + confidenceLevel) / 2),
            confidenceLevel: confidenceLevel,
            resampleCount: resampleCount
        )
    }

    /// ``meanDifference(_:_:resampleCount:confidenceLevel:seed:)`` of every pair of `pairs`, with
    /// the figures that each would get alone, bit for bit.
    ///
    /// With one seed, pairs of the same length draw the same resamples, so they share the draws:
    /// each resample's indices are drawn once for all of them, and each pair's sum runs in the
    /// same order as alone. The pairs are shared out over `threadCount` threads, each drawing the
    /// sequence for its own.
    ///
    /// - Parameters:
    ///   - pairs: The measurements, each as `a` and `b` of the same length.
    ///   - resampleCount: The number of resamples; 1,000 by default, at least 1.
    ///   - confidenceLevel: The coverage, strictly between 0 and 1; 0.95 by default.
    ///   - seed: The seed of the resampling.
    ///   - threadCount: The most threads to use.
    /// - Returns: One interval per pair, in order.
    /// - Complexity: O(*B* · *n* · *p* / threads + *p* · *B* log *B*) for *p* pairs of *n* values.
    public static func meanDifferences(
        _ pairs: [(a: [Double], b: [Double])],
        resampleCount: Int = 1_000,
        confidenceLevel: Double = 0.95,
        seed: UInt64,
        threadCount: Int = Parallelism.defaultThreadCount
    ) -> [PairedBootstrap] {
        let n = pairs.first?.a.count ?? 0
        guard n > 0, pairs.allSatisfy({ $0.a.count == n && $0.b.count == n }) else {
            return pairs.map {
                meanDifference($0.a, $0.b, resampleCount: resampleCount, confidenceLevel: confidenceLevel, seed: seed)
            }
        }
        precondition(resampleCount >= 1, "At least one resample is needed.")
        precondition(confidenceLevel > 0 && confidenceLevel < 1, "The confidence level must lie in (0, 1).")
        let groups = KMeans.blocks(of: pairs.count, parts: threadCount)
        return Kernels.parallelChunks(groups, threadCount: threadCount) { group -> [PairedBootstrap] in
            let width = group.count
            // The differences of the group's pairs, draw by draw: value i of pair j at i · width + j.
            var differences = [Double](repeating: 0, count: n * width)
            for (column, pair) in pairs[group].enumerated() {
                for index in 0..<n { differences[index * width + column] = pair.a[index] - pair.b[index] }
            }
            var generator = SplitMix64(seed: seed)
            var means = [[Double]](repeating: [], count: width)
            for column in 0..<width { means[column].reserveCapacity(resampleCount) }
            var sums = [Double](repeating: 0, count: width)
            for _ in 0..<resampleCount {
                for column in 0..<width { sums[column] = 0 }
                for _ in 0..<n {
                    let start = generator.next(below: n) * width
                    for column in 0..<width { sums[column] += differences[start + column] }
                }
                for column in 0..<width { means[column].append(sums[column] / Double(n)) }
            }
            return (0..<width).map { column in
                means[column].sort()
                let own = (0..<n).map { differences[$0 * width + column] }
                return PairedBootstrap(
                    estimate: own.reduce(0, +) / Double(n),
                    lower: quantile(means[column], (1 - confidenceLevel) / 2),
                    upper: quantile(means[column], (1 + confidenceLevel) / 2),
                    confidenceLevel: confidenceLevel,
                    resampleCount: resampleCount
                )
            }
        }.flatMap { $0 }
    }

    /// The `p` quantile of ascending `sorted`, interpolated linearly between order statistics.
    static func quantile(_ sorted: [Double], _ p: Double) -> Double {
        let position = p * Double(sorted.count - 1)
        let below = Int(position.rounded(.down))
        let above = Swift.min(below + 1, sorted.count - 1)
        let fraction = position - Double(below)
        return sorted[below] + fraction * (sorted[above] - sorted[below])
    }
}
