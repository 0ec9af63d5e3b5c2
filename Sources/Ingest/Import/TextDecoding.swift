/// Turning a file's bytes into UTF-8, whatever encoding it came in.
///
/// A file is UTF-8 when all of it decodes as UTF-8. A file with no valid multi-byte UTF-8 sequence
/// at all is read as Windows-1252 (Latin-1 plus the 0x80–0x9F punctuation), which is what
/// spreadsheet exports like Kaggle's "Top 50" use. A file that mixes valid UTF-8 with invalid
/// bytes, or that holds NUL bytes (UTF-16, binary), is refused. The decision needs the whole file,
/// so a streaming import makes it in a first pass (``Scanner``) and decodes in a second, chunk by
/// chunk (``transcodeWindows1252(_:appendingTo:)``: every byte maps on its own).
enum TextDecoding {
    /// The encoding a file was read in.
    enum Encoding: String, Sendable {
        case utf8 = "UTF-8"
        case utf8WithBOM = "UTF-8 with BOM"
        case windows1252 = "Windows-1252"

        /// How many bytes at the start of the file are not text (the byte-order mark).
        var skippedPrefix: Int { self == .utf8WithBOM ? 3 : 0 }
    }

    /// An encoding problem, with the position of the first offending byte.
    struct Failure: Error {
        var line: Int
        var column: Int
        var message: String
    }

    /// Where a file cannot be read as text: the byte offset of the first offending byte and what
    /// to tell the user. ``failure(in:)`` turns the offset into a line and column.
    struct Problem: Error, Equatable {
        var offset: Int
        var message: String

        /// The failure at this problem's place in `bytes`, the file's bytes from its start up to at
        /// least `offset` (a streaming import reads them again, only when it fails).
        func failure(in bytes: some Collection<UInt8>) -> Failure {
            var line = 1
            var lineStart = 0
            for (index, byte) in bytes.prefix(offset).enumerated() where byte == 0x0A {
                line += 1
                lineStart = index + 1
            }
            return Failure(line: line, column: offset - lineStart + 1, message: message)
        }
    }

    /// Decides a file's encoding from its bytes, given in order in buffers of any size.
    ///
    /// ``scan(_:isLast:)`` returns how many bytes it consumed: it leaves a multi-byte sequence cut
    /// by the end of a buffer (at most 3 bytes) for the caller to pass again at the start of the
    /// next one, so that the decision and the offsets do not depend on where buffers end.
    struct Scanner {
        /// The file offset of the next byte to scan.
        private(set) var offset = 0
        private var hasStarted = false
        private var hasBOM = false
        private var isUTF16 = false
        private var validMultibyte = 0
        private var firstInvalid: (offset: Int, byte: UInt8)?
        private var firstNUL: Int?

        /// Scans `bytes`, the file's bytes from ``offset`` on; `isLast` when they run to its end.
        ///
        /// - Returns: How many of `bytes` were consumed; the rest must start the next call.
        mutating func scan(_ bytes: UnsafeBufferPointer<UInt8>, isLast: Bool) -> Int {
            var i = 0
            let count = bytes.count
            if !hasStarted {
                // The first 3 bytes tell a byte-order mark.
                guard count >= 3 || isLast else { return 0 }
                hasStarted = true
                isUTF16 = bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF])
                hasBOM = bytes.starts(with: [0xEF, 0xBB, 0xBF])
                if hasBOM { i = 3 }
            }
            while i < count {
                // Eight ASCII bytes at a time when none is NUL (most of a CSV).
                if i + 8 <= count {
                    let word = UnsafeRawPointer(bytes.baseAddress! + i).loadUnaligned(as: UInt64.self)
                    let hasHighBit = word & 0x8080_8080_8080_8080 != 0
                    let hasZero = (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080 != 0
                    if !hasHighBit && !hasZero {
                        i += 8
                        continue
                    }
                }
                let byte = bytes[i]
                if byte < 0x80 {
                    if byte == 0 && firstNUL == nil { firstNUL = offset + i }
                    i += 1
                    continue
                }
                // As before streaming: 0xF5–0xFF take the 3-byte branch and fail on their
                // continuation bytes.
                let length =
                    byte >= 0xF0 && byte <= 0xF4 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC2 && byte <= 0xDF ? 2 : 0
                if length > 0 && i + length > count && !isLast { break }
                var valid = length > 0 && i + length <= count
                if valid {
                    for j in 1..<length where bytes[i + j] & 0xC0 != 0x80 { valid = false }
                }
                if valid {
                    validMultibyte += 1
                    i += length
                } else {
                    if firstInvalid == nil { firstInvalid = (offset + i, byte) }
                    i += 1
                }
            }
            offset += i
            return i
        }

