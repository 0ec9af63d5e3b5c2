import Features

/// The artist half of the recommender's hybrid similarity: each track carries the mean audio
/// features of its artist's *other* tracks in the library, so tracks by the same artist, or by
/// artists who sound alike, come closer.
///
/// The similarity of a query *q* (from track seeds) and a track *j* is the cosine of the
/// concatenations [*x* ; *w* · *a*], where *x* is the scaled audio point and *a* the artist
/// context: *a*ⱼ = (*S*ₖ − *x*ⱼ) / *n*ₖ for a track of artist *k* with *n*ₖ tracks summing to
/// *S*ₖ. That is the mean of the other tracks shrunk by (*n*ₖ − 1) / *n*ₖ toward 0, so an artist
/// with one track adds nothing and one with many counts fully. Only sums per artist are kept, not
/// a second matrix.
///
/// Measured with `eval` on the tidytuesday songs (28,355 tracks, precision@10 of same-genre
/// neighbours, every track a query): 0.4288 with the audio alone; with the artist context at
/// weight *w* = 1, the figure `Benchmarks/RESULTS.md` gives. A prototype of the same space over
/// z-scored features gave 0.424 (audio), 0.465 (*w* = 0.5), 0.501 (1), 0.522 (1.5) and 0.537 (2):
/// 1 lets the artist count as much as the sound, without a track's neighbours becoming its
/// artist's catalogue (the artist limit of `recommend` keeps results varied besides).
///
/// The label of an evaluation never enters: the context uses only who a track is by.
struct ArtistContext: Sendable {
    /// The default *w*: how much the artist context counts beside the audio features.
    static let defaultWeight: Float = 1

    /// *w*: how much the artist context counts beside the audio features, ≥ 0.
    let weight: Float

    /// The dimension of the audio space.
    let dimension: Int
    /// The artist of each row, an index into ``sums``; −1 when unknown.
    let artistOfRow: [Int32]
    /// The scaled features summed per artist, one row of ``dimension`` values per artist.
    let sums: [Float]
    /// The number of tracks of each artist.
    let counts: [Int32]
    /// √(‖*x*ⱼ‖² + *w*² ‖*a*ⱼ‖²) per row: the length of row *j*'s hybrid point, which no query
    /// changes (one float per row, where the two squared norms took two).
    let rowNorms: [Float]

    /// - Parameters:
    ///   - features: The scaled audio points, one row per track.
    ///   - artistOfRow: The main artist of each row as a code (equal codes, same artist), −1 when
    ///     unknown.
    ///   - weight: *w*, ≥ 0.
    init(features: FeatureMatrix, artistOfRow codes: [Int32], weight: Float = ArtistContext.defaultWeight) {
        precondition(codes.count == features.rowCount, "one artist code per row")
        self.weight = weight
        let d = features.columnCount
        let x = features.values.elements
        // Renumbered densely in order of first appearance, so that the sums hold only the artists
        // of these rows.
        var dense = [Int32](repeating: -1, count: (codes.max().map(Int.init) ?? -1) + 1)
        var artistCount: Int32 = 0
        var artistOfRow = [Int32](repeating: -1, count: codes.count)
        for (row, code) in codes.enumerated() where code >= 0 {
            if dense[Int(code)] < 0 {
                dense[Int(code)] = artistCount
                artistCount += 1
            }
            artistOfRow[row] = dense[Int(code)]
        }
        var sums = [Float](repeating: 0, count: Int(artistCount) * d)
        var counts = [Int32](repeating: 0, count: Int(artistCount))
        for (row, artist) in artistOfRow.enumerated() where artist >= 0 {
            counts[Int(artist)] += 1
            for column in 0..<d { sums[Int(artist) * d + column] += x[row * d + column] }
        }
        let w2 = weight * weight
        var rowNorms = [Float](repeating: 0, count: artistOfRow.count)
        for row in artistOfRow.indices {
            var norm: Float = 0
            for column in 0..<d { norm += x[row * d + column] * x[row * d + column] }
            var context: Float = 0
            let artist = Int(artistOfRow[row])
            if artist >= 0, counts[artist] > 1 {
                let n = Float(counts[artist])
                for column in 0..<d {
                    let value = (sums[artist * d + column] - x[row * d + column]) / n
                    context += value * value
                }
            }
            rowNorms[row] = (norm + w2 * context).squareRoot()
        }
        dimension = d
        self.artistOfRow = artistOfRow
        self.sums = sums
        self.counts = counts
        self.rowNorms = rowNorms
    }

    /// The artist context *a* of `row`: zeros for an unknown artist or an artist's only track.
    func context(row: Int, features: FeatureMatrix) -> [Float] {
        let d = dimension
        let artist = Int(artistOfRow[row])
        guard artist >= 0, counts[artist] > 1 else { return [Float](repeating: 0, count: d) }
        let n = Float(counts[artist])
        return (0..<d).map { (sums[artist * d + $0] - features.values.elements[row * d + $0]) / n }
    }

    /// The hybrid cosine of the query [`query` ; *w* · `context`] with every row, in row order.
    ///
    /// - Complexity: O(*n* · *d* + *m* · *d*) for *n* rows and *m* artists.
    func similarities(query: [Float], context: [Float], features: FeatureMatrix) -> [Float] {
        let d = dimension
        let w2 = weight * weight
        var queryNorm: Float = 0
        for column in 0..<d { queryNorm += query[column] * query[column] + w2 * context[column] * context[column] }
        queryNorm = queryNorm.squareRoot()
        // a_q · S_k for every artist, and what a row of the artist takes from it: nothing for an
        // unknown artist or an artist's only track.
        var artistDots = [Float](repeating: 0, count: counts.count)
        for artist in counts.indices {
            var dot: Float = 0
            for column in 0..<d { dot += context[column] * sums[artist * d + column] }
            artistDots[artist] = dot
        }
        return hybridCosines(
            query: query,
            context: context,
            queryNorm: queryNorm,
            artistDots: artistDots,
            features: features.values.elements
        )
    }

    /// Every row as [*x* ; *w* · *a*], for evaluating the hybrid space as a whole.
    func hybridMatrix(features: FeatureMatrix) -> FeatureMatrix {
        let d = dimension
        var elements = [Float]()
        elements.reserveCapacity(artistOfRow.count * 2 * d)
        for row in artistOfRow.indices {
            elements += features.values.elements[(row * d)..<((row + 1) * d)]
            elements += context(row: row, features: features).map { weight * $0 }
        }
        return FeatureMatrix(
            values: Matrix(rowCount: artistOfRow.count, columnCount: 2 * d, elements: elements),
            trackIDs: features.trackIDs,
            columnNames: features.columnNames + features.columnNames.map { "artist_" + $0 }
        )
    }
}
