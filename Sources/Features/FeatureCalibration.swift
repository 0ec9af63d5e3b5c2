/// A monotone map of one feature from one source's scale onto another's, fitted by isotonic
/// regression.
///
/// Local analysis estimates energy, valence and the rest on its own scale. Where a library holds
/// tracks with both a local estimate and Spotify's value, ``fit(estimates:references:)`` finds the
/// non-decreasing function of the estimate that is closest to Spotify's values in least squares
/// (pool-adjacent-violators), and ``callAsFunction(_:)`` applies it, interpolating linearly between
/// the fitted points and holding the end values beyond them. A monotone map keeps the estimate's
/// order and only moves it onto the user's scale, so it cannot invent a relation that is not there.
public struct FeatureCalibration: Hashable, Sendable, Codable {
    /// The fitted points, by increasing estimate: (estimate, value on the reference scale).
    public var knots: [Knot]

    /// One fitted point.
    public struct Knot: Hashable, Sendable, Codable {
        public var estimate: Double
        public var value: Double

        public init(estimate: Double, value: Double) {
            self.estimate = estimate
            self.value = value
        }
    }

    public init(knots: [Knot]) {
        self.knots = knots
    }

    /// Fits the map from paired values (same length, in any order); `nil` with no pairs.
    ///
    /// - Complexity: O(*n* log *n*).
    public static func fit(estimates: [Double], references: [Double]) -> FeatureCalibration? {
        precondition(estimates.count == references.count, "estimates and references must pair up")
        guard !estimates.isEmpty else { return nil }
        let order = estimates.indices.sorted { (estimates[$0], references[$0]) < (estimates[$1], references[$1]) }
        // Pool adjacent violators: blocks of (sum of x, sum of y, count), merged while their means decrease.
        var blocks: [(x: Double, y: Double, n: Double)] = []
        for index in order {
            blocks.append((estimates[index], references[index], 1))
            while blocks.count > 1 {
                let last = blocks[blocks.count - 1]
                let previous = blocks[blocks.count - 2]
                guard previous.y / previous.n >= last.y / last.n else { break }
                blocks.removeLast(2)
                blocks.append((previous.x + last.x, previous.y + last.y, previous.n + last.n))
            }
        }
        var knots: [Knot] = []
        for block in blocks {
            let knot = Knot(estimate: block.x / block.n, value: block.y / block.n)
            if let last = knots.last, last.estimate == knot.estimate {
                knots[knots.count - 1].value = max(last.value, knot.value)
            } else {
                knots.append(knot)
            }
        }
        return FeatureCalibration(knots: knots)
    }

    /// The calibrated value of `estimate`.
    public func callAsFunction(_ estimate: Double) -> Double {
        guard let first = knots.first, let last = knots.last else { return estimate }
        if estimate <= first.estimate { return first.value }
        if estimate >= last.estimate { return last.value }
        var low = 0
        var high = knots.count - 1
        while high - low > 1 {
            let middle = (low + high) / 2
            if knots[middle].estimate <= estimate { low = middle } else { high = middle }
        }
        let a = knots[low]
        let b = knots[high]
        let t = (estimate - a.estimate) / (b.estimate - a.estimate)
        return a.value + t * (b.value - a.value)
    }
}

// MARK: - Agreement

/// How well one set of values agrees with another: rank correlation and mean absolute error.
public struct FeatureAgreement: Hashable, Sendable, Codable {
    /// Spearman's rank correlation, −1 to 1 (ties share their mean rank).
    public var rankCorrelation: Double
    /// The mean absolute difference, in the feature's unit.
    public var meanAbsoluteError: Double
    /// The number of pairs.
    public var count: Int

    enum CodingKeys: String, CodingKey {
        case rankCorrelation = "rank_correlation"
        case meanAbsoluteError = "mean_absolute_error"
        case count
    }

    /// The agreement of `values` with `references` (same length, at least 2).
    public init(values: [Double], references: [Double]) {
        precondition(values.count == references.count)
        count = values.count
        meanAbsoluteError =
            values.isEmpty ? 0 : zip(values, references).reduce(0) { $0 + abs($1.0 - $1.1) } / Double(values.count)
        rankCorrelation = Self.pearson(Self.ranks(values), Self.ranks(references))
    }

    /// The agreement of calibrated `estimates` with `references`, cross-validated: the pairs are
    /// dealt into `folds` folds by position, and each fold is mapped by a calibration fitted on the
    /// others, so no pair is judged by a map that saw it.
    public static func crossValidated(estimates: [Double], references: [Double], folds: Int = 5) -> FeatureAgreement {
        precondition(estimates.count == references.count)
        var predicted = [Double](repeating: 0, count: estimates.count)
        for fold in 0..<folds {
            let training = estimates.indices.filter { $0 % folds != fold }
            let testing = estimates.indices.filter { $0 % folds == fold }
            guard
                let map = FeatureCalibration.fit(
                    estimates: training.map { estimates[$0] },
                    references: training.map { references[$0] }
                )
            else { continue }
            for index in testing { predicted[index] = map(estimates[index]) }
        }
        return FeatureAgreement(values: predicted, references: references)
    }

    static func ranks(_ values: [Double]) -> [Double] {
        let order = values.indices.sorted { values[$0] < values[$1] }
        var ranks = [Double](repeating: 0, count: values.count)
        var start = 0
        while start < order.count {
            var end = start
            while end + 1 < order.count, values[order[end + 1]] == values[order[start]] { end += 1 }
            let rank = Double(start + end) / 2
            for position in start...end { ranks[order[position]] = rank }
            start = end + 1
        }
        return ranks
    }

    static func pearson(_ a: [Double], _ b: [Double]) -> Double {
        guard a.count >= 2 else { return 0 }
        let meanA = a.reduce(0, +) / Double(a.count)
        let meanB = b.reduce(0, +) / Double(b.count)
        var product = 0.0
        var squaresA = 0.0
        var squaresB = 0.0
        for (x, y) in zip(a, b) {
            product += (x - meanA) * (y - meanB)
            squaresA += (x - meanA) * (x - meanA)
            squaresB += (y - meanB) * (y - meanB)
        }
        let denominator = (squaresA * squaresB).squareRoot()
        return denominator > 0 ? product / denominator : 0
    }
}
