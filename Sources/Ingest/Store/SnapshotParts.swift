import Foundation
import GRDB

/// The parts of a snapshot for a decoder: either bytes in memory (a snapshot just built), or
/// BLOBs in the store, read when asked for.
///
/// Read from the store, ``array(_:)`` puts a part's BLOB straight into the array it returns. Read
/// first into a `Data` and then copied into an array, each of a million tracks' 48 MB value parts
/// was fresh memory twice, faulted in and cleared by the kernel: about a tenth of a million-track
/// `recommend`, and 48 MB of a `report`'s peak.
///
/// A store-backed value is only valid inside the database access that made it.
struct SnapshotParts {
    private let stored: [String: SnapshotBlob]
    private let database: Database?
    private let rowIDs: [String: Int64]

    /// Parts held in memory.
    init(_ parts: [String: SnapshotBlob]) {
        stored = parts
        database = nil
        rowIDs = [:]
    }

    /// Parts in the `snapshots` table of `db`, by row ID.
    init(rowIDs: [String: Int64], in db: Database) {
        stored = [:]
        database = db
        self.rowIDs = rowIDs
    }

    /// Whether the part is there.
    func contains(_ part: String) -> Bool {
        stored[part] != nil || rowIDs[part] != nil
    }

    /// The bytes of `part`, or `nil` when it is absent or cannot be read.
    subscript(part: String) -> Data? {
        if let blob = stored[part] { return blob.data }
        guard let database, let rowID = rowIDs[part] else { return nil }
        return try? BlobIO.read(database, table: "snapshots", column: "data", rowID: rowID)
    }

    /// `part` as packed values of `T`: empty when it is absent, cannot be read, or its size is not
    /// a whole number of values (a damaged store; the decoder's count checks then refuse it).
    func array<T: BitwiseCopyable>(_ part: String, of type: T.Type = T.self) -> [T] {
        if let blob = stored[part] { return blob.array() ?? [] }
        guard let database, let rowID = rowIDs[part] else { return [] }
        return (try? BlobIO.readArray(database, table: "snapshots", column: "data", rowID: rowID)) ?? []
    }

    /// `part` as strictly ascending integers (``AscendingDeltas``), or `nil` when it is absent or
    /// does not hold them.
    func ascending(_ part: String) -> [Int64]? {
        guard contains(part) else { return nil }
        return array(part, of: UInt8.self).withUnsafeBytes { AscendingDeltas.decode($0) }
    }

    /// `part` as integers of ``PackedColumns/narrow(_:)``: empty when it is absent or does not hold
    /// them (the decoder's count checks then refuse it).
    func integers<T: FixedWidthInteger>(_ part: String, of type: T.Type = T.self) -> [T] {
        guard contains(part) else { return [] }
        return array(part, of: UInt8.self).withUnsafeBytes { PackedColumns.integers($0) } ?? []
    }

    /// `part` as the row-major `Float` matrix of ``PackedColumns/dictionary(_:columnCount:)``, or
    /// `nil` when it is absent or does not hold one `columnCount` columns wide.
    func floats(_ part: String, columnCount: Int) -> [Float]? {
        guard contains(part) else { return nil }
        return array(part, of: UInt8.self).withUnsafeBytes { PackedColumns.floats($0, columnCount: columnCount) }
    }
}

/// One part of a snapshot as built: packed values, kept in the array they were built in until
/// they are written into their BLOB (``BlobIO/write(_:_:table:column:rowID:)``).
///
/// A part first copied into a `Data`, then bound to an insert (which copies it) and assembled into
/// a record (which copies it again) was four copies of a million tracks' 48 MB of values at once:
/// most of the peak memory of an `import`, which builds the snapshots at its end.
struct SnapshotBlob: Equatable {
    /// The size in bytes.
    let byteCount: Int
    private let access: (_ body: (UnsafeRawBufferPointer) -> Void) -> Void

    /// The bytes as the array they were built in, for a part built as bytes; `nil` for the others.
    let bytes: [UInt8]?

    /// The values of `array`, in the machine's byte order; the array is shared, not copied.
    init<T: BitwiseCopyable>(_ array: [T]) {
        byteCount = array.count * MemoryLayout<T>.stride
        access = { body in array.withUnsafeBytes { body($0) } }
        // The same array when it is one of bytes (a cast `as? [UInt8]` may copy element by element).
        bytes = T.self == UInt8.self ? unsafeBitCast(array, to: [UInt8].self) : nil
    }

    init(_ data: Data) {
        byteCount = data.count
        access = { body in data.withUnsafeBytes { body($0) } }
        bytes = nil
    }

    /// Calls `body` with the bytes.
    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        var result: R?
        access { result = body($0) }
        return result!
    }

    /// A copy of the bytes.
    var data: Data { withUnsafeBytes { Data($0) } }

    /// A copy of the bytes as packed values of `T`, or `nil` when they are not a whole number.
    func array<T: BitwiseCopyable>(of type: T.Type = T.self) -> [T]? {
        guard byteCount % MemoryLayout<T>.stride == 0 else { return nil }
        return withUnsafeBytes { bytes in
            [T](unsafeUninitializedCapacity: byteCount / MemoryLayout<T>.stride) { buffer, initialized in
                UnsafeMutableRawBufferPointer(buffer).copyMemory(from: bytes)
                initialized = buffer.count
            }
        }
    }

    static func == (lhs: SnapshotBlob, rhs: SnapshotBlob) -> Bool {
        lhs.byteCount == rhs.byteCount && lhs.withUnsafeBytes { a in rhs.withUnsafeBytes { b in a.elementsEqual(b) } }
    }
}

extension SnapshotBlob {
    /// Strictly ascending integers as ``AscendingDeltas``: track IDs take about a byte each, not 8.
    static func ascending(_ values: some Sequence<Int64>) -> SnapshotBlob {
        SnapshotBlob(AscendingDeltas.encode(values))
    }

    /// Integers in as few bytes as their range needs (``PackedColumns/narrow(_:)``).
    static func narrow<T: FixedWidthInteger>(_ values: [T]) -> SnapshotBlob {
        SnapshotBlob(PackedColumns.narrow(values))
    }

    /// A row-major `Float` matrix, column by column as tables of distinct values
    /// (``PackedColumns/dictionary(_:columnCount:)``).
    static func floats(_ values: [Float], columnCount: Int) -> SnapshotBlob {
        SnapshotBlob(PackedColumns.dictionary(values, columnCount: columnCount))
    }
}
