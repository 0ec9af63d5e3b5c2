import Features

extension SimilarityBlock {
    /// The embedding block's weight beside the sound (weight 1): as much as the sound, the naive
    /// rule the tag block's default follows too. The 23 labelled corpus songs are too few to learn
    /// it from; `Benchmarks/audio/embedding_eval.sh` measures what the block adds at this weight.
    public static let embeddingWeight = 1.0

    /// An embedding block over `trackIDs` from the vectors of those that have one, or `nil` when
    /// fewer than two do.
    ///
    /// Each vector is centred on the mean of the block's vectors and scaled to unit length, so the
    /// cosine of two rows is the correlation of how each departs from the library's typical
    /// sound: a tagger's penultimate layer is mostly positive, and raw cosines would be close to 1
    /// for any two songs. Its terms are the dimensions. Rows without a vector, or with one of
    /// another length than the first, have no term and add nothing to a track's score.
    ///
    /// - Parameters:
    ///   - vectors: The embedding of each track that has one, by track ID.
    ///   - trackIDs: The rows of the space.
    /// - Complexity: O(*n* · *d*) for *n* rows and vectors of *d* values.
    public static func embedding(_ vectors: [Int64: [Float]], trackIDs: [Int64]) -> SimilarityBlock? {
        let rows = trackIDs.map { vectors[$0] }
        guard let dimension = rows.lazy.compactMap({ $0?.count }).first, dimension > 0 else { return nil }
        let present = rows.compactMap { $0 }.filter { $0.count == dimension }
        guard present.count >= 2 else { return nil }
        var mean = [Double](repeating: 0, count: dimension)
        for vector in present { for index in 0..<dimension { mean[index] += Double(vector[index]) } }
        for index in 0..<dimension { mean[index] /= Double(present.count) }

        var rowStarts = [0]
        var rowTerms: [Int32] = []
        var rowValues: [Float] = []
        rowStarts.reserveCapacity(rows.count + 1)
        for row in rows {
            if let row, row.count == dimension {
                let centred = (0..<dimension).map { Double(row[$0]) - mean[$0] }
                let norm = centred.reduce(0) { $0 + $1 * $1 }.squareRoot()
                if norm > 0 {
                    rowTerms += (0..<Int32(dimension))
                    rowValues += centred.map { Float($0 / norm) }
                }
            }
            rowStarts.append(rowTerms.count)
        }
        let block = SimilarityBlock(
            kind: .embedding,
            signals: [.audioEmbedding],
            termNames: (0..<dimension).map(String.init),
            rowStarts: rowStarts,
            rowTerms: rowTerms,
            rowValues: rowValues
        )
        return block.coveredRowCount >= 2 ? block : nil
    }
}
