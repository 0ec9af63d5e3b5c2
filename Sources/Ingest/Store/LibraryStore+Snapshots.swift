import Features
import Foundation
import GRDB
import Synchronization

/// Snapshots: what every analysis reads first, kept packed so that a command reads it in one go.
///
/// Reading the current features of a million tracks row by row takes about 2.5 s, and the names,
/// artists, durations and popularity that recommendations filter by about 4 s more; the same
/// arrays read back from a few BLOBs take well under a second. A snapshot is a set of
/// `snapshots` rows under one name, written whole by the first reader that finds none, and
/// deleted by triggers in the same transaction as any change to what it was built from. So a
/// snapshot is either current or absent, whoever writes the store and however a write ends.
extension LibraryStore {
    /// The snapshots, by name, and the changes that delete them.
    enum Snapshot: String, CaseIterable {
        /// The current feature table of every track (``featureTable(scope:)``).
        case features
        /// Every track's artists, main artist and song as codes, duration and popularity
        /// (``trackAttributeColumns(for:)``, ``trackCreditTable(for:)``).
        case facts
        /// The terms of each row of the recommender's tag and co-membership blocks
        /// (``similarityBlockTerms(over:saving:build:)``).
        case blocks

        /// What the snapshot's bytes mean; a snapshot written under another format is rebuilt.
        var format: String {
            switch self {
            case .features: "features-4:" + AudioFeature.all.map(\.rawValue).joined(separator: ",")
            case .facts: "facts-4:songKey-1"
            // 2: the tag block holds the tags heard in audio (`audio-tag`) too.
            case .blocks: "blocks-2"
            }
        }

        /// The triggers' events: `(table, event)` pairs.
        var invalidatedBy: [(table: String, event: String)] {
            switch self {
            case .features:
                ["audio_features", "feature_calibrations"].flatMap { table in
                    ["INSERT", "UPDATE", "DELETE"].map { (table, $0) }
                }
            case .facts:
                [
                    ("tracks", "INSERT"), ("tracks", "DELETE"), ("tracks", "UPDATE OF name, duration_ms, popularity"),
                    ("track_artists", "INSERT"), ("track_artists", "UPDATE"), ("track_artists", "DELETE"),
                    ("artists", "UPDATE OF name"), ("artists", "DELETE"),
                ]
            case .blocks:
                ["tags", "track_tags", "playlists", "playlist_items"].flatMap { table in
                    ["INSERT", "UPDATE", "DELETE"].map { (table, $0) }
                }
            }
        }
    }

