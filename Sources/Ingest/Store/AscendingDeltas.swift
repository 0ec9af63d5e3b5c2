/// Strictly ascending integers (track IDs, row numbers) as the LEB128 encoding of their
/// differences, the first from 0: about one byte each where they rise mostly by 1, as a library's
/// track IDs do, instead of eight.
enum AscendingDeltas {
    /// The LEB128 differences of `values`, which must ascend strictly.
    static func encode(_ values: some Sequence<Int64>) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(values.underestimatedCount + 16)
        var previous: Int64 = 0
        for value in values {
            append(value, after: previous, to: &bytes)
            previous = value
        }
        return bytes
    }

    /// Appends the LEB128 difference of `value` from `previous` (0 for the first value): what
    /// ``encode(_:)`` writes for each value, for a part built a value at a time.
    @inline(__always)
    static func append(_ value: Int64, after previous: Int64, to bytes: inout [UInt8]) {
        var delta = UInt64(bitPattern: value &- previous)
        while delta >= 0x80 {
            bytes.append(UInt8(delta & 0x7F) | 0x80)
            delta >>= 7
        }
        bytes.append(UInt8(delta))
    }

    /// The values `bytes` encodes, or `nil` when they do not ascend strictly, a value is cut
    /// short, or there are more than `limit` (a damaged part can hold any bytes).
    static func decode(_ bytes: UnsafeRawBufferPointer, atMost limit: Int = .max) -> [Int64]? {
        var values: [Int64] = []
        // Most differences take one byte: the byte count bounds the value count.
        values.reserveCapacity(min(bytes.count, limit))
        var value: Int64 = 0
        var delta: UInt64 = 0
        var shift: UInt64 = 0
        // On the raw bytes: iterating a `Data` took 20 ms a million values.
        for byte in bytes {
            guard shift < 64 else { return nil }
            delta |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 != 0 {
                shift += 7
                continue
            }
            let next = value &+ Int64(bitPattern: delta)
            guard values.isEmpty || next > value, values.count < limit else { return nil }
            value = next
            values.append(value)
            (delta, shift) = (0, 0)
        }
        return shift == 0 ? values : nil
    }
}
