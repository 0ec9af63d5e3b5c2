import Features
import Foundation
import GRDB

extension LibraryStore {
    /// Imports one file into the store, atomically.
    ///
    /// The format is detected from the file's header or shape unless `options.format` names it.
    /// The whole file is written in one transaction: a file with a malformed row is rejected as a
    /// whole, leaving the store as it was, unless `options.skipInvalid` is set, in which case the
    /// good rows land and every rejected row is counted and recorded on the import run. A file
    /// whose content (SHA-256) was imported before is not read again (`status == .unchanged`)
    /// unless `options.force` is set; even then, upserts make a repeated import change nothing.
    ///
    /// A CSV is never held whole: a first pass reads it in chunks for its SHA-256 and encoding,
    /// a second parses and writes it a chunk at a time (``CSVReader``), so memory does not grow
    /// with the file. JSON files (account data, saved API answers: megabytes at most) are read
    /// whole, as their parser needs.
    ///
    /// - Parameters:
    ///   - path: The file, as the user named it (errors repeat it).
    ///   - options: Format, scale, and what to do with bad rows.
    /// - Returns: What the import read and wrote.
    /// - Throws: ``ImportError`` naming `file:line:column` and what was expected, or ``StoreError``.
    public func importFile(at path: String, options: ImportOptions = ImportOptions()) throws -> ImportSummary {
        let clock = ContinuousClock()
        let started = clock.now
        var phaseStart = started
        var phases: [(name: String, duration: Duration)] = []
        func endPhase(_ name: String) {
            let now = clock.now
            phases.append((name, now - phaseStart))
            phaseStart = now
        }
        let startedAt = Date()
        let file = try ImportFile(path: path)
        let scan = try file.scan(chunkSize: options.chunkSize)
        endPhase("scan")
        let sha256 = scan.sha256
        let fileName = (path as NSString).lastPathComponent

        if !options.force, let previous = try previousRun(sha256: sha256) {
            var summary = ImportSummary(
                path: path,
                format: ImportFormat(rawValue: previous.format) ?? .featuresCSV,
                status: .unchanged,
                runID: previous.id,
                sha256: sha256
            )
            summary.notes.append(
                "the same content was imported on \(previous.finishedAt) as run \(previous.id); nothing changed (use --force to read it again)"
            )
            summary.seconds = (clock.now - started).seconds
            summary.phases = phases
            return summary
        }

        let encoding: TextDecoding.Encoding
        switch scan.encoding {
        case .success(let found): encoding = found
        case .failure(let problem):
            let failure = try file.failure(at: problem)
            throw ImportError(file: path, line: failure.line, column: failure.column, message: failure.message)
        }
        func makeStream() -> TextStream { TextStream(file: file, encoding: encoding, chunkSize: options.chunkSize) }
        // JSON is parsed whole: its bytes are read only when the file is JSON.
        var json: [UInt8]?
        let format: ImportFormat
        if let given = options.format {
            format = given
        } else {
            switch try makeStream().firstTextByte() {
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                json = try file.decodedText()
                format = try ImportFormat.detect(path: path, bytes: json!)
            default:
                format = try ImportFormat.detect(path: path, reader: CSVReader(stream: makeStream()))
            }
        }
        let isTabular = format == .featuresCSV || format == .exportify
        if !isTabular && json == nil { json = try file.decodedText() }
        endPhase("detect")

        let fetchedAt = LibraryStore.timestamp(startedAt)
        var summary = ImportSummary(path: path, format: format, status: .imported, sha256: sha256)
        summary.encoding = encoding.rawValue
        if encoding == .windows1252 {
            summary.notes.append("the file is not UTF-8; it was read as Windows-1252 (Latin-1)")
        }
        try withTemporaryStorageInFiles {
            try withForeignKeyChecksOff {
                try write { db in
                    try Self.withCacheSize(Self.importCacheKiB, in: db) {
                        try Self.withSnapshotTriggersSuspended(in: db) {
                            try withWriterNote {
                                let runID = try Self.insertImportRun(
                                    path: path,
                                    format: format,
                                    sha256: sha256,
                                    at: fetchedAt,
                                    in: db
                                )
                                let writer = try LibraryWriter(
                                    db,
                                    runID: runID,
                                    fetchedAt: fetchedAt,
                                    isReference: options.isReference
                                )
                                let context = ImportContext(
                                    file: path,
                                    options: options,
                                    writer: writer,
                                    totalBytes: json?.count ?? file.size
                                )
                                if let json {
                                    try JSONImporter(format: format, context: context, data: Data(json)).run()
                                } else {
                                    if try Self.isBulk(fileSize: file.size, in: db) {
                                        try writer.deferIndexBuilds(expectedTracks: file.size / 256)
                                    }
                                    var importer = TabularImporter(
                                        format: format,
                                        context: context,
                                        reader: CSVReader(stream: makeStream())
                                    )
                                    summary.scale = try importer.run(fileName: fileName)
                                    if summary.scale?.hasPrefix("percent (detected") == true {
                                        summary.notes.append("scale: " + summary.scale!)
                                    }
                                    // The file must not have changed since its hash was taken: the run
                                    // records that hash as what was imported.
                                    guard importer.reader.streamedSHA256 == sha256 else {
                                        throw ImportError(
                                            file: path,
                                            message: "the file changed while it was being imported; import it again"
                                        )
                                    }
                                }
                                endPhase("parse+write")
                                try writer.buildDeferredIndexes()
                                endPhase("indexes")
                                summary.playsMatched = try writer.matchUnlinkedPlays()
                                summary.rowsRead = context.rowsRead
                                summary.rowsImported = context.rowsImported
                                summary.rowsRejected = context.rejectedCount
                                summary.rejections = Array(context.rejections.prefix(options.listedRejectionLimit))
                                summary.notes += context.notes
                                summary.invalidKeptAsMissing = context.invalidKeptAsMissing
                                summary.counts = writer.counts
                                summary.runID = runID
                                let rejections = String(
                                    decoding: try JSONEncoder().encode(context.rejections),
                                    as: UTF8.self
                                )
                                try db.execute(
                                    sql: """
                                        UPDATE import_runs SET scale = ?, rows_read = ?, rows_imported = ?, rows_rejected = ?,
                                            tracks_new = ?, tracks_updated = ?, features_written = ?, plays_new = ?, rejections = ?,
                                            finished_at = ?
                                        WHERE id = ?
                                        """,
                                    arguments: [
                                        summary.scale, summary.rowsRead, summary.rowsImported, summary.rowsRejected,
                                        summary.tracksNew,
                                        summary.tracksUpdated, summary.featuresWritten, summary.playsNew,
                                        rejections,
                                        LibraryStore.timestamp(Date()), runID,
                                    ]
                                )
                                endPhase("match+record")
                            }
                        }
                    }
                }
            }
        }
        endPhase("commit")
        summary.seconds = (clock.now - started).seconds
        summary.phases = phases
        return summary
    }

