/// Snapshot columns in fewer bytes, given back bit for bit.
///
/// - ``narrow(_:)``: integers as their distance from the smallest, in as many bytes as the largest
///   distance needs (1 to 8). A million tracks' durations take 3 bytes each instead of 4, their
///   artist and song codes 2.
/// - ``dictionary(_:columnCount:)``: a matrix of `Float`s column by column, each column as a table
///   of its distinct bit patterns and one index per row (1 byte up to 256 distinct values, 2 up to
///   65,536; a column with more keeps its 4 bytes). Spotify's features have three decimals and few
///   distinct values: on a million tracks the feature values took 48 MB as `Float`s and take 21 MB
///   this way, the scaled space 16 MB instead of 36.
///
/// Both are written in the machine's byte order, like every other snapshot part. Hand-written:
/// SQLite has no compact array type, and a general compressor (zlib on the same values) saved
/// less and took longer to read back.
enum PackedColumns {
    // MARK: Integers

    /// `values` as a width byte, the smallest value (8 bytes) and each value's distance from it in
    /// `width` bytes.
    static func narrow<T: FixedWidthInteger>(_ values: [T]) -> [UInt8] {
        let minimum = values.lazy.map { Int64($0) }.min() ?? 0
        let maximum = values.lazy.map { Int64($0) }.max() ?? 0
        let range = UInt64(bitPattern: maximum &- minimum)
        let width = max(1, (64 - range.leadingZeroBitCount + 7) / 8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(9 + values.count * width)
        bytes.append(UInt8(width))
        withUnsafeBytes(of: minimum) { bytes.append(contentsOf: $0) }
        switch width {
        case 1: for value in values { bytes.append(UInt8(truncatingIfNeeded: Int64(value) &- minimum)) }
        case 2: append(values, as: UInt16.self, minimum: minimum, to: &bytes)
        case 4: append(values, as: UInt32.self, minimum: minimum, to: &bytes)
        default:
            for value in values {
                let distance = UInt64(bitPattern: Int64(value) &- minimum)
                withUnsafeBytes(of: distance.littleEndian) { bytes.append(contentsOf: $0.prefix(width)) }
            }
        }
        return bytes
    }

    private static func append<T: FixedWidthInteger, W: FixedWidthInteger>(
        _ values: [T],
        as: W.Type,
        minimum: Int64,
        to bytes: inout [UInt8]
    ) {
        for value in values {
            withUnsafeBytes(of: W(truncatingIfNeeded: Int64(value) &- minimum)) { bytes.append(contentsOf: $0) }
        }
    }

    /// The integers ``narrow(_:)`` wrote, or `nil` when the bytes are not such a part or a value
    /// does not fit in `T` (a damaged store can hold any bytes).
    static func integers<T: FixedWidthInteger>(_ bytes: UnsafeRawBufferPointer, as type: T.Type = T.self) -> [T]? {
        guard bytes.count >= 9, (1...8).contains(Int(bytes[0])) else { return nil }
        let width = Int(bytes[0])
        let minimum = bytes.loadUnaligned(fromByteOffset: 1, as: Int64.self)
        let body = UnsafeRawBufferPointer(rebasing: bytes[9...])
        guard body.count % width == 0 else { return nil }
        let count = body.count / width
        var fits = true
        let values = [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            func place(_ distance: UInt64, at index: Int) {
                let value = minimum &+ Int64(bitPattern: distance)
                guard let exact = T(exactly: value) else {
                    fits = false
                    buffer[index] = 0
                    return
                }
                buffer[index] = exact
            }
            switch width {
            case 1: for index in 0..<count { place(UInt64(body[index]), at: index) }
            case 2:
                for index in 0..<count {
                    place(UInt64(body.loadUnaligned(fromByteOffset: index * 2, as: UInt16.self)), at: index)
                }
            case 4:
                for index in 0..<count {
                    place(UInt64(body.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self)), at: index)
                }
            default:
                for index in 0..<count {
                    var distance: UInt64 = 0
                    for byte in 0..<width { distance |= UInt64(body[index * width + byte]) << (8 * UInt64(byte)) }
                    place(distance, at: index)
                }
            }
            initialized = count
        }
        return fits ? values : nil
    }

    // MARK: Float matrices

