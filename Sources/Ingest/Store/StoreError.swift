import GRDB

/// An error of the library store, with the file and the SQLite cause.
public enum StoreError: Error, Equatable, CustomStringConvertible {
    /// The database file cannot be created, opened or migrated.
    case cannotOpen(path: String, reason: String)
    /// A statement failed; `sql` is the statement text, without its arguments.
    case sqlite(code: Int32, message: String, sql: String?)
    /// Something the caller named does not exist in the store.
    case notFound(what: String)
    /// The file is another application's SQLite database; it was left untouched.
    case foreignDatabase(path: String)
    /// The store was written by a newer version, with migrations this one does not know; it was
    /// left untouched.
    case newerSchema(path: String, unknownMigrations: [String])

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason):
            "Cannot open the library store at \(path): \(reason). Check the path (--db or $VIBES_DB) and its permissions."
        case .sqlite(let code, let message, let sql):
            "The library store failed (SQLite code \(code)): \(message)" + (sql.map { " in `\($0)`" } ?? "")
        case .notFound(let what):
            "\(what) is not in the library store."
        case .foreignDatabase(let path):
            "\(path) is another application's SQLite database, not a vibes-analyze library; it was left as it was."
        case .newerSchema(let path, let unknown):
            "The library at \(path) was written by a newer version of vibes-analyze (schema steps this one does not "
                + "know: \(unknown.joined(separator: ", "))); it was left as it was. Use the newer version."
        }
    }

    /// Wraps a GRDB error, keeping the SQL text but never its arguments.
    init(_ error: DatabaseError) {
        self = .sqlite(
            code: error.extendedResultCode.rawValue,
            message: error.message ?? "unknown error",
            sql: error.sql
        )
    }
}
