import Foundation
import GRDB
import Testing
import VibesTestSupport

@testable import Ingest

/// A CSV is imported a chunk at a time (``ImportOptions/chunkSize``); these tests make the chunks
/// tiny so that quoted fields with newlines, doubled quotes, CRLFs and multi-byte characters fall
/// across chunk boundaries, and check that nothing depends on where they fall.
struct StreamingImportTests {
    /// Chunk sizes that cut the test file at many different places; 4 is the smallest allowed.
    static let chunkSizes = [4, 5, 7, 16, 61, 4096]

    /// A feature CSV of `rowCount` rows that exercises every way a record can straddle a chunk.
    ///
    /// - Parameter badRow: The row (0-based) whose energy is `high`, when given.
    /// - Returns: The file's text, and for each row the line on which it starts.
    static func makeCSV(rowCount: Int, badRow: Int? = nil) -> (text: String, lines: [Int]) {
        var text = "track_id,track_name,track_artist,track_popularity,playlist_genre,danceability,energy,key,tempo\n"
        var line = 2
        var lines: [Int] = []
        for row in 0..<rowCount {
            if row % 7 == 3 {
                text += "\n"  // a blank line between records
                line += 1
            }
            let id = "A" + String(String(row).reversed()).padding(toLength: 21, withPad: "x", startingAt: 0)
            let name: String
            switch row % 5 {
            case 0: name = "\"First line\nsecond \"\"quoted\"\" line \(row)\""
            case 1: name = "Café 日本語 🎵 \(row)"
            case 2: name = "\"Comma, inside \(row)\""
            case 3: name = "\"Two\r\nbreaks\nhere \(row)\""
            default: name = "Plain \(row)"
            }
            let artist = row % 3 == 0 ? "\"Björk, Sigur Rós\"" : "Ólafur Arnalds"
            let energy = row == badRow ? "high" : String(Double(row % 100) / 100)
            let ending = row % 4 == 1 ? "\r\n" : "\n"
            lines.append(line)
            text += "\(id),\(name),\(artist),\(row % 101),pop,0.5,\(energy),\(row % 12),\(100 + row % 80)\(ending)"
            line += 1 + name.count { $0 == "\n" || $0 == "\r\n" }
        }
        return (text, lines)
    }

    /// Every field of every record, with its line and column, as a reader reports them.
    static func fields(of reader: CSVReader) throws -> [[String]] {
        var reader = reader
        var record = CSVReader.Record(line: 1, lineStart: 0)
        var rows: [[String]] = []
        while try reader.next(into: &record) {
            rows.append(
                (0..<record.count).map { index in
                    "\(reader.line(record, index)):\(reader.column(record, index)) \(reader.string(record, index))"
                }
            )
        }
        return rows
    }

    @Test(arguments: chunkSizes)
    func aStreamedReaderFindsTheFieldsLinesAndColumnsOfTheWholeFileReader(chunkSize: Int) throws {
        try withTemporaryDirectory { folder in
            let path = folder + "/library.csv"
            let csv = Self.makeCSV(rowCount: 120)
            try Data(csv.text.utf8).write(to: URL(fileURLWithPath: path))
            let whole = try Self.fields(of: CSVReader(bytes: Array(csv.text.utf8)))
            let stream = TextStream(file: try ImportFile(path: path), encoding: .utf8, chunkSize: chunkSize)
            let streamed = try Self.fields(of: CSVReader(stream: stream))
            #expect(streamed == whole)
            // Not vacuous: the header and every row, with the multi-line names and multi-byte text intact.
            #expect(whole.count == 121)
            #expect(whole[1][1] == "2:24 First line\nsecond \"quoted\" line 0")
            #expect(whole[2][1].hasSuffix(" Café 日本語 🎵 1"))
            #expect(whole[4][1].hasSuffix(" Two\r\nbreaks\nhere 3"))
            #expect(whole[1][2].hasPrefix("\(csv.lines[0] + 1):"))
        }
    }

