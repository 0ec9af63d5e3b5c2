import Foundation
import GRDB

/// An error of the library store, with the file and the SQLite cause.
public enum StoreError: Error, Equatable, CustomStringConvertible {
    /// The database file cannot be created, opened or migrated.
    case cannotOpen(path: String, reason: String)
    /// A statement failed; `sql` is the statement text, without its arguments.
    case sqlite(path: String, code: Int32, message: String, sql: String?)
    /// Another program held the store's write lock for longer than this one would wait.
    case busy(path: String, holder: StoreWriter?)
    /// Something the caller named does not exist in the store.
    case notFound(what: String)
    /// There is no store at the path, and the caller asked not to create one.
    case missingStore(path: String)
    /// The file is another application's SQLite database; it was left untouched.
    case foreignDatabase(path: String)
    /// Part of the store does not read back as it was written (`what` says which part).
    case damaged(path: String, what: String)
    /// The store was written by a newer version (`writtenBy`, when it said), with a schema this
    /// one does not know; it was left untouched.
    case newerSchema(path: String, writtenBy: String?, schema: Int, unknownMigrations: [String])
    /// The file system that holds the store has no room left (`freeBytes` free, when known):
    /// SQLite could not write, or could not make the shared-memory file that even reading needs.
    case diskFull(path: String, freeBytes: Int64?)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason):
            "Cannot open the library store at \(path): \(reason)."
        case .sqlite(let path, let code, let message, let sql):
            "The library store \(path) failed (SQLite code \(code)): \(message)" + (sql.map { " in `\($0)`" } ?? "")
        case .busy(let path, let holder):
            "The library store \(path) is busy: "
                + (holder.map { "another vibes-analyze (\($0.activity), pid \($0.processID))" } ?? "another program")
                + " is writing to it."
        case .notFound(let what):
            "\(what) is not in the library store."
        case .missingStore(let path):
            "There is no library at \(path); nothing was created."
        case .foreignDatabase(let path):
            "\(path) is another application's SQLite database, not a vibes-analyze library; it was left as it was."
        case .damaged(let path, let what):
            "Part of the library store \(path) is damaged: \(what)."
        case .diskFull(let path, let freeBytes):
            "The disk that holds the library store \(path) is full"
                + (freeBytes.map { " (\(ByteCountFormatter.string(fromByteCount: $0, countStyle: .file)) free)" } ?? "")
                + "; SQLite cannot write there, nor make the shared-memory file it needs even to read."
                + " Nothing in the store was changed"
        case .newerSchema(let path, let writtenBy, let schema, let unknown):
            "The library at \(path) was written by "
                + (writtenBy.map { "vibes-analyze \($0)" } ?? "a newer vibes-analyze")
                + " (schema \(schema)\(unknown.isEmpty ? "" : ": " + unknown.joined(separator: ", "))); this is "
                + "vibes-analyze \(LibraryStore.softwareVersion) (schema \(LibraryStore.schemaVersion)). It was left as it was."
        }
    }

    /// The SQLite cause in words, for ``cannotOpen(path:reason:)``.
    var reason: String {
        switch self {
        case .sqlite(_, let code, let message, _): "\(message) (SQLite code \(code))"
        default: description
        }
    }

    /// Whether a statement broke a constraint (`SQLITE_CONSTRAINT`, a foreign key or a unique
    /// key, say).
    var isConstraintViolation: Bool {
        if case .sqlite(_, let code, _, _) = self { return code & 0xFF == 19 }
        return false
    }

    /// Wraps a GRDB error, keeping the SQL text but never its arguments; a lock held past the wait
    /// becomes ``busy(path:holder:)``.
    public init(_ error: DatabaseError, path: String) {
        let freeBytes =
            error.resultCode == .SQLITE_FULL || error.resultCode == .SQLITE_IOERR ? Self.freeBytes(besides: path) : nil
        if error.resultCode == .SQLITE_FULL
            || (error.resultCode == .SQLITE_IOERR && freeBytes.map { $0 < 1 << 20 } == true)
        {
            self = .diskFull(path: path, freeBytes: freeBytes)
        } else if error.resultCode == .SQLITE_BUSY {
            self = .busy(path: path, holder: LibraryStore.writer(of: path))
        } else {
            self = .sqlite(
                path: path,
                code: error.extendedResultCode.rawValue,
                message: error.message ?? "unknown error",
                sql: error.sql
            )
        }
    }

    /// The bytes an unprivileged program may still write on the file system of `path` (or of its
    /// folder when the file does not exist), or `nil` when that cannot be told.
    static func freeBytes(besides path: String) -> Int64? {
        var info = statvfs()
        let folder = (path as NSString).deletingLastPathComponent
        guard statvfs(path, &info) == 0 || statvfs(folder.isEmpty ? "." : folder, &info) == 0 else { return nil }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }
}
