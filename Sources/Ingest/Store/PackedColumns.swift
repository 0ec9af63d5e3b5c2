/// Snapshot columns in fewer bytes, given back bit for bit.
///
/// - ``narrow(_:)``: integers as their distance from the smallest, in as many bytes as the largest
///   distance needs (1 to 8). A million tracks' durations take 3 bytes each instead of 4, their
///   artist and song codes 2.
/// - ``dictionary(_:columnCount:)``: a matrix of `Float`s column by column, each column as a table
///   of its distinct bit patterns and one index per row in as few bits as their number needs (a
///   column of more than 65,536 keeps its 32 bits). Spotify's features have three decimals and
///   few distinct values: on a million tracks the feature values took 48 MB as `Float`s and the
///   scaled space 36 MB.
///
/// Both are written in the machine's byte order, like every other snapshot part. Hand-written:
/// SQLite has no compact array type.
enum PackedColumns {
    // MARK: Integers

    /// `values` as a width byte, the smallest value (8 bytes) and each value's distance from it in
    /// `width` bytes.
    ///
    /// - Precondition: Every value fits in an `Int64`.
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
    /// per column a byte of index bits *b*:
    /// - *b* ≤ 16: the number of distinct bit patterns (`UInt32`), the patterns, and each row's
    ///   index into them in *b* bits, packed from the lowest bit up, then 8 zero bytes (so that a
    ///   reader may always load 8 bytes at a time);
    /// - *b* = 32: each row's bits, for a column of more than 65,536 distinct values.
    static func dictionary(_ values: [Float], columnCount: Int) -> [UInt8] {
        precondition(columnCount > 0 && values.count % columnCount == 0, "A whole number of rows.")
        let rowCount = values.count / columnCount
        var bytes = matrixHeader(rowCount: rowCount, columnCount: columnCount)
        bytes.reserveCapacity(8 + values.count * 2)
        var coder = FloatColumnCoder()
        coder.reserveCapacity(rowCount)
        for column in 0..<columnCount {
            for row in 0..<rowCount { coder.append(values[row * columnCount + column]) }
            coder.finish(into: &bytes)
        }
        return bytes
    }

