/// Turning a file's bytes into UTF-8, whatever encoding it came in.
enum TextDecoding {
    /// The encoding a file was read in.
    enum Encoding: String, Sendable {
        case utf8 = "UTF-8"
        case utf8WithBOM = "UTF-8 with BOM"
        case windows1252 = "Windows-1252"
    }

    /// An encoding problem, with the position of the first offending byte.
    struct Failure: Error {
        var line: Int
        var column: Int
        var message: String
    }

    /// Returns UTF-8 bytes (without a BOM) and the encoding they were read in.
    ///
    /// A file is UTF-8 when all of it decodes as UTF-8. A file with no valid multi-byte UTF-8
    /// sequence at all is read as Windows-1252 (Latin-1 plus the 0x80–0x9F punctuation), which is
    /// what spreadsheet exports like Kaggle's "Top 50" use. A file that mixes valid UTF-8 with
    /// invalid bytes, or that holds NUL bytes (UTF-16, binary), is refused.
    static func utf8Bytes(_ bytes: [UInt8]) throws(Failure) -> (bytes: [UInt8], encoding: Encoding) {
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
            throw Failure(line: 1, column: 1, message: "the file is UTF-16; save it as UTF-8 and import it again")
        }
        let hasBOM = bytes.starts(with: [0xEF, 0xBB, 0xBF])
        var validMultibyte = 0
        var firstInvalid: Int?
        var i = hasBOM ? 3 : 0
        let count = bytes.count
        while i < count {
            let byte = bytes[i]
            if byte < 0x80 {
                if byte == 0 {
                    throw failure(
                        at: i,
                        in: bytes,
                        "the file holds NUL bytes: it is binary or UTF-16, not a text export"
                    )
                }
                i += 1
                continue
            }
            let length = byte >= 0xF0 && byte <= 0xF4 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC2 && byte <= 0xDF ? 2 : 0
            var valid = length > 0 && i + length <= count
            if valid {
                for j in 1..<length where bytes[i + j] & 0xC0 != 0x80 { valid = false }
            }
            if valid {
                validMultibyte += 1
                i += length
            } else {
                if firstInvalid == nil { firstInvalid = i }
                i += 1
            }
        }
        guard let firstInvalid else {
            return (hasBOM ? Array(bytes[3...]) : bytes, hasBOM ? .utf8WithBOM : .utf8)
        }
        if validMultibyte > 0 || hasBOM {
            throw failure(
                at: firstInvalid,
                in: bytes,
                "invalid UTF-8 (byte 0x\(String(bytes[firstInvalid], radix: 16, uppercase: true))) in a file that is otherwise UTF-8; re-save it as UTF-8"
            )
        }
        return (transcodeWindows1252(bytes), .windows1252)
    }

    private static func failure(at offset: Int, in bytes: [UInt8], _ message: String) -> Failure {
        var line = 1
        var lineStart = 0
        for i in 0..<offset where bytes[i] == 0x0A {
            line += 1
            lineStart = i + 1
        }
        return Failure(line: line, column: offset - lineStart + 1, message: message)
    }

    /// Windows-1252 code points for bytes 0x80–0x9F (others map to themselves as Latin-1).
    private static let windows1252High: [UInt32] = [
        0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D,
        0x017D, 0x8F, 0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A,
        0x0153, 0x9D, 0x017E, 0x0178,
    ]

    private static func transcodeWindows1252(_ bytes: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + bytes.count / 8)
        for byte in bytes {
            if byte < 0x80 {
                output.append(byte)
                continue
            }
            let scalar = Unicode.Scalar(byte < 0xA0 ? windows1252High[Int(byte - 0x80)] : UInt32(byte))!
            output.append(contentsOf: Array(String(Character(scalar)).utf8))
        }
        return output
    }
}
