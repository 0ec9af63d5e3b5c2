import Features
import Foundation
import GRDB
import Testing
import VibesTestSupport

@testable import Ingest

/// Feature values kept as decimal codes read back as the very doubles written: in Swift, in SQL
/// through the generated columns, after an import and after the migration of an older store.
struct DecimalCodeTests {
    /// The continuous feature values of the tidytuesday excerpt, as the importer parses them.
    static func excerptValues() throws -> [(feature: AudioFeature, value: Double)] {
        let lines = try String(contentsOfFile: Fixtures.path("csv/tidytuesday-excerpt.csv"), encoding: .utf8)
            .split(separator: "\n")
        let header = lines[0].split(separator: ",").map(String.init)
        var values: [(AudioFeature, Double)] = []
        for line in lines.dropFirst() {
            // The feature columns are the last twelve and hold no commas.
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).suffix(header.count - 11)
            for (name, field) in zip(header.suffix(header.count - 11), fields) {
                guard let feature = AudioFeature(rawValue: name), !feature.isDiscrete, let value = Double(field)
                else { continue }
                values.append((feature, value))
            }
        }
        return values
    }

    /// Values of every precision: Spotify's (three significant digits), whole ones, and doubles of
    /// full precision as an analysis computes them.
    static func sampleValues(count: Int) -> [Double] {
        var random = SplitMix64(seed: 7)
        return (0..<count).map { index in
            let raw = random.nextUnitInterval() * (index % 3 == 0 ? 300 : 1) - (index % 5 == 0 ? 60 : 0)
            switch index % 4 {
            case 0: return raw
            case 1: return Double(String(format: "%.\(random.next(below: 8))f", raw))!
            case 2: return Double(String(format: "%.3g", raw))!
            default: return raw.rounded()
            }
        }
    }

    @Test func spotifysValuesTakeTwoOrThreeBytesAndReadBackExactly() throws {
        let values = try Self.excerptValues()
        #expect(values.count == 42 * 9)
        for (feature, value) in values {
            let code = try #require(DecimalCode.code(of: value), "\(feature) \(value)")
            #expect(DecimalCode.value(ofCode: code).bitPattern == value.bitPattern, "\(feature) \(value)")
            // SQLite keeps an integer below 2¹⁵ in two bytes and below 2²³ in three.
            let limit: Int64 = feature == .tempo || feature == .loudness ? 1 << 23 : 1 << 15
            #expect(abs(code) < limit, "\(feature) \(value) → \(code)")
        }
        let codes = [0.0583, -2.634, 0, 1].map { DecimalCode.code(of: $0) ?? -1 }
        let expected: [Int64] = [583 << 4 | 4, -2634 << 4 | 3, 0, 1 << 4]
        #expect(codes == expected)
    }

    @Test func everyValueIsKeptExactlyWithACodeOrWithout() {
        for (index, value) in Self.sampleValues(count: 20_000).enumerated() {
            switch DecimalCode.stored(value) {
            case .code(let code):
                #expect(DecimalCode.value(ofCode: code).bitPattern == value.bitPattern, "\(value)")
            case .real(let kept):
                #expect(kept.bitPattern == value.bitPattern)
                // Every value written with few decimals has a code; −0 keeps its sign as `REAL`.
                #expect(index % 4 == 0 || value.bitPattern == (-0.0).bitPattern, "\(value)")
            }
        }
        #expect(DecimalCode.stored(-0.0) == .real(-0.0))
        #expect(DecimalCode.stored(0.1 + 0.2) == .real(0.1 + 0.2))
        #expect(DecimalCode.stored(.nan) != .code(0) && DecimalCode.stored(1e300) == .real(1e300))
    }

    /// The search for a code skips a number of places whose digits are too far from a whole
    /// number to read back; it finds the code that trying every number of places in turn finds.
    @Test func theSkippingSearchFindsWhatTryingEveryPlaceFinds() {
        func plainCode(of value: Double) -> Int64? {
            guard value.isFinite else { return nil }
            for places in 0...15 {
                let power = (0..<places).reduce(1.0) { power, _ in power * 10 }
                let digits = (value * power).rounded()
                guard abs(digits) < 9_007_199_254_740_992 else { return nil }
                let code = Int64(digits) * 16 + Int64(places)
                if DecimalCode.value(ofCode: code).bitPattern == value.bitPattern { return code }
            }
            return nil
        }
        var random = SplitMix64(seed: 11)
        var values =
            Self.sampleValues(count: 20_000) + [0, -0.0, 1, -1, 0.1, 1e15, 9.99e15, 1e-15, 5e-324, .nan, .infinity]
        // Decimals of every number of places up to 17 digits, near and at powers of ten.
        for places in 0...17 {
            for _ in 0..<500 {
                let digits = Double(random.next(below: 1_000_000_000_000)) * (random.next(below: 2) == 0 ? 1 : -1)
                values.append(Double("\(Int64(digits))e-\(places)")!)
                values.append((digits / 1e6).nextUp)
            }
        }
        var coded = 0
        for value in values {
            let code = DecimalCode.code(of: value)
            #expect(code == plainCode(of: value), "\(value)")
            if code != nil { coded += 1 }
        }
        #expect(coded > values.count / 2)
    }

    /// A row coded at once (on an importer's parsing thread) stores what each value's own coding stores.
    /// A coded row keeps a word per feature in a `SIMD16` and a bit per feature in a `UInt16`:
    /// a 17th feature needs a wider row.
    @Test func aCodedRowHasAPlaceForEveryFeature() {
        #expect(AudioFeature.all.count <= 16)
    }

    @Test func aCodedRowStoresWhatEachValueStores() {
        let values = Self.sampleValues(count: 1_200) + [0.1 + 0.2, -0.0]
        for start in stride(from: 0, to: values.count - 12, by: 12) {
            var features = AudioFeatures()
            for (column, feature) in AudioFeature.all.enumerated() where !feature.isDiscrete && column != start % 12 {
                features[feature] = values[start + column]
            }
            let row = DecimalCode.Row(features)
            for (column, feature) in AudioFeature.all.enumerated() where !feature.isDiscrete {
                guard let value = features[feature] else { continue }
                #expect(row.stored(column: column) == DecimalCode.stored(value), "\(feature) \(value)")
            }
        }
    }

    @Test func sqlDecodesEveryCodeAsSwiftDoes() throws {
        let values = Self.sampleValues(count: 5_000)
        let queue = try DatabaseQueue()
        let decoded = try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, c)")
            for (id, value) in values.enumerated() {
                let stored: DatabaseValue =
                    switch DecimalCode.stored(value) {
                    case .code(let code): code.databaseValue
                    case .real(let value): value.databaseValue
                    }
                try db.execute(sql: "INSERT INTO t (id, c) VALUES (?, ?)", arguments: [id, stored])
            }
            try db.execute(sql: "INSERT INTO t (id, c) VALUES (?, NULL)", arguments: [values.count])
            return try Double?.fetchAll(db, sql: "SELECT \(DecimalCode.sqlDecoding("c")) FROM t ORDER BY id")
        }
        #expect(decoded.count == values.count + 1 && decoded.last! == nil)
        for (value, read) in zip(values, decoded) {
            #expect(read?.bitPattern == value.bitPattern, "\(value) read as \(String(describing: read))")
        }
    }

    /// An import writes codes (and `REAL` for a value with no short decimal); the generated
    /// columns, the views and the feature table all read the values the file holds.
    @Test func anImportWritesCodesThatEveryReaderReadsAsTheFileSays() throws {
        try withTemporaryDirectory { folder in
            // One row more, whose energy and liveness have no decimal of up to 15 places.
            var lines = try String(contentsOfFile: Fixtures.path("csv/tidytuesday-excerpt.csv"), encoding: .utf8)
                .split(separator: "\n").map(String.init)
            let long = lines[1].replacingOccurrences(of: "6f807x0ima9a1j3VPbc7VN", with: "6f807x0ima9a1j3VPbc7VM")
                .replacingOccurrences(of: ",0.916,", with: ",0.30000000000000004,")
                .replacingOccurrences(of: ",0.0653,", with: ",0.0000000000012345678,")
            lines.append(long)
            let csv = folder + "/features.csv"
            try (lines.joined(separator: "\n") + "\n").write(toFile: csv, atomically: true, encoding: .utf8)
            let store = try LibraryStore(path: folder + "/library.sqlite")
            _ = try store.importFile(at: csv)

            let kinds = try store.database.read { db in
                try Row.fetchAll(
                    db,
                    sql: "SELECT typeof(energy_code), typeof(liveness_code), count(*) FROM audio_features GROUP BY 1, 2"
                ).map { "\($0[0] as String) \($0[1] as String) \($0[2] as Int)" }
            }
            // The excerpt holds 36 tracks (some in several playlists).
            #expect(kinds == ["integer integer 36", "real real 1"])
            let read = try store.database.read { db in
                try Row.fetchOne(
                    db,
                    sql: """
                        SELECT f.energy, f.liveness FROM current_features f JOIN tracks t ON t.id = f.track_id
                        WHERE t.spotify_id = '6f807x0ima9a1j3VPbc7VM'
                        """
                )
            }
            #expect((read?[0] as Double?) == 0.30000000000000004 && (read?[1] as Double?) == 0.0000000000012345678)

            // The feature table (decoded in Swift, kept as `Float`) and the generated columns
            // (decoded in SQL) agree bit for bit, and with the file.
            let table = try store.featureTable()
            let columns = AudioFeature.allCases.map(\.rawValue).joined(separator: ", ")
            let rows = try store.database.read { db in
                try Row.fetchAll(db, sql: "SELECT \(columns) FROM current_features ORDER BY track_id")
            }
            #expect(rows.count == table.rowCount && table.rowCount == 37)
            for (row, values) in rows.enumerated() {
                for (index, feature) in AudioFeature.allCases.enumerated() {
                    // A sentinel (a tempo of 0) is read as missing.
                    let read = (values[index] as Double?).flatMap { feature.isMissingSentinel($0) ? nil : Float($0) }
                    let inTable = table.value(row: row, feature: feature)
                    #expect(read?.bitPattern == inTable?.bitPattern, "\(row) \(feature)")
                }
            }
            let fromFile = Set(try Self.excerptValues().map { "\($0.feature.rawValue) \($0.value.bitPattern)" })
            let fromStore = Set(
                rows.prefix(36).flatMap { values in
                    DecimalCode.features.map { feature in
                        let index = AudioFeature.allCases.firstIndex(of: feature)!
                        return "\(feature.rawValue) \((values[index] as Double).bitPattern)"
                    }
                }
            )
            #expect(fromStore == fromFile)
        }
    }

    /// A store of the previous version keeps every value, bit for bit, and loses the track names
    /// of its `facts` snapshot, which nothing reads any more.
    @Test func aStoreOfTheVersionBeforeKeepsEveryValueBitForBit() throws {
        let values = Self.sampleValues(count: 400).map { abs($0).truncatingRemainder(dividingBy: 1) }
        let columns = DecimalCode.features.map(\.rawValue)
        var before: [[Double?]] = []
        var parts: [String] = []
        try withStoreFromEarlierVersion(
            migratedUpTo: "v14-feature-source-ids",
            thenUpTo: (
                "v15-decimal-features",
                { db in parts = try String.fetchAll(db, sql: "SELECT name || '.' || part FROM snapshots ORDER BY 1") }
            )
        ) { db in
            try db.execute(sql: "INSERT INTO sources (id, key) VALUES (1, 'file:features-csv'), (2, 'local:aubio')")
            for track in 1...100 {
                try db.execute(
                    sql: "INSERT INTO tracks (id, name, match_key) VALUES (?, ?, ?)",
                    arguments: [track, "Track \(track)", "t\(track)"]
                )
                for source in 1...2 {
                    // Nine values a row from the sample; every fifth row misses its valence.
                    var arguments: [DatabaseValueConvertible?] = [track, source, 100 - source, 1_700_000_000 + track]
                    for index in columns.indices {
                        let value = values[(track * 2 + source + index * 37) % values.count]
                        arguments.append(index == 7 && track % 5 == 0 ? nil : value)
                    }
                    try db.execute(
                        sql: """
                            INSERT INTO audio_features (track_id, source_id, priority, fetched_at, key, mode,
                                \(columns.joined(separator: ", ")))
                            VALUES (?, ?, ?, ?, 5, 1, \(Array(repeating: "?", count: columns.count).joined(separator: ", ")))
                            """,
                        arguments: StatementArguments(arguments)
                    )
                }
            }
            try db.execute(
                sql: """
                    INSERT INTO snapshots (name, part, data) VALUES
                        ('facts', 'names', x'41'), ('facts', 'name_ends', x'01000000'),
                        ('facts', 'artists', x'42'), ('features', 'values', x'00')
                    """
            )
            before = try Self.values(of: columns, in: db)
        } _: { store in
            let (after, codes) = try store.database.read { db in
                (
                    try Self.values(of: columns, in: db),
                    try String.fetchAll(
                        db,
                        sql: "SELECT typeof(energy_code) FROM audio_features ORDER BY track_id, source_id"
                    )
                )
            }
            #expect(before.count == 200 && after.count == before.count)
            for (old, new) in zip(before, after) {
                #expect(old.map { $0?.bitPattern } == new.map { $0?.bitPattern })
            }
            #expect(parts == ["facts.artists", "features.values"])
            // A value with a short decimal became a code, the others stayed `REAL`.
            let energy = try #require(columns.firstIndex(of: "energy"))
            #expect(codes == before.map { DecimalCode.code(of: $0[energy]!) == nil ? "real" : "integer" })
            #expect(codes.contains("real") && codes.contains("integer"))
            // The key and mode stay whole numbers; the current row is the higher priority's.
            let table = try store.featureTable()
            #expect(table.rowCount == 100 && table.value(row: 0, feature: .key) == 5)
            for (row, values) in stride(from: 0, to: before.count, by: 2).map({ before[$0] }).enumerated() {
                // A tempo below 1 BPM is read as missing (a sentinel); every other value as written.
                for (index, feature) in DecimalCode.features.enumerated() {
                    let written = values[index].flatMap { feature.isMissingSentinel($0) ? nil : Float($0) }
                    #expect(table.value(row: row, feature: feature)?.bitPattern == written?.bitPattern)
                }
            }
        }
    }

    /// Every row's continuous features through the `all_features` view, by track and source.
    static func values(of columns: [String], in db: Database) throws -> [[Double?]] {
        try Row.fetchAll(
            db,
            sql: "SELECT \(columns.joined(separator: ", ")) FROM all_features ORDER BY track_id, source"
        ).map { row in columns.indices.map { row[$0] as Double? } }
    }
}
