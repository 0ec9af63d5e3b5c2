import Foundation

/// A fast RFC 4180 reader over the bytes of a whole file.
///
/// Written here rather than taken from SwiftCSV or CSV.swift because importing must report
/// `file:line:column` for every bad field (neither library tracks positions), must handle quoted
/// newlines while counting physical lines, and must read a million-row file in well under a
/// second: this reader only finds field boundaries; fields are decoded on demand.
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

    let bytes: [UInt8]
    private(set) var position: Int
    private(set) var line = 1

    init(bytes: [UInt8]) {
        self.bytes = bytes
        position = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    }

    /// Reads the next record into `record`, reusing its storage; returns `false` at the end.
    ///
    /// - Throws: ``ImportError`` for a quote left open at the end of the file.
    mutating func next(into record: inout Record) throws(CSVSyntaxError) -> Bool {
        record.starts.removeAll(keepingCapacity: true)
        record.ends.removeAll(keepingCapacity: true)
        record.hasEscapes.removeAll(keepingCapacity: true)
        let count = bytes.count
        // Skip blank lines between records.
        while position < count, bytes[position] == 0x0A || bytes[position] == 0x0D {
            if bytes[position] == 0x0A { line += 1 }
            position += 1
        }
        guard position < count else { return false }
        record.line = line
        record.lineStart = position
        return try bytes.withUnsafeBufferPointer { buffer throws(CSVSyntaxError) -> Bool in
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
                if i >= count {
                    position = i
                    return true
                }
                let byte = buffer[i]
                if byte == 0x2C {
                    i += 1
                    continue
                }
                // End of record: CRLF, LF or a lone CR.
                if byte == 0x0D, i + 1 < count, buffer[i + 1] == 0x0A { i += 1 }
                i += 1
                line += 1
                position = i
                return true
            }
        }
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
