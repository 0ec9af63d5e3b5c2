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
    /// The work is ``makeSpace(rowCount:column:emit:)``'s, column by column, with the table's
    /// columns gathered from its rows and the space's scattered into the matrix's.
    ///
    /// - Parameter table: Raw features, as read from the store.
    /// - Returns: The scaled matrix with its track IDs in table order, the fitted scaling and the
    ///   counts of missing values.
    /// - Complexity: O(*n* · *d*); about 0.2 s per million tracks on the shared 2-vCPU machine
    ///   (`Benchmarks/KMeans`), a tenth of a fit. ``Scaling/rankNormal`` adds a sort of each
    ///   normal-score column, O(*n* log *n*).
    public func makeSpace(from table: FeatureTable) -> FeatureSpace {
        let width = FeatureTable.columnCount
        var elements: [Float] = []
        var columnCount = 0
        let tableValues = table.values
        let rowCount = table.rowCount
        let fit = makeSpace(
            rowCount: rowCount,
            column: { source in
                tableValues.withUnsafeBufferPointer { values in
                    [Float](unsafeUninitializedCapacity: rowCount) { buffer, initialized in
                        for row in 0..<rowCount { buffer[row] = values[row * width + source] }
                        initialized = rowCount
                    }
                }
            },
            emit: { column, count, scaled in
                if elements.isEmpty {
                    columnCount = count
                    elements = [Float](repeating: 0, count: scaled.count * count)
                }
                elements.withUnsafeMutableBufferPointer { elements in
                    for (row, value) in scaled.enumerated() { elements[row * count + column] = value }
                }
            }
        )
        if elements.isEmpty { columnCount = makeColumnPlan().count }
        return FeatureSpace(
            matrix: FeatureMatrix(
                values: Matrix(rowCount: fit.tableRows.count, columnCount: columnCount, elements: elements),
                trackIDs: fit.tableRows.map { table.trackIDs[Int($0)] },
                columnNames: fit.scaling.columns.map(\.name)
            ),
            scaling: fit.scaling,
            tableRows: fit.tableRows,
            excludedTrackCount: fit.excludedTrackCount,
            missingCounts: fit.missingCounts,
            imputedCounts: fit.imputedCounts
        )
    }

    /// What ``makeSpace(rowCount:column:emit:)`` fitted and counted: a ``FeatureSpace`` without
    /// its matrix.
    public struct SpaceFit: Sendable {
        public var scaling: FeatureScaling
        /// The table rows of the space's rows, ascending.
        public var tableRows: [Int32]
        public var excludedTrackCount: Int
        public var missingCounts: [AudioFeature: Int]
        public var imputedCounts: [AudioFeature: Int]
    }

    /// Places a table of `rowCount` rows, handed in a column at a time, in this schema's scaled
    /// space, and hands the space out a column at a time: ``makeSpace(from:)`` without the table
    /// or the matrix in memory, for a library larger than the memory its build should take.
    ///
    /// The result is ``makeSpace(from:)``'s, bit for bit: each column is worked out in row order,
    /// the statistics in `Double` as there. At most two source columns, the included rows and the
    /// two columns of the key are held at once.
    ///
    /// - Parameters:
    ///   - column: The table column of that index (``FeatureTable/columnIndex(of:)``), `rowCount`
    ///     values; it may be called more than once for a column, and from two threads at once.
    ///   - emit: Takes a space column's index, the space's column count, and the column's values,
    ///     one per included row, in column order.
    ///   - fittingInParallel: Whether the normal-score tables are fitted two at a time (faster),
    ///     or one at a time (half the memory while they are).
    public func makeSpace(
        rowCount: Int,
        column: @Sendable (Int) -> [Float],
        emit: (Int, Int, [Float]) throws -> Void,
        fittingInParallel: Bool = true
    ) rethrows -> SpaceFit {
        let plan = makeColumnPlan()
        let columnCount = plan.count
        let keySource = FeatureTable.columnIndex(of: .key)

        // Pass 1: find the complete rows and count what is missing, feature by feature.
        var isComplete = [Bool](repeating: true, count: rowCount)
        var missing = [Int](repeating: 0, count: entries.count)
        let isImputed = entries.map { imputedFeatures.contains($0.feature) }
        for (index, entry) in entries.enumerated() {
            let values = column(FeatureTable.columnIndex(of: entry.feature))
            for row in 0..<rowCount where values[row].isNaN {
                missing[index] += 1
                if !isImputed[index] { isComplete[row] = false }
            }
        }
        var included: [Int32] = []
        included.reserveCapacity(isComplete.count { $0 })
        for row in 0..<rowCount where isComplete[row] { included.append(Int32(row)) }
        isComplete = []
        var imputed = [Int](repeating: 0, count: entries.count)
        for (index, entry) in entries.enumerated() where isImputed[index] {
            let values = column(FeatureTable.columnIndex(of: entry.feature))
            for row in included where values[Int(row)].isNaN { imputed[index] += 1 }
        }
        let anyImputed = imputed.contains { $0 > 0 }

        // Fit the normal-score tables on the complete rows (an imputed value is not yet known and
        // is left out), each column on its own; on two threads unless told otherwise. A fit holds
        // about 24 bytes a row while it sorts: fitting one at a time took a five-million-row
        // import's peak (sampled every 0.25 s) from 284 to 271 MB.
        let fitted = plan.indices.filter { plan[$0].encoding == .normalScore }
        let fits = Mutex([NormalScoreTable?](repeating: nil, count: plan.count))
        let rows = included
        @Sendable func fit(_ index: Int) {
            // The whole column is let go before the sort.
            let stored = { () -> [Float] in
                let values = column(plan[fitted[index]].tableColumn)
                return rows.map { values[Int($0)] }
            }()
            let table = NormalScoreTable(fittingStored: stored)
            fits.withLock { $0[fitted[index]] = table }
        }
        if fittingInParallel {
            DispatchQueue.concurrentPerform(iterations: fitted.count) { fit($0) }
        } else {
            for index in fitted.indices { fit(index) }
        }
        let tables = fits.withLock { $0 }

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
        let n = Double(included.count)

        // Pass 2, a column at a time: encode the complete rows and gather the column's statistics
        // in Double, fill its imputed cells with its mean (the statistics skipped them, and a value
        // at the mean leaves the variance as the present values make it), fit its offset and
        // scale and apply them in Float. The key's two columns share a scale, so the first waits
        // for the second.
        var keyColumns: [(index: Int, values: [Float], variance: Double)] = []
        var keySourceValues: [Float]?
        for index in 0..<columnCount {
            let planned = plan[index]
            let source: [Float]
            switch planned.encoding {
            case .keySine, .keyCosine:
                if keySourceValues == nil { keySourceValues = column(keySource) }
                source = keySourceValues!
            default: source = column(planned.tableColumn)
            }
            let scorer = tables[index].map(NormalScoreTable.Scorer.init)
            var elements = [Float](repeating: 0, count: included.count)
            var sum = 0.0
            var square = 0.0
            var minimum = Double.infinity
            var maximum = -Double.infinity
            var present = 0.0
            let encoding = planned.encoding
            for (outRow, row) in included.enumerated() {
                let value = Double(source[Int(row)])
                let encoded: Double
                switch encoding {
                case .linear: encoded = value
                case .keySine: encoded = sin(value * (.pi / 6))
                case .keyCosine: encoded = cos(value * (.pi / 6))
                case .logarithm: encoded = log(Swift.max(value, 1))
                case .normalScore: encoded = scorer!.score(of: value)
                }
                elements[outRow] = Float(encoded)
                // A missing imputed value stays NaN here and is filled once the mean is known.
                if anyImputed, encoded.isNaN { continue }
                present += 1
                sum += encoded
                square += encoded * encoded
                minimum = Swift.min(minimum, encoded)
                maximum = Swift.max(maximum, encoded)
            }
            if anyImputed {
                let mean = present > 0 ? sum / present : 0
                for outRow in elements.indices where elements[outRow].isNaN {
                    elements[outRow] = Float(mean)
                    sum += mean
                    square += mean * mean
                }
            }
            let variance = n > 0 ? Swift.max(0, square / n - (sum / n) * (sum / n)) : 0
            switch (scaling, encoding) {
            case (.raw, _), (_, .normalScore):
                // Normal scores are already on the standard normal scale.
                break
            case (.zScore, .linear), (.zScore, .logarithm), (.rankNormal, .linear), (.rankNormal, .logarithm):
                columns[index].offset = n > 0 ? sum / n : 0
                let deviation = variance.squareRoot()
                columns[index].scale = deviation > 0 ? deviation : 1
            case (.zScore, .keySine), (.zScore, .keyCosine), (.rankNormal, .keySine), (.rankNormal, .keyCosine):
                // Centre each coordinate but share one scale, so the circle stays round.
                columns[index].offset = n > 0 ? sum / n : 0
            case (.minMax, .linear), (.minMax, .logarithm):
                let range = maximum - minimum
                columns[index].offset = n > 0 ? minimum : 0
                columns[index].scale = range > 0 ? range : 1
            case (.minMax, .keySine), (.minMax, .keyCosine):
                columns[index].offset = -1
                columns[index].scale = 2
            }
            guard encoding == .keySine || encoding == .keyCosine else {
                Self.apply(columns[index], to: &elements)
                try emit(index, columnCount, elements)
                continue
            }
            keyColumns.append((index, elements, variance))
            elements = []
            guard keyColumns.count == 2 else { continue }
            keySourceValues = nil
            if scaling == .zScore || scaling == .rankNormal {
                let deviation = ((keyColumns[0].variance + keyColumns[1].variance) / 2).squareRoot()
                for key in keyColumns { columns[key.index].scale = deviation > 0 ? deviation : 1 }
            }
            for position in keyColumns.indices {
                let index = keyColumns[position].index
                Self.apply(columns[index], to: &keyColumns[position].values)
                try emit(index, columnCount, keyColumns[position].values)
                keyColumns[position].values = []
            }
            keyColumns = []
        }

        var missingCounts: [AudioFeature: Int] = [:]
        for (entry, count) in zip(entries, missing) { missingCounts[entry.feature] = count }
        var imputedCounts: [AudioFeature: Int] = [:]
        for (entry, count) in zip(entries, imputed) where count > 0 { imputedCounts[entry.feature] = count }
        return SpaceFit(
            scaling: FeatureScaling(schema: self, columns: columns),
            tableRows: included,
            excludedTrackCount: rowCount - included.count,
            missingCounts: missingCounts,
            imputedCounts: imputedCounts
        )
    }

    /// Applies `column`'s offset, scale and weight to `elements` in Float: `(x − offset) · weight ⁄ scale`.
    private static func apply(_ column: FeatureScaling.Column, to elements: inout [Float]) {
        let factor = Float(column.weight / column.scale)
        let offset = Float(column.offset)
        guard factor != 1 || offset != 0 else { return }
        for index in elements.indices { elements[index] = (elements[index] - offset) * factor }
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