    /// Migration `v11-snapshots`: the `snapshots` table and the triggers that delete a snapshot
    /// when what it was built from changes.
    ///
    /// The triggers only delete (an indexed `DELETE` that usually finds nothing): measured on a
    /// million inserted rows, that costs about 0.3 µs a row, where also counting a generation
    /// cost 2.5 µs.
    static func addSnapshotSchema(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE snapshots (
                    name TEXT NOT NULL,
                    part TEXT NOT NULL,
                    data BLOB NOT NULL,
                    PRIMARY KEY (name, part)
                )
                """
        )
        // The snapshots of this version; later ones add their triggers in their own migration.
        for snapshot in [Snapshot.features, .facts] { try createSnapshotTriggers(snapshot, in: db) }
    }

    /// The triggers that delete `snapshot` when what it was built from changes (only those on
    /// `table`, when given).
    static func createSnapshotTriggers(_ snapshot: Snapshot, on table: String? = nil, in db: Database) throws {
        for (index, trigger) in snapshot.invalidatedBy.enumerated() where table == nil || trigger.table == table {
            try db.execute(
                sql: """
                    CREATE TRIGGER snapshot_\(snapshot.rawValue)_\(index) AFTER \(trigger.event) ON \(trigger.table)
                    BEGIN DELETE FROM snapshots WHERE name = '\(snapshot.rawValue)'; END
                    """
            )
        }
    }

    /// Runs a bulk write (an import) with the snapshot triggers dropped: every snapshot is deleted
    /// first, and the triggers are created again before the transaction ends.
    ///
    /// The triggers run once per written row; on an import of 300,000 rows they took about 12 %
    /// of the time. Dropping and re-creating them inside the caller's transaction is atomic like
    /// the rest of it: a failed or interrupted import rolls back to the triggers it found.
    ///
    /// - Precondition: `db` is in a write transaction.
    static func withSnapshotTriggersSuspended<T>(in db: Database, _ body: () throws -> T) throws -> T {
        let triggers = try Row.fetchAll(
            db,
            sql: "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'snapshot\\_%' ESCAPE '\\'"
        )
        try db.execute(sql: "DELETE FROM snapshots")
        for trigger in triggers { try db.execute(sql: "DROP TRIGGER \(trigger["name"] as String)") }
        let result = try body()
        for trigger in triggers { try db.execute(sql: trigger["sql"] as String) }
        return result
    }

    /// The parts of `snapshot` (only those named in `only`, when given), or `nil` when it is absent
    /// or of another format. Only the `format` part is read here; the others are read when the
    /// decoder asks for them, inside the same access to `db`.
    static func snapshotParts(
        _ snapshot: Snapshot,
        in db: Database,
        only: Set<String>? = nil
    ) throws -> SnapshotParts? {
        let names = only.map { $0.union(["format"]).sorted() }
        let rows = try Row.fetchAll(
            db,
            sql: "SELECT part, rowid FROM snapshots WHERE name = ?"
                + (names.map { " AND part IN (\(Array(repeating: "?", count: $0.count).joined(separator: ",")))" } ?? ""),
            arguments: StatementArguments([snapshot.rawValue] + (names ?? []))
        )
        var rowIDs: [String: Int64] = [:]
        for row in rows { rowIDs[row[0]] = row[1] }
        guard let formatRow = rowIDs["format"],
            String(
                decoding: try BlobIO.read(db, table: "snapshots", column: "data", rowID: formatRow),
                as: UTF8.self
            )
                == snapshot.format
        else {
            return nil
        }
        return SnapshotParts(rowIDs: rowIDs, in: db)
    }

    /// Reads `snapshot` with `decode`, or builds it with `build` and saves it when the store can
    /// be written without waiting.
    ///
    /// The build runs inside the write transaction when one can be had at once, so no other write
    /// can land between reading the sources and saving the snapshot. When another program holds
    /// the store, or the file cannot be written, the build runs in a read transaction and is not
    /// saved: a reading command never waits for a writer because of a snapshot.
    ///
    /// - Parameter only: The parts `decode` needs, when not all: a command that needs the artists
    ///   of the `facts` snapshot then does not read its columns.
    func withSnapshot<Value>(
        _ snapshot: Snapshot,
        only: Set<String>? = nil,
        decode: (SnapshotParts) -> Value?,
        build: (Database) throws -> (value: Value, parts: [String: SnapshotBlob])
    ) throws -> Value {
        if let value = try read({ db in try Self.snapshotParts(snapshot, in: db, only: only).flatMap(decode) }) {
            return value
        }
        let saved: Value? = opportunisticWrite.whileSet {
            try? write { db -> Value in
                if let parts = try Self.snapshotParts(snapshot, in: db), let value = decode(parts) { return value }
                let (value, parts) = try build(db)
                try Self.save(snapshot, parts: parts, in: db)
                return value
            }
        }
        if let saved { return saved }
        return try read { db in try build(db).value }
    }
}

extension LibraryStore {
    /// Replaces `snapshot` by `parts` and its format.
    static func save(_ snapshot: Snapshot, parts: [String: SnapshotBlob], in db: Database) throws {
        try db.execute(sql: "DELETE FROM snapshots WHERE name = ?", arguments: [snapshot.rawValue])
        try savePart("format", SnapshotBlob(Data(snapshot.format.utf8)), of: snapshot, in: db)
        for (part, blob) in parts { try savePart(part, blob, of: snapshot, in: db) }
    }

    /// Writes one part of `snapshot`, replacing the part of that name: a row with a `zeroblob` of
    /// the part's size, which ``BlobIO/write(_:_:table:column:rowID:)`` then fills from the
    /// part's own array.
    static func savePart(_ part: String, _ blob: SnapshotBlob, of snapshot: Snapshot, in db: Database) throws {
        try db.execute(
            sql: "INSERT OR REPLACE INTO snapshots (name, part, data) VALUES (?, ?, zeroblob(?))",
            arguments: [snapshot.rawValue, part, blob.byteCount]
        )
        try BlobIO.write(blob, db, table: "snapshots", column: "data", rowID: db.lastInsertedRowID)
    }
}

/// A flag the store's busy handler reads: set, a write gives up at once instead of waiting.
final class OpportunisticWriteFlag: Sendable {
    private let storage = Mutex(false)

    var isSet: Bool { storage.withLock { $0 } }

    /// Runs `body` with the flag set.
    func whileSet<T>(_ body: () throws -> T) rethrows -> T {
        storage.withLock { $0 = true }
        defer { storage.withLock { $0 = false } }
        return try body()
    }
}

// MARK: - Packed strings

/// Many strings stored as two BLOBs: their UTF-8 bytes end to end, and each one's end offset.
enum PackedStrings {
    static func parts(_ strings: some Sequence<String>) -> (bytes: SnapshotBlob, ends: SnapshotBlob) {
        var bytes: [UInt8] = []
        var ends: [Int32] = []
        for string in strings {
            bytes.append(contentsOf: string.utf8)
            ends.append(Int32(bytes.count))
        }
        return (SnapshotBlob(bytes), SnapshotBlob(ends))
    }

    static func strings(bytes: Data?, ends: Data?) -> [String]? {
        guard let bytes, let ends else { return nil }
        let offsets: [Int32] = PackedArray.values(ends)
        guard offsets.last.map({ Int($0) == bytes.count }) ?? bytes.isEmpty else { return nil }
        // A damaged file can hold any bytes: the offsets must rise and stay inside the bytes.
        var previous: Int32 = 0
        for offset in offsets {
            guard offset >= previous else { return nil }
            previous = offset
        }
        return bytes.withUnsafeBytes { raw in
            let buffer = raw.bindMemory(to: UInt8.self)
            var start = 0
            return offsets.map { end in
                defer { start = Int(end) }
                return String(decoding: UnsafeBufferPointer(rebasing: buffer[start..<Int(end)]), as: UTF8.self)
            }
        }
    }
}

/// What ``LibraryStore/prepareSnapshots(memoryLimit:)`` did.
public enum SnapshotPreparation: Equatable, Sendable {
    /// The snapshots were built, or were current already. (A build is skipped, not waited for,
    /// when another process is writing the store: the next command builds it then.)
    case prepared
    /// Nothing was built: the builds would have needed about `neededBytes` of memory for
    /// `tracks` tracks, more than the `limitBytes` allowed. The next command that reads the
    /// library builds what is missing (the same snapshots, bit for bit), once.
    case deferred(tracks: Int, neededBytes: Int, limitBytes: Int)
}

extension LibraryStore {
    /// The memory a snapshot build holds per track at its peak, beyond what the process held
    /// before it: what ``prepareSnapshots(memoryLimit:)`` budgets.
    ///
    /// Measured on a five-million-track import, its resident memory sampled every 0.25 s: from
    /// 73–84 MB before the builds, the facts build peaked at 255 MB (36 bytes a track) and the
    /// features snapshot with the default space at 271 MB, 281 MB by `/usr/bin/time` (about 42
    /// bytes a track; the builds run one after the other). The budget allows a seventh more, for
    /// libraries whose tracks carry more artists or sources; `Benchmarks/import/import_memory.sh`
    /// shows the peaks it leads to.
    public static let snapshotBuildBytesPerTrack = 48

    /// Builds the snapshots that are missing, when the store can be written without waiting, so
    /// that the next command finds them: commands that change the library (`import`, `sync`, `analyze`)
    /// call this once they are done.
    ///
    /// The builds scan every track once, which a large page cache does not speed up: they run with
    /// the writer's small one (``writerCacheKiB``; on a million tracks a 256 MB cache filled during
    /// the builds, a third of `import`'s peak memory).
    ///
    /// - Parameter memoryLimit: The memory, in bytes, the builds may take beyond what the process
    ///   holds; `nil` for no limit. Their memory grows with the library
    ///   (``snapshotBuildBytesPerTrack``): when a library is too large for `memoryLimit`, nothing
    ///   is built and the next command that reads the library builds the snapshots instead,
    ///   as it does after an upgrade. An import keeps to its memory budget this way whatever the
    ///   size of the file, while the command after it needs the library's matrix in memory
    ///   anyway.
    @discardableResult
    public func prepareSnapshots(memoryLimit: Int? = nil) throws -> SnapshotPreparation {
        let weights = try personalWeights() ?? .default
        // The space `recommend` uses by default (and `cluster`, when its schema is the default).
        let schema = FeatureSchema.default.applying(weights)
        // `max(id)` stands for the track count: an index lookup, where `count(*)` scans.
        let tracks = try read { db in try Int.fetchOne(db, sql: "SELECT max(id) FROM tracks") ?? 0 }
        if let memoryLimit {
            let needed = tracks * Self.snapshotBuildBytesPerTrack
            if needed > memoryLimit, try !snapshotsAreCurrent(schema: schema) {
                return .deferred(tracks: tracks, neededBytes: needed, limitBytes: memoryLimit)
            }
        }
        if memoryLimit.map({ tracks * 2 * Self.snapshotBuildBytesPerTrack <= $0 }) ?? true {
            // Room for both builds at once: the facts are built on a reading connection, on a
            // core of their own, while the features and the space are built on this one.
            let facts = try buildConcurrently(.facts, build: TrackFactsParts.build)
            try prepareSpace(schema: schema)
            prepareSnapshot(.facts, builtConcurrently: facts, build: TrackFactsParts.build)
        } else {
            // The facts first, so that their arrays are gone before the features are coded.
            prepareSnapshot(.facts, build: TrackFactsParts.build)
            try prepareSpace(schema: schema)
        }
        return .prepared
    }

    /// Whether the facts, the features and the space of `schema` are all current.
    func snapshotsAreCurrent(schema: FeatureSchema) throws -> Bool {
        try read { db in
            guard try Self.snapshotParts(.facts, in: db, only: []) != nil,
                let features = try Self.snapshotParts(.features, in: db, only: ["content_hash"]),
                let hash = features["content_hash"]
            else { return false }
            return try Self.cachedSpaceIsCurrent(
                contentHash: String(decoding: hash, as: UTF8.self),
                schema: schema,
                in: db
            )
        }
    }
}

extension LibraryStore {
    /// Builds and saves `snapshot` unless it is current, when the store can be written without
    /// waiting, without decoding what was built: a command's read (``withSnapshot(_:only:decode:build:)``)
    /// decodes it, and an import has no use for the arrays (on three million tracks, the facts'
    /// decoded columns were 63 MB beside their parts).
    func prepareSnapshot(_ snapshot: Snapshot, build: (Database) throws -> [String: SnapshotBlob]) {
        _ = opportunisticWrite.whileSet {
            try? write { db in
                if try Self.snapshotParts(snapshot, in: db, only: []) != nil { return }
                try Self.save(snapshot, parts: try build(db), in: db)
            }
        }
    }

    /// A build of `snapshot` started on a reading connection, on a thread of its own, over the
    /// store as last committed (nothing when the snapshot is there): what
    /// ``prepareSnapshot(_:builtConcurrently:build:)`` saves once the writer is free.
    final class ConcurrentBuild: @unchecked Sendable {
        /// `PRAGMA data_version` of the writing connection when the read began: it changes when
        /// another connection (another process) commits.
        fileprivate var dataVersion = 0
        fileprivate let done = DispatchSemaphore(value: 0)
        /// Written by the reading thread before it signals `done`, read after the wait.
        fileprivate var parts: [String: SnapshotBlob]?
    }

    /// Starts building `snapshot` on a reading connection, which sees the store as last
    /// committed, and returns at once.
    func buildConcurrently(
        _ snapshot: Snapshot,
        build: @escaping @Sendable (Database) throws -> [String: SnapshotBlob]
    ) throws -> ConcurrentBuild {
        let pending = ConcurrentBuild()
        try writeWithoutTransaction { db in
            pending.dataVersion = try Int.fetchOne(db, sql: "PRAGMA data_version") ?? 0
            database.asyncConcurrentRead { result in
                defer { pending.done.signal() }
                do {
                    let db = try result.get()
                    if try Self.snapshotParts(snapshot, in: db, only: []) == nil { pending.parts = try build(db) }
                } catch {
                    // Built again in the write.
                }
            }
        }
        return pending
    }

    /// ``prepareSnapshot(_:build:)`` with the parts `pending` built on a reading connection: saved
    /// when no other connection has committed since its read began; otherwise (or when it built
    /// nothing) built again here, in the write, as without it.
    func prepareSnapshot(
        _ snapshot: Snapshot,
        builtConcurrently pending: ConcurrentBuild,
        build: (Database) throws -> [String: SnapshotBlob]
    ) {
        pending.done.wait()
        let built = pending.parts
        pending.parts = nil
        _ = opportunisticWrite.whileSet {
            try? write { db in
                if try Self.snapshotParts(snapshot, in: db, only: []) != nil { return }
                let isCurrent = try Int.fetchOne(db, sql: "PRAGMA data_version") == pending.dataVersion
                try Self.save(snapshot, parts: try isCurrent ? built ?? build(db) : build(db), in: db)
            }
        }
    }
}

/// Source keys met by a scan, numbered in order of appearance.
final class SourceNumbering {
    private var numbers: [[UInt8]: Int] = [:]
    private(set) var keys: [[UInt8]] = []

    func number(of key: [UInt8]) -> Int {
        if let number = numbers[key] { return number }
        numbers[key] = keys.count
        keys.append(key)
        return keys.count - 1
    }
}

/// What `library` and `features status` count of the current feature rows.
struct FeatureStatistics: Equatable {
    /// Per `AudioFeature.allCases`: the tracks whose current row has a value.
    var coverage = [Int](repeating: 0, count: AudioFeature.allCases.count)
    /// The non-zero out-of-range flags of the current rows, in track order.
    var outOfRangeFlags: [Int] = []
    /// Per source: the tracks whose current row it is.
    var preferred: [String: Int] = [:]
    /// Per source: the tracks it has a row for.
    var rows: [String: Int] = [:]
}

/// The `features` snapshot: every track's current features (calibrated), and per track the
/// number of its current source, which values it has, its out-of-range flags and which sources
/// have a row for it, so that counts for any scope need no scan.
struct FeatureSnapshot {
    /// The feature table; empty when the snapshot was read for its counts only
    /// (``init(parts:)`` without the `values` part).
    var table: FeatureTable
    /// Every track's ID, ascending: the table's rows, also when the table was not read.
    var trackIDs: [Int64]
    var sources: [String] = []
    var preferred: [UInt8] = []
    var coverage: [UInt16] = []
    var outOfRange: [Int64] = []
    var sourceMasks: [UInt64] = []
    /// Whether the per-track counts are here: not when the store has more than 64 sources.
    var hasStatistics: Bool { !sources.isEmpty || trackIDs.isEmpty }

    /// The parts the counts need: all but the values, which are most of the snapshot.
    static let countParts: Set<String> = [
        "track_ids", "sources", "source_ends", "preferred", "coverage", "out_of_range", "source_masks",
    ]

    /// The parts the feature table needs.
    static let tableParts: Set<String> = ["track_ids", "values"]

    /// Every part of the snapshot's own (not the cached space kept beside them).
    static let allParts: Set<String> = countParts.union(["values", "content_hash"])

    /// Reads every track's current row in one scan of `audio_features` (``buildParts(_:)``).
    init(_ db: Database) throws {
        guard let snapshot = FeatureSnapshot(parts: SnapshotParts(try Self.buildParts(db))) else {
            preconditionFailure("the parts just built decode")
        }
        self = snapshot
    }

    /// The snapshot's parts, from one scan of `audio_features` that codes each row as it comes
    /// (``Builder``): the table is never held, so building the snapshot of a million tracks takes
    /// about 30 bytes a track rather than the table's 56 and the counts' 19.
    static func buildParts(_ db: Database) throws -> [String: SnapshotBlob] {
        let calibrations = try LibraryStore.localCalibrations(in: db).sorted { $0.key.rawValue < $1.key.rawValue }
        let numbering = SourceNumbering()
        var builder = Builder()
        try LibraryStore.scanCurrentFeatures(in: db, condition: nil, numbering: numbering) { row in
            builder.append(row, calibrations: calibrations, numbering: numbering)
        }
        return builder.finish(sources: numbering.keys.map { String(decoding: $0, as: UTF8.self) })
    }

    /// The parts of the snapshot, coded a row at a time: the track IDs as ascending differences,
    /// each feature column by ``PackedColumns/FloatColumnCoder``, the counts in their stored
    /// widths, and the table's ``Features/FeatureTable/ContentHasher``.
    struct Builder {
        private var ids: [UInt8] = []
        private var previousID: Int64 = 0
        private var rowCount = 0
        private var columns = [PackedColumns.FloatColumnCoder](
            repeating: PackedColumns.FloatColumnCoder(),
            count: FeatureTable.columnCount
        )
        private var hasher = FeatureTable.ContentHasher()
        private var preferred: [UInt8] = []
        private var coverage: [UInt16] = []
        private var outOfRange: [UInt16] = []
        /// The source masks, `maskWidth` bytes each: as wide as the sources numbered so far need.
        private var masks: [UInt8] = []
        private var maskWidth = 1
        private var row = [Float](repeating: .nan, count: FeatureTable.columnCount)

        mutating func append(
            _ current: LibraryStore.CurrentFeatureRow,
            calibrations: [(key: AudioFeature, value: FeatureCalibration)],
            numbering: SourceNumbering
        ) {
            var features = AudioFeatures()
            var bits: UInt16 = 0
            for (index, feature) in AudioFeature.allCases.enumerated() {
                features[feature] = current.values[index]
                if current.values[index] != nil { bits |= 1 << UInt16(index) }
            }
            // Local estimates are mapped onto the user's Spotify scale where a calibration exists.
            if current.source.starts(with: LibraryStore.localSourcePrefix) {
                for (feature, map) in calibrations {
                    if let value = features[feature] { features[feature] = map(value) }
                }
            }
            for (column, feature) in AudioFeature.all.enumerated() {
                row[column] = FeatureTable.storedValue(features[feature], of: feature)
                columns[column].append(row[column])
            }
            row.withUnsafeBufferPointer { hasher.combine(trackID: current.trackID, values: $0) }
            AscendingDeltas.append(current.trackID, after: previousID, to: &ids)
            previousID = current.trackID
            rowCount += 1
            preferred.append(UInt8(clamping: numbering.number(of: current.source)))
            coverage.append(bits)
            outOfRange.append(UInt16(truncatingIfNeeded: current.outOfRangeFlags))
            widenMasks(to: FeatureSnapshot.maskBytes(sourceCount: numbering.keys.count))
            appendMask(current.sourceMask, to: &masks, width: maskWidth)
        }

        /// Widens the stored masks to `width` bytes each.
        private mutating func widenMasks(to width: Int) {
            guard width > maskWidth else { return }
            var wider: [UInt8] = []
            wider.reserveCapacity(rowCount * width)
            for index in 0..<(masks.count / maskWidth) {
                var mask: UInt64 = 0
                for byte in 0..<maskWidth { mask |= UInt64(masks[index * maskWidth + byte]) << UInt64(8 * byte) }
                appendMask(mask, to: &wider, width: width)
            }
            (masks, maskWidth) = (wider, width)
        }

        /// Appends `mask` as an unsigned integer of `width` bytes, in the machine's byte order.
        private func appendMask(_ mask: UInt64, to bytes: inout [UInt8], width: Int) {
            switch width {
            case 1: bytes.append(UInt8(truncatingIfNeeded: mask))
            case 2: withUnsafeBytes(of: UInt16(truncatingIfNeeded: mask)) { bytes.append(contentsOf: $0) }
            case 4: withUnsafeBytes(of: UInt32(truncatingIfNeeded: mask)) { bytes.append(contentsOf: $0) }
            default: withUnsafeBytes(of: mask) { bytes.append(contentsOf: $0) }
            }
        }

        /// The parts, given the sources in the order of their numbers; the builder is spent.
        mutating func finish(sources: [String]) -> [String: SnapshotBlob] {
            var values = PackedColumns.matrixHeader(rowCount: rowCount, columnCount: FeatureTable.columnCount)
            // Reserved whole: grown by doubling, the array was copied into one twice its size, a
            // passing 130 MB at the end of a five-million-row import.
            values.reserveCapacity(values.count + columns.reduce(0) { $0 + $1.encodedByteCount })
            for column in columns.indices {
                columns[column].finish(into: &values)
                // Each column's codes are let go as soon as they are written.
                columns[column] = PackedColumns.FloatColumnCoder()
            }
            var parts = [
                "track_ids": SnapshotBlob(ids),
                "values": SnapshotBlob(values),
                "content_hash": SnapshotBlob(Data(hasher.finalize().utf8)),
            ]
            guard sources.count <= 64 else { return parts }
            widenMasks(to: FeatureSnapshot.maskBytes(sourceCount: sources.count))
            let names = PackedStrings.parts(sources)
            parts["sources"] = names.bytes
            parts["source_ends"] = names.ends
            parts["preferred"] = SnapshotBlob(preferred)
            parts["coverage"] = SnapshotBlob(coverage)
            parts["out_of_range"] = SnapshotBlob(outOfRange)
            parts["source_masks"] = SnapshotBlob(masks)
            return parts
        }
    }

    /// The bytes a source mask is stored in, for `sourceCount` sources (``packedMasks(_:sourceCount:)``).
    static func maskBytes(sourceCount: Int) -> Int {
        switch sourceCount {
        case ...8: 1
        case ...16: 2
        case ...32: 4
        default: 8
        }
    }

    /// The parts to save. The track IDs are ascending differences (about a byte a track), the
    /// out-of-range flags 16 bits (one per feature, as `coverage`), and the source masks as wide
    /// as the number of sources needs: on a million tracks, the IDs and counts take 7 MB where
    /// 8-byte integers took 27 MB.
    var parts: [String: SnapshotBlob] {
        var parts = [
            "track_ids": SnapshotBlob.ascending(table.trackIDs),
            "values": .floats(table.values, columnCount: FeatureTable.columnCount),
            "content_hash": SnapshotBlob(Data(table.contentHash().utf8)),
        ]
        guard hasStatistics else { return parts }
        let names = PackedStrings.parts(sources)
        parts["sources"] = names.bytes
        parts["source_ends"] = names.ends
        parts["preferred"] = SnapshotBlob(preferred)
        parts["coverage"] = SnapshotBlob(coverage)
        parts["out_of_range"] = SnapshotBlob(outOfRange.map { UInt16(truncatingIfNeeded: $0) })
        parts["source_masks"] = Self.packedMasks(sourceMasks, sourceCount: sources.count)
        return parts
    }

    /// The masks in the fewest bytes that hold `sourceCount` bits.
    static func packedMasks(_ masks: [UInt64], sourceCount: Int) -> SnapshotBlob {
        switch sourceCount {
        case ...8: SnapshotBlob(masks.map { UInt8(truncatingIfNeeded: $0) })
        case ...16: SnapshotBlob(masks.map { UInt16(truncatingIfNeeded: $0) })
        case ...32: SnapshotBlob(masks.map { UInt32(truncatingIfNeeded: $0) })
        default: SnapshotBlob(masks)
        }
    }

    /// The masks of ``packedMasks(_:sourceCount:)``, or `nil` when the part is not `count` of them.
    static func unpackedMasks(_ parts: SnapshotParts, count: Int, sourceCount: Int) -> [UInt64]? {
        let masks: [UInt64] =
            switch sourceCount {
            case ...8: parts.array("source_masks", of: UInt8.self).map(UInt64.init)
            case ...16: parts.array("source_masks", of: UInt16.self).map(UInt64.init)
            case ...32: parts.array("source_masks", of: UInt32.self).map(UInt64.init)
            default: parts.array("source_masks")
            }
        return masks.count == count ? masks : nil
    }

    /// Decodes the snapshot's parts, or returns `nil` when they do not fit together.
    ///
    /// Without a `values` part (a read of ``countParts``), the table stays empty and only the
    /// counts are decoded.
    init?(parts: SnapshotParts) {
        guard let ids = parts.ascending("track_ids") else { return nil }
        trackIDs = ids
        if !parts.contains("values") {
            table = FeatureTable()
        } else {
            guard let values = parts.floats("values", columnCount: FeatureTable.columnCount),
                values.count == ids.count * FeatureTable.columnCount
            else { return nil }
            table = FeatureTable(trackIDs: ids, values: values)
        }
        guard let sources = PackedStrings.strings(bytes: parts["sources"], ends: parts["source_ends"]) else { return }
        let preferred: [UInt8] = parts.array("preferred")
        let coverage: [UInt16] = parts.array("coverage")
        let outOfRange = parts.array("out_of_range", of: UInt16.self).map(Int64.init)
        guard let masks = Self.unpackedMasks(parts, count: ids.count, sourceCount: sources.count),
            [preferred.count, coverage.count, outOfRange.count].allSatisfy({ $0 == ids.count }),
            !sources.isEmpty || ids.isEmpty, sources.count <= 64,
            preferred.allSatisfy({ Int($0) < sources.count }),
            masks.allSatisfy({ sources.count == 64 || $0 >> UInt64(sources.count) == 0 })
        else { return nil }
        (self.sources, self.preferred, self.coverage, self.outOfRange, self.sourceMasks) =
            (sources, preferred, coverage, outOfRange, masks)
    }

    /// The counts over the rows `keep` marks, or over every row when `keep` is `nil`.
    func statistics(keeping keep: [Bool]?) -> FeatureStatistics {
        var statistics = FeatureStatistics()
        var preferredCounts = [Int](repeating: 0, count: sources.count)
        var rowCounts = [Int](repeating: 0, count: sources.count)
        for row in trackIDs.indices where keep?[row] ?? true {
            let bits = coverage[row]
            for index in statistics.coverage.indices where bits & (1 << UInt16(index)) != 0 {
                statistics.coverage[index] += 1
            }
            if outOfRange[row] != 0 { statistics.outOfRangeFlags.append(Int(outOfRange[row])) }
            preferredCounts[Int(preferred[row])] += 1
            var mask = sourceMasks[row]
            while mask != 0 {
                rowCounts[mask.trailingZeroBitCount] += 1
                mask &= mask - 1
            }
        }
        for (number, source) in sources.enumerated() {
            if preferredCounts[number] > 0 { statistics.preferred[source] = preferredCounts[number] }
            if rowCounts[number] > 0 { statistics.rows[source] = rowCounts[number] }
        }
        return statistics
    }
}

extension LibraryStore {
    /// The counts of the current feature rows of the tracks in `scope`: from the `features`
    /// snapshot, or by a scan when the store has too many sources for it.
    func featureStatistics(scope: TrackScope) throws -> FeatureStatistics {
        // The counts only: a read without the values, most of the snapshot's bytes (on a million
        // tracks, `library` went from about 0.9 to 0.6 s).
        let snapshot = try featureSnapshot(only: FeatureSnapshot.countParts)
        return try featureStatistics(of: snapshot, scope: scope, selection: try selection(of: scope))
    }

    /// The statistics of `snapshot` for `scope`, cut by `selection` (``selection(of:)``).
    func featureStatistics(
        of snapshot: FeatureSnapshot,
        scope: TrackScope,
        selection: ScopeSelection?
    ) throws -> FeatureStatistics {
        guard snapshot.hasStatistics else {
            return try read { db in
                try Self.currentFeatureStatistics(
                    in: db,
                    condition: scope == .all ? nil : condition(for: scope, in: db)
                )
            }
        }
        return snapshot.statistics(keeping: selection?.mask(of: snapshot.trackIDs))
    }
}
