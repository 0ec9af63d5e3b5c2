import Foundation
import Synchronization

extension FeatureSchema {
    /// Places the tracks of `table` in this schema's scaled space, fitting the scaling on them.
    ///
    /// Tracks missing any schema feature (including a tempo below 1 BPM or a key of −1, which the
    /// table already holds as missing) are left out and counted, except for ``imputedFeatures``:
    /// a track missing only those takes each column's mean over the tracks that have it, and is
    /// counted in ``FeatureSpace/imputedCounts``. The scaling is fitted on the included tracks only.
    /// A constant column keeps a scale of 1, so it becomes all zeros under z-scores rather than
    /// `NaN`. Under ``Scaling/rankNormal`` each normal-score column's ``NormalScoreTable`` is fitted
    /// on the values the included tracks have, and an imputed value takes the mean normal score.
    ///
    /// - Parameter table: Raw features, as read from the store.
    /// - Returns: The scaled matrix with its track IDs in table order, the fitted scaling and the
    ///   counts of missing values.
    /// - Complexity: O(*n* · *d*), two passes over the table and one over the matrix; about 0.2 s
    ///   per million tracks on the shared 2-vCPU machine (`Benchmarks/KMeans`), a tenth of a fit.
    ///   ``Scaling/rankNormal`` adds a sort of each normal-score column, O(*n* log *n*).
    public func makeSpace(from table: FeatureTable) -> FeatureSpace {
        let plan = makeColumnPlan()
        let width = FeatureTable.columnCount
        let sources = entries.map { FeatureTable.columnIndex(of: $0.feature) }
        let keySource = FeatureTable.columnIndex(of: .key)
        let rowCount = table.rowCount
        let values = table.values

        // Pass 1: find the complete rows and count what is missing.
        var included: [Int32] = []
        included.reserveCapacity(rowCount)
        var missing = [Int](repeating: 0, count: entries.count)
        var imputed = [Int](repeating: 0, count: entries.count)
        let isImputed = entries.map { imputedFeatures.contains($0.feature) }
        var anyImputed = false
        for row in 0..<rowCount {
            let base = row * width
            var isComplete = true
            var needsImputing = false
            for (index, source) in sources.enumerated() where values[base + source].isNaN {
                missing[index] += 1
                if isImputed[index] { needsImputing = true } else { isComplete = false }
            }
            if isComplete {
                included.append(Int32(row))
                if needsImputing {
                    anyImputed = true
                    for (index, source) in sources.enumerated() where isImputed[index] && values[base + source].isNaN {
                        imputed[index] += 1
                    }
                }
            }
        }

        // Fit the normal-score tables on the complete rows (an imputed value is not yet known and
        // is left out).
        let columnCount = plan.count
        // The columns are fitted on two threads, each column on its own.
        let fitted = plan.indices.filter { plan[$0].encoding == .normalScore }
        let fits = Mutex([NormalScoreTable?](repeating: nil, count: plan.count))
        let rows = included
        DispatchQueue.concurrentPerform(iterations: fitted.count) { index in
            let column = plan[fitted[index]]
            let stored = rows.map { values[Int($0) * width + column.tableColumn] }
            let table = NormalScoreTable(fittingStored: stored)
            fits.withLock { $0[fitted[index]] = table }
        }
        let tables = fits.withLock { $0 }

        // Pass 2: encode the complete rows and gather column statistics in Double.
        var elements = [Float](repeating: 0, count: included.count * columnCount)
        var sums = [Double](repeating: 0, count: columnCount)
        var squares = [Double](repeating: 0, count: columnCount)
        var minima = [Double](repeating: .infinity, count: columnCount)
        var maxima = [Double](repeating: -.infinity, count: columnCount)
        var present = [Double](repeating: 0, count: columnCount)
        // Plain arrays for the hot loop: iterating `plan` itself would retain and release each
        // column's name for every element (measured: median 673 ms instead of 204 ms at a
        // million rows).
        let encodings = plan.map(\.encoding)
        let scorers = tables.map { $0.map(NormalScoreTable.Scorer.init) }
        let tableColumns = plan.map(\.tableColumn)
        for (outRow, row) in included.enumerated() {
            let base = Int(row) * width
            let outBase = outRow * columnCount
            for column in 0..<columnCount {
                let encoded: Double
                switch encodings[column] {
                case .linear: encoded = Double(values[base + tableColumns[column]])
                case .keySine: encoded = sin(Double(values[base + keySource]) * (.pi / 6))
                case .keyCosine: encoded = cos(Double(values[base + keySource]) * (.pi / 6))
                case .logarithm: encoded = log(Swift.max(Double(values[base + tableColumns[column]]), 1))
                case .normalScore: encoded = scorers[column]!.score(of: Double(values[base + tableColumns[column]]))
                }
                elements[outBase + column] = Float(encoded)
                // A missing imputed value stays NaN here and is filled once the means are known.
                if anyImputed, encoded.isNaN { continue }
                present[column] += 1
                sums[column] += encoded
                squares[column] += encoded * encoded
                minima[column] = Swift.min(minima[column], encoded)
                maxima[column] = Swift.max(maxima[column], encoded)
            }
        }

        // Fill the imputed cells with their column's mean (the statistics above skipped them, and
        // a value at the mean leaves the variance as the present values make it).
        if anyImputed {
            let means = (0..<columnCount).map { present[$0] > 0 ? sums[$0] / present[$0] : 0 }
            for index in elements.indices where elements[index].isNaN {
                let column = index % columnCount
                elements[index] = Float(means[column])
                sums[column] += means[column]
                squares[column] += means[column] * means[column]
            }
        }

        // Fit the offsets and scales.
        let n = Double(included.count)
        var columns: [FeatureScaling.Column] = plan.indices.map { column in
            FeatureScaling.Column(
                name: plan[column].name,
                feature: plan[column].feature,
                encoding: plan[column].encoding,
                offset: 0,
                scale: 1,
                weight: plan[column].weight,
                normalScores: tables[column]
            )
        }
        let variances = (0..<columnCount).map { column in
            n > 0 ? Swift.max(0, squares[column] / n - (sums[column] / n) * (sums[column] / n)) : 0
        }
        for column in 0..<columnCount {
            switch (scaling, columns[column].encoding) {
            case (.raw, _), (_, .normalScore):
                // Normal scores are already on the standard normal scale.
                break
            case (.zScore, .linear), (.zScore, .logarithm), (.rankNormal, .linear), (.rankNormal, .logarithm):
                columns[column].offset = n > 0 ? sums[column] / n : 0
                let deviation = variances[column].squareRoot()
                columns[column].scale = deviation > 0 ? deviation : 1
            case (.zScore, .keySine), (.zScore, .keyCosine), (.rankNormal, .keySine), (.rankNormal, .keyCosine):
                // Centre each coordinate but share one scale, so the circle stays round.
                columns[column].offset = n > 0 ? sums[column] / n : 0
                let pair = plan.indices.filter { plan[$0].feature == .key }
                let deviation = (pair.map { variances[$0] }.reduce(0, +) / 2).squareRoot()
                columns[column].scale = deviation > 0 ? deviation : 1
            case (.minMax, .linear), (.minMax, .logarithm):
                let range = maxima[column] - minima[column]
                columns[column].offset = n > 0 ? minima[column] : 0
                columns[column].scale = range > 0 ? range : 1
            case (.minMax, .keySine), (.minMax, .keyCosine):
                columns[column].offset = -1
                columns[column].scale = 2
            }
        }

        // Pass 3: apply them in place, in Float.
        let factors = columns.map { Float($0.weight / $0.scale) }
        let offsets = columns.map { Float($0.offset) }
        let isIdentity = zip(factors, offsets).allSatisfy { $0 == 1 && $1 == 0 }
        if !isIdentity {
            var index = 0
            for _ in 0..<included.count {
                for column in 0..<columnCount {
                    elements[index] = (elements[index] - offsets[column]) * factors[column]
                    index += 1
                }
            }
        }

        let trackIDs = included.map { table.trackIDs[Int($0)] }
        let matrix = FeatureMatrix(
            values: Matrix(rowCount: included.count, columnCount: columnCount, elements: elements),
            trackIDs: trackIDs,
            columnNames: columns.map(\.name)
        )
        var missingCounts: [AudioFeature: Int] = [:]
        for (entry, count) in zip(entries, missing) { missingCounts[entry.feature] = count }
        var imputedCounts: [AudioFeature: Int] = [:]
        for (entry, count) in zip(entries, imputed) where count > 0 { imputedCounts[entry.feature] = count }
        return FeatureSpace(
            matrix: matrix,
            scaling: FeatureScaling(schema: self, columns: columns),
            tableRows: included,
            excludedTrackCount: rowCount - included.count,
            missingCounts: missingCounts,
            imputedCounts: imputedCounts
        )
    }

