#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Features

// TEMPORARY (issue 4): a private z-score scaling so that the recommender works before the
// clustering branch's `FeatureSchema` lands. Replace `InterimScaling` with `FeatureSchema` (its
// default z-score schema, weights and circular key) when merging `clustering`; nothing outside
// `Recommender` sees this type.

/// Z-scores every audio feature that has values and spread, and maps key onto the unit circle.
///
/// Missing values become the column mean (0 after scaling), so a missing value neither attracts
/// nor repels. Columns with no spread (all missing, as time signature is in tidytuesday) are left
/// out.
struct InterimScaling: Sendable {
    struct Column: Sendable {
        var name: String
        var feature: AudioFeature
        var mean: Float
        var standardDeviation: Float
        /// For key: 0 for the sine part, 1 for the cosine part; `nil` for linear features.
        var circularPart: Int?
    }

    var columns: [Column]

    init(fitting table: FeatureTable) {
        var columns: [Column] = []
        for feature in AudioFeature.allCases {
            let column = FeatureTable.columnIndex(of: feature)
            if feature == .key {
                let hasKeys = (0..<table.rowCount).contains { !table.values[$0 * FeatureTable.columnCount + column].isNaN }
                if hasKeys {
                    // Each part has variance ½ over uniformly spread keys; scale so each has unit spread.
                    let spread = Float(0.5).squareRoot()
                    columns.append(Column(name: "key_sin", feature: .key, mean: 0, standardDeviation: spread, circularPart: 0))
                    columns.append(Column(name: "key_cos", feature: .key, mean: 0, standardDeviation: spread, circularPart: 1))
                }
                continue
            }
            var sum = 0.0
            var sumOfSquares = 0.0
            var present = 0
            for row in 0..<table.rowCount {
                let value = table.values[row * FeatureTable.columnCount + column]
                guard !value.isNaN else { continue }
                sum += Double(value)
                sumOfSquares += Double(value) * Double(value)
                present += 1
            }
            guard present > 1 else { continue }
            let mean = sum / Double(present)
            let variance = max(0, sumOfSquares / Double(present) - mean * mean)
            guard variance > 1e-12 else { continue }
            columns.append(
                Column(name: feature.rawValue, feature: feature, mean: Float(mean),
                       standardDeviation: Float(variance.squareRoot()), circularPart: nil))
        }
        self.columns = columns
    }

    var columnNames: [String] { columns.map(\.name) }

    /// Scales one raw value of `column`; missing values scale to 0.
    func scaled(_ raw: Float, column: Column) -> Float {
        guard !raw.isNaN else { return 0 }
        switch column.circularPart {
        case 0: return Float.sinPi(raw / 6) / column.standardDeviation
        case 1: return Float.cosPi(raw / 6) / column.standardDeviation
        default: return (raw - column.mean) / column.standardDeviation
        }
    }

    /// Scales a whole table into a feature matrix.
    func matrix(for table: FeatureTable) -> FeatureMatrix {
        var elements = [Float]()
        elements.reserveCapacity(table.rowCount * columns.count)
        for row in 0..<table.rowCount {
            for column in columns {
                let index = FeatureTable.columnIndex(of: column.feature)
                elements.append(scaled(table.values[row * FeatureTable.columnCount + index], column: column))
            }
        }
        return FeatureMatrix(
            values: Matrix(rowCount: table.rowCount, columnCount: columns.count, elements: elements),
            trackIDs: table.trackIDs, columnNames: columnNames)
    }
}

extension Float {
    /// sin(π·x), exact at the multiples of ½ that keys hit.
    static func sinPi(_ x: Float) -> Float {
        let reduced = x.truncatingRemainder(dividingBy: 2)
        switch reduced {
        case 0, 1, -1: return 0
        case 0.5, -1.5: return 1
        case -0.5, 1.5: return -1
        default: return Float(sin(Double(reduced) * .pi))
        }
    }

    /// cos(π·x), exact at the multiples of ½ that keys hit.
    static func cosPi(_ x: Float) -> Float { sinPi(x + 0.5) }
}
