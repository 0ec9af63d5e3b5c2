import Features
import Foundation

extension MoodReport {
    /// Projects the library on its first two principal components.
    ///
    /// With a run, the points are the run's tracks in the run's own scaled space (its saved
    /// scaling applied to the current features) coloured by vibe; without one, the tracks complete
    /// in the default schema, z-scored, coloured by mood quadrant.
    static func libraryMap(input: Input, rows tableRows: ReportRows) throws -> LibraryMap? {
        let table = input.table
        // The points: table rows, each with its group; `scaledRow` writes the coordinates of the
        // point at an index of `rows`.
        // Compact and reserved: on a million tracks, two growing arrays of `Int` were 16 MB (32 MB
        // while they grew) of the report's peak memory.
        var rows: [Int32] = []
        var groups: [Int32] = []
        rows.reserveCapacity(table.rowCount)
        groups.reserveCapacity(table.rowCount)
        let groupNames: [String]
        let columns: [String]
        var basis: String
        let width: Int
        let scaledRow: (Int, inout [Float]) -> Void
        if let run = input.run {
            let scaling = run.scaling
            let vibeOrder = run.vibes.sorted { $0.size != $1.size ? $0.size > $1.size : $0.cluster < $1.cluster }
            let groupOfCluster = Dictionary(uniqueKeysWithValues: vibeOrder.enumerated().map { ($1.cluster, $0) })
            groupNames = vibeOrder.map(\.name)
            let scalingColumns = scaling.columns
            let features = scalingColumns.map { FeatureTable.columnIndex(of: $0.feature) }
            rowLoop: for row in 0..<table.rowCount {
                let cluster = tableRows.clusterOfRow[row]
                guard cluster >= 0 else { continue }
                for feature in features where table.values[row * FeatureTable.columnCount + feature].isNaN {
                    continue rowLoop
                }
                rows.append(Int32(row))
                groups.append(Int32(groupOfCluster[Int(cluster)] ?? 0))
            }
            width = scalingColumns.count
            let pointRows = rows
            scaledRow = { point, output in
                let row = Int(pointRows[point])
                for (index, column) in scalingColumns.enumerated() {
                    let raw = table.values[row * FeatureTable.columnCount + features[index]]
                    output.append(Float(column.scaled(value: Double(raw))))
                }
            }
            columns = scalingColumns.map(\.name)
            basis =
                "run \(run.id): \(scaling.schema.scaling.rawValue) over \(scaling.schema.features.map(\.rawValue).joined(separator: ", "))"
        } else {
            let schema = fallbackSchema(for: table)
            let space = schema.makeSpace(from: table)
            groupNames = Mood.allCases.map(\.rawValue)
            for tableRow in space.tableRows {
                let row = Int(tableRow)
                rows.append(tableRow)
                let valence = decimal(table.value(row: row, feature: .valence) ?? 0.5)
                let energy = decimal(table.value(row: row, feature: .energy) ?? 0.5)
                groups.append(Int32(Mood.allCases.firstIndex(of: quadrant(valence: valence, energy: energy))!))
            }
            let matrix = space.matrix.values
            width = matrix.columnCount
            // The space's rows are `rows`, in order.
            scaledRow = { point, output in
                output.append(contentsOf: matrix.elements[(point * width)..<((point + 1) * width)])
            }
            columns = space.matrix.columnNames
            basis = "no run, zscore over \(schema.features.map(\.rawValue).joined(separator: ", "))"
        }
        guard rows.count >= 2 else { return nil }
        // Fitted on an even sample of at most `mapFitLimit` points: on a million tracks, the
        // components of 200,000 agree with those of all to the third decimal, in a fifth of the
        // time and without a second copy of the library's matrix.
        let fitLimit = Swift.max(2, input.mapFitLimit)
        let fitted = rows.count <= fitLimit ? Array(rows.indices) : (0..<fitLimit).map { $0 * rows.count / fitLimit }
        if fitted.count < rows.count {
            basis += "; components fitted on an even sample of \(fitted.count) of the \(rows.count) tracks"
        }
        func matrix(of indices: [Int]) -> Matrix {
            var elements: [Float] = []
            elements.reserveCapacity(indices.count * width)
            for index in indices { scaledRow(index, &elements) }
            return Matrix(rowCount: indices.count, columnCount: width, elements: elements)
        }
        let pca = try PCA.fit(matrix(of: fitted))
        let keptComponents = Swift.min(2, pca.componentCount)
        var twoComponents = pca
        twoComponents.components = Matrix(
            rowCount: keptComponents,
            columnCount: width,
            elements: Array(pca.components.elements.prefix(keptComponents * width))
        )
        let stride = Swift.max(1, (rows.count + input.mapPointLimit - 1) / input.mapPointLimit)
        let drawn = Array(Swift.stride(from: 0, to: rows.count, by: stride))
        let projected = twoComponents.project(matrix(of: drawn))
        let points = drawn.indices.map { index in
            LibraryMap.Point(
                x: rounded(Double(projected[index, 0]), digits: 3),
                y: keptComponents > 1 ? rounded(Double(projected[index, 1]), digits: 3) : 0,
                group: Int(groups[drawn[index]])
            )
        }
        let loadings = columns.enumerated().map { column, name in
            LibraryMap.Loading(
                column: name,
                pc1: rounded(Double(pca.components[0, column]), digits: 4),
                pc2: keptComponents > 1 ? rounded(Double(pca.components[1, column]), digits: 4) : 0
            )
        }
        return LibraryMap(
            basis: basis,
            explainedVarianceRatios: pca.explainedVarianceRatios,
            loadings: loadings,
            groups: groupNames,
            trackCount: rows.count,
            points: points
        )
    }

    /// The space used without a run: the default features that at least half of the tracks have,
    /// z-scored, so that a feature a source lacks (or one stray missing tempo) does not empty it.
    static func fallbackSchema(for table: FeatureTable) -> FeatureSchema {
        let features = FeatureSchema.defaultFeatures.filter { feature in
            let present = (0..<table.rowCount).count { table.value(row: $0, feature: feature) != nil }
            return present * 2 >= table.rowCount && present > 0
        }
        return (try? FeatureSchema(features: features)) ?? .default
    }

    static func rounded(_ value: Double, digits: Int) -> Double {
        let factor = pow(10, Double(digits))
        return (value * factor).rounded() / factor
    }
}
