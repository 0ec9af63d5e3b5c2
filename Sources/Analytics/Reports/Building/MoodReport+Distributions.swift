import Features
import Foundation

extension MoodReport {
    /// The features shown as histograms, in display order.
    static let histogramFeatures: [AudioFeature] = [
        .danceability, .energy, .valence, .acousticness, .instrumentalness, .speechiness, .liveness, .loudness,
        .tempo, .key, .mode,
    ]

    /// A stored `Float` as the decimal it was written as: `Float(0.9)` becomes `0.9`, not
    /// `0.899999976`, so that a value on a bin edge falls in the bin it names.
    ///
    /// That decimal is the one `value.description` prints: the fewest digits that read back as
    /// `value`. Printing and parsing took most of a report's time on a million tracks, so the
    /// digits are searched here by arithmetic: for 0, 1, 2, … decimals, the nearest multiple of
    /// 10⁻ᵏ, which an exact integer divided by an exact power of ten gives correctly rounded. A
    /// value that needs more than 9 decimals, or is too large for that, is printed and parsed.
    static func decimal(_ value: Float) -> Double {
        let double = Double(value)
        if value.isFinite, abs(double) < 1e6 {
            var scale = 1.0
            for _ in 0...9 {
                // Halfway between two candidates, the even last digit, as `description` chooses.
                let candidate = (double * scale).rounded(.toNearestOrEven) / scale
                if Float(candidate) == value { return candidate + 0 }  // + 0 turns −0 into 0
                scale *= 10
            }
        }
        return Double(value.description) ?? double
    }

    /// The histogram of every feature of ``histogramFeatures``, on two threads: each feature on
    /// its own, so the result does not depend on the threads.
    static func distributions(of table: FeatureTable) -> [FeatureDistribution] {
        let chunks = histogramFeatures.indices.map { $0..<($0 + 1) }
        let threadCount = table.rowCount >= 50_000 ? Parallelism.defaultThreadCount : 1
        return Kernels.parallelChunks(chunks, threadCount: threadCount) { chunk in
            let feature = histogramFeatures[chunk.lowerBound]
            var values: [Float] = []
            values.reserveCapacity(table.rowCount)
            let column = FeatureTable.columnIndex(of: feature)
            table.values.withUnsafeBufferPointer { buffer in
                var index = column
                while index < buffer.count {
                    if !buffer[index].isNaN { values.append(buffer[index]) }
                    index += FeatureTable.columnCount
                }
            }
            return distribution(of: feature, values: values, rowCount: table.rowCount)
        }
    }

    /// The `k`-th smallest of `values` (0-based), reordering them: a quickselect that splits three
    /// ways, so that a column of few distinct values (mode, key) stays linear.
    static func select<Value: Comparable>(_ k: Int, in values: inout [Value]) -> Value {
        precondition(values.indices.contains(k), "select needs an index inside the values")
        var low = 0
        var high = values.count - 1
        while low < high {
            let pivot = Swift.max(
                Swift.min(values[low], values[high]),
                Swift.min(Swift.max(values[low], values[high]), values[(low + high) / 2])
            )
            // [low, less) < pivot, [less, index) == pivot, (greater, high] > pivot.
            var less = low
            var index = low
            var greater = high
            while index <= greater {
                if values[index] < pivot {
                    values.swapAt(index, less)
                    less += 1
                    index += 1
                } else if values[index] > pivot {
                    values.swapAt(index, greater)
                    greater -= 1
                } else {
                    index += 1
                }
            }
            if k < less {
                high = less - 1
            } else if k > greater {
                low = greater + 1
            } else {
                return pivot
            }
        }
        return values[k]
    }

    /// The histogram of one feature's values; see ``FeatureDistribution`` for the bins.
    ///
    /// The values stay stored `Float`s: ``decimal(_:)`` rises with its argument, so the minimum,
    /// maximum and median are those of the floats, read as decimals, and only the mean and the
    /// bins read every value as its decimal.
    static func distribution(of feature: AudioFeature, values: [Float], rowCount: Int) -> FeatureDistribution {
        var result = FeatureDistribution(
            feature: feature.rawValue,
            unit: feature.unit,
            count: values.count,
            missing: rowCount - values.count,
            mean: nil,
            median: nil,
            minimum: values.min().map(decimal),
            maximum: values.max().map(decimal),
            bins: []
        )
        guard let minimum = result.minimum, let maximum = result.maximum else { return result }
        var scratch = values
        let middle = values.count / 2
        let upper = decimal(select(middle, in: &scratch))
        // After selecting the middle, everything before it is at most it: the lower middle is
        // their largest.
        result.median = values.count % 2 == 1 ? upper : (decimal(scratch[0..<middle].max()!) + upper) / 2

        let edges: [Double]
        switch feature {
        case .key: edges = (0...12).map { Double($0) - 0.5 }
        case .mode: edges = [-0.5, 0.5, 1.5]
        case .timeSignature: edges = (3...8).map { Double($0) - 0.5 }
        case .loudness, .tempo:
            let width = feature == .loudness ? 5.0 : 20.0
            let lower = (minimum / width).rounded(.down) * width
            let upper = Swift.max(lower + width, (maximum / width).rounded(.up) * width)
            edges = stride(from: lower, through: upper + width / 2, by: width).map { $0 + 0 }  // + 0 turns −0 into 0
        default: edges = (0...10).map { Double($0) / 10 }
        }
        var counts = [Int](repeating: 0, count: edges.count - 1)
        var sum = 0.0
        for stored in values {
            let value = decimal(stored)
            sum += value
            // The bin whose lower edge is the last one at or below the value, clamped to the ends.
            var bin = 0
            var high = edges.count - 1
            while bin < high - 1 {
                let mid = (bin + high) / 2
                if edges[mid] <= value { bin = mid } else { high = mid }
            }
            counts[Swift.min(bin, counts.count - 1)] += 1
        }
        result.mean = sum / Double(values.count)
        result.bins = counts.indices.map {
            FeatureDistribution.Bin(lower: edges[$0], upper: edges[$0 + 1], count: counts[$0])
        }
        return result
    }
}
