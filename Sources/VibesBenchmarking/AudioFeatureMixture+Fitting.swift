import Analytics
import Features
import Foundation

// MARK: - Fitting

extension AudioFeatureMixture {
    /// Fits a mixture to the tracks of `table`.
    ///
    /// The tracks that have every feature of ``SyntheticLibrary/schema`` but key are z-scored over
    /// those features and grouped by k-means (4 restarts, seeded by `seed`); each cluster becomes a
    /// component whose statistics are measured in the features' own units. Key probabilities are
    /// smoothed by adding one track of every pitch class, so that no key is impossible; tracks
    /// without a detected key count for the other features.
    ///
    /// - Parameters:
    ///   - table: Raw features, as read from a store.
    ///   - componentCount: The number of components; 12 by default.
    ///   - seed: The seed of the k-means fit; 42 by default.
    /// - Returns: The mixture, components by decreasing weight.
    /// - Throws: ``AnalyticsError/tooFewSamples(required:available:what:)`` when fewer tracks than
    ///   components have every feature.
    public static func fit(
        to table: FeatureTable,
        componentCount: Int = 12,
        seed: UInt64 = 42
    ) async throws
        -> AudioFeatureMixture
    {
        let schema = try! FeatureSchema(
            features: SyntheticLibrary.schema.features.filter { $0 != .key },
            weights: FeatureSchema.defaultWeights,
            scaling: .zScore
        )
        let space = schema.makeSpace(from: table)
        let n = space.matrix.rowCount
        guard n >= componentCount, componentCount >= 1 else {
            throw AnalyticsError.tooFewSamples(
                required: componentCount,
                available: n,
                what: "Fitting a \(componentCount)-component mixture"
            )
        }
        var options = KMeans.Options()
        options.restartCount = 4
        var rng = SplitMix64(seed: seed)
        let model = try await KMeans.fit(
            space.matrix.values,
            clusterCount: componentCount,
            options: options,
            using: &rng
        )

        let features = continuousFeatures
        let columns = features.map { FeatureTable.columnIndex(of: $0) }
        let modeColumn = FeatureTable.columnIndex(of: .mode)
        let keyColumn = FeatureTable.columnIndex(of: .key)
        let width = FeatureTable.columnCount
        var counts = [Int](repeating: 0, count: componentCount)
        var sums = [[Double]](repeating: [Double](repeating: 0, count: features.count), count: componentCount)
        var squares = sums
        var majors = [Int](repeating: 0, count: componentCount)
        var keys = [[Int]](repeating: [Int](repeating: 0, count: 12), count: componentCount)
        for (row, tableRow) in space.tableRows.enumerated() {
            let c = Int(model.labels[row])
            let base = Int(tableRow) * width
            counts[c] += 1
            for (j, column) in columns.enumerated() {
                let value = Double(table.values[base + column])
                sums[c][j] += value
                squares[c][j] += value * value
            }
            if table.values[base + modeColumn] >= 0.5 { majors[c] += 1 }
            let key = table.values[base + keyColumn]
            if !key.isNaN, (0...11).contains(Int(key)) { keys[c][Int(key)] += 1 }
        }
        let components = (0..<componentCount).map { c -> Component in
            let count = Double(Swift.max(counts[c], 1))
            let means = sums[c].map { $0 / count }
            let deviations = zip(squares[c], means).map { square, mean in
                Swift.max(0, square / count - mean * mean).squareRoot()
            }
            let keyTotal = Double(keys[c].reduce(0, +) + 12)
            return Component(
                weight: Double(counts[c]) / Double(n),
                means: means,
                standardDeviations: deviations,
                majorProbability: Double(majors[c]) / count,
                keyProbabilities: keys[c].map { Double($0 + 1) / keyTotal }
            )
        }
        let order = components.indices.sorted {
            components[$0].weight > components[$1].weight || (components[$0].weight == components[$1].weight && $0 < $1)
        }
        return AudioFeatureMixture(components: order.map { components[$0] })
    }
}

// MARK: - Swift source

extension AudioFeatureMixture {
    /// The mixture as a Swift source file declaring it as a static property of
    /// `AudioFeatureMixture`, with six significant digits per number.
    ///
    /// - Parameters:
    ///   - name: The property name, such as `tidyTuesdaySample`.
    ///   - documentation: The `///` lines' text, one string per line.
    public func swiftSource(name: String, documentation: [String]) -> String {
        func number(_ value: Double) -> String {
            let text = String(format: "%.6g", value)
            return text.contains(".") || text.contains("e") ? text : text + ".0"
        }
        /// `label: [a, b, …],` on one line, or wrapped at 120 columns with the values indented.
        func list(_ label: String, _ values: [Double]) -> [String] {
            let indent = "            "
            let oneLine = indent + label + ": [" + values.map(number).joined(separator: ", ") + "],"
            guard oneLine.count > 120 else { return [oneLine] }
            var lines = [indent + label + ": ["]
            var current = indent + "    "
            for value in values.map(number) {
                if current.count + value.count + 2 > 120 {
                    lines.append(String(current.dropLast()))
                    current = indent + "    "
                }
                current += value + ", "
            }
            lines.append(String(current.dropLast()))
            lines.append(indent + "],")
            return lines
        }
        var lines = ["// Generated; do not edit. See the documentation comment below for how to regenerate it.", ""]
        lines.append("extension AudioFeatureMixture {")
        lines += documentation.map { $0.isEmpty ? "    ///" : "    /// " + $0 }
        lines.append("    public static let \(name) = AudioFeatureMixture(components: [")
        for component in components {
            lines.append("        Component(")
            lines.append("            weight: \(number(component.weight)),")
            lines += list("means", component.means)
            lines += list("standardDeviations", component.standardDeviations)
            lines.append("            majorProbability: \(number(component.majorProbability)),")
            lines += list("keyProbabilities", component.keyProbabilities)
            lines[lines.count - 1].removeLast()
            lines[lines.count - 1] += "),"
        }
        lines.append("    ])")
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }
}
