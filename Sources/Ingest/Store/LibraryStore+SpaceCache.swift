import Features
import Foundation
import GRDB
import Synchronization
import VibesHashing

/// The scaled space of the last feature table and schema a command used, kept with the `features`
/// snapshot, so that the next command with the same table and schema reads it instead of fitting
/// and scaling again.
///
/// On a million tracks, placing the table in the space (fitting twelve normal-score tables,
/// encoding and scaling twelve million values) took about a third of a `recommend`; reading the
/// values back (14 MB, packed by ``PackedColumns``) takes a few tens of milliseconds. The cache is
/// named by a hash of the table's IDs and value bits and of the schema (``Features/FeatureSchema/spaceKey``), so it is used only for the
/// very table and schema it was built from, and gives the same bits as building. Its parts live
/// under the `features` snapshot, so every change that deletes that snapshot deletes them too.
/// One space is kept: a command with another scope or other weights replaces it.
extension LibraryStore {
    /// The part names of the cached space.
    static let spaceParts: Set<String> = ["space_about", "space_values", "space_rows"]

    /// `table` placed in the space of `schema`: read from the cache when it holds this table and
    /// schema, else built by ``Features/FeatureSchema/makeSpace(from:)`` and saved for the next
    /// command when the store can be written without waiting.
    public func featureSpace(of table: FeatureTable, schema: FeatureSchema) throws -> FeatureSpace {
        let key = Self.spaceKey(table: table, schema: schema)
        if let cached = try cachedSpace(key: key, table: table) { return cached }
        let space = schema.makeSpace(from: table)
        saveSpace(space, key: key)
        return space
    }

    /// Builds and saves the `features` snapshot and the space of the whole library under `schema`
    /// unless they are there, when the store can be written without waiting: an import's last
    /// step, whose peak memory this is.
    ///
    /// Neither the feature table nor the space's matrix is held: the snapshot is coded as the
    /// scan hands out rows (``FeatureSnapshot/buildParts(_:)``), and the space is built a column
    /// at a time from the snapshot's packed values (``Features/FeatureSchema/makeSpace(rowCount:column:emit:fittingInParallel:)``),
    /// each column coded as it comes. It is the space a command builds from the table, bit for bit,
    /// under the same key. Holding the table (56 bytes a track) and the matrix, the import's peak
    /// grew by about 100 bytes a track (380–415 MB at three million tracks); built this way it is
    /// about 200 MB there, and grows by about 35 bytes a track (`Benchmarks/import/import_memory.sh`).
    func prepareSpace(schema: FeatureSchema) throws {
        _ = opportunisticWrite.whileSet {
            try? write { db in
                let values: [UInt8]
                let hash: String
                if let parts = try Self.snapshotParts(.features, in: db, only: ["content_hash", "values"]),
                    let stored = parts["content_hash"]
                {
                    hash = String(decoding: stored, as: UTF8.self)
                    if try Self.cachedSpaceIsCurrent(contentHash: hash, schema: schema, in: db) { return }
                    values = parts.array("values")
                } else {
                    var parts = try FeatureSnapshot.buildParts(db)
                    try Self.save(.features, parts: parts, in: db)
                    hash = String(decoding: parts["content_hash"]?.data ?? Data(), as: UTF8.self)
                    // The array the values were coded into, not a copy; the other parts go.
                    values = parts.removeValue(forKey: "values")?.bytes ?? []
                    parts = [:]
                }
                guard let parts = Self.buildSpace(values: values, schema: schema, contentHash: hash) else { return }
                for (part, blob) in parts { try Self.savePart(part, blob, of: .features, in: db) }
            }
        }
    }

    /// Whether the cached space is the one of `schema` for the table of `contentHash`.
    static func cachedSpaceIsCurrent(contentHash: String, schema: FeatureSchema, in db: Database) throws -> Bool {
        let cached = try snapshotParts(.features, in: db, only: spaceParts).flatMap(spaceAbout)
        return cached?.key == spaceKey(contentHash: contentHash, schema: schema)
    }

