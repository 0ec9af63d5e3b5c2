import Foundation
import GRDB

extension LibraryStore {
    /// Writes through one ``LibraryWriter`` in one transaction, recording the writes as an import
    /// run of `path`: what a test or a tool that makes its rows itself uses instead of a file.
    ///
    /// - Parameters:
    ///   - path: The name the run records as its source.
    ///   - format: The format the run records.
    ///   - sha256: The content hash the run records (a later import of the same hash is
    ///     ``ImportSummary/Status/unchanged``).
    ///   - fetchedAt: When the data was fetched, ISO 8601 UTC.
    ///   - body: The writes.
    /// - Returns: What `body` returns.
    /// - Throws: ``StoreError`` when the write fails, or what `body` throws (nothing is written then).
    public func withImportRun<T>(
        path: String,
        format: ImportFormat,
        sha256: String,
        fetchedAt: String,
        _ body: (LibraryWriter) throws -> T
    ) throws -> T {
        try write { db in
            let runID = try Self.insertImportRun(path: path, format: format, sha256: sha256, at: fetchedAt, in: db)
            return try body(try LibraryWriter(db, runID: runID, fetchedAt: fetchedAt))
        }
    }

    /// Records the start of an import run and returns its ID; the run's counts are filled in
    /// when it ends.
    static func insertImportRun(
        path: String,
        format: ImportFormat,
        sha256: String,
        at startedAt: String,
        in db: Database
    ) throws -> Int64 {
        try db.execute(
            sql: "INSERT INTO import_runs (path, format, sha256, started_at, finished_at) VALUES (?, ?, ?, ?, ?)",
            arguments: [path, format.rawValue, sha256, startedAt, startedAt]
        )
        return db.lastInsertedRowID
    }
}
