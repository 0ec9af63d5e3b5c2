import Foundation

/// A monotone map from a feature's values to the normal scores of their ranks in a library, fitted
/// once and then applied to any value by interpolation.
///
/// Fitting sorts the library's values and gives each distinct value the normal score of its rank,
/// Φ⁻¹((*r* − ½) / *n*), where tied values share their average rank *r*. At most ``maximumKnotCount``
/// of those (value, score) pairs are kept as knots, evenly spaced in rank and always including the
/// smallest and largest value. A value between two knots takes the linearly interpolated score; a
/// value outside the library's range takes the score of the nearest end, so that a target beyond
/// every track is placed at the edge of the library rather than beyond it. The inverse,
/// ``value(ofScore:)``, maps a score back to original units the same way.
///
/// ```swift
/// let table = NormalScoreTable(fitting: [0.1, 0.2, 0.3, 0.4, 0.5])
/// table.score(of: 0.3)  // 0
/// table.score(of: 0.5)  // Φ⁻¹(0.9) ≈ 1.2816
/// ```
///
/// The same values give the same table bit for bit, whatever their order.
public struct NormalScoreTable: Hashable, Sendable, Codable {
    /// The most knots a fitted table keeps.
    public static let maximumKnotCount = 256

    /// The knot values, strictly increasing.
    public private(set) var values: [Double]
    /// The normal score of each knot value, strictly increasing.
    public private(set) var scores: [Double]

    /// Creates a table from knots given directly.
    ///
    /// - Parameters:
    ///   - values: Strictly increasing values.
    ///   - scores: Their scores, strictly increasing, one per value.
    public init(values: [Double], scores: [Double]) {
        precondition(values.count == scores.count, "Every knot needs one value and one score.")
        precondition(zip(values, values.dropFirst()).allSatisfy(<), "Knot values must increase.")
        precondition(zip(scores, scores.dropFirst()).allSatisfy(<), "Knot scores must increase.")
        self.values = values
        self.scores = scores
    }

    /// Fits the table on a library's values.
    ///
    /// - Parameters:
    ///   - libraryValues: The values of every track; `NaN` entries are ignored.
    ///   - maximumKnotCount: The most knots to keep, at least 2.
    /// - Complexity: O(*n* log *n*) for *n* values.
    public init(fitting libraryValues: some Sequence<Double>, maximumKnotCount: Int = Self.maximumKnotCount) {
        self.init(sortedValues: libraryValues.filter { !$0.isNaN }.sorted(), maximumKnotCount: maximumKnotCount)
    }

    /// Fits the table to stored `Float` values (NaN for missing), as a feature table holds them:
    /// the same table as ``init(fitting:maximumKnotCount:)`` on the values as `Double`s, with the
    /// sort done by radix on the floats' bits. On a million rows that is about a tenth of the
    /// time of a comparison sort, and a scaled matrix sorts one column per normal-scored feature.
    public init(fittingStored libraryValues: [Float], maximumKnotCount: Int = Self.maximumKnotCount) {
        self.init(
            sortedValues: Self.radixSorted(libraryValues).map(Double.init),
            maximumKnotCount: maximumKnotCount
        )
    }

    /// The values other than NaN in ascending order, −0 as 0: a least-significant-digit radix
    /// sort of their bits, turned so that unsigned order is numeric order.
    static func radixSorted(_ values: [Float]) -> [Float] {
        var keys: [UInt32] = []
        keys.reserveCapacity(values.count)
        for value in values where !value.isNaN {
            let bits = (value == 0 ? Float(0) : value).bitPattern
            keys.append(bits & 0x8000_0000 != 0 ? ~bits : bits | 0x8000_0000)
        }
        var buffer = [UInt32](repeating: 0, count: keys.count)
        var counts = [Int](repeating: 0, count: 256)
        for shift in stride(from: UInt32(0), to: 32, by: 8) {
            for index in counts.indices { counts[index] = 0 }
            for key in keys { counts[Int((key >> shift) & 0xFF)] += 1 }
            // A digit all keys share leaves the order as it is.
            if counts.contains(keys.count) { continue }
            var total = 0
            for index in counts.indices {
                let count = counts[index]
                counts[index] = total
                total += count
            }
            for key in keys {
                let digit = Int((key >> shift) & 0xFF)
                buffer[counts[digit]] = key
                counts[digit] += 1
            }
            swap(&keys, &buffer)
        }
        return keys.map { key in Float(bitPattern: key & 0x8000_0000 != 0 ? key & 0x7FFF_FFFF : ~key) }
    }

