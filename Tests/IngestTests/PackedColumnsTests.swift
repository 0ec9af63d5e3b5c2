import Foundation
import Testing

@testable import Ingest

@Suite("Packed snapshot columns")
struct PackedColumnsTests {
    private func decoded<T: FixedWidthInteger>(_ bytes: [UInt8], as type: T.Type) -> [T]? {
        bytes.withUnsafeBytes { PackedColumns.integers($0, as: T.self) }
    }

    @Test("integers round-trip in as few bytes as their range needs")
    func narrowIntegers() {
        let durations: [Int32] = [-1, 0, 187_800, 535_223, 5_000_000]
        let packed = PackedColumns.narrow(durations)
        #expect(packed.count == 9 + durations.count * 3, "a range under 2²⁴ takes 3 bytes")
        #expect(decoded(packed, as: Int32.self) == durations)

        let codes: [Int32] = (0..<1000).map { Int32($0 * 37 % 20_011) }
        #expect(PackedColumns.narrow(codes).count == 9 + codes.count * 2)
        #expect(decoded(PackedColumns.narrow(codes), as: Int32.self) == codes)

        let constant = [Int32](repeating: 7, count: 50)
        #expect(PackedColumns.narrow(constant).count == 9 + 50)
        #expect(decoded(PackedColumns.narrow(constant), as: Int32.self) == constant)

        let extremes: [Int64] = [.min, -1, 0, 1, .max]
        #expect(PackedColumns.narrow(extremes).count == 9 + extremes.count * 8)
        #expect(decoded(PackedColumns.narrow(extremes), as: Int64.self) == extremes)

        #expect(decoded(PackedColumns.narrow([Int32]()), as: Int32.self) == [])
    }

    @Test("integers that do not fit, or bytes that are not such a part, are refused")
    func narrowRefusals() {
        #expect(decoded(PackedColumns.narrow([Int64(0), 300]), as: Int8.self) == nil, "300 is no Int8")
        #expect(decoded(PackedColumns.narrow([Int64(Int32.max) + 1]), as: Int32.self) == nil)
        var cut = PackedColumns.narrow([Int32(0), 70_000, 3])
        cut.removeLast()
        #expect(decoded(cut, as: Int32.self) == nil, "a value cut short")
        var badWidth = PackedColumns.narrow([Int32(1)])
        badWidth[0] = 9
        #expect(decoded(badWidth, as: Int32.self) == nil)
        #expect(decoded([1, 2, 3], as: Int32.self) == nil, "no header")
    }

    @Test("a Float matrix round-trips bit for bit, each index in as few bits as its column needs")
    func dictionaryMatrix() throws {
        var random = SystemRandomNumberGenerator()
        let rowCount = 70_000
        let quietNaN = Float.nan
        let signalingPayload = Float(bitPattern: 0x7FC0_1234)
        // Columns: three decimals (≤ 1001 values, with NaNs of two payloads and −0), a key
        // (12 values), and a column of mostly distinct floats (kept at 4 bytes).
        var values: [Float] = []
        values.reserveCapacity(rowCount * 3)
        for row in 0..<rowCount {
            let decimal: Float =
                switch row % 97 {
                case 0: quietNaN
                case 1: signalingPayload
                case 2: -0.0
                default: Float(Int.random(in: 0...1000, using: &random)) / 1000
                }
            values.append(decimal)
            values.append(Float(row % 12))
            values.append(Float.random(in: -1...1, using: &random))
        }
        let packed = PackedColumns.dictionary(values, columnCount: 3)
        let distinctDecimals = Set(stride(from: 0, to: values.count, by: 3).map { values[$0].bitPattern }).count
        #expect(distinctDecimals > 256)
        // Each dictionary column: its bits, count, patterns, indexes, and 8 bytes of padding.
        let decimalBits = Int.bitWidth - (distinctDecimals - 1).leadingZeroBitCount
        #expect(decimalBits == 10)
        let expected =
            8 + (1 + 4 + distinctDecimals * 4 + (rowCount * decimalBits + 7) / 8 + 8)
            + (1 + 4 + 12 * 4 + (rowCount * 4 + 7) / 8 + 8) + (1 + rowCount * 4)
        #expect(packed.count == expected)
        let back = try #require(packed.withUnsafeBytes { PackedColumns.floats($0, columnCount: 3) })
        #expect(back.map(\.bitPattern) == values.map(\.bitPattern))

        // A column coded as its values come takes the bytes it said it would, and no more than
        // the most a column can.
        var coder = PackedColumns.FloatColumnCoder()
        var columnBytes: [UInt8] = []
        for column in 0..<3 {
            for row in 0..<rowCount { coder.append(values[row * 3 + column]) }
            let expected = coder.encodedByteCount
            let before = columnBytes.count
            coder.finish(into: &columnBytes)
            #expect(columnBytes.count - before == expected)
            #expect(expected <= PackedColumns.FloatColumnCoder.largestByteCount(rowCount: rowCount))
        }
        #expect(PackedColumns.matrixHeader(rowCount: rowCount, columnCount: 3) + columnBytes == packed)

        // One column alone, as a streaming build reads them.
        for column in 0..<3 {
            let alone = try #require(
                packed.withUnsafeBytes { PackedColumns.column($0, columnCount: 3, column: column) }
            )
            #expect(
                alone.map(\.bitPattern) == stride(from: column, to: values.count, by: 3).map { values[$0].bitPattern }
            )
        }
        #expect(packed.withUnsafeBytes { PackedColumns.column($0, columnCount: 3, column: 3) } == nil)
        #expect(packed.dropLast().withUnsafeBytes { PackedColumns.column($0, columnCount: 3, column: 0) } == nil)

        #expect(packed.withUnsafeBytes { PackedColumns.floats($0, columnCount: 2) } == nil, "another width")
        #expect(packed.dropLast().withUnsafeBytes { PackedColumns.floats($0, columnCount: 3) } == nil, "cut short")
        #expect((packed + [0]).withUnsafeBytes { PackedColumns.floats($0, columnCount: 3) } == nil, "a byte too many")

        let empty = PackedColumns.dictionary([], columnCount: 12)
        #expect(empty.withUnsafeBytes { PackedColumns.floats($0, columnCount: 12) } == [])
    }

    @Test("an index past its column's table is refused")
    func dictionaryIndexOutOfRange() {
        // Three rows, one column of three distinct values: 2-bit indexes 0, 1 and 2 in one byte
        // (0b10_01_00), before the 8 bytes of padding.
        var packed = PackedColumns.dictionary([0.25, 0.5, 0.75], columnCount: 1)
        #expect(packed.withUnsafeBytes { PackedColumns.floats($0, columnCount: 1) } == [0.25, 0.5, 0.75])
        #expect(packed[packed.count - 9] == 0b10_01_00)
        packed[packed.count - 9] = 0b11_01_00
        #expect(packed.withUnsafeBytes { PackedColumns.floats($0, columnCount: 1) } == nil)
        #expect(packed.withUnsafeBytes { PackedColumns.column($0, columnCount: 1, column: 0) } == nil)
        // A column of one value takes no index bits.
        let constant = PackedColumns.dictionary([Float](repeating: 4, count: 1000), columnCount: 1)
        #expect(constant.count == 8 + 1 + 4 + 4 + 8)
        #expect(
            constant.withUnsafeBytes { PackedColumns.floats($0, columnCount: 1) } == [Float](repeating: 4, count: 1000)
        )
    }
}