    @Test(arguments: [4, 7, 61])
    func aFileOfManyChunksImportsAsInOneChunk(chunkSize: Int) throws {
        try withTemporaryDirectory { folder in
            let path = folder + "/library.csv"
            // 80 rows (7 KB) are 100 chunks of the largest size and 1,800 of the smallest.
            let csv = Self.makeCSV(rowCount: 80)
            try Data(csv.text.utf8).write(to: URL(fileURLWithPath: path))
            #expect(csv.text.utf8.count > 100 * chunkSize)
            func imported(chunkSize: Int) throws -> (ImportSummary, [String: [String]]) {
                try withStore { store in
                    var options = ImportOptions()
                    options.chunkSize = chunkSize
                    let summary = try store.importFile(at: path, options: options)
                    return (summary, try Self.importedContent(store))
                }
            }
            let (streamed, streamedContent) = try imported(chunkSize: chunkSize)
            let (whole, wholeContent) = try imported(chunkSize: 1 << 24)
            #expect(streamed.rowsRead == 80 && streamed.rowsRejected == 0 && streamed.tracksNew == 80)
            #expect(streamed.sha256 == whole.sha256)
            #expect(streamedContent == wholeContent)
            #expect(streamedContent["names"]?.contains("First line\nsecond \"quoted\" line 0") == true)
            #expect(streamedContent["names"]?.contains("Two\r\nbreaks\nhere 3") == true)
            #expect(streamedContent["names"]?.contains("Café 日本語 🎵 1") == true)
            #expect(streamedContent["artists"] == ["Björk", "Sigur Rós", "Ólafur Arnalds"])
        }
    }

    /// Every table, index and trigger of the store, with its SQL.
    static func schema(of store: LibraryStore) throws -> [String] {
        try store.database.read { db in
            try String.fetchAll(
                db,
                sql: "SELECT type || ' ' || name || ': ' || coalesce(sql, '') FROM sqlite_master ORDER BY name"
            )
        }
    }

    /// A pipe's bytes are copied into an unlinked temporary file that reads at any offset. (A
    /// FIFO opened by path would block the test's thread until a writer comes, so an anonymous
    /// pipe, already written and closed, stands in for it.)
    @Test func aPipeIsCopiedWholeIntoAFileThatReadsAtAnyOffset() throws {
        let text = Array(Self.makeCSV(rowCount: 60).text.utf8)
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let written = text.withUnsafeBytes { write(ends[1], $0.baseAddress, $0.count) }
        #expect(written == text.count, "the pipe's buffer holds the whole text")
        close(ends[1])
        let spooled = try ImportFile.spool(ends[0], path: "(pipe)")
        close(ends[0])
        defer { close(spooled.descriptor) }
        #expect(spooled.size == text.count)
        var copy = [UInt8](repeating: 0, count: text.count)
        let read = copy.withUnsafeMutableBytes { pread(spooled.descriptor, $0.baseAddress, $0.count, 0) }
        #expect(read == text.count && copy == text)
        var tail = [UInt8](repeating: 0, count: 10)
        _ = tail.withUnsafeMutableBytes { pread(spooled.descriptor, $0.baseAddress, 10, off_t(text.count - 10)) }
        #expect(tail == Array(text.suffix(10)))
    }

    @Test func aBulkImportBuildsTheIndexesItDeferred() throws {
        try withTemporaryDirectory { folder in
            let path = folder + "/library.csv"
            try Data(Self.makeCSV(rowCount: 100).text.utf8).write(to: URL(fileURLWithPath: path))
            try withStore { store in
                let schema = try Self.schema(of: store)
                #expect(schema.contains { $0.hasPrefix("index tracks_match_key: ") })
                let summary = try store.importFile(at: path)
                #expect(summary.tracksNew == 100)
                #expect(try Self.schema(of: store) == schema)
                // A small file into a store that holds more tracks keeps its indexes up to date row by row.
                let small = folder + "/small.csv"
                try Data(Self.makeCSV(rowCount: 3).text.utf8).write(to: URL(fileURLWithPath: small))
                let again = try store.importFile(at: small)
                #expect(again.status == .imported && again.tracksNew == 0)
                #expect(try Self.schema(of: store) == schema)
            }
        }
    }

