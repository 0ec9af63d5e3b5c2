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
    private let stored: [String: Data]
    private let database: Database?
    private let rowIDs: [String: Int64]

    /// Parts held in memory.
    init(_ parts: [String: Data]) {
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
        if let data = stored[part] { return data }
        guard let database, let rowID = rowIDs[part] else { return nil }
        return try? BlobReader.read(database, table: "snapshots", column: "data", rowID: rowID)
    }

    /// `part` as packed values of `T`: empty when it is absent, cannot be read, or its size is not
    /// a whole number of values (a damaged store; the decoder's count checks then refuse it).
    func array<T: BitwiseCopyable>(_ part: String, of type: T.Type = T.self) -> [T] {
        if let data = stored[part] {
            return data.count % MemoryLayout<T>.stride == 0 ? PackedArray.values(data) : []
        }
        guard let database, let rowID = rowIDs[part] else { return [] }
        return (try? BlobReader.readArray(database, table: "snapshots", column: "data", rowID: rowID)) ?? []
    }
}
