import CBLAS

// This is the only file of `Features` that imports CBLAS or touches element pointers.
// Pointers never escape the closures that lend them.

extension Matrix {
    /// Returns the product of this matrix and the transpose of `other`, `self · otherᵀ`.
    ///
    /// With both operands holding one item per row, element (i, j) of the result is the dot
    /// product of row i of `self` and row j of `other`.
    ///
    /// - Parameter other: A matrix with as many columns as this one.
    /// - Returns: A `rowCount × other.rowCount` matrix.
    /// - Complexity: O(*m* · *n* · *d*), computed by `cblas_sgemm`.
    public func multipliedByTranspose(of other: Matrix) -> Matrix {
        precondition(
            columnCount == other.columnCount,
            "Cannot multiply a \(rowCount)×\(columnCount) matrix by the transpose of a \(other.rowCount)×\(other.columnCount) one."
        )
        var result = Matrix(rowCount: rowCount, columnCount: other.rowCount)
        guard rowCount > 0, other.rowCount > 0, columnCount > 0 else { return result }
        let (m, n, k) = (Int32(rowCount), Int32(other.rowCount), Int32(columnCount))
        elements.withUnsafeBufferPointer { a in
            other.elements.withUnsafeBufferPointer { b in
                result.elements.withUnsafeMutableBufferPointer { c in
                    cblas_sgemm(
                        CblasRowMajor,
                        CblasNoTrans,
                        CblasTrans,
                        m,
                        n,
                        k,
                        1,
                        a.baseAddress,
                        k,
                        b.baseAddress,
                        k,
                        0,
                        c.baseAddress,
                        n
                    )
                }
            }
        }
        return result
    }

    /// Returns the Gram matrix `self · selfᵀ`: the dot products of every pair of rows.
    ///
    /// - Complexity: O(*n*² · *d*).
    public func gramMatrix() -> Matrix {
        multipliedByTranspose(of: self)
    }

    /// Returns the squared Euclidean norm of every row, ‖xᵢ‖².
    ///
    /// - Complexity: O(*n* · *d*), one `cblas_sdot` per row.
    public func squaredRowNorms() -> [Float] {
        guard columnCount > 0 else { return Array(repeating: 0, count: rowCount) }
        let d = Int32(columnCount)
        return elements.withUnsafeBufferPointer { x in
            (0..<rowCount).map { row in
                let start = x.baseAddress! + row * columnCount
                return cblas_sdot(d, start, 1, start, 1)
            }
        }
    }
}
