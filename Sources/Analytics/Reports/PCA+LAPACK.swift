import CBLAS
import CLAPACKE
import Features

// The pointer code of the principal component analysis, kept beside it as `Kernels.swift` keeps
// that of k-means. Pointers never escape the closures that lend them.

extension Kernels {
    /// Returns the sample covariance `Xᵀ · X / (n − 1)` of centred rows, by `cblas_ssyrk`.
    ///
    /// `ssyrk` fills only the upper triangle; the lower one is mirrored from it.
    ///
    /// - Complexity: O(*n* · *d*²).
    static func covariance(ofCentred data: Matrix) -> Matrix {
        let n = data.rowCount
        let d = data.columnCount
        var result = Matrix(rowCount: d, columnCount: d)
        guard n > 1, d > 0 else { return result }
        data.elements.withUnsafeBufferPointer { x in
            result.elements.withUnsafeMutableBufferPointer { c in
                cblas_ssyrk(
                    CblasRowMajor,
                    CblasUpper,
                    CblasTrans,
                    Int32(d),
                    Int32(n),
                    1 / Float(n - 1),
                    x.baseAddress,
                    Int32(d),
                    0,
                    c.baseAddress,
                    Int32(d)
                )
            }
        }
        for row in 0..<d {
            for column in 0..<row { result.elements[row * d + column] = result.elements[column * d + row] }
        }
        return result
    }

    /// Returns the eigenvalues (ascending) and eigenvectors (as columns, row-major) of a symmetric
    /// matrix, by `LAPACKE_ssyevd`, or `nil` when LAPACK reports a failure.
    ///
    /// - Complexity: O(*d*³).
    static func symmetricEigendecomposition(_ matrix: Matrix) -> (eigenvalues: [Float], eigenvectors: Matrix)? {
        precondition(matrix.rowCount == matrix.columnCount, "Only a square matrix has an eigendecomposition.")
        let d = matrix.rowCount
        var vectors = matrix
        var values = [Float](repeating: 0, count: d)
        let status = vectors.elements.withUnsafeMutableBufferPointer { a in
            values.withUnsafeMutableBufferPointer { w in
                LAPACKE_ssyevd(
                    LAPACK_ROW_MAJOR,
                    CChar(UInt8(ascii: "V")),
                    CChar(UInt8(ascii: "U")),
                    Int32(d),
                    a.baseAddress,
                    Int32(d),
                    w.baseAddress
                )
            }
        }
        guard status == 0 else { return nil }
        return (values, vectors)
    }
}