    /// What an import wrote, without the run's timestamps.
    static func importedContent(_ store: LibraryStore) throws -> [String: [String]] {
        let queries = [
            "tracks": "SELECT spotify_id, name, popularity, match_key FROM tracks ORDER BY id",
            "artists": "SELECT name FROM artists ORDER BY id",
            "names": "SELECT name FROM tracks ORDER BY id",
            "track_artists": "SELECT * FROM track_artists ORDER BY 1, 2",
            "features":
                "SELECT track_id, danceability, energy, key, tempo, out_of_range FROM audio_features ORDER BY 1",
            "tags": "SELECT t.track_id, g.kind, g.value FROM track_tags t JOIN tags g ON g.id = t.tag_id ORDER BY 1, 2",
            "runs": "SELECT path, format, sha256, rows_read, rows_imported, tracks_new FROM import_runs ORDER BY id",
        ]
        return try store.database.read { db in
            try queries.mapValues { sql in
                try Row.fetchAll(db, sql: sql).map { row in
                    row.databaseValues.map { String.fromDatabaseValue($0) ?? $0.description }.joined(separator: "|")
                }
            }
        }
    }

    @Test func aBadRowDeepInAFileOfManyChunksIsNamedAndLeavesTheStoreAsItWas() throws {
        try withTemporaryDirectory { folder in
            let path = folder + "/library.csv"
            let badRow = 251  // a "Café 日本語 🎵" row: the column counts characters, not bytes
            let csv = Self.makeCSV(rowCount: 300, badRow: badRow)
            try Data(csv.text.utf8).write(to: URL(fileURLWithPath: path))
            try withStore { store in
                _ = try store.importFile(at: Fixtures.path("csv/kaggle-2024-high-excerpt.csv"))
                let before = try contentSnapshot(store)
                let schema = try Self.schema(of: store)
                var options = ImportOptions()
                options.chunkSize = 7
                let error = try #require(throws: ImportError.self) { try store.importFile(at: path, options: options) }
                let line = csv.lines[badRow]
                #expect(line > badRow + 2 + 50)  // multi-line records before it moved it down
                #expect(error.line == line)
                // The column in characters (Unicode scalars) of "high" on its line.
                let start = try #require(Self.offset(ofLine: line, in: Array(csv.text.utf8)))
                let rest = String(decoding: Array(csv.text.utf8)[start...], as: UTF8.self)
                let high = try #require(rest.unicodeScalars.firstRange(of: ",high,".unicodeScalars))
                let expectedColumn = rest.unicodeScalars.distance(from: rest.startIndex, to: high.lowerBound) + 2
                #expect(expectedColumn > 30)  // past the multi-byte name
                #expect(error.column == expectedColumn)
                #expect(error.field == "energy")
                #expect(error.description.hasPrefix("\(path):\(line):\(error.column!): field \"energy\": "))
                #expect(try contentSnapshot(store) == before)
                // The import dropped indexes to build them at its end; the rollback brought them back.
                #expect(try Self.schema(of: store) == schema)
            }
        }
    }

