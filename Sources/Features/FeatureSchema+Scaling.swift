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
    /// ``makeSpace(rowCount:column:emit:fittingInParallel:)`` does the same work a column at a time, for a table
    /// that is not held; this one goes through the rows, which on a table in memory took about
    /// 0.1 s less a million rows than gathering its columns and scattering the space's. Both share
    /// their arithmetic (``encode(_:as:scorer:)``, `ColumnStatistics`, ``offsetAndScale(_:_:n:keyVariance:)``),
    /// and give the same bits (tested).
    ///
    /// - Parameter table: Raw features, as read from the store.
    /// - Returns: The scaled matrix with its track IDs in table order, the fitted scaling and the
    ///   counts of missing values.
    /// - Complexity: O(*n* · *d*); about 0.2 s per million tracks on the shared 2-vCPU machine
    ///   (`Benchmarks/KMeans`), a tenth of a fit. ``Scaling/rankNormal`` adds a sort of each
    ///   normal-score column, O(*n* log *n*).
    public func makeSpace(from table: FeatureTable) -> FeatureSpace {
        let plan = makeColumnPlan()
        let width = FeatureTable.columnCount
        let sources = entries.map { FeatureTable.columnIndex(of: $0.feature) }
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
        // is left out), on two threads, each column on its own.
        let columnCount = plan.count
        let rows = included
        let tables = fitNormalScores(plan, inParallel: true) { source in
            rows.map { values[Int($0) * width + source] }
        }

        // Pass 2: encode the complete rows and gather column statistics in Double.
        var elements = [Float](repeating: 0, count: included.count * columnCount)
        var statistics = [ColumnStatistics](repeating: ColumnStatistics(), count: columnCount)
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
                let encoded = Self.encode(
                    Double(values[base + tableColumns[column]]),
                    as: encodings[column],
                    scorer: scorers[column]
                )
                elements[outBase + column] = Float(encoded)
                // A missing imputed value stays NaN here and is filled once the means are known.
                if anyImputed, encoded.isNaN { continue }
                statistics[column].add(encoded)
            }
        }

        // Fill the imputed cells with their column's mean (the statistics above skipped them, and
        // a value at the mean leaves the variance as the present values make it).
        if anyImputed {
            let means = statistics.map(\.mean)
            for index in elements.indices where elements[index].isNaN {
                let column = index % columnCount
                elements[index] = Float(means[column])
                statistics[column].addImputed(means[column])
            }
        }

        // Fit the offsets and scales, and apply them in place, in Float.
        let n = Double(included.count)
        let keyVariance = Self.keyVariance(
            plan.indices.filter { plan[$0].feature == .key }.map { statistics[$0].variance(n) }
        )
        var columns = scalingColumns(plan, tables: tables)
        for column in 0..<columnCount {
            (columns[column].offset, columns[column].scale) = offsetAndScale(
                columns[column].encoding,
                statistics[column],
                n: n,
                keyVariance: keyVariance
            )
        }
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

        var missingCounts: [AudioFeature: Int] = [:]
        for (entry, count) in zip(entries, missing) { missingCounts[entry.feature] = count }
        var imputedCounts: [AudioFeature: Int] = [:]
        for (entry, count) in zip(entries, imputed) where count > 0 { imputedCounts[entry.feature] = count }
        return FeatureSpace(
            matrix: FeatureMatrix(
                values: Matrix(rowCount: included.count, columnCount: columnCount, elements: elements),
                trackIDs: included.map { table.trackIDs[Int($0)] },
                columnNames: columns.map(\.name)
            ),
            scaling: FeatureScaling(schema: self, columns: columns),
            tableRows: included,
            excludedTrackCount: rowCount - included.count,
            missingCounts: missingCounts,
            imputedCounts: imputedCounts
        )
    }

    /// What ``makeSpace(rowCount:column:emit:fittingInParallel:)`` fitted and counted: a ``FeatureSpace`` without
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
        // is left out), each column on its own.
        let rows = included
        let tables = fitNormalScores(plan, inParallel: fittingInParallel) { source in
            // The whole column is let go before the sort.
            let values = column(source)
            return rows.map { values[Int($0)] }
        }
        var columns = scalingColumns(plan, tables: tables)
        let n = Double(included.count)

        // Pass 2, a column at a time: encode the complete rows and gather the column's statistics
        // in Double, fill its imputed cells with its mean (the statistics skipped them, and a value
        // at the mean leaves the variance as the present values make it), fit its offset and
        // scale and apply them in Float. The key's two columns share a scale, so the first waits
        // for the second.
        var keyColumns: [(index: Int, values: [Float], statistics: ColumnStatistics)] = []
        var keySourceValues: [Float]?
        for index in 0..<columnCount {
            let planned = plan[index]
            let isKey = planned.feature == .key
            let source: [Float]
            if isKey {
                if keySourceValues == nil { keySourceValues = column(planned.tableColumn) }
                source = keySourceValues!
            } else {
                source = column(planned.tableColumn)
            }
            let scorer = tables[index].map(NormalScoreTable.Scorer.init)
            var elements = [Float](repeating: 0, count: included.count)
            var statistics = ColumnStatistics()
            let encoding = planned.encoding
            for (outRow, row) in included.enumerated() {
                let encoded = Self.encode(Double(source[Int(row)]), as: encoding, scorer: scorer)
                elements[outRow] = Float(encoded)
                // A missing imputed value stays NaN here and is filled once the mean is known.
                if anyImputed, encoded.isNaN { continue }
                statistics.add(encoded)
            }
            if anyImputed {
                let mean = statistics.mean
                for outRow in elements.indices where elements[outRow].isNaN {
                    elements[outRow] = Float(mean)
                    statistics.addImputed(mean)
                }
            }
            var finished = [(index, elements, statistics)]
            if isKey {
                keyColumns.append((index, elements, statistics))
                guard keyColumns.count == 2 else { continue }
                finished = keyColumns.map { ($0.index, $0.values, $0.statistics) }
                keyColumns = []
                keySourceValues = nil
            }
            elements = []
            let keyVariance = Self.keyVariance(finished.map { $0.2.variance(n) })
            for position in finished.indices {
                let index = finished[position].0
                (columns[index].offset, columns[index].scale) = offsetAndScale(
                    columns[index].encoding,
                    finished[position].2,
                    n: n,
                    keyVariance: keyVariance
                )
                // In place: the column's only copy.
                Self.apply(columns[index], to: &finished[position].1)
                try emit(index, columnCount, finished[position].1)
                finished[position].1 = []
            }
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

    /// A column's fitted normal-score table, or `nil` for a column not encoded by one; each fitted
    /// from `stored(tableColumn)`, the complete rows' values, two columns at a time when
    /// `inParallel`. A fit holds about 24 bytes a row while it sorts: fitting one at a time took a
    /// five-million-row import's peak (sampled every 0.25 s) from 284 to 271 MB.
    private func fitNormalScores(
        _ plan: [PlannedColumn],
        inParallel: Bool,
        stored: @Sendable (Int) -> [Float]
    ) -> [NormalScoreTable?] {
        let fitted = plan.indices.filter { plan[$0].encoding == .normalScore }
        let fits = Mutex([NormalScoreTable?](repeating: nil, count: plan.count))
        @Sendable func fit(_ index: Int) {
            let table = NormalScoreTable(fittingStored: stored(plan[fitted[index]].tableColumn))
            fits.withLock { $0[fitted[index]] = table }
        }
        if inParallel {
            DispatchQueue.concurrentPerform(iterations: fitted.count) { fit($0) }
        } else {
            for index in fitted.indices { fit(index) }
        }
        return fits.withLock { $0 }
    }

    /// The scaling's columns before their offsets and scales are fitted (0 and 1).
    private func scalingColumns(_ plan: [PlannedColumn], tables: [NormalScoreTable?]) -> [FeatureScaling.Column] {
        plan.indices.map { column in
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
    }

    /// A column's statistics in Double, over the rows added.
    private struct ColumnStatistics {
        var present = 0.0
        var sum = 0.0
        var square = 0.0
        var minimum = Double.infinity
        var maximum = -Double.infinity

        @inline(__always)
        mutating func add(_ value: Double) {
            present += 1
            sum += value
            square += value * value
            minimum = Swift.min(minimum, value)
            maximum = Swift.max(maximum, value)
        }

        /// Adds an imputed value, which moves the sums only.
        mutating func addImputed(_ value: Double) {
            sum += value
            square += value * value
        }

        /// The mean of the values present, 0 for none.
        var mean: Double { present > 0 ? sum / present : 0 }

        /// The variance over `n` rows.
        func variance(_ n: Double) -> Double {
            n > 0 ? Swift.max(0, square / n - (sum / n) * (sum / n)) : 0
        }
    }

    /// The variance the key's two columns share: the mean of theirs.
    private static func keyVariance(_ variances: [Double]) -> Double {
        variances.reduce(0, +) / 2
    }

    /// `value`, the table value a column reads (the key's, for the key's two columns), under the
    /// column's encoding, before its offset and scale.
    @inline(__always)
    private static func encode(
        _ value: Double,
        as encoding: FeatureScaling.Encoding,
        scorer: NormalScoreTable.Scorer?
    ) -> Double {
        switch encoding {
        case .linear: value
        case .keySine: sin(value * (.pi / 6))
        case .keyCosine: cos(value * (.pi / 6))
        case .logarithm: log(Swift.max(value, 1))
        case .normalScore: scorer!.score(of: value)
        }
    }

    /// The offset and scale of a column of `encoding` with `statistics` over `n` rows; the key's
    /// columns share `keyVariance` (``keyVariance(_:)``), so the circle stays round.
    private func offsetAndScale(
        _ encoding: FeatureScaling.Encoding,
        _ statistics: ColumnStatistics,
        n: Double,
        keyVariance: Double
    ) -> (offset: Double, scale: Double) {
        switch (scaling, encoding) {
        case (.raw, _), (_, .normalScore):
            // Normal scores are already on the standard normal scale.
            return (0, 1)
        case (.zScore, .linear), (.zScore, .logarithm), (.rankNormal, .linear), (.rankNormal, .logarithm):
            let deviation = statistics.variance(n).squareRoot()
            return (n > 0 ? statistics.sum / n : 0, deviation > 0 ? deviation : 1)
        case (.zScore, .keySine), (.zScore, .keyCosine), (.rankNormal, .keySine), (.rankNormal, .keyCosine):
            // Centre each coordinate but share one scale.
            let deviation = keyVariance.squareRoot()
            return (n > 0 ? statistics.sum / n : 0, deviation > 0 ? deviation : 1)
        case (.minMax, .linear), (.minMax, .logarithm):
            let range = statistics.maximum - statistics.minimum
            return (n > 0 ? statistics.minimum : 0, range > 0 ? range : 1)
        case (.minMax, .keySine), (.minMax, .keyCosine):
            return (-1, 2)
        }
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
