import Foundation

/// A check that bytes are well-formed JSON (RFC 8259), run before Foundation parses them, that
/// says where the first problem is.
///
/// Written by hand because Foundation cannot say where: `JSONSerialization` reports a file cut
/// short as "Unexpected end of file" with no position and a deep nesting as a raw
/// `NSCocoaErrorDomain` error, and `JSONDecoder` wraps both into "The given data was not valid
/// JSON." This check builds no values; it is one pass over the bytes with a stack of open
/// containers, and it refuses exactly what Foundation would refuse (nesting deeper than
/// ``maximumDepth``, numbers no `Double` holds, unpaired surrogates) plus what JSON forbids
/// and Foundation lets through (trailing commas). A file that passes it parses.
enum JSONSyntax {
    /// The deepest nesting of arrays and objects accepted: Foundation's own limit. Spotify's
    /// files nest fewer than 10 levels deep.
    static let maximumDepth = 512

    /// Checks that `data` is one JSON value, optionally preceded by a UTF-8 byte-order mark and
    /// surrounded by whitespace.
    ///
    /// - Throws: ``JSONSyntaxError`` at the first problem.
    /// - Complexity: O(*n*) for *n* bytes.
    static func check(_ data: Data) throws(JSONSyntaxError) {
        let failure = data.withUnsafeBytes { raw in
            Result { () throws(JSONSyntaxError) in try check(raw.assumingMemoryBound(to: UInt8.self)) }
        }
        try failure.get()
    }

    /// Checks that `bytes` are one JSON value, as the `Data` overload does.
    static func check(_ bytes: [UInt8]) throws(JSONSyntaxError) {
        try bytes.withUnsafeBufferPointer { buffer throws(JSONSyntaxError) in try check(buffer) }
    }

    private static func check(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONSyntaxError) {
        var scanner = Scanner(bytes: bytes)
        try scanner.run()
    }
}

/// The first syntax problem in a JSON file, with its place.
struct JSONSyntaxError: Error, Hashable {
    /// The 0-based byte offset of the problem (the file's length when it is truncated).
    var offset: Int
    /// The 1-based line.
    var line: Int
    /// The 1-based column, in characters.
    var column: Int
    /// What was found and what was expected, naming the place.
    var message: String
}

// MARK: - Scanner

extension JSONSyntax {
    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var i = 0
        var line = 1
        var lineStart = 0
        /// Open containers, innermost last: `true` for an object.
        var stack: [Bool] = []
        var inString = false

        init(bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
            stack.reserveCapacity(16)
        }

        mutating func run() throws(JSONSyntaxError) {
            value: while true {
                try skipWhitespace(expecting: "a value")
                switch bytes[i] {
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    let isObject = bytes[i] == UInt8(ascii: "{")
                    guard stack.count < JSONSyntax.maximumDepth else {
                        throw failure(
                            "the JSON nests deeper than \(JSONSyntax.maximumDepth) levels at \(place); "
                                + "expected at most \(JSONSyntax.maximumDepth) arrays and objects inside one another"
                        )
                    }
                    stack.append(isObject)
                    i += 1
                    try skipWhitespace(expecting: isObject ? "a key in double quotes or '}'" : "a value or ']'")
                    if bytes[i] == UInt8(ascii: isObject ? "}" : "]") {
                        stack.removeLast()
                        i += 1
                    } else if isObject {
                        try key()
                        continue value
                    } else {
                        continue value
                    }
                case UInt8(ascii: "\""): try string()
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
                case UInt8(ascii: "t"): try literal("true")
                case UInt8(ascii: "f"): try literal("false")
                case UInt8(ascii: "n"): try literal("null")
                default: throw unexpected("a value (an object, array, string, number, true, false or null)")
                }
                // After a value: close containers until one continues with a comma.
                while let isObject = stack.last {
                    let close = UInt8(ascii: isObject ? "}" : "]")
                    let expected = isObject ? "',' or '}'" : "',' or ']'"
                    try skipWhitespace(expecting: expected)
                    if bytes[i] == close {
                        stack.removeLast()
                        i += 1
                    } else if bytes[i] == UInt8(ascii: ",") {
                        i += 1
                        if isObject {
                            try skipWhitespace(expecting: "a key in double quotes")
                            try key()
                        }
                        continue value
                    } else {
                        throw unexpected(expected)
                    }
                }
                while i < bytes.count, Scanner.isWhitespace(bytes[i]) { advance(bytes[i]) }
                guard i == bytes.count else { throw unexpected("the end of the file after the JSON value") }
                return
            }
        }