    /// Rows are parsed on a thread ahead of the writes, a few batches of 256 at most: a bad row
    /// near the start of a long file stops the parser while it waits to hand over more, and one
    /// skipped with `--skip-invalid` is counted in order with the rest.
    @Test(.timeLimit(.minutes(2)))
    func aBadRowEarlyInALongFileStopsTheRowsParsedAheadOfIt() throws {
        try withTemporaryDirectory { folder in
            let path = folder + "/library.csv"
            let badRow = 6  // a one-line record: the field is on the line the record starts
            let csv = Self.makeCSV(rowCount: 4000, badRow: badRow)
            try Data(csv.text.utf8).write(to: URL(fileURLWithPath: path))
            try withStore { store in
                let before = try contentSnapshot(store)
                let error = try #require(throws: ImportError.self) { try store.importFile(at: path) }
                #expect(error.line == csv.lines[badRow] && error.field == "energy")
                #expect(try contentSnapshot(store) == before)

                let summary = try store.importFile(at: path, options: ImportOptions(skipInvalid: true))
                #expect(summary.rowsRead == 4000 && summary.rowsImported == 3999 && summary.rowsRejected == 1)
                #expect(summary.rejections.map(\.line) == [csv.lines[badRow]])
                let tracks = try store.database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM tracks") }
                #expect(tracks == 3999)
            }
        }
    }

    @Test func invalidUTF8DeepInAFileIsNamedByLineAndColumn() throws {
        try withTemporaryDirectory { folder in
            let path = folder + "/library.csv"
            let csv = Self.makeCSV(rowCount: 200)
            var bytes = Array(csv.text.utf8)
            // Row 180 starts with its ID; its second byte becomes a lone 0xF1.
            let lineStart = try #require(Self.offset(ofLine: csv.lines[180], in: bytes))
            bytes[lineStart + 1] = 0xF1
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            try withStore { store in
                var options = ImportOptions()
                options.chunkSize = 5
                let error = try #require(throws: ImportError.self) { try store.importFile(at: path, options: options) }
                #expect(error.line == csv.lines[180])
                #expect(error.column == 2)
                #expect(error.message.hasPrefix("invalid UTF-8 (byte 0xF1)"))
                #expect(try count(store, "SELECT count(*) FROM import_runs") == 0)
            }
        }
    }

    /// The offset of the first byte of 1-based `line`.
    static func offset(ofLine line: Int, in bytes: [UInt8]) -> Int? {
        var current = 1
        for (index, byte) in bytes.enumerated() where byte == 0x0A {
            current += 1
            if current == line { return index + 1 }
        }
        return nil
    }

    @Test(arguments: [4, 9])
    func aWindows1252FileImportsInChunks(chunkSize: Int) throws {
        try withTemporaryDirectory { folder in
            let path = folder + "/top50.csv"
            // "Beyoncé’s" in Windows-1252: é is 0xE9, ’ is 0x92; no byte sequence is valid UTF-8.
            var bytes = Array("track_name,artist,energy,danceability,valence\n".utf8)
            for row in 0..<40 {
                bytes += Array("Song \(row) ".utf8) + [0x93] + Array("live".utf8) + [0x94]
                bytes += Array(",Beyonc".utf8) + [0xE9, 0x92] + Array("s Band,0.5,0.6,0.7\n".utf8)
            }
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            try withStore { store in
                var options = ImportOptions()
                options.chunkSize = chunkSize
                let summary = try store.importFile(at: path, options: options)
                #expect(summary.encoding == "Windows-1252")
                #expect(summary.rowsRead == 40 && summary.rowsRejected == 0)
                #expect(try count(store, "SELECT count(*) FROM artists WHERE name = 'Beyoncé’s Band'") == 1)
                #expect(try count(store, "SELECT count(*) FROM tracks WHERE name = 'Song 39 “live”'") == 1)
            }
        }
    }

