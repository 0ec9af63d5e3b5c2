import Features

/// A space in which neighbours are searched: scaled points, a metric, and the signals the points are
/// computed from.
///
/// ``RetrievalComparison`` measures several spaces on the same labelled queries: the tool's own
/// (``Recommender/similaritySpace``) and the naive baselines of ``naiveBaselines(for:)``.
public struct SimilaritySpace: Sendable {
    /// How closeness is measured.
    public enum Metric: String, Codable, Hashable, Sendable {
        /// The cosine of the angle between two points; larger is closer.
        case cosine
        /// The Euclidean distance between two points; smaller is closer.
        case euclidean
    }

    /// A short name for reports, such as "z-score cosine, 11 features".
    public var name: String
    /// The points, one row per track.
    public var features: FeatureMatrix
    /// How closeness is measured.
    public var metric: Metric
    /// What the points are computed from; checked against the label of an evaluation.
    public var signals: Set<SimilaritySignal>
    /// Sparse blocks whose weighted cosines add to the cosine of ``features`` (only with
    /// ``Metric/cosine``), each with its weight.
    public private(set) var blocks: [(block: SimilarityBlock, weight: Float)] = []

    public init(name: String, features: FeatureMatrix, metric: Metric, signals: Set<SimilaritySignal>) {
        self.name = name
        self.features = features
        self.metric = metric
        self.signals = signals
    }

    /// Adds `block` with `weight` to the score, and its signals to ``signals``.
    ///
    /// - Precondition: ``metric`` is cosine and `block` has a row per row of ``features``.
    public mutating func add(_ block: SimilarityBlock, weight: Float) {
        precondition(metric == .cosine, "Sparse blocks add to a cosine space only.")
        precondition(block.rowCount == features.rowCount, "A block needs one row per row of the space.")
        blocks.append((block, weight))
        signals.formUnion(block.signals)
    }
}

// MARK: - Naive baselines

extension SimilaritySpace {
    /// The eleven audio features of Spotify's audio-features object, without time signature.
    public static let elevenFeatures: [AudioFeature] = [
        .danceability, .energy, .key, .loudness, .mode, .speechiness, .acousticness, .instrumentalness,
        .liveness, .valence, .tempo,
    ]

    /// The eleven features without key and mode.
    public static let nineFeatures: [AudioFeature] = elevenFeatures.filter { $0 != .key && $0 != .mode }

    /// A naive space: each of `features` z-scored over the rows of `table` as a plain number (key
    /// as the integer 0…11, tempo in BPM), with equal weights.
    ///
    /// A missing value takes its column's mean, 0 after scaling, so every row of `table` is placed
    /// and the space holds the same tracks as the table. A constant column stays at 0.
    ///
    /// - Parameters:
    ///   - table: The raw features.
    ///   - features: The columns, in order.
    ///   - metric: How closeness is measured.
    ///   - name: The name for reports.
    /// - Complexity: O(*n* · *d*).
    public static func zScored(
        _ table: FeatureTable,
        features: [AudioFeature],
        metric: Metric,
        name: String
    ) -> SimilaritySpace {
        let n = table.rowCount
        let d = features.count
        var elements = [Float](repeating: 0, count: n * d)
        for (column, feature) in features.enumerated() {
            let values = (0..<n).map { table.value(row: $0, feature: feature).map(Double.init) }
            let present = values.compactMap { $0 }
            let mean = present.isEmpty ? 0 : present.reduce(0, +) / Double(present.count)
            let variance =
                present.isEmpty ? 0 : present.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(present.count)
            let deviation = variance > 0 ? variance.squareRoot() : 1
            for row in 0..<n {
                elements[row * d + column] = Float(((values[row] ?? mean) - mean) / deviation)
            }
        }
        return SimilaritySpace(
            name: name,
            features: FeatureMatrix(
                values: Matrix(rowCount: n, columnCount: d, elements: elements),
                trackIDs: table.trackIDs,
                columnNames: features.map(\.rawValue)
            ),
            metric: metric,
            signals: [.audioFeatures]
        )
    }

    /// The three naive baselines of the tool's similarity, over the rows of `table`: z-score cosine
    /// on the eleven features, z-score cosine without key and mode, and z-score Euclidean without
    /// key and mode.
    public static func naiveBaselines(for table: FeatureTable) -> [SimilaritySpace] {
        [
            zScored(table, features: elevenFeatures, metric: .cosine, name: "z-score cosine, 11 features"),
            zScored(table, features: nineFeatures, metric: .cosine, name: "z-score cosine, no key/mode"),
            zScored(table, features: nineFeatures, metric: .euclidean, name: "z-score Euclidean, no key/mode"),
        ]
    }
}

// MARK: - Baselines with the tool's information

