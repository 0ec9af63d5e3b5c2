import Foundation
import GRDB
import Testing
import VibesTestSupport

@testable import Ingest

/// Runs `body` with a fresh store in a fresh temporary folder.
func withStore<T>(_ body: (LibraryStore) throws -> T) throws -> T {
    try withTemporaryDirectory { folder in
        let store = try LibraryStore(path: folder + "/library.sqlite")
        return try body(store)
    }
}

/// Runs `body` with the store an earlier version left in a fresh temporary folder: the schema
/// migrated up to `migration`, holding what `write` adds, then opened (and so migrated the rest of
/// the way) by this version. With `next`, the store is first migrated up to `next.migration` and
/// read by `next.inspect`, to see that migration's own effect before the later ones run.
func withStoreFromEarlierVersion<T>(
    migratedUpTo migration: String,
    thenUpTo next: (migration: String, inspect: (Database) throws -> Void)? = nil,
    writing write: (Database) throws -> Void,
    _ body: (LibraryStore) throws -> T
) throws -> T {
    try withTemporaryDirectory { folder in
        let path = folder + "/library.sqlite"
        let queue = try DatabaseQueue(path: path)
        try LibraryStore.migrator.migrate(queue, upTo: migration)
        try queue.write(write)
        // One migration's own effect, before the later ones run.
        if let next {
            try LibraryStore.migrator.migrate(queue, upTo: next.migration)
            try queue.read(next.inspect)
        }
        try queue.close()
        return try body(try LibraryStore(path: path))
    }
}

/// Every row of every table, in primary-key order: two stores with equal snapshots hold the same data.
func contentSnapshot(_ store: LibraryStore) throws -> [String: [String]] {
    try store.database.read { db in
        let tables = try String.fetchAll(
            db,
            sql:
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'grdb_migrations'"
        )
        var snapshot: [String: [String]] = [:]
        for table in tables {
            snapshot[table] = try Row.fetchAll(db, sql: "SELECT * FROM \(table) ORDER BY 1, 2").map { $0.description }
        }
        return snapshot
    }
}

/// The number of rows `sql` counts.
func count(_ store: LibraryStore, _ sql: String, _ arguments: StatementArguments = []) throws -> Int {
    try store.database.read { db in try Int.fetchOne(db, sql: sql, arguments: arguments) ?? 0 }
}

/// The 1-based character column at which `needle` first appears on line `line` of a file.
func column(of needle: String, onLine line: Int, of path: String) throws -> Int {
    let data = try #require(FileManager.default.contents(atPath: path))
    let text = String(decoding: data, as: UTF8.self)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    let target = lines[line - 1]
    let range = try #require(target.range(of: needle))
    return target.distance(from: target.startIndex, to: range.lowerBound) + 1
}

/// Rewrites the `Float` values of part `part` of snapshot `name` with `change`, so that a read
/// served from the snapshot shows the change.
func rewriteSnapshotFloats(
    _ store: LibraryStore,
    name: String,
    part: String,
    _ change: (inout [Float]) -> Void
) throws {
    try store.database.write { db in
        let arguments: StatementArguments = [name, part]
        let data = try Data.fetchOne(
            db,
            sql: "SELECT data FROM snapshots WHERE name = ? AND part = ?",
            arguments: arguments
        )
        // The part is a dictionary-coded matrix: its column count is its second 32-bit word.
        let bytes = data ?? Data()
        let columnCount =
            bytes.count >= 8 ? bytes.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: 4, as: UInt32.self)) } : 1
        var values = bytes.withUnsafeBytes { PackedColumns.floats($0, columnCount: columnCount) } ?? []
        change(&values)
        try db.execute(
            sql: "UPDATE snapshots SET data = ? WHERE name = ? AND part = ?",
            arguments: [Data(PackedColumns.dictionary(values, columnCount: columnCount)), name, part]
        )
    }
}