    /// Fits the table to values already sorted, without NaN.
    private init(sortedValues sorted: [Double], maximumKnotCount: Int) {
        precondition(maximumKnotCount >= 2, "A table needs room for at least its two ends.")
        let n = sorted.count
        // The distinct values, each with the index of its first occurrence in `sorted`.
        var starts: [Int] = []
        for index in sorted.indices where index == 0 || sorted[index] != sorted[index - 1] {
            starts.append(index)
        }
        func knot(group: Int) -> (value: Double, score: Double) {
            let start = starts[group]
            let end = group + 1 < starts.count ? starts[group + 1] : n
            // 1-based ranks start + 1 … end share their average.
            let averageRank = Double(start + 1 + end) / 2
            return (sorted[start], NormalScoreTable.inverseNormal((averageRank - 0.5) / Double(n)))
        }
        var groups: [Int]
        if starts.count <= maximumKnotCount {
            groups = Array(starts.indices)
        } else {
            // The groups holding evenly spaced ranks, so knots are dense where tracks are.
            groups = []
            let last = maximumKnotCount - 1
            for step in 0...last {
                let position = Int((Double(step) * Double(n - 1) / Double(last)).rounded())
                var low = 0
                var high = starts.count - 1
                while low < high {
                    let middle = (low + high + 1) / 2
                    if starts[middle] <= position { low = middle } else { high = middle - 1 }
                }
                if groups.last != low { groups.append(low) }
            }
        }
        let knots = groups.map(knot(group:))
        values = knots.map(\.value)
        scores = knots.map(\.score)
    }

    /// The number of knots.
    public var knotCount: Int { values.count }

    /// The normal score of `value`: interpolated between knots, the end knot's score outside them,
    /// 0 for an empty table and `NaN` for `NaN`.
    public func score(of value: Double) -> Double {
        Self.interpolate(value, from: values, to: scores, empty: 0)
    }

    /// The value whose normal score is `score`: the inverse of ``score(of:)`` within the knots, the
    /// end knot's value outside them; `NaN` for a `NaN` score.
    ///
    /// An empty table (a feature no track of the library has, filled in for all of them) gives 0,
    /// as a z-scored column without values does.
    public func value(ofScore score: Double) -> Double {
        Self.interpolate(score, from: scores, to: values, empty: 0)
    }

    private static func interpolate(_ x: Double, from xs: [Double], to ys: [Double], empty: Double) -> Double {
        guard !x.isNaN else { return .nan }
        guard let first = xs.first, let last = xs.last else { return empty }
        if x <= first { return ys[0] }
        if x >= last { return ys[ys.count - 1] }
        // The last knot at or below x (the one answer, as the knots increase); x lies before the
        // final knot, so the next one is in range. Halving without a branch on the comparison, on
        // the buffer: scaling a million rows spent a tenth of a `recommend` in the search with
        // bounds checks and a branch the comparisons cannot predict.
        return xs.withUnsafeBufferPointer { xs in
            ys.withUnsafeBufferPointer { ys in
                var low = 0
                var length = xs.count
                while length > 1 {
                    let half = length / 2
                    low = xs[low + half] <= x ? low + half : low
                    length -= half
                }
                let high = low + 1
                let fraction = (x - xs[low]) / (xs[high] - xs[low])
                return ys[low] + fraction * (ys[high] - ys[low])
            }
        }
    }
}