extension SimilaritySpace {
    /// How much a block counts in a baseline that ranks by it first: more than any difference of
    /// the z-score cosine (at most 2) can undo.
    static let lexicographicWeight: Float = 1_000

    /// Naive baselines that know what the tool knows beside the audio: who each track is by and its
    /// tags, over the rows of `table`.
    ///
    /// - same artist first, then the z-score cosine (nine features);
    /// - the TF-IDF cosine of the tags first, then the z-score cosine (only with `tags`);
    /// - their equal-weight sum: 1[shares the main artist] + tag cosine + z-score cosine.
    ///
    /// Pass the tool's own tag block for the label graded, or `nil` when the tool leaves it out for
    /// that label, so that the baselines never know more than the tool.
    ///
    /// - Parameters:
    ///   - table: The raw features, one row per track of the space.
    ///   - artistOfRow: The main artist of each row as a code, −1 when unknown.
    ///   - tags: The tag block the tool uses for the label, or `nil`.
    public static func informedBaselines(
        for table: FeatureTable,
        artistOfRow: [Int32],
        tags: SimilarityBlock?
    ) -> [SimilaritySpace] {
        let audio = zScored(table, features: nineFeatures, metric: .cosine, name: "z-score cosine")
        let artist = SimilarityBlock.sameArtist(artistOfRow: artistOfRow, trackIDs: table.trackIDs)
        var result: [SimilaritySpace] = []
        if let artist {
            var space = audio
            space.name = "same artist, then z-score cosine"
            space.add(artist, weight: lexicographicWeight)
            result.append(space)
        }
        if let tags {
            var space = audio
            space.name = "tag TF-IDF, then z-score cosine"
            space.add(tags, weight: lexicographicWeight)
            result.append(space)
        }
        if artist != nil || tags != nil {
            var space = audio
            space.name = tags == nil ? "naive sum: artist + z-score" : "naive sum: artist + tags + z-score"
            if let artist { space.add(artist, weight: 1) }
            if let tags { space.add(tags, weight: 1) }
            result.append(space)
        }
        return result
    }
}

// MARK: - Searching

extension SimilaritySpace {
    /// An exact index over `rows` of ``features`` and the query vector of each of those rows, such
    /// that the index's most similar rows to a row's query are its nearest rows under ``metric``.
    ///
    /// Euclidean search runs on the same exact cosine index through a lift: with *M* the largest
    /// value of ‖x‖² + ‖x‖⁴/4, a point x becomes (x, −‖x‖²/2, √(*M* − ‖x‖² − ‖x‖⁴/4)) and a query q
    /// becomes (q, 1, 0). Every lifted point has the same length √*M*, so the cosine ranks points by
    /// q·x − ‖x‖²/2 = (‖q‖² − ‖q − x‖²)/2, which is the ranking by Euclidean distance.
    ///
    /// - Parameter rows: Rows of ``features``, in the order the index should hold them.
    /// - Returns: The index (row *i* is `rows[i]`) and one query per row, in the same order.
    func makeSearch(rows: [Int]) -> (index: CosineIndex, queries: Matrix) {
        let d = features.columnCount
        var points: [Float] = []
        points.reserveCapacity(rows.count * d)
        for row in rows { points.append(contentsOf: features.values.row(row)) }
        let ids = rows.map { features.trackIDs[$0] }
        switch metric {
        case .cosine:
            let matrix = Matrix(rowCount: rows.count, columnCount: d, elements: points)
            let index = CosineIndex(FeatureMatrix(values: matrix, trackIDs: ids, columnNames: features.columnNames))
            return (index, matrix)
        case .euclidean:
            let squaredNorms = (0..<rows.count).map { row in
                points[row * d..<(row + 1) * d].reduce(0.0) { $0 + Double($1) * Double($1) }
            }
            let largest = squaredNorms.map { $0 + $0 * $0 / 4 }.max() ?? 0
            var lifted: [Float] = []
            var queries: [Float] = []
            lifted.reserveCapacity(rows.count * (d + 2))
            queries.reserveCapacity(rows.count * (d + 2))
            for (row, squared) in squaredNorms.enumerated() {
                let point = points[row * d..<(row + 1) * d]
                lifted.append(contentsOf: point)
                lifted.append(Float(-squared / 2))
                lifted.append(Float(Swift.max(0, largest - squared - squared * squared / 4).squareRoot()))
                queries.append(contentsOf: point)
                queries.append(1)
                queries.append(0)
            }
            let names = features.columnNames + ["lift_norm", "lift_pad"]
            let index = CosineIndex(
                FeatureMatrix(
                    values: Matrix(rowCount: rows.count, columnCount: d + 2, elements: lifted),
                    trackIDs: ids,
                    columnNames: names
                )
            )
            return (index, Matrix(rowCount: rows.count, columnCount: d + 2, elements: queries))
        }
    }
}