        /// An object key, the colon after it, and the whitespace before its value.
        private mutating func key() throws(JSONSyntaxError) {
            guard bytes[i] == UInt8(ascii: "\"") else { throw unexpected("a key in double quotes") }
            try string()
            try skipWhitespace(expecting: "':'")
            guard bytes[i] == UInt8(ascii: ":") else { throw unexpected("':' after the key") }
            i += 1
        }

        private mutating func string() throws(JSONSyntaxError) {
            inString = true
            i += 1
            while true {
                guard i < bytes.count else { throw truncated(expecting: "'\"' to close the string") }
                let byte = bytes[i]
                if byte == UInt8(ascii: "\"") {
                    i += 1
                    inString = false
                    return
                }
                if byte < 0x20 {
                    throw failure(
                        "unexpected control character \(Scanner.codePoint(byte)) in a string at \(place); "
                            + "expected it written as the escape \\u\(Scanner.hex(UInt32(byte)))"
                    )
                }
                guard byte == UInt8(ascii: "\\") else {
                    i += 1
                    continue
                }
                let start = i
                i += 1
                guard i < bytes.count else { throw truncated(expecting: "an escaped character after '\\'") }
                switch bytes[i] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                    UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    i += 1
                case UInt8(ascii: "u"):
                    i += 1
                    let unit = try hexQuad()
                    if (0xDC00...0xDFFF).contains(unit) {
                        i = start
                        throw failure(
                            "unexpected \\u\(Scanner.hex(unit)) at \(place); "
                                + "expected a high surrogate (\\uD800 to \\uDBFF) before this low surrogate"
                        )
                    }
                    if (0xD800...0xDBFF).contains(unit) {
                        let expected = "a low surrogate (\\uDC00 to \\uDFFF) after \\u\(Scanner.hex(unit))"
                        let second = i
                        for byte in [UInt8(ascii: "\\"), UInt8(ascii: "u")] {
                            guard i < bytes.count else { throw truncated(expecting: expected) }
                            guard bytes[i] == byte else {
                                i = second
                                throw unexpected(expected)
                            }
                            i += 1
                        }
                        let low = try hexQuad()
                        guard (0xDC00...0xDFFF).contains(low) else {
                            i = second
                            throw failure("unexpected \\u\(Scanner.hex(low)) at \(place); expected \(expected)")
                        }
                    }
                default:
                    throw unexpected("an escape: \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\u and 4 hexadecimal digits")
                }
            }
        }

        /// The four hexadecimal digits after `\u`.
        private mutating func hexQuad() throws(JSONSyntaxError) -> UInt32 {
            var unit: UInt32 = 0
            for _ in 0..<4 {
                guard i < bytes.count else { throw truncated(expecting: "4 hexadecimal digits after \\u") }
                let byte = bytes[i]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw unexpected("4 hexadecimal digits after \\u")
                }
                unit = unit << 4 | UInt32(digit)
                i += 1
            }
            return unit
        }

        private mutating func number() throws(JSONSyntaxError) {
            let start = i
            var hasExponent = false
            var hasNonZeroDigit = false
            if bytes[i] == UInt8(ascii: "-") { i += 1 }
            // Integer part: 0, or a digit 1-9 and more digits.
            guard i < bytes.count else { throw truncated(expecting: "a digit") }
            guard Scanner.isDigit(bytes[i]) else { throw unexpected("a digit") }
            if bytes[i] == UInt8(ascii: "0") {
                i += 1
                if i < bytes.count, Scanner.isDigit(bytes[i]) {
                    throw unexpected("'.', 'e' or the end of the number (a number has no leading zeros)")
                }
            } else {
                hasNonZeroDigit = true
                digits()
            }
            if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
                i += 1
                guard i < bytes.count else { throw truncated(expecting: "a digit after '.'") }
                guard Scanner.isDigit(bytes[i]) else { throw unexpected("a digit after '.'") }
                hasNonZeroDigit = digits() || hasNonZeroDigit
            }
            if i < bytes.count, bytes[i] | 0x20 == UInt8(ascii: "e") {
                hasExponent = true
                i += 1
                if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
                guard i < bytes.count else { throw truncated(expecting: "a digit in the exponent") }
                guard Scanner.isDigit(bytes[i]) else { throw unexpected("a digit in the exponent") }
                digits()
            }
            // Without an exponent only a number of over 300 characters can leave Double's range.
            guard hasExponent || i - start > 300 else { return }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
            let value = Double(text) ?? .infinity
            let shown = text.count > 40 ? String(text.prefix(39)) + "…" : text
            if !value.isFinite {
                i = start
                throw failure(
                    "unexpected number \(shown) at \(place); "
                        + "expected a number a 64-bit float can hold (magnitude at most 1.8e308)"
                )
            }
            if value == 0 && hasNonZeroDigit {
                i = start
                throw failure(
                    "unexpected number \(shown) at \(place); "
                        + "expected a number a 64-bit float can hold (it rounds to 0; the smallest is 5e-324)"
                )
            }
        }

        /// Skips digits; returns whether one was not zero.
        @discardableResult
        private mutating func digits() -> Bool {
            var nonZero = false
            while i < bytes.count, Scanner.isDigit(bytes[i]) {
                nonZero = nonZero || bytes[i] != UInt8(ascii: "0")
                i += 1
            }
            return nonZero
        }

        private mutating func literal(_ word: StaticString) throws(JSONSyntaxError) {
            let expected = "'\(word)'"
            for byte in UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount) {
                guard i < bytes.count else { throw truncated(expecting: expected) }
                guard bytes[i] == byte else { throw unexpected(expected) }
                i += 1
            }
        }

        /// Skips whitespace, counting lines, and requires more input.
        private mutating func skipWhitespace(expecting expected: String) throws(JSONSyntaxError) {
            while i < bytes.count {
                let byte = bytes[i]
                guard Scanner.isWhitespace(byte) else { return }
                advance(byte)
            }
            throw truncated(expecting: expected)
        }

        private mutating func advance(_ whitespace: UInt8) {
            i += 1
            if whitespace == 0x0A {
                line += 1
                lineStart = i
            }
        }

        // MARK: Failures

        /// `line L, column C` of byte `i`.
        private var place: String {
            "line \(line), column \(column)"
        }

        /// The 1-based column of byte `i`, in characters (UTF-8 lead bytes) from the line's start.
        private var column: Int {
            var column = 1
            var j = lineStart
            while j < i {
                if bytes[j] & 0xC0 != 0x80 { column += 1 }
                j += 1
            }
            return column
        }

        private func failure(_ message: String) -> JSONSyntaxError {
            JSONSyntaxError(offset: i, line: line, column: column, message: message)
        }

        private func truncated(expecting expected: String) -> JSONSyntaxError {
            let inside =
                inString
                ? "a string" : stack.last.map { $0 ? "an object" : "an array" } ?? "a value"
            return failure("the JSON is truncated at byte \(i) (it ends inside \(inside)); expected \(expected)")
        }

        private func unexpected(_ expected: String) -> JSONSyntaxError {
            failure("unexpected \(found) at \(place); expected \(expected)")
        }

        /// The character at `i`, for a message.
        private var found: String {
            let byte = bytes[i]
            switch byte {
            case 0x20..<0x7F: return "'\(Character(Unicode.Scalar(byte)))'"
            case ..<0x20, 0x7F: return "control character \(Scanner.codePoint(byte))"
            default:
                let end = Swift.min(i + 4, bytes.count)
                var iterator = UnsafeBufferPointer(rebasing: bytes[i..<end]).makeIterator()
                var decoder = UTF8()
                if case .scalarValue(let scalar) = decoder.decode(&iterator) {
                    return "'\(Character(scalar))' (U+\(Scanner.hex(scalar.value)))"
                }
                return "byte 0x\(String(byte, radix: 16, uppercase: true))"
            }
        }

        private static func isWhitespace(_ byte: UInt8) -> Bool {
            byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
        }

        private static func isDigit(_ byte: UInt8) -> Bool {
            byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
        }

        private static func codePoint(_ byte: UInt8) -> String {
            "U+" + hex(UInt32(byte))
        }

        /// At least four uppercase hexadecimal digits.
        private static func hex(_ value: UInt32) -> String {
            let digits = String(value, radix: 16, uppercase: true)
            return String(repeating: "0", count: Swift.max(0, 4 - digits.count)) + digits
        }
    }
}