extension NormalScoreTable {
    /// ``score(of:)`` for many values: a grid over the knots' range says where each value's
    /// search starts and ends, so most values need one or two comparisons instead of eight.
    ///
    /// Scaling a million tracks calls ``score(of:)`` twelve million times; its eight dependent
    /// loads per call were about 16 % of a `recommend` on a million tracks. The scorer gives the
    /// same bits as ``score(of:)`` (the grid only narrows the search, and a value the grid's
    /// rounding places in the wrong cell is searched in full).
    public struct Scorer: Sendable {
        private let table: NormalScoreTable
        /// For grid line *g* (at `first + g / scale`), the last knot at or below it.
        private let starts: [Int32]
        private let first: Double
        private let scale: Double

        /// The number of grid cells per knot.
        static let cellsPerKnot = 4

        public init(_ table: NormalScoreTable) {
            self.table = table
            let xs = table.values
            guard let first = xs.first, let last = xs.last, last > first else {
                (starts, self.first, scale) = ([], 0, 0)
                return
            }
            let cells = xs.count * Self.cellsPerKnot
            self.first = first
            scale = Double(cells) / (last - first)
            var starts = [Int32](repeating: 0, count: cells + 1)
            var knot = 0
            for line in 0...cells {
                let edge = first + Double(line) / scale
                while knot + 1 < xs.count && xs[knot + 1] <= edge { knot += 1 }
                starts[line] = Int32(knot)
            }
            self.starts = starts
        }

        /// The normal score of `value`, bit for bit ``NormalScoreTable/score(of:)``.
        @inline(__always)
        public func score(of value: Double) -> Double {
            let xs = table.values
            guard !value.isNaN, !starts.isEmpty, value > xs[0], value < xs[xs.count - 1] else {
                return table.score(of: value)
            }
            let cell = Swift.min(Int((value - first) * scale), starts.count - 2)
            var low = Int(starts[cell])
            let high = Int(starts[cell + 1]) + 1
            // The cell's rounding can be off by one at its edges: then search in full.
            guard xs[low] <= value, high >= xs.count - 1 || xs[high] > value else { return table.score(of: value) }
            return xs.withUnsafeBufferPointer { xs in
                var length = high - low
                while length > 1 {
                    let half = length / 2
                    low = xs[low + half] <= value ? low + half : low
                    length -= half
                }
                let ys = table.scores
                let fraction = (value - xs[low]) / (xs[low + 1] - xs[low])
                return ys[low] + fraction * (ys[low + 1] - ys[low])
            }
        }
    }
}

// MARK: - The standard normal quantile

extension NormalScoreTable {
    /// Φ⁻¹(`p`), the standard normal quantile of a probability in (0, 1).
    ///
    /// Acklam's rational approximation (relative error below 1.2 × 10⁻⁹), refined by one step of
    /// Halley's method on `erfc`, which brings it to about machine precision.
    public static func inverseNormal(_ p: Double) -> Double {
        precondition(p > 0 && p < 1, "A normal quantile needs a probability strictly between 0 and 1 (got \(p)).")
        let a = [
            -3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02, 1.383577518672690e+02,
            -3.066479806614716e+01, 2.506628277459239e+00,
        ]
        let b = [
            -5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01,
            -1.328068155288572e+01,
        ]
        let c = [
            -7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00, -2.549732539343734e+00,
            4.374664141464968e+00, 2.938163982698783e+00,
        ]
        let d = [7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00]
        let lowTail = 0.02425
        var x: Double
        if p < lowTail {
            let q = (-2 * log(p)).squareRoot()
            x =
                (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
                / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
        } else if p <= 1 - lowTail {
            let q = p - 0.5
            let r = q * q
            x =
                (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q
                / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
        } else {
            let q = (-2 * log(1 - p)).squareRoot()
            x =
                -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
                / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
        }
        let error = 0.5 * erfc(-x / 2.0.squareRoot()) - p
        let step = error * (2 * Double.pi).squareRoot() * exp(x * x / 2)
        x -= step / (1 + x * step / 2)
        return x
    }
}