    /// The row and column counts that open a matrix of ``dictionary(_:columnCount:)``; its columns,
    /// each written by ``FloatColumnCoder/finish(into:)``, follow.
    static func matrixHeader(rowCount: Int, columnCount: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        withUnsafeBytes(of: UInt32(rowCount)) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt32(columnCount)) { bytes.append(contentsOf: $0) }
        return bytes
    }

    /// One column of ``dictionary(_:columnCount:)``, coded as its values come: each value as a
    /// 16-bit index into the column's distinct patterns while there are at most 65,536 of them, then
    /// as its 32 bits. A column of a million rows takes 2 MB while it is coded, not the 4 MB of its
    /// `Float`s (or the 48 MB of a table's twelve columns, which a streaming build never holds).
    struct FloatColumnCoder {
        private var table = BitTable()
        private var indexes: [UInt16] = []
        /// Every value's bits, once the column has outgrown the table.
        private var raw: [UInt32]?

        /// The bytes ``finish(into:)`` appends for the values appended so far.
        var encodedByteCount: Int {
            if let raw { return 1 + raw.count * 4 }
            let bits = indexBits(patternCount: table.patterns.count)
            return 1 + 4 + table.patterns.count * 4 + (indexes.count * bits + 7) / 8 + 8
        }

        /// The most bytes ``finish(into:)`` can append for a column of `rowCount` values.
        static func largestByteCount(rowCount: Int) -> Int {
            max(1 + rowCount * 4, 1 + 4 + min(rowCount, 1 << 16) * 4 + (rowCount * 16 + 7) / 8 + 8)
        }

        /// Makes room for `count` values, so that appending them does not grow the codes by copying.
        mutating func reserveCapacity(_ count: Int) { indexes.reserveCapacity(count) }

        mutating func append(_ value: Float) {
            let pattern = value.bitPattern
            if raw != nil {
                raw!.append(pattern)
            } else if let index = table.index(of: pattern) {
                indexes.append(index)
            } else {
                var all = indexes.map { table.patterns[Int($0)] }
                all.append(pattern)
                raw = all
                indexes = []
            }
        }

        /// Appends the column's bytes (its bit count, then its patterns and packed indexes, or its
        /// values' bits) to `bytes`, and empties the coder for the next column.
        mutating func finish(into bytes: inout [UInt8]) {
            defer {
                table.removeAll()
                indexes.removeAll(keepingCapacity: true)
                raw = nil
            }
            if let raw {
                bytes.append(32)
                raw.withUnsafeBytes { bytes.append(contentsOf: $0) }
                return
            }
            let bits = indexBits(patternCount: table.patterns.count)
            bytes.append(UInt8(bits))
            withUnsafeBytes(of: UInt32(table.patterns.count)) { bytes.append(contentsOf: $0) }
            table.patterns.withUnsafeBytes { bytes.append(contentsOf: $0) }
            var word: UInt64 = 0
            var filled = 0
            for index in indexes {
                word |= UInt64(index) << UInt64(filled)
                filled += bits
                while filled >= 8 {
                    bytes.append(UInt8(truncatingIfNeeded: word))
                    word >>= 8
                    filled -= 8
                }
            }
            if filled > 0 { bytes.append(UInt8(truncatingIfNeeded: word)) }
            bytes.append(contentsOf: repeatElement(0, count: 8))
        }
    }

    /// The bits an index into `patternCount` patterns takes: 0 for one pattern.
    private static func indexBits(patternCount: Int) -> Int {
        patternCount <= 1 ? 0 : Int.bitWidth - (patternCount - 1).leadingZeroBitCount
    }

    /// The matrix ``dictionary(_:columnCount:)`` wrote, row-major, or `nil` when the bytes are not
    /// such a part, or not `columnCount` columns wide.
    ///
    /// Decoded a block of rows at a time, every column of the block before the next: column by
    /// column over a million rows, each column's writes went through the whole 48 MB matrix again.
    static func floats(_ bytes: UnsafeRawBufferPointer, columnCount: Int) -> [Float]? {
        guard let (rowCount, columns) = layout(bytes, columnCount: columnCount) else { return nil }
        var largest = [Int](repeating: 0, count: columnCount)
        let values = [Float](unsafeUninitializedCapacity: rowCount * columnCount) { buffer, initialized in
            let blockRows = 4096
            for blockStart in stride(from: 0, to: rowCount, by: blockRows) {
                let blockEnd = min(rowCount, blockStart + blockRows)
                for (column, part) in columns.enumerated() {
                    if part.bits == 32 {
                        for row in blockStart..<blockEnd {
                            buffer[row * columnCount + column] = Float(
                                bitPattern: bytes.loadUnaligned(fromByteOffset: part.stream + row * 4, as: UInt32.self)
                            )
                        }
                        continue
                    }
                    let bits = part.bits
                    let mask = (UInt64(1) << UInt64(bits)) &- 1
                    var most = largest[column]
                    part.patterns.withUnsafeBufferPointer { patterns in
                        for row in blockStart..<blockEnd {
                            let bit = row * bits
                            let word = bytes.loadUnaligned(fromByteOffset: part.stream + bit >> 3, as: UInt64.self)
                            let index = Int(truncatingIfNeeded: (word >> UInt64(bit & 7)) & mask)
                            most = max(most, index)
                            buffer[row * columnCount + column] = patterns[index]
                        }
                    }
                    largest[column] = most
                }
            }
            initialized = rowCount * columnCount
        }
        for (column, part) in columns.enumerated()
        where rowCount > 0 && part.bits < 32 && largest[column] >= part.patternCount {
            return nil
        }
        return values
    }

    /// Where one column of a ``dictionary(_:columnCount:)`` matrix is.
    private struct ColumnLayout {
        var bits: Int
        var patternCount: Int
        /// The patterns, as many as the bits can index (the rest 0), so that no index reads past
        /// them; an index past `patternCount` is refused after decoding.
        var patterns: [Float]
        /// The offset of the packed indexes, or of the values for 32 bits.
        var stream: Int
    }

    /// The row count and the columns' places of a ``dictionary(_:columnCount:)`` matrix, or `nil`
    /// when the bytes are not one `columnCount` columns wide.
    private static func layout(_ bytes: UnsafeRawBufferPointer, columnCount: Int) -> (Int, [ColumnLayout])? {
        guard bytes.count >= 8, columnCount > 0,
            Int(bytes.loadUnaligned(fromByteOffset: 4, as: UInt32.self)) == columnCount
        else { return nil }
        let rowCount = Int(bytes.loadUnaligned(fromByteOffset: 0, as: UInt32.self))
        var columns: [ColumnLayout] = []
        var offset = 8
        for _ in 0..<columnCount {
            guard offset < bytes.count else { return nil }
            let bits = Int(bytes[offset])
            offset += 1
            if bits == 32 {
                guard bytes.count - offset >= rowCount * 4 else { return nil }
                columns.append(ColumnLayout(bits: 32, patternCount: 0, patterns: [], stream: offset))
                offset += rowCount * 4
                continue
            }
            guard bits <= 16, bytes.count - offset >= 4 else { return nil }
            let patternCount = Int(bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
            offset += 4
            let streamBytes = (rowCount * bits + 7) / 8 + 8
            guard patternCount >= 1 || rowCount == 0, indexBits(patternCount: patternCount) == bits,
                bytes.count - offset >= patternCount * 4 + streamBytes
            else { return nil }
            var patterns = [Float](repeating: 0, count: 1 << bits)
            for index in 0..<patternCount {
                patterns[index] = Float(
                    bitPattern: bytes.loadUnaligned(fromByteOffset: offset + index * 4, as: UInt32.self)
                )
            }
            offset += patternCount * 4
            columns.append(ColumnLayout(bits: bits, patternCount: patternCount, patterns: patterns, stream: offset))
            offset += streamBytes
        }
        guard offset == bytes.count else { return nil }
        return (rowCount, columns)
    }

    /// Column `column` of the matrix ``dictionary(_:columnCount:)`` wrote, or `nil` when the bytes
    /// are not such a part, or not `columnCount` columns wide: a column without the matrix, for a
    /// build that takes the columns one at a time (``LibraryStore/prepareSpace(schema:)``).
    static func column(_ bytes: UnsafeRawBufferPointer, columnCount: Int, column: Int) -> [Float]? {
        guard let (rowCount, columns) = layout(bytes, columnCount: columnCount), columns.indices.contains(column)
        else { return nil }
        let part = columns[column]
        if part.bits == 32 {
            return [Float](unsafeUninitializedCapacity: rowCount) { buffer, initialized in
                for row in 0..<rowCount {
                    buffer[row] = Float(
                        bitPattern: bytes.loadUnaligned(fromByteOffset: part.stream + row * 4, as: UInt32.self)
                    )
                }
                initialized = rowCount
            }
        }
        let bits = part.bits
        let mask = (UInt64(1) << UInt64(bits)) &- 1
        var most = 0
        let values = part.patterns.withUnsafeBufferPointer { patterns in
            [Float](unsafeUninitializedCapacity: rowCount) { buffer, initialized in
                for row in 0..<rowCount {
                    let bit = row * bits
                    let word = bytes.loadUnaligned(fromByteOffset: part.stream + bit >> 3, as: UInt64.self)
                    let index = Int(truncatingIfNeeded: (word >> UInt64(bit & 7)) & mask)
                    most = max(most, index)
                    buffer[row] = patterns[index]
                }
                initialized = rowCount
            }
        }
        return rowCount > 0 && most >= part.patternCount ? nil : values
    }
}

