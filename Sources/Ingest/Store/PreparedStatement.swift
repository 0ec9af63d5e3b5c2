import Foundation
import GRDB
import GRDBSQLite

// The only file of `Ingest` that calls the SQLite C API. Bulk imports bind and step prepared
// statements directly: building a `StatementArguments` array per row costs more than the insert.

/// A prepared statement for bulk writes, bound by position and stepped without allocating.
final class PreparedStatement {
    private let statement: Statement
    private let connection: OpaquePointer?
    private var handle: OpaquePointer { statement.sqliteStatement }
    private static let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

    init(_ db: Database, sql: String) throws {
        statement = try db.makeStatement(sql: sql)
        connection = db.sqliteConnection
    }

    func bind(_ index: Int32, _ value: Int64?) {
        if let value { sqlite3_bind_int64(handle, index, value) } else { sqlite3_bind_null(handle, index) }
    }

    func bind(_ index: Int32, _ value: Int?) {
        bind(index, value.map(Int64.init))
    }

    func bind(_ index: Int32, _ value: Bool?) {
        bind(index, value.map { $0 ? Int64(1) : 0 })
    }

    func bind(_ index: Int32, _ value: Double?) {
        if let value, value.isFinite {
            sqlite3_bind_double(handle, index, value)
        } else {
            sqlite3_bind_null(handle, index)
        }
    }

    func bind(_ index: Int32, _ value: String?) {
        guard var value else {
            sqlite3_bind_null(handle, index)
            return
        }
        value.withUTF8 { bytes in
            _ = bytes.withMemoryRebound(to: CChar.self) { text in
                if let base = text.baseAddress {
                    sqlite3_bind_text(handle, index, base, Int32(text.count), PreparedStatement.transient)
                } else {
                    sqlite3_bind_text(handle, index, "", 0, PreparedStatement.transient)
                }
            }
        }
    }

    /// Runs the statement to completion and returns the number of rows it changed.
    @discardableResult
    func execute() throws -> Int {
        defer { sqlite3_reset(handle) }
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE || code == SQLITE_ROW else { throw failure(code) }
        return Int(sqlite3_changes(connection))
    }

    /// Steps once and reads integer columns of the first row, or returns `nil` when there is none.
    func firstRowInt64(columns: Int32 = 1) throws -> [Int64?]? {
        defer { sqlite3_reset(handle) }
        let code = sqlite3_step(handle)
        if code == SQLITE_DONE { return nil }
        guard code == SQLITE_ROW else { throw failure(code) }
        return (0..<columns).map { column in
            sqlite3_column_type(handle, column) == SQLITE_NULL ? nil : sqlite3_column_int64(handle, column)
        }
    }

    /// Steps once and reads the first row's columns as database values, or `nil` when there is none.
    func firstRow() throws -> [DatabaseValue]? {
        defer { sqlite3_reset(handle) }
        let code = sqlite3_step(handle)
        if code == SQLITE_DONE { return nil }
        guard code == SQLITE_ROW else { throw failure(code) }
        return (0..<sqlite3_column_count(handle)).map { column in
            switch sqlite3_column_type(handle, column) {
            case SQLITE_INTEGER: sqlite3_column_int64(handle, column).databaseValue
            case SQLITE_FLOAT: sqlite3_column_double(handle, column).databaseValue
            case SQLITE_TEXT: String(cString: sqlite3_column_text(handle, column)).databaseValue
            default: .null
            }
        }
    }

    /// Binds `arguments` (GRDB's, positional or named) for the next run.
    func bind(_ arguments: StatementArguments) throws {
        try statement.setArguments(arguments)
    }

    /// Steps through every row, calling `body` with a reader of the current row's columns.
    func forEachRow(_ body: (borrowing RowReader) throws -> Void) throws {
        defer { sqlite3_reset(handle) }
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else { throw failure(code) }
            try body(RowReader(handle: handle))
        }
    }

    /// The columns of the row a statement stands on, read without conversion through `DatabaseValue`:
    /// a million rows of 14 columns read in a fraction of the time `Row` takes.
    struct RowReader: ~Copyable {
        let handle: OpaquePointer?

        func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
        func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
        func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
        func optionalDouble(_ column: Int32) -> Double? { isNull(column) ? nil : double(column) }
        /// A feature column's value: a ``DecimalCode`` decoded, a `REAL` as it is.
        func decimal(_ column: Int32) -> Double? {
            switch sqlite3_column_type(handle, column) {
            case SQLITE_NULL: nil
            case SQLITE_INTEGER: DecimalCode.value(ofCode: int64(column))
            default: double(column)
            }
        }

        /// The column's text, all of its bytes (empty when NULL).
        func text(_ column: Int32) -> String {
            guard let pointer = sqlite3_column_text(handle, column) else { return "" }
            return String(
                decoding: UnsafeBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(handle, column))),
                as: UTF8.self
            )
        }

        /// The column as a `String`, or `nil` when it is NULL.
        func string(_ column: Int32) -> String? { isNull(column) ? nil : text(column) }
    }

    /// The rowid of the last row inserted on this connection.
    var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(connection) }

    private func failure(_ code: Int32) -> StoreError {
        let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? "unknown error"
        let path = connection.flatMap { sqlite3_db_filename($0, "main") }.map { String(cString: $0) } ?? "?"
        return .sqlite(path: path, code: code, message: message, sql: statement.sql)
    }
}

