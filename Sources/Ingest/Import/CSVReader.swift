import Foundation

/// A fast RFC 4180 reader over a file's text, whole or streamed in chunks.
///
/// Written here rather than taken from SwiftCSV or CSV.swift because importing must report
/// `file:line:column` for every bad field (neither library tracks positions), must handle quoted
/// newlines while counting physical lines, and must read a million-row file in well under a
/// second: this reader only finds field boundaries; fields are decoded on demand.
///
/// Streamed (``init(stream:)``), it holds a window of the text: the record being read and what
/// follows it, up to a chunk. A record cut by the window's end is read again once the next chunk
/// is in, so a quoted field with newlines or a multi-byte character may straddle chunks; the window
/// grows only when one record is longer than a chunk. Offsets in a ``Record`` are offsets in the
/// window and stay valid until the next call to ``next(into:)``.
struct CSVReader {
    /// One record: the byte ranges of its fields and where it starts.
    struct Record {
        /// The physical line (1-based) on which the record starts.
        var line: Int
        /// The byte offset of the start of that line.
        var lineStart: Int
        /// Field boundaries: `starts[i]..<ends[i]`, excluding enclosing quotes.
        var starts: [Int] = []
        var ends: [Int] = []
        /// Whether field `i` was quoted and contains doubled quotes to unescape.
        var hasEscapes: [Bool] = []

        var count: Int { starts.count }
    }

    /// The text in hand: the whole file, or the streamed window.
    private(set) var bytes: [UInt8]
    /// The next record's offset in ``bytes``.
    private(set) var position: Int
    private(set) var line = 1
    /// Where more text comes from, or `nil` when ``bytes`` holds it all.
    private var stream: TextStream?
    /// Whether ``bytes`` runs to the end of the text.
    private var isComplete: Bool
    /// Whether the start of the text was checked for a byte-order mark.
    private var hasCheckedBOM = false

    /// A reader over a whole file's bytes.
    init(bytes: [UInt8]) {
        self.bytes = bytes
        position = 0
        stream = nil
        isComplete = true
        skipBOM()
    }

    /// A reader that reads `stream` a chunk at a time.
    init(stream: TextStream) {
        bytes = []
        bytes.reserveCapacity(stream.chunkSize + stream.chunkSize / 8)
        position = 0
        self.stream = stream
        isComplete = false
    }

    /// The file offset read up to, for progress (the window's end, when streamed).
    var fileOffset: Int { stream?.fileOffset ?? position }

    /// The SHA-256 of the file's bytes, once a stream has been read to its end.
    var streamedSHA256: String? { stream?.sha256() }

    private mutating func skipBOM() {
        hasCheckedBOM = true
        // A second mark after the one the decoding dropped is not text either.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
    }

    /// Reads the next record into `record`, reusing its storage; returns `false` at the end.
    ///
    /// - Throws: ``CSVSyntaxError`` for a quote left open at the end of the file, or the stream's
    ///   read error (an ``ImportError``).
    mutating func next(into record: inout Record) throws -> Bool {
        while true {
            if !hasCheckedBOM {
                guard bytes.count >= 3 || isComplete else {
                    try refill()
                    continue
                }
                skipBOM()
            }
            if let found = try scan(into: &record) { return found }
            // The record runs past the window: read the next chunk and scan it again.
            try refill()
        }
    }

    /// Drops what was read and appends the next chunk to the window.
    private mutating func refill() throws {
        guard var stream else { return }
        bytes.removeSubrange(0..<position)
        position = 0
        self.stream = nil  // so that the stream's own buffer is not shared, and not copied
        isComplete = try !stream.append(to: &bytes)
        self.stream = stream
    }