    /// One matrix column to build: where it comes from and how it is encoded.
    private struct PlannedColumn {
        var name: String
        var feature: AudioFeature
        var encoding: FeatureScaling.Encoding
        var tableColumn: Int
        var weight: Double
    }

    private func makeColumnPlan() -> [PlannedColumn] {
        entries.flatMap { entry -> [PlannedColumn] in
            let source = FeatureTable.columnIndex(of: entry.feature)
            if entry.feature == .key {
                return [
                    PlannedColumn(
                        name: "key_sin",
                        feature: .key,
                        encoding: .keySine,
                        tableColumn: source,
                        weight: entry.weight
                    ),
                    PlannedColumn(
                        name: "key_cos",
                        feature: .key,
                        encoding: .keyCosine,
                        tableColumn: source,
                        weight: entry.weight
                    ),
                ]
            }
            let encoding: FeatureScaling.Encoding
            switch scaling {
            case .rankNormal where FeatureSchema.rankNormalFeatures.contains(entry.feature): encoding = .normalScore
            case .rankNormal where entry.feature == .tempo: encoding = .logarithm
            default: encoding = .linear
            }
            return [
                PlannedColumn(
                    name: entry.feature.rawValue,
                    feature: entry.feature,
                    encoding: encoding,
                    tableColumn: source,
                    weight: entry.weight
                )
            ]
        }
    }
}
