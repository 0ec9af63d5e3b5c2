/// A dense row-major matrix of `Float`, in one contiguous allocation.
///
/// Rows are stored back to back without padding: at d = 12 features a row is 48 bytes, and
/// padding rows to a cache line would add a third to every scan of a million-row matrix.
public struct Matrix: Hashable, Sendable {
    /// The number of rows.
    public let rowCount: Int
    /// The number of columns, the length of every row.
    public let columnCount: Int
    /// The elements in row-major order: element (i, j) is at `i * columnCount + j`.
    public var elements: [Float]

    /// Creates a matrix whose every element is `value`.
    public init(rowCount: Int, columnCount: Int, repeating value: Float = 0) {
        precondition(rowCount >= 0 && columnCount >= 0, "A matrix cannot have a negative shape.")
        self.rowCount = rowCount
        self.columnCount = columnCount
        elements = Array(repeating: value, count: rowCount * columnCount)
    }

    /// Creates a matrix over `elements`, given in row-major order.
    public init(rowCount: Int, columnCount: Int, elements: [Float]) {
        precondition(rowCount >= 0 && columnCount >= 0, "A matrix cannot have a negative shape.")
        precondition(
            elements.count == rowCount * columnCount,
            "\(elements.count) elements do not fill a \(rowCount)×\(columnCount) matrix."
        )
        self.rowCount = rowCount
        self.columnCount = columnCount
        self.elements = elements
    }

    /// Creates a matrix from an array of equally long rows.
    public init(rows: [[Float]]) {
        let columnCount = rows.first?.count ?? 0
        precondition(rows.allSatisfy { $0.count == columnCount }, "All rows must have the same length.")
        self.init(rowCount: rows.count, columnCount: columnCount, elements: rows.flatMap { $0 })
    }

    /// The element at `row`, `column`.
    public subscript(row: Int, column: Int) -> Float {
        get {
            precondition(row >= 0 && row < rowCount && column >= 0 && column < columnCount, "Index out of range.")
            return elements[row * columnCount + column]
        }
        set {
            precondition(row >= 0 && row < rowCount && column >= 0 && column < columnCount, "Index out of range.")
            elements[row * columnCount + column] = newValue
        }
    }

    /// The elements of one row.
    public func row(_ index: Int) -> ArraySlice<Float> {
        precondition(index >= 0 && index < rowCount, "Row \(index) is out of range 0..<\(rowCount).")
        return elements[index * columnCount..<(index + 1) * columnCount]
    }
}