/// Reads and writes whole BLOBs straight from and into one buffer, through SQLite's incremental
/// I/O.
enum BlobIO {
    /// The BLOB in `column` of row `rowID` of `table`, read in the current transaction.
    ///
    /// Fetched as a column, a BLOB of 48 MB is first assembled by SQLite from its overflow pages
    /// into a buffer of its own and then copied into the `Data`: twice the fresh memory the kernel
    /// must fault in and clear. Read this way it lands in the `Data` directly.
    static func read(_ db: Database, table: String, column: String, rowID: Int64) throws -> Data {
        try withBlob(db, table: table, column: column, rowID: rowID) { blob, size in
            var data = Data(count: size)
            guard size > 0 else { return data }
            let code = data.withUnsafeMutableBytes { sqlite3_blob_read(blob, $0.baseAddress, Int32(size), 0) }
            guard code == SQLITE_OK else { throw failure(code, db.sqliteConnection, table: table) }
            return data
        }
    }

    /// The BLOB in `column` of row `rowID` of `table` as packed values of `T`, read straight into
    /// the array's storage; `nil` when its size is not a whole number of values.
    static func readArray<T: BitwiseCopyable>(
        _ db: Database,
        table: String,
        column: String,
        rowID: Int64
    ) throws -> [T]? {
        try withBlob(db, table: table, column: column, rowID: rowID) { blob, size in
            guard size % MemoryLayout<T>.stride == 0 else { return nil }
            let count = size / MemoryLayout<T>.stride
            guard count > 0 else { return [] }
            var code = SQLITE_OK
            let values = [T](unsafeUninitializedCapacity: count) { buffer, initialized in
                code = sqlite3_blob_read(blob, buffer.baseAddress, Int32(size), 0)
                // Bitwise-copyable values need no deinitialisation: on a failed read the array is
                // thrown away as it is.
                initialized = count
            }
            guard code == SQLITE_OK else { throw failure(code, db.sqliteConnection, table: table) }
            return values
        }
    }

    /// Writes `blob` into the BLOB in `column` of row `rowID` of `table`, which must be a
    /// `zeroblob` of its size: straight from the part's array into the pages, where binding it to
    /// an insert made SQLite copy it twice (the bound value, then the record).
    static func write(_ blob: SnapshotBlob, _ db: Database, table: String, column: String, rowID: Int64) throws {
        try withBlob(db, table: table, column: column, rowID: rowID, writable: true) { handle, size in
            precondition(size == blob.byteCount, "the row was inserted with a zeroblob of the part's size")
            guard size > 0 else { return }
            let code = blob.withUnsafeBytes { sqlite3_blob_write(handle, $0.baseAddress, Int32(size), 0) }
            guard code == SQLITE_OK else { throw failure(code, db.sqliteConnection, table: table) }
        }
    }

    /// Opens the BLOB (for reading unless `writable`) and passes it with its size in bytes.
    private static func withBlob<T>(
        _ db: Database,
        table: String,
        column: String,
        rowID: Int64,
        writable: Bool = false,
        _ body: (OpaquePointer, Int) throws -> T
    ) throws -> T {
        let connection = db.sqliteConnection
        var blob: OpaquePointer?
        let opened = sqlite3_blob_open(connection, "main", table, column, rowID, writable ? 1 : 0, &blob)
        defer { sqlite3_blob_close(blob) }
        guard opened == SQLITE_OK, let blob else { throw failure(opened, connection, table: table) }
        return try body(blob, Int(sqlite3_blob_bytes(blob)))
    }

    private static func failure(_ code: Int32, _ connection: OpaquePointer?, table: String) -> StoreError {
        let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? "unknown error"
        let path = connection.flatMap { sqlite3_db_filename($0, "main") }.map { String(cString: $0) } ?? "?"
        return .sqlite(path: path, code: code, message: message, sql: "(a BLOB of \(table))")
    }
}
