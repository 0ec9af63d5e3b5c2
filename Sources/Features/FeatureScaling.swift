import Foundation

/// The fitted scaling of a ``FeatureSchema``: for every matrix column, how an encoded feature value
/// was shifted, divided and weighted.
///
/// A scaled value is `(encoded − offset) / scale × weight`, where the encoded value is the raw
/// value, or for key the sine or cosine of its angle on the circle of pitch classes. Keeping the
/// parameters lets centroids found in the scaled space be reported in original units
/// (``originalValues(ofScaledRow:)``).
public struct FeatureScaling: Hashable, Sendable, Codable {
    /// How a column encodes its feature.
    public enum Encoding: String, Hashable, Sendable, Codable {
        /// The raw value.
        case linear
        /// The sine of the key's angle, sin(2π · key / 12).
        case keySine = "key_sin"
        /// The cosine of the key's angle, cos(2π · key / 12).
        case keyCosine = "key_cos"
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

        public init(
            name: String,
            feature: AudioFeature,
            encoding: Encoding,
            offset: Double,
            scale: Double,
            weight: Double
        ) {
            self.name = name
            self.feature = feature
            self.encoding = encoding
            self.offset = offset
            self.scale = scale
            self.weight = weight
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
            case .linear: result[column.feature] = encoded
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
}