    /// The parts of the space of the table whose packed values (the `features` snapshot's
    /// `values`) and content hash are given, built a column at a time; `nil` when the values do
    /// not decode or the scaling cannot be written.
    static func buildSpace(values: [UInt8], schema: FeatureSchema, contentHash: String) -> [String: SnapshotBlob]? {
        let width = FeatureTable.columnCount
        guard values.count >= 8 else { return nil }
        let rowCount = values.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: 0, as: UInt32.self)) }
        /// Whether a column did not decode (a damaged store can hold any bytes).
        final class Damage: Sendable { let found = Mutex(false) }
        let damage = Damage()
        var bytes: [UInt8] = []
        var coder = PackedColumns.FloatColumnCoder()
        let fit = schema.makeSpace(
            rowCount: rowCount,
            column: { column in
                guard
                    let decoded = values.withUnsafeBytes({
                        PackedColumns.column($0, columnCount: width, column: column)
                    }),
                    decoded.count == rowCount
                else {
                    damage.found.withLock { $0 = true }
                    return [Float](repeating: .nan, count: rowCount)
                }
                return decoded
            },
            emit: { _, columnCount, scaled in
                if bytes.isEmpty {
                    bytes = PackedColumns.matrixHeader(rowCount: scaled.count, columnCount: columnCount)
                    // The most the columns can take, reserved rather than grown by doubling (which
                    // copies); the pages not written are never touched.
                    bytes.reserveCapacity(
                        8 + columnCount * PackedColumns.FloatColumnCoder.largestByteCount(rowCount: scaled.count)
                    )
                }
                coder.reserveCapacity(scaled.count)
                for value in scaled { coder.append(value) }
                coder.finish(into: &bytes)
            },
            // An import's last step, whose peak this is: one fit at a time.
            fittingInParallel: false
        )
        guard !damage.found.withLock({ $0 }) else { return nil }
        if bytes.isEmpty {
            bytes = PackedColumns.matrixHeader(rowCount: 0, columnCount: max(1, fit.scaling.columns.count))
            for _ in 0..<max(1, fit.scaling.columns.count) { coder.finish(into: &bytes) }
        }
        return spaceParts(
            key: spaceKey(contentHash: contentHash, schema: schema),
            scaling: fit.scaling,
            columnNames: fit.scaling.columns.map(\.name),
            tableRows: fit.tableRows,
            excludedTrackCount: fit.excludedTrackCount,
            missingCounts: fit.missingCounts,
            imputedCounts: fit.imputedCounts,
            values: SnapshotBlob(bytes)
        )
    }

    /// What the cached space's `space_about` part says, or `nil` when it is absent or unreadable.
    private static func spaceAbout(_ parts: SnapshotParts) -> SpaceAbout? {
        parts["space_about"].flatMap { try? JSONDecoder().decode(SpaceAbout.self, from: $0) }
    }

    /// The cached space of `table` under `key`, or `nil` when the cache holds another one.
    private func cachedSpace(key: String, table: FeatureTable) throws -> FeatureSpace? {
        try read { db in
            try Self.snapshotParts(.features, in: db, only: Self.spaceParts).flatMap {
                Self.decodeSpace($0, key: key, table: table)
            }
        }
    }

    /// Saves `space` under `key` when the store can be written without waiting.
    private func saveSpace(_ space: FeatureSpace, key: String) {
        guard let parts = Self.encodeSpace(space, key: key) else { return }
        opportunisticWrite.whileSet {
            _ = try? write { db in
                // Only beside a current `features` snapshot, whose deletion then takes it along.
                guard try Self.snapshotParts(.features, in: db, only: []) != nil else { return }
                for (part, blob) in parts { try Self.savePart(part, blob, of: .features, in: db) }
            }
        }
    }

    /// What names a space: the table's content hash and the schema's key, hashed together.
    static func spaceKey(table: FeatureTable, schema: FeatureSchema) -> String {
        spaceKey(contentHash: table.contentHash(), schema: schema)
    }

    /// What names the space of the table of `contentHash` (``Features/FeatureTable/contentHash()``).
    static func spaceKey(contentHash: String, schema: FeatureSchema) -> String {
        SHA256.hash(data: Data((contentHash + "|" + schema.spaceKey).utf8))
            .map { String(format: "%02x", $0) }.joined()
    }

    /// What the space holds besides its values and rows.
    private struct SpaceAbout: Codable {
        var key: String
        var scaling: FeatureScaling
        var columnNames: [String]
        var rowCount: Int
        var excludedTrackCount: Int
        var missingCounts: [String: Int]
        var imputedCounts: [String: Int]
    }

    /// The parts of `space`, or `nil` when its scaling cannot be written (a value that is not
    /// finite).
    static func encodeSpace(_ space: FeatureSpace, key: String) -> [String: SnapshotBlob]? {
        spaceParts(
            key: key,
            scaling: space.scaling,
            columnNames: space.matrix.columnNames,
            tableRows: space.tableRows,
            excludedTrackCount: space.excludedTrackCount,
            missingCounts: space.missingCounts,
            imputedCounts: space.imputedCounts,
            values: .floats(space.matrix.values.elements, columnCount: max(1, space.matrix.columnCount))
        )
    }

    /// The parts of a space whose values are packed already, or `nil` when its scaling cannot be
    /// written.
    private static func spaceParts(
        key: String,
        scaling: FeatureScaling,
        columnNames: [String],
        tableRows: [Int32],
        excludedTrackCount: Int,
        missingCounts: [AudioFeature: Int],
        imputedCounts: [AudioFeature: Int],
        values: SnapshotBlob
    ) -> [String: SnapshotBlob]? {
        let about = SpaceAbout(
            key: key,
            scaling: scaling,
            columnNames: columnNames,
            rowCount: tableRows.count,
            excludedTrackCount: excludedTrackCount,
            missingCounts: Dictionary(uniqueKeysWithValues: missingCounts.map { ($0.rawValue, $1) }),
            imputedCounts: Dictionary(uniqueKeysWithValues: imputedCounts.map { ($0.rawValue, $1) })
        )
        // Sorted keys: the same library gives the same bytes on every run.
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        guard let json = try? encoder.encode(about) else { return nil }
        // The rows ascend, mostly by 1: about a byte each as differences, not 4.
        return [
            "space_about": SnapshotBlob(json), "space_values": values,
            "space_rows": .ascending(tableRows.lazy.map(Int64.init)),
        ]
    }

    /// The cached space for `table` under `key`, or `nil` when the parts hold another one or do
    /// not fit together.
    static func decodeSpace(_ parts: SnapshotParts, key: String, table: FeatureTable) -> FeatureSpace? {
        guard let json = parts["space_about"], let about = try? JSONDecoder().decode(SpaceAbout.self, from: json),
            about.key == key
        else { return nil }
        guard let ascending = parts.ascending("space_rows"), ascending.allSatisfy({ $0 <= Int32.max }) else {
            return nil
        }
        let rows = ascending.map { Int32($0) }
        let columnCount = about.columnNames.count
        guard let values = parts.floats("space_values", columnCount: max(1, columnCount)), rows.count == about.rowCount,
            values.count == about.rowCount * columnCount,
            about.excludedTrackCount == table.rowCount - rows.count,
            rows.first.map({ $0 >= 0 }) ?? true, rows.last.map({ Int($0) < table.rowCount }) ?? true
        else { return nil }
        var missing: [AudioFeature: Int] = [:]
        var imputed: [AudioFeature: Int] = [:]
        for (name, count) in about.missingCounts {
            guard let feature = AudioFeature(rawValue: name) else { return nil }
            missing[feature] = count
        }
        for (name, count) in about.imputedCounts {
            guard let feature = AudioFeature(rawValue: name) else { return nil }
            imputed[feature] = count
        }
        return FeatureSpace(
            matrix: FeatureMatrix(
                values: Matrix(rowCount: rows.count, columnCount: columnCount, elements: values),
                trackIDs: rows.map { table.trackIDs[Int($0)] },
                columnNames: about.columnNames
            ),
            scaling: about.scaling,
            tableRows: rows,
            excludedTrackCount: about.excludedTrackCount,
            missingCounts: missing,
            imputedCounts: imputed
        )
    }
}