    /// The page cache of an import's connection, in KiB: 64 MB, where the writer otherwise keeps
    /// 16 MB (``writerCacheKiB``).
    ///
    /// With the secondary indexes deferred (``LibraryWriter/deferIndexBuilds()``), what an import
    /// reads back is the `spotify_id` index (about 40 MB for a million tracks) and the ends of the
    /// tables it appends to. Measured in sqlite3 on a million tracks and their artist links, with
    /// the indexes built afterwards, 64 MB and 256 MB took the same 13.5 s. On the million-row CSV
    /// the import's memory stayed at 118 MB while it parsed and wrote; with 256 MB it climbed with
    /// the cache.
    static let importCacheKiB = 65536

    /// Runs `body` with the connection's page cache set to `kibibytes`, then sets it back.
    static func withCacheSize<T>(_ kibibytes: Int, in db: Database, _ body: () throws -> T) throws -> T {
        let previous = try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? -2000
        try db.execute(sql: "PRAGMA cache_size = -\(kibibytes)")
        defer { try? db.execute(sql: "PRAGMA cache_size = \(previous)") }
        return try body()
    }

    /// Runs `body` with the writer's temporary storage (sorts, temporary indexes) in files
    /// instead of memory, then sets it back; SQLite allows the change only outside a transaction.
    func withTemporaryStorageInFiles<T>(_ body: () throws -> T) throws -> T {
        let previous = try writeWithoutTransaction { db in
            let previous = try Int.fetchOne(db, sql: "PRAGMA temp_store") ?? 0
            try db.execute(sql: "PRAGMA temp_store = FILE")
            return previous
        }
        defer {
            try? writeWithoutTransaction { db in try db.execute(sql: "PRAGMA temp_store = \(previous)") }
        }
        return try body()
    }

    /// Runs `body` with the writer's foreign-key checks off, then turns them on again; SQLite
    /// allows the change only outside a transaction, and GRDB opens every connection with them on.
    ///
    /// An import links rows only to IDs it inserted or read in the same transaction (tracks,
    /// artists, tags, sources, its own run), so the checks could find nothing; with them on, every
    /// link row (a track's artists, its tags, its feature row) looked each of its parents up again.
    /// Nothing an import deletes has rows that refer to it (`track_artists`, `playlist_items`), so
    /// no cascade is skipped. Measured on the million-row CSV: parse and write took 21.1–21.4 s
    /// with the checks, 15.9–17.1 s without; the whole import 27.6–27.9 s and 22.1–24.8 s.
    func withForeignKeyChecksOff<T>(_ body: () throws -> T) throws -> T {
        try writeWithoutTransaction { db in try db.execute(sql: "PRAGMA foreign_keys = OFF") }
        defer {
            try? writeWithoutTransaction { db in try db.execute(sql: "PRAGMA foreign_keys = ON") }
        }
        return try body()
    }

    /// Whether a file of `fileSize` bytes may add as many tracks as the store holds, so that its
    /// import builds the secondary indexes once at the end instead of row by row.
    ///
    /// A CSV row takes 100 to 500 bytes (243 on average in the tidytuesday shape), so a file of
    /// `n` bytes is taken to hold `n / 256` rows; `max(id)` stands for the track count (an index
    /// lookup, where `count(*)` would scan).
    static func isBulk(fileSize: Int, in db: Database) throws -> Bool {
        let tracks = try Int.fetchOne(db, sql: "SELECT max(id) FROM tracks") ?? 0
        return fileSize / 256 >= tracks
    }

    private struct PreviousRun {
        var id: Int64
        var format: String
        var finishedAt: String
    }

    private func previousRun(sha256: String) throws -> PreviousRun? {
        try read { db in
            try Row.fetchOne(
                db,
                sql: "SELECT id, format, finished_at FROM import_runs WHERE sha256 = ? ORDER BY id DESC LIMIT 1",
                arguments: [sha256]
            ).map { PreviousRun(id: $0["id"], format: $0["format"], finishedAt: $0["finished_at"]) }
        }
    }

    /// An ISO 8601 UTC timestamp with seconds, as stored in the database.
    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: .gmt))
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
