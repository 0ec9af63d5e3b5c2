import Crypto
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
    /// - Parameters:
    ///   - path: The file, as the user named it (errors repeat it).
    ///   - options: Format, scale, and what to do with bad rows.
    /// - Returns: What the import read and wrote.
    /// - Throws: ``ImportError`` naming `file:line:column` and what was expected, or ``StoreError``.
    public func importFile(at path: String, options: ImportOptions = ImportOptions()) throws -> ImportSummary {
        let clock = ContinuousClock()
        let started = clock.now
        let startedAt = Date()
        guard let data = FileManager.default.contents(atPath: path) else {
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
            throw ImportError(
                file: path,
                message: !exists
                    ? "no such file"
                    : isDirectory.boolValue
                        ? "is a folder; name the files inside it" : "cannot be read (check its permissions)"
            )
        }
        let sha256 = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
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
            return summary
        }

        let decoded: (bytes: [UInt8], encoding: TextDecoding.Encoding)
        do {
            decoded = try TextDecoding.utf8Bytes([UInt8](data))
        } catch {
            throw ImportError(file: path, line: error.line, column: error.column, message: error.message)
        }
        let format = try options.format ?? detectFormat(path: path, bytes: decoded.bytes)

        let fetchedAt = LibraryStore.timestamp(startedAt)
        var summary = ImportSummary(path: path, format: format, status: .imported, sha256: sha256)
        summary.encoding = decoded.encoding.rawValue
        if decoded.encoding == .windows1252 {
            summary.notes.append("the file is not UTF-8; it was read as Windows-1252 (Latin-1)")
        }
        do {
            try database.write { db in
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
                            totalBytes: decoded.bytes.count
                        )
                        switch format {
                        case .featuresCSV, .exportify:
                            var importer = TabularImporter(
                                format: format,
                                context: context,
                                reader: CSVReader(bytes: decoded.bytes)
                            )
                            summary.scale = try importer.run(fileName: fileName)
                            if summary.scale?.hasPrefix("percent (detected") == true {
                                summary.notes.append("scale: " + summary.scale!)
                            }
                        default:
                            let utf8 = decoded.encoding == .windows1252 ? Data(decoded.bytes) : data
                            try JSONImporter(format: format, context: context, data: utf8).run()
                        }
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
                        let rejections = String(decoding: try JSONEncoder().encode(context.rejections), as: UTF8.self)
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
                                summary.tracksUpdated, summary.featuresWritten, summary.playsNew, rejections,
                                LibraryStore.timestamp(Date()), runID,
                            ]
                        )
                    }
                }
            }
        } catch let error as DatabaseError {
            throw StoreError(error, path: path)
        }
        summary.seconds = (clock.now - started).seconds
        return summary
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
        var reader = CSVReader(bytes: bytes)
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