    /// The `columnCount`-wide row-major matrix `values`: its row and column counts (`UInt32`), then
    /// per column a width byte (1, 2 or 4) and, for 1 or 2, the number of distinct bit patterns
    /// (`UInt32`) and the patterns, then one index (or, for 4, the bits) per row.
    static func dictionary(_ values: [Float], columnCount: Int) -> [UInt8] {
        precondition(columnCount > 0 && values.count % columnCount == 0, "A whole number of rows.")
        let rowCount = values.count / columnCount
        var bytes: [UInt8] = []
        bytes.reserveCapacity(8 + values.count * 2)
        withUnsafeBytes(of: UInt32(rowCount)) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt32(columnCount)) { bytes.append(contentsOf: $0) }
        var table = BitTable()
        var indexes = [UInt16](repeating: 0, count: rowCount)
        for column in 0..<columnCount {
            table.removeAll()
            var fitted = true
            for row in 0..<rowCount {
                guard let index = table.index(of: values[row * columnCount + column].bitPattern) else {
                    fitted = false
                    break
                }
                indexes[row] = index
            }
            guard fitted else {
                bytes.append(4)
                for row in 0..<rowCount {
                    withUnsafeBytes(of: values[row * columnCount + column].bitPattern) { bytes.append(contentsOf: $0) }
                }
                continue
            }
            let wide = table.patterns.count > 256
            bytes.append(wide ? 2 : 1)
            withUnsafeBytes(of: UInt32(table.patterns.count)) { bytes.append(contentsOf: $0) }
            table.patterns.withUnsafeBytes { bytes.append(contentsOf: $0) }
            if wide {
                indexes.withUnsafeBytes { bytes.append(contentsOf: $0) }
            } else {
                for index in indexes { bytes.append(UInt8(truncatingIfNeeded: index)) }
            }
        }
        return bytes
    }

    /// The matrix ``dictionary(_:columnCount:)`` wrote, row-major, or `nil` when the bytes are not
    /// such a part, or not `columnCount` columns wide.
    static func floats(_ bytes: UnsafeRawBufferPointer, columnCount: Int) -> [Float]? {
        guard bytes.count >= 8 else { return nil }
        let rowCount = Int(bytes.loadUnaligned(fromByteOffset: 0, as: UInt32.self))
        guard Int(bytes.loadUnaligned(fromByteOffset: 4, as: UInt32.self)) == columnCount, columnCount > 0 else {
            return nil
        }
        var offset = 8
        var valid = true
        let values = [Float](unsafeUninitializedCapacity: rowCount * columnCount) { buffer, initialized in
            initialized = rowCount * columnCount
            for index in 0..<buffer.count { buffer[index] = 0 }
            for column in 0..<columnCount {
                guard offset < bytes.count else {
                    valid = false
                    return
                }
                let width = Int(bytes[offset])
                offset += 1
                switch width {
                case 4:
                    guard bytes.count - offset >= rowCount * 4 else {
                        valid = false
                        return
                    }
                    for row in 0..<rowCount {
                        buffer[row * columnCount + column] = Float(
                            bitPattern: bytes.loadUnaligned(fromByteOffset: offset + row * 4, as: UInt32.self)
                        )
                    }
                    offset += rowCount * 4
                case 1, 2:
                    guard bytes.count - offset >= 4 else {
                        valid = false
                        return
                    }
                    let patternCount = Int(bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
                    offset += 4
                    guard patternCount <= 1 << (8 * width), bytes.count - offset >= patternCount * 4 + rowCount * width
                    else {
                        valid = false
                        return
                    }
                    var patterns = [Float](repeating: 0, count: patternCount)
                    for index in 0..<patternCount {
                        patterns[index] = Float(
                            bitPattern: bytes.loadUnaligned(fromByteOffset: offset + index * 4, as: UInt32.self)
                        )
                    }
                    offset += patternCount * 4
                    var largest = 0
                    if width == 1 {
                        for row in 0..<rowCount {
                            let index = Int(bytes[offset + row])
                            largest = max(largest, index)
                            if index < patternCount { buffer[row * columnCount + column] = patterns[index] }
                        }
                    } else {
                        for row in 0..<rowCount {
                            let index = Int(bytes.loadUnaligned(fromByteOffset: offset + row * 2, as: UInt16.self))
                            largest = max(largest, index)
                            if index < patternCount { buffer[row * columnCount + column] = patterns[index] }
                        }
                    }
                    guard rowCount == 0 || largest < patternCount else {
                        valid = false
                        return
                    }
                    offset += rowCount * width
                default:
                    valid = false
                    return
                }
            }
        }
        return valid && offset == bytes.count ? values : nil
    }
}

/// The distinct bit patterns of one column, numbered in order of first appearance: an open
/// addressing table of 2¹⁷ slots for at most 2¹⁶ patterns. A `Dictionary` took about three times
/// as long on a million tracks' columns.
private struct BitTable {
    private static let slotBits = 17
    private static let capacity = 1 << 16
    private var slots = [Int32](repeating: -1, count: 1 << slotBits)
    private(set) var patterns: [UInt32] = []

    mutating func removeAll() {
        if patterns.isEmpty { return }
        for index in slots.indices { slots[index] = -1 }
        patterns.removeAll(keepingCapacity: true)
    }

    /// The number of `pattern`, added when new, or `nil` when the table is full.
    mutating func index(of pattern: UInt32) -> UInt16? {
        let mask = (1 << Self.slotBits) - 1
        var slot = Int((pattern &* 0x9E37_79B1) >> UInt32(32 - Self.slotBits))
        while true {
            let number = slots[slot]
            if number < 0 {
                guard patterns.count < Self.capacity else { return nil }
                slots[slot] = Int32(patterns.count)
                patterns.append(pattern)
                return UInt16(patterns.count - 1)
            }
            if patterns[Int(number)] == pattern { return UInt16(number) }
            slot = (slot + 1) & mask
        }
    }
}