        /// The encoding, once every byte was scanned.
        ///
        /// - Throws: Where the file cannot be text: UTF-16, NUL bytes, or invalid UTF-8 in a file
        ///   that is otherwise UTF-8.
        func encoding() throws(Problem) -> Encoding {
            if isUTF16 {
                throw Problem(offset: 0, message: "the file is UTF-16; save it as UTF-8 and import it again")
            }
            if let firstNUL {
                throw Problem(
                    offset: firstNUL,
                    message: "the file holds NUL bytes: it is binary or UTF-16, not a text export"
                )
            }
            guard let firstInvalid else { return hasBOM ? .utf8WithBOM : .utf8 }
            if validMultibyte > 0 || hasBOM {
                throw Problem(
                    offset: firstInvalid.offset,
                    message:
                        "invalid UTF-8 (byte 0x\(String(firstInvalid.byte, radix: 16, uppercase: true))) in a file that is otherwise UTF-8; re-save it as UTF-8"
                )
            }
            return .windows1252
        }
    }

    /// Returns UTF-8 bytes (without a BOM) and the encoding they were read in, for a whole file.
    static func utf8Bytes(_ bytes: [UInt8]) throws(Failure) -> (bytes: [UInt8], encoding: Encoding) {
        var scanner = Scanner()
        _ = bytes.withUnsafeBufferPointer { scanner.scan($0, isLast: true) }
        let encoding: Encoding
        do {
            encoding = try scanner.encoding()
        } catch {
            throw error.failure(in: bytes)
        }
        switch encoding {
        case .utf8: return (bytes, encoding)
        case .utf8WithBOM: return (Array(bytes[3...]), encoding)
        case .windows1252:
            var output: [UInt8] = []
            output.reserveCapacity(bytes.count + bytes.count / 8)
            bytes.withUnsafeBufferPointer { transcodeWindows1252($0, appendingTo: &output) }
            return (output, encoding)
        }
    }

    /// Windows-1252 code points for bytes 0x80–0x9F (others map to themselves as Latin-1).
    private static let windows1252High: [UInt32] = [
        0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D,
        0x017D, 0x8F, 0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A,
        0x0153, 0x9D, 0x017E, 0x0178,
    ]

    /// Appends the UTF-8 of Windows-1252 `bytes` to `output`; any cut between bytes is a valid one.
    static func transcodeWindows1252(_ bytes: UnsafeBufferPointer<UInt8>, appendingTo output: inout [UInt8]) {
        for byte in bytes {
            if byte < 0x80 {
                output.append(byte)
                continue
            }
            let scalar = byte < 0xA0 ? windows1252High[Int(byte - 0x80)] : UInt32(byte)
            if scalar < 0x800 {
                output.append(UInt8(0xC0 | scalar >> 6))
                output.append(UInt8(0x80 | scalar & 0x3F))
            } else {
                output.append(UInt8(0xE0 | scalar >> 12))
                output.append(UInt8(0x80 | scalar >> 6 & 0x3F))
                output.append(UInt8(0x80 | scalar & 0x3F))
            }
        }
    }
}