    @Test func aByteOrderMarkIsNotPartOfTheFirstColumnName() throws {
        try withTemporaryDirectory { folder in
            let path = folder + "/bom.csv"
            let csv = Self.makeCSV(rowCount: 20)
            try Data([0xEF, 0xBB, 0xBF] + Array(csv.text.utf8)).write(to: URL(fileURLWithPath: path))
            try withStore { store in
                var options = ImportOptions()
                options.chunkSize = 4
                let summary = try store.importFile(at: path, options: options)
                #expect(summary.encoding == "UTF-8 with BOM")
                #expect(summary.rowsRead == 20 && summary.tracksNew == 20)
                #expect(try count(store, "SELECT count(*) FROM tracks WHERE spotify_id IS NOT NULL") == 20)
            }
        }
    }

    @Test func theSameContentIsRecognisedAndAChangeDeepInTheFileIsNot() throws {
        try withTemporaryDirectory { folder in
            let path = folder + "/library.csv"
            let csv = Self.makeCSV(rowCount: 200)
            try Data(csv.text.utf8).write(to: URL(fileURLWithPath: path))
            try withStore { store in
                var options = ImportOptions()
                options.chunkSize = 16
                let first = try store.importFile(at: path, options: options)
                let after = try contentSnapshot(store)
                let again = try store.importFile(at: path, options: options)
                #expect(first.status == .imported)
                #expect(again.status == .unchanged && again.runID == first.runID)
                #expect(try contentSnapshot(store) == after)
                // One byte changed in the last chunk: new content, read again.
                var bytes = Array(csv.text.utf8)
                let last = try #require(bytes.lastIndex(of: UInt8(ascii: "P")))
                bytes[last] = UInt8(ascii: "Q")
                try Data(bytes).write(to: URL(fileURLWithPath: path))
                let changed = try store.importFile(at: path, options: options)
                #expect(changed.status == .imported && changed.runID != first.runID)
                #expect(changed.sha256 != first.sha256)
                #expect(changed.tracksUpdated == 1)
            }
        }
    }

    @Test func theEncodingScanDoesNotDependOnWhereBuffersEnd() throws {
        let samples: [[UInt8]] = [
            Array("plain ascii\nrows\n".utf8),
            Array("caf\u{E9} 日本語 🎵\n".utf8),
            [0xEF, 0xBB, 0xBF] + Array("a,b\n".utf8),
            Array("Beyonc".utf8) + [0xE9, 0x92, 0x0A, 0x41],
            Array("ok 日".utf8) + [0xE6, 0x97] + Array(" cut\n".utf8),
            Array("nul".utf8) + [0x00] + Array("after".utf8),
            [0xFF, 0xFE, 0x41, 0x00],
            [0xE6, 0x97],
        ]
        for sample in samples {
            var whole = TextDecoding.Scanner()
            _ = sample.withUnsafeBufferPointer { whole.scan($0, isLast: true) }
            let expected = Result { () throws(TextDecoding.Problem) in try whole.encoding() }
            for size in 1...5 {
                var scanner = TextDecoding.Scanner()
                var pending: [UInt8] = []
                var next = 0
                while true {
                    let end = min(next + size, sample.count)
                    pending += sample[next..<end]
                    next = end
                    let isLast = next == sample.count
                    let consumed = pending.withUnsafeBufferPointer { scanner.scan($0, isLast: isLast) }
                    pending.removeFirst(consumed)
                    if isLast { break }
                }
                let found = Result { () throws(TextDecoding.Problem) in try scanner.encoding() }
                #expect(found == expected, "\(sample) in buffers of \(size)")
            }
        }
        // Not vacuous: the samples reach every outcome.
        func outcome(_ sample: [UInt8]) -> String {
            var scanner = TextDecoding.Scanner()
            _ = sample.withUnsafeBufferPointer { scanner.scan($0, isLast: true) }
            do { return try scanner.encoding().rawValue } catch {
                return "\(error.offset): \(error.message.prefix(12))"
            }
        }
        #expect(
            samples.map(outcome) == [
                "UTF-8", "UTF-8", "UTF-8 with BOM", "Windows-1252", "6: invalid UTF-", "3: the file hol",
                "0: the file is ",
                "Windows-1252",
            ]
        )
    }
}
