/// The distance step of a Lloyd iteration: how each point finds its nearest centroid.
///
/// Both were measured and the fused kernel kept as the default; the figures are on
/// ``KMeans/Options/kernel``.
public enum DistanceKernel: String, CaseIterable, Hashable, Sendable, Codable {
    /// A fused SIMD loop: 8 rows in the lanes of a register, ‖c‖²/2 − x·c accumulated in
    /// registers for 8 centroids at a time (4 on the portable build), argmin per lane in the same
    /// pass. No intermediate distance matrix.
    case fused
    /// `cblas_sgemm` on 256-row blocks (`−X·Cᵀ` into a 256×k buffer that stays in L1/L2), then a
    /// scalar argmin over ‖c‖²/2 − x·c, as scikit-learn does.
    case blas
}
