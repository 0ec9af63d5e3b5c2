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
            switch try Self.firstTextByte(of: makeStream()) {
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                json = try Self.decodedText(of: file)
                format = try detectFormat(path: path, bytes: json!)
            default:
                format = try detectFormat(path: path, reader: CSVReader(stream: makeStream()))
            }
        }
        let isTabular = format == .featuresCSV || format == .exportify
        if !isTabular && json == nil { json = try Self.decodedText(of: file) }
        endPhase("detect")

        let fetchedAt = LibraryStore.timestamp(startedAt)
        var summary = ImportSummary(path: path, format: format, status: .imported, sha256: sha256)
        summary.encoding = encoding.rawValue
        if encoding == .windows1252 {
            summary.notes.append("the file is not UTF-8; it was read as Windows-1252 (Latin-1)")
        }
        do {
            try withTemporaryStorageInFiles {
                try withForeignKeyChecksOff {
                    try database.write { db in
                        try Self.withCacheSize(Self.importCacheKiB, in: db) {
                            try Self.withSnapshotTriggersSuspended(in: db) {
                                try withWriterNote {
                                    try db.execute(
                                        sql:
                                            "INSERT INTO import_runs (path, format, sha256, started_at, finished_at) VALUES (?, ?, ?, ?, ?)",
                                        arguments: [path, format.rawValue, sha256, fetchedAt, fetchedAt]
                                    )
                                    let runID = db.lastInsertedRowID
                                    let writer = try ImportWriter(
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
                                    let counts = writer.counts
                                    summary.tracksNew = counts.tracksNew
                                    summary.tracksUpdated = counts.tracksUpdated
                                    summary.featuresWritten = counts.featuresWritten
                                    summary.tracksWithoutFeatures = counts.tracksWithoutFeatures
                                    summary.playsNew = counts.playsNew
                                    summary.playlists = counts.playlists
                                    summary.savedTracks = counts.savedTracks
                                    summary.outOfRange = Dictionary(
                                        uniqueKeysWithValues: counts.outOfRange.map { ($0.key.rawValue, $0.value) }
                                    )
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
        } catch let error as DatabaseError {
            // `path` here is the imported file's; the error names the store.
            throw StoreError(error, path: self.path)
        }
        endPhase("commit")
        summary.seconds = (clock.now - started).seconds
        summary.phases = phases
        return summary
    }

    /// The page cache of an import's connection, in KiB: 64 MB, where the writer otherwise keeps
    /// 16 MB (``writerCacheKiB``).
    ///
    /// With the secondary indexes deferred (``ImportWriter/deferIndexBuilds()``), what an import
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
        let previous = try database.writeWithoutTransaction { db in
            let previous = try Int.fetchOne(db, sql: "PRAGMA temp_store") ?? 0
            try db.execute(sql: "PRAGMA temp_store = FILE")
            return previous
        }
        defer {
            try? database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA temp_store = \(previous)") }
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
        try database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA foreign_keys = OFF") }
        defer {
            try? database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA foreign_keys = ON") }
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

    /// The first byte of `stream`'s text that is not white space, or `nil` for an empty file.
    private static func firstTextByte(of stream: TextStream) throws -> UInt8? {
        var stream = stream
        var chunk: [UInt8] = []
        while try stream.append(to: &chunk) {
            if let byte = chunk.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) {
                return byte
            }
            chunk.removeAll(keepingCapacity: true)
        }
        return nil
    }

    /// The whole text of `file` as UTF-8, for JSON.
    private static func decodedText(of file: ImportFile) throws -> [UInt8] {
        let bytes = try file.readAll()
        do {
            return try TextDecoding.utf8Bytes(bytes).bytes
        } catch {
            throw ImportError(file: file.path, line: error.line, column: error.column, message: error.message)
        }
    }

    /// Detects the format of a file from its header (CSV) or top-level shape (JSON).
    func detectFormat(path: String, bytes: [UInt8]) throws -> ImportFormat {
        let firstByte = bytes.first { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }
        if firstByte == UInt8(ascii: "[") || firstByte == UInt8(ascii: "{") {
            // Checked first so that a truncated or broken file is reported at its place, not as
            // an unknown format (Foundation's parser says neither where nor what).
            do {
                try JSONSyntax.check(bytes)
            } catch {
                throw ImportError(file: path, line: error.line, column: error.column, message: error.message)
            }
            let data = Data(bytes)
            guard let format = JSONImporter.detectFormat(data) else {
                if let kind = JSONImporter.unimportableKind(data) {
                    throw ImportError(
                        file: path,
                        message: "this is \(kind), which holds no tracks, plays or playlists to import"
                    )
                }
                throw ImportError(
                    file: path,
                    message:
                        "this JSON is not a format vibes-analyze knows; expected StreamingHistory*.json, Streaming_History_Audio_*.json/endsong_*.json, YourLibrary.json, Playlist*.json, Spotify Web API JSON, or a ReccoBeats audio-features response (see --format)"
                )
            }
            return format
        }
        return try detectFormat(path: path, reader: CSVReader(bytes: bytes))
    }

    /// Detects the format of a CSV from its header.
    func detectFormat(path: String, reader: CSVReader) throws -> ImportFormat {
        var reader = reader
        var record = CSVReader.Record(line: 1, lineStart: 0)
        guard (try? reader.next(into: &record)) == true else {
            throw ImportError(file: path, line: 1, message: "the file is empty; expected a CSV header or JSON")
        }
        let header = (0..<record.count).map { reader.string(record, $0) }
        if TabularImporter.isExportifyHeader(header) { return .exportify }
        if TabularImporter.featureColumnCount(header) >= 3 { return .featuresCSV }
        throw ImportError(
            file: path,
            line: 1,
            message:
                "cannot tell the format from the header (\(header.prefix(8).joined(separator: ", "))…); expected an audio-feature CSV with columns such as danceability, energy, valence, or an Exportify export with Track URI and Artist Name(s); pass --format to choose"
        )
    }

    private struct PreviousRun {
        var id: Int64
        var format: String
        var finishedAt: String
    }

    private func previousRun(sha256: String) throws -> PreviousRun? {
        try database.read { db in
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
