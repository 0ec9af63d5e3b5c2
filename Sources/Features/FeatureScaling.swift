import Foundation

/// The fitted scaling of a ``FeatureSchema``: for every matrix column, how an encoded feature value
/// was shifted, divided and weighted.
///
/// A scaled value is `(encoded − offset) / scale × weight`, where the encoded value is the raw
/// value, its logarithm, its normal score in the library (``NormalScoreTable``), or for key the sine
/// or cosine of its angle on the circle of pitch classes. Keeping the parameters lets centroids
/// found in the scaled space be reported in original units (``originalValues(ofScaledRow:)``).
///
/// A scaling saved before logarithms and normal scores existed decodes unchanged: its columns are
/// all linear or key columns, and have no table.
public struct FeatureScaling: Hashable, Sendable, Codable {
    /// How a column encodes its feature.
    public enum Encoding: String, Hashable, Sendable, Codable {
        /// The raw value.
        case linear
        /// The sine of the key's angle, sin(2π · key / 12).
        case keySine = "key_sin"
        /// The cosine of the key's angle, cos(2π · key / 12).
        case keyCosine = "key_cos"
        /// The natural logarithm of the value; values below 1 (a tempo not detected) count as 1.
        case logarithm = "log"
        /// The normal score of the value's rank in the library, read from the column's
        /// ``Column/normalScores`` table.
        case normalScore = "normal_score"
    }

    /// The parameters of one matrix column.
    public struct Column: Hashable, Sendable, Codable {
        /// The column name, such as `energy` or `key_sin`.
        public var name: String
        /// The feature the column encodes.
        public var feature: AudioFeature
        /// How the column encodes its feature.
        public var encoding: Encoding
        /// The value subtracted from the encoded value (the library mean for z-scores).
        public var offset: Double
        /// The divisor applied after the offset (the standard deviation, or the range); 1 for a
        /// constant column.
        public var scale: Double
        /// The schema weight, multiplied last.
        public var weight: Double
        /// The fitted table of a ``Encoding/normalScore`` column; `nil` for every other encoding.
        public var normalScores: NormalScoreTable?

        public init(
            name: String,
            feature: AudioFeature,
            encoding: Encoding,
            offset: Double,
            scale: Double,
            weight: Double,
            normalScores: NormalScoreTable? = nil
        ) {
            precondition(
                (encoding == .normalScore) == (normalScores != nil),
                "A normal-score column, and only one, needs a table."
            )
            self.name = name
            self.feature = feature
            self.encoding = encoding
            self.offset = offset
            self.scale = scale
            self.weight = weight
            self.normalScores = normalScores
        }

        enum CodingKeys: String, CodingKey {
            case name, feature, encoding, offset, scale, weight
            case normalScores = "normal_scores"
        }

        /// Encodes a value of the column's feature in original units, before offset and scale.
        ///
        /// - Parameter value: The feature's value: a key as a pitch class, a tempo in BPM.
        /// - Returns: The value itself, its logarithm, its normal score, or the sine or cosine of
        ///   the key's angle.
        @inlinable
        public func encode(_ value: Double) -> Double {
            switch encoding {
            case .linear: value
            case .keySine: sin(value * .pi / 6)
            case .keyCosine: cos(value * .pi / 6)
            case .logarithm: log(Swift.max(value, 1))
            case .normalScore: normalScores!.score(of: value)
            }
        }

        /// Maps a value in original units into the scaled space: ``encode(_:)``, then ``scaled(_:)``.
        @inlinable
        public func scaled(value: Double) -> Double {
            scaled(encode(value))
        }

        /// Maps an encoded value back to original units; the inverse of ``encode(_:)`` for every
        /// encoding but key's, whose sine or cosine alone cannot be inverted and comes back as is.
        @inlinable
        public func decode(_ encoded: Double) -> Double {
            switch encoding {
            case .linear, .keySine, .keyCosine: encoded
            case .logarithm: exp(encoded)
            case .normalScore: normalScores!.value(ofScore: encoded)
            }
        }

        /// Maps an encoded value into the scaled space.
        @inlinable
        public func scaled(_ encoded: Double) -> Double {
            (encoded - offset) / scale * weight
        }

        /// Maps a scaled value back to the encoded value.
        @inlinable
        public func encoded(fromScaled value: Double) -> Double {
            value / weight * scale + offset
        }
    }

    /// The schema this scaling was fitted for.
    public var schema: FeatureSchema
    /// One entry per matrix column, in column order.
    public var columns: [Column]

    public init(schema: FeatureSchema, columns: [Column]) {
        self.schema = schema
        self.columns = columns
    }

    /// Returns a point of the scaled space in original units, one value per schema feature.
    ///
    /// A logarithmic column comes back through the exponential and a normal-score column through
    /// its table, so a centroid reads as the value at its mean log or mean normal score.
    ///
    /// Key comes back as the pitch class of the mean angle, in `0 ..< 12` (fractional for a
    /// centroid), or is absent when the point sits at the centre of the circle.
    public func originalValues(ofScaledRow row: some Collection<Float>) -> [AudioFeature: Double] {
        precondition(row.count == columns.count, "A row of \(row.count) values does not fit \(columns.count) columns.")
        var result: [AudioFeature: Double] = [:]
        var keySine = 0.0
        var keyCosine = 0.0
        for (column, value) in zip(columns, row) {
            let encoded = column.encoded(fromScaled: Double(value))
            switch column.encoding {
            case .linear, .logarithm, .normalScore: result[column.feature] = column.decode(encoded)
            case .keySine: keySine = encoded
            case .keyCosine: keyCosine = encoded
            }
        }
        if columns.contains(where: { $0.encoding == .keySine }), keySine != 0 || keyCosine != 0 {
            let angle = atan2(keySine, keyCosine)
            let key = angle / (2 * .pi) * 12
            result[.key] = key < 0 ? key + 12 : key
        }
        return result
    }
}

/// The tracks of a library placed in the scaled space of a ``FeatureSchema``.
public struct FeatureSpace: Sendable {
    /// The scaled features, one row per included track.
    public var matrix: FeatureMatrix
    /// The fitted scaling, to map points back to original units.
    public var scaling: FeatureScaling
    /// For each matrix row, the row of the ``FeatureTable`` it was built from.
    public var tableRows: [Int32]
    /// The number of tracks left out because they miss a feature of the schema.
    public var excludedTrackCount: Int
    /// For each schema feature, how many tracks of the table miss it.
    public var missingCounts: [AudioFeature: Int]
    /// For each imputed feature, how many included tracks took the column's mean for it.
    public var imputedCounts: [AudioFeature: Int] = [:]

    public init(
        matrix: FeatureMatrix,
        scaling: FeatureScaling,
        tableRows: [Int32],
        excludedTrackCount: Int,
        missingCounts: [AudioFeature: Int],
        imputedCounts: [AudioFeature: Int] = [:]
    ) {
        self.matrix = matrix
        self.scaling = scaling
        self.tableRows = tableRows
        self.excludedTrackCount = excludedTrackCount
        self.missingCounts = missingCounts
        self.imputedCounts = imputedCounts
    }
}