/// The distinct bit patterns of one column, numbered in order of first appearance: an open
/// addressing table of up to 2¹⁷ slots for at most 2¹⁶ patterns, reused from column to column.
///
/// A slot keeps the pattern beside its number, so that a lookup reads one slot rather than a
/// slot and then the pattern it points to, and the table starts small and doubles as patterns
/// come: a snapshot codes all its columns at once, and most columns have few distinct values
/// (keys, modes, Spotify's three significant digits), so their tables stay in the cache. In a
/// profile of the million-row import, the lookups were a third of the features snapshot's build.
private struct BitTable {
    private static let smallestSlotBits = 10
    private static let largestSlotBits = 17
    private static let capacity = 1 << 16
    private var slotBits = smallestSlotBits
    /// Each slot: the pattern in the upper 32 bits, its number plus one in the lower; 0 is empty.
    private var slots = [UInt64](repeating: 0, count: 1 << smallestSlotBits)
    private(set) var patterns: [UInt32] = []

    mutating func removeAll() {
        if patterns.isEmpty { return }
        slotBits = Self.smallestSlotBits
        slots = [UInt64](repeating: 0, count: 1 << slotBits)
        patterns.removeAll(keepingCapacity: true)
    }

    /// The number of `pattern`, added when new, or `nil` when the table is full.
    mutating func index(of pattern: UInt32) -> UInt16? {
        let mask = (1 << slotBits) - 1
        var slot = Int((pattern &* 0x9E37_79B1) >> UInt32(32 - slotBits))
        let key = UInt64(pattern) << 32
        while true {
            let entry = slots[slot]
            if entry == 0 { break }
            if entry & 0xFFFF_FFFF_0000_0000 == key { return UInt16(truncatingIfNeeded: (entry & 0xFFFF_FFFF) - 1) }
            slot = (slot + 1) & mask
        }
        guard patterns.count < Self.capacity else { return nil }
        patterns.append(pattern)
        // At most half full: past that, twice the slots, the patterns placed again.
        if patterns.count * 2 > slots.count && slotBits < Self.largestSlotBits {
            slotBits += 1
            slots = [UInt64](repeating: 0, count: 1 << slotBits)
            for (number, pattern) in patterns.enumerated() { place(pattern, number: number) }
        } else {
            slots[slot] = key | UInt64(patterns.count)
        }
        return UInt16(patterns.count - 1)
    }

    private mutating func place(_ pattern: UInt32, number: Int) {
        let mask = (1 << slotBits) - 1
        var slot = Int((pattern &* 0x9E37_79B1) >> UInt32(32 - slotBits))
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        slots[slot] = UInt64(pattern) << 32 | UInt64(number + 1)
    }
}