    /// Scans one record; `nil`, with nothing moved, when the window ends before it can tell.
    private mutating func scan(into record: inout Record) throws(CSVSyntaxError) -> Bool? {
        record.starts.removeAll(keepingCapacity: true)
        record.ends.removeAll(keepingCapacity: true)
        record.hasEscapes.removeAll(keepingCapacity: true)
        let count = bytes.count
        let isComplete = isComplete
        var position = self.position
        var line = self.line
        // Skip blank lines between records.
        while position < count, bytes[position] == 0x0A || bytes[position] == 0x0D {
            if bytes[position] == 0x0A { line += 1 }
            position += 1
        }
        guard position < count else {
            guard isComplete else { return nil }
            (self.position, self.line) = (position, line)
            return false
        }
        record.line = line
        record.lineStart = position
        let result = try bytes.withUnsafeBufferPointer { buffer throws(CSVSyntaxError) -> Int? in
            var i = position
            while true {
                if i < count, buffer[i] == 0x22 {  // quoted field
                    let openLine = line
                    let openColumn = i
                    i += 1
                    let start = i
                    var escapes = false
                    while true {
                        guard i < count else {
                            guard isComplete else { return nil }
                            throw CSVSyntaxError(
                                line: openLine,
                                offset: openColumn,
                                message: "a quoted field opened here is never closed"
                            )
                        }
                        let byte = buffer[i]
                        if byte == 0x22 {
                            if i + 1 < count, buffer[i + 1] == 0x22 {
                                escapes = true
                                i += 2
                                continue
                            }
                            if i + 1 == count && !isComplete { return nil }
                            break
                        }
                        if byte == 0x0A { line += 1 }
                        i += 1
                    }
                    record.starts.append(start)
                    record.ends.append(i)
                    record.hasEscapes.append(escapes)
                    i += 1  // closing quote
                    // Anything between the closing quote and the delimiter is kept out (lenient).
                    while i < count, buffer[i] != 0x2C, buffer[i] != 0x0A, buffer[i] != 0x0D { i += 1 }
                } else {
                    let start = i
                    while i < count {
                        let byte = buffer[i]
                        if byte == 0x2C || byte == 0x0A || byte == 0x0D { break }
                        i += 1
                    }
                    record.starts.append(start)
                    record.ends.append(i)
                    record.hasEscapes.append(false)
                }
                if i >= count { return isComplete ? i : nil }
                let byte = buffer[i]
                if byte == 0x2C {
                    i += 1
                    continue
                }
                // End of record: CRLF, LF or a lone CR.
                if byte == 0x0D {
                    if i + 1 == count && !isComplete { return nil }
                    if i + 1 < count, buffer[i + 1] == 0x0A { i += 1 }
                }
                i += 1
                line += 1
                return i
            }
        }
        guard let result else { return nil }
        (self.position, self.line) = (result, line)
        return true
    }

    /// The text of field `index` of `record`.
    func string(_ record: Record, _ index: Int) -> String {
        let start = record.starts[index]
        let end = record.ends[index]
        let text = bytes.withUnsafeBufferPointer {
            String(decoding: UnsafeBufferPointer(rebasing: $0[start..<end]), as: UTF8.self)
        }
        return record.hasEscapes[index] ? text.replacingOccurrences(of: "\"\"", with: "\"") : text
    }

    /// Whether field `index` of `record` is empty or only spaces.
    func isBlank(_ record: Record, _ index: Int) -> Bool {
        var i = record.starts[index]
        while i < record.ends[index] {
            if bytes[i] != 0x20 && bytes[i] != 0x09 { return false }
            i += 1
        }
        return true
    }

    /// The 1-based column, in characters, at which field `index` of `record` starts on its line.
    func column(_ record: Record, _ index: Int) -> Int {
        var lineStart = record.lineStart
        let start = record.starts[index]
        var i = start
        while i > lineStart {
            if bytes[i - 1] == 0x0A {
                lineStart = i
                break
            }
            i -= 1
        }
        // Count characters (UTF-8 lead bytes), not bytes; a quoted field starts one before its text.
        let quoteAdjust = start > 0 && bytes[start - 1] == 0x22 && start - 1 >= lineStart ? 1 : 0
        return bytes[lineStart..<(start - quoteAdjust)].reduce(1) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) }
    }

    /// The physical line on which field `index` of `record` starts (fields may follow quoted newlines).
    func line(_ record: Record, _ index: Int) -> Int {
        var line = record.line
        var i = record.lineStart
        let start = record.starts[index]
        while i < start {
            if bytes[i] == 0x0A { line += 1 }
            i += 1
        }
        return line
    }
}

/// A CSV syntax error found while splitting records.
struct CSVSyntaxError: Error {
    var line: Int
    var offset: Int
    var message: String
}
