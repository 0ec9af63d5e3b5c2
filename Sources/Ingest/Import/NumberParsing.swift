#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Parsing decimal numbers straight from bytes, without making a `String` per field.
enum NumberParsing {
    private static let powersOfTen: [Double] = (0...22).map { exponent in
        var value = 1.0
        for _ in 0..<exponent { value *= 10 }
        return value
    }

    /// Parses a decimal number such as `-6.326`, `0.00000436`, `2.33e-5` or `176`.
    ///
    /// Uses Clinger's fast path (an exact integer mantissa scaled by an exact power of ten is
    /// correctly rounded) and falls back to `strtod` for anything longer, so results equal
    /// `Double(text)` bit for bit.
    ///
    /// - Returns: `nil` when the bytes are not a number.
    static func double(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Double? {
        var i = start
        var stop = end
        while i < stop, bytes[i] == 0x20 || bytes[i] == 0x09 { i += 1 }
        while stop > i, bytes[stop - 1] == 0x20 || bytes[stop - 1] == 0x09 { stop -= 1 }
        guard i < stop else { return nil }
        let first = i
        var negative = false
        if bytes[i] == 0x2D || bytes[i] == 0x2B {
            negative = bytes[i] == 0x2D
            i += 1
        }
        var mantissa: UInt64 = 0
        var digits = 0
        var fractionDigits = 0
        var sawDigit = false
        var sawPoint = false
        while i < stop {
            let byte = bytes[i]
            if byte >= 0x30 && byte <= 0x39 {
                sawDigit = true
                if mantissa == 0 && byte == 0x30 {
                    if sawPoint { fractionDigits += 1 }
                } else {
                    digits += 1
                    if digits > 19 { return slowDouble(bytes, from: first, to: stop) }
                    mantissa = mantissa &* 10 &+ UInt64(byte - 0x30)
                    if sawPoint { fractionDigits += 1 }
                }
            } else if byte == 0x2E, !sawPoint {
                sawPoint = true
            } else if byte == 0x65 || byte == 0x45 {
                break
            } else {
                return nil
            }
            i += 1
        }
        guard sawDigit else { return nil }
        var exponent = -fractionDigits
        if i < stop {  // exponent
            i += 1
            var exponentNegative = false
            if i < stop, bytes[i] == 0x2D || bytes[i] == 0x2B {
                exponentNegative = bytes[i] == 0x2D
                i += 1
            }
            guard i < stop else { return nil }
            var value = 0
            while i < stop {
                let byte = bytes[i]
                guard byte >= 0x30 && byte <= 0x39 else { return nil }
                value = min(value * 10 + Int(byte - 0x30), 10_000)
                i += 1
            }
            exponent += exponentNegative ? -value : value
        }
        guard mantissa < (1 << 53), abs(exponent) <= 22 else {
            return slowDouble(bytes, from: first, to: stop)
        }
        var value = Double(mantissa)
        value = exponent < 0 ? value / powersOfTen[-exponent] : value * powersOfTen[exponent]
        return negative ? -value : value
    }

    private static func slowDouble(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Double? {
        Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self))
    }
}
