/// The raw audio features of many tracks, as read from the store: one row per track, one column per
/// ``AudioFeature`` in `AudioFeature.all` order, in original units, `NaN` where missing.
///
/// Sentinels that mean "not measured" (key −1, tempo 0) are stored as `NaN` too, so that no
/// analysis mistakes them for measurements, and so is any value that is not valid for its feature
/// (``AudioFeature/isValid(_:)``: infinite, 1e300, a key of 7.5): whatever a caller or an old store
/// hands in, every analysis sees only finite values in range. A ``FeatureSchema`` turns a table
/// into a scaled ``FeatureMatrix``.
public struct FeatureTable: Sendable {
    /// The store's track ID of each row.
    public var trackIDs: [Int64]
    /// Row-major values, `trackIDs.count × AudioFeature.all.count`: valid measurements or `NaN`.
    public private(set) var values: [Float]

    /// The number of columns, one per audio feature.
    public static let columnCount = AudioFeature.allCases.count

    public init(trackIDs: [Int64] = [], values: [Float] = []) {
        precondition(values.count == trackIDs.count * FeatureTable.columnCount, "The table is not rectangular.")
        self.trackIDs = trackIDs
        self.values = values
        let width = FeatureTable.columnCount
        // Each column's bounds and checks read once, not through the feature's switch per value:
        // a million rows took about 150 ms that way, most of reading the features snapshot.
        let checks = AudioFeature.all.map { feature in
            (
                range: feature.validRange, isDiscrete: feature.isDiscrete,
                sentinel: feature == .key ? -1.0 : .nan, belowOne: feature == .tempo
            )
        }
        self.values.withUnsafeMutableBufferPointer { buffer in
            for column in 0..<width {
                let check = checks[column]
                var index = column
                while index < buffer.count {
                    let value = Double(buffer[index])
                    if !value.isNaN,
                        !check.range.contains(value) || (check.isDiscrete && value != value.rounded())
                            || value == check.sentinel || (check.belowOne && value < 1)
                    {
                        buffer[index] = .nan
                    }
                    index += width
                }
            }
        }
    }

    /// The rows `rows` of this table, in that order, copied without checking the values again.
    public func selecting(rows: [Int32]) -> FeatureTable {
        let width = FeatureTable.columnCount
        var result = FeatureTable()
        result.trackIDs = rows.map { trackIDs[Int($0)] }
        result.values = [Float](unsafeUninitializedCapacity: rows.count * width) { target, initialized in
            values.withUnsafeBufferPointer { source in
                for (index, row) in rows.enumerated() {
                    precondition(Int(row) < trackIDs.count, "a row of the table")
                    (target.baseAddress! + index * width).initialize(
                        from: source.baseAddress! + Int(row) * width,
                        count: width
                    )
                }
            }
            initialized = rows.count * width
        }
        return result
    }

    /// Whether `value` is kept as a measurement of `feature`: valid, and not a sentinel.
    @inline(__always)
    static func accepts(_ value: Double, _ feature: AudioFeature) -> Bool {
        feature.isValid(value) && !feature.isMissingSentinel(value)
    }

    /// The number of tracks.
    public var rowCount: Int { trackIDs.count }

    /// The value of `feature` for row `row`, or `nil` when it is missing.
    public func value(row: Int, feature: AudioFeature) -> Float? {
        let value = values[row * FeatureTable.columnCount + FeatureTable.columnIndex(of: feature)]
        return value.isNaN ? nil : value
    }

    /// The column of `feature` in every row: its place in `AudioFeature.all` (declaration order).
    ///
    /// A switch rather than a search of `AudioFeature.all`: reading a million rows feature by
    /// feature, the search was 2 % of a `recommend`.
    @inline(__always)
    public static func columnIndex(of feature: AudioFeature) -> Int {
        switch feature {
        case .danceability: 0
        case .energy: 1
        case .key: 2
        case .loudness: 3
        case .mode: 4
        case .speechiness: 5
        case .acousticness: 6
        case .instrumentalness: 7
        case .liveness: 8
        case .valence: 9
        case .tempo: 10
        case .timeSignature: 11
        }
    }

    /// Appends one track's features, storing missing values, sentinels and invalid values as `NaN`.
    public mutating func append(trackID: Int64, features: AudioFeatures) {
        trackIDs.append(trackID)
        for feature in AudioFeature.all {
            if let value = features[feature], FeatureTable.accepts(Double(Float(value)), feature) {
                values.append(Float(value))
            } else {
                values.append(.nan)
            }
        }
    }
}
