import Testing

@testable import Features

struct FeatureTableTests {
    /// Values at and around every feature's bounds and sentinels, and some that no feature accepts.
    static let probes: [Float] = [
        -.infinity, -1e30, -61, -60, -1, -0.5, -0.0, 0, 0.5, 0.999, 1, 1.5, 2, 5, 7.5, 11, 11.5, 12, 100, 249,
        250, 251, 1e30, .infinity, .nan,
    ]

    @Test func aValueIsKeptExactlyWhenItsFeatureAcceptsIt() {
        let width = FeatureTable.columnCount
        let rows = Self.probes.count
        // Row r holds probe r in every column.
        let values = (0..<rows).flatMap { row in [Float](repeating: Self.probes[row], count: width) }
        let table = FeatureTable(trackIDs: (0..<rows).map(Int64.init), values: values)
        for (column, feature) in AudioFeature.all.enumerated() {
            for row in 0..<rows {
                let probe = Double(Self.probes[row])
                let kept = !probe.isNaN && feature.isValid(probe) && !feature.isMissingSentinel(probe)
                let stored = table.values[row * width + column]
                #expect(
                    kept ? stored.bitPattern == Self.probes[row].bitPattern : stored.isNaN,
                    "\(feature) \(probe)"
                )
            }
        }
    }

    @Test func selectedRowsAreTheRowsInTheOrderAsked() {
        let width = FeatureTable.columnCount
        var generator = SplitMix64(seed: 7)
        let values = (0..<(40 * width)).map { _ in Float(generator.next() % 1000) / 1000 }
        let table = FeatureTable(trackIDs: (1...40).map(Int64.init), values: values)
        let rows: [Int32] = [39, 0, 5, 5, 17]
        let selected = table.selecting(rows: rows)
        #expect(selected.trackIDs == rows.map { table.trackIDs[Int($0)] })
        let expected = rows.flatMap { row in table.values[Int(row) * width..<(Int(row) + 1) * width] }
        #expect(selected.values.map(\.bitPattern) == expected.map(\.bitPattern))
        #expect(table.selecting(rows: []).rowCount == 0)
    }

    @Test func keepingRowsInPlaceKeepsWhatSelectingWould() {
        let width = FeatureTable.columnCount
        var generator = SplitMix64(seed: 11)
        let values = (0..<(300 * width)).map { _ in Float(generator.next() % 1000) / 1000 }
        let table = FeatureTable(trackIDs: (1...300).map(Int64.init), values: values)
        let before = table.values.map(\.bitPattern)
        for rows in [
            [Int32](0..<300), [0, 1, 2, 150, 299], [299], [], (0..<300).filter { $0 % 7 != 3 }.map(Int32.init),
        ] {
            var kept = table  // shares storage: the in-place move must copy first, leaving `table` whole
            kept.keepRows(rows)
            let selected = table.selecting(rows: rows)
            #expect(kept.trackIDs == selected.trackIDs)
            #expect(kept.values.map(\.bitPattern) == selected.values.map(\.bitPattern))
            #expect(table.rowCount == 300 && table.values.map(\.bitPattern) == before)
        }
    }
}

struct TrackAttributeColumnsTests {
    @Test func keysInternIntoCodesAndOutOfRangeValuesBecomeUnknown() {
        var interner = TrackAttributeColumns.Interner()
        let codes = ["b", "a", "b", "", nil, "a", "c"].map { interner.code($0) }
        #expect(codes == [0, 1, 0, -1, -1, 1, 2])
        let columns = TrackAttributeColumns(
            artistCodes: codes,
            songCodes: codes.reversed(),
            durationMS: [1_000, -5, 400_000_000, 0, 360_000_000, -1, 7],
            popularity: [0, 100, 101, -3, 50, -1, 7]
        )
        #expect(columns.durationMS == [1_000, -1, -1, 0, 360_000_000, -1, 7])
        #expect((0..<7).map(columns.duration(row:)) == [1_000, nil, nil, 0, 360_000_000, nil, 7])
        #expect((0..<7).map(columns.popularity(row:)) == [0, 100, nil, nil, 50, nil, 7])
        let picked = columns.selecting(rows: [6, 0, 0])
        #expect(picked.artistCodes == [2, 0, 0] && picked.songCodes == [0, 2, 2])
        #expect(picked.durationMS == [7, 1_000, 1_000] && picked.popularity == [7, 0, 0])
        #expect(TrackAttributeColumns(unknownCount: 3).songCodes == [-1, -1, -1])
        for rows: [Int32] in [[0, 1, 2, 3, 4, 5, 6], [1, 4, 6], [], [0]] {
            var kept = columns
            kept.keepRows(rows)
            let selected = columns.selecting(rows: rows)
            #expect(kept.artistCodes == selected.artistCodes && kept.songCodes == selected.songCodes)
            #expect(kept.durationMS == selected.durationMS && kept.popularity == selected.popularity)
        }
        #expect(columns.artistCodes == codes, "the shared columns are left whole")
    }
}
