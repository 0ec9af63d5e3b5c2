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
        self.values.withUnsafeMutableBufferPointer(FeatureTable.keepOnlyAccepted)
    }

    /// Each column's check as lanes of four rows (48 values, three 16-lane vectors): the lowest and
    /// highest value kept, whether it must be whole, and the one sentinel (−1 for key, else NaN,
    /// which equals nothing). Every bound is a whole number, exact in `Float`.
    private static let laneChecks:
        [(low: SIMD16<Float>, high: SIMD16<Float>, whole: SIMDMask<SIMD16<Int32>>, sentinel: SIMD16<Float>)] = {
            let width = FeatureTable.columnCount
            return (0..<3).map { vector in
                var low = SIMD16<Float>()
                var high = SIMD16<Float>()
                var whole = SIMDMask<SIMD16<Int32>>()
                var sentinel = SIMD16<Float>(repeating: .nan)
                for lane in 0..<16 {
                    let feature = AudioFeature.all[(vector * 16 + lane) % width]
                    // Tempo below 1 is the "not measured" sentinel: the same as a lower bound of 1.
                    low[lane] = Float(
                        feature == .tempo ? Swift.max(feature.validRange.lowerBound, 1) : feature.validRange.lowerBound
                    )
                    high[lane] = Float(feature.validRange.upperBound)
                    whole[lane] = feature.isDiscrete
                    if feature == .key { sentinel[lane] = -1 }
                }
                return (low, high, whole, sentinel)
            }
        }()

    /// Sets every value its feature does not accept (``accepts(_:_:)``) to `NaN`, sixteen at a
    /// time: a million rows took about 150 ms a value at a time through each feature's checks,
    /// most of reading the features snapshot.
    static func keepOnlyAccepted(_ buffer: inout UnsafeMutableBufferPointer<Float>) {
        let width = FeatureTable.columnCount
        precondition(width * 4 == 48, "four rows are three 16-lane vectors")
        let checks = laneChecks
        var index = 0
        let raw = UnsafeMutableRawPointer(buffer.baseAddress)
        while index + 48 <= buffer.count {
            for vector in 0..<3 {
                let check = checks[vector]
                let address = raw! + (index + vector * 16) * MemoryLayout<Float>.stride
                let value = address.loadUnaligned(as: SIMD16<Float>.self)
                // NaN fails every comparison, so it stays NaN.
                let inRange = (value .>= check.low) .& (value .<= check.high) .& (value .!= check.sentinel)
                let wholeEnough = (.!check.whole) .| (value .== value.rounded(.towardZero))
                let rejected = .!(inRange .& wholeEnough)
                address.storeBytes(of: value.replacing(with: .nan, where: rejected), as: SIMD16<Float>.self)
            }
            index += 48
        }
        while index < buffer.count {
            let value = Double(buffer[index])
            if !value.isNaN, !accepts(value, AudioFeature.all[index % width]) { buffer[index] = .nan }
            index += 1
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

    /// Keeps only the rows `rows` (ascending), moving them down in place: when this table's storage
    /// is not shared, no second table is made (on a million tracks, a copy to drop a few rows was
    /// 56 MB of fresh memory).
    ///
    /// - Precondition: `rows` ascend and are rows of the table.
    public mutating func keepRows(_ rows: [Int32]) {
        let width = FeatureTable.columnCount
        let count = trackIDs.count
        precondition(rows.last.map { Int($0) < count } ?? true, "rows of the table")
        guard rows.count < count else { return }
        values.withUnsafeMutableBufferPointer { values in
            trackIDs.withUnsafeMutableBufferPointer { ids in
                var previous = -1
                for (target, row) in rows.enumerated() {
                    let source = Int(row)
                    precondition(source > previous, "ascending rows")
                    previous = source
                    guard source != target else { continue }
                    ids[target] = ids[source]
                    for column in 0..<width { values[target * width + column] = values[source * width + column] }
                }
            }
        }
        trackIDs.removeLast(count - rows.count)
        values.removeLast((count - rows.count) * width)
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
        for feature in AudioFeature.all { values.append(FeatureTable.storedValue(features[feature], of: feature)) }
    }

    /// What a table keeps of `value` as a measurement of `feature`: the value as a `Float`, or `NaN`
    /// when it is missing, a sentinel or not valid (the rule of ``append(trackID:features:)``).
    @inline(__always)
    public static func storedValue(_ value: Double?, of feature: AudioFeature) -> Float {
        guard let value, accepts(Double(Float(value)), feature) else { return .nan }
        return Float(value)
    }
}

extension FeatureTable {
    /// A 128-bit hash of the track IDs and the values' bits, as 32 hex digits: equal tables have
    /// equal hashes, and a change anywhere changes it (but for a chance of about 2⁻¹²⁸).
    ///
    /// It names what a cached ``FeatureSpace`` was built from; a million rows take about 10 ms.
    /// ``ContentHasher`` gives the same hash a row at a time, without the table.
    public func contentHash() -> String {
        var hasher = ContentHasher()
        let width = FeatureTable.columnCount
        values.withUnsafeBufferPointer { values in
            for (row, id) in trackIDs.enumerated() {
                hasher.combine(
                    trackID: id,
                    values: UnsafeBufferPointer(rebasing: values[(row * width)..<((row + 1) * width)])
                )
            }
        }
        return hasher.finalize()
    }

    /// ``FeatureTable/contentHash()`` of rows handed in one at a time, in table order: what names a
    /// table that is never held whole (an import's snapshot build, which streams its rows).
    public struct ContentHasher: Sendable {
        // Two multiply–xorshift lanes with different odd constants, each mixing every word.
        private var a: UInt64 = 0x9E37_79B9_7F4A_7C15
        private var b: UInt64 = 0xC2B2_AE3D_27D4_EB4F
        private var rowCount: UInt64 = 0

        public init() {}

        @inline(__always)
        private mutating func mix(_ word: UInt64) {
            a = (a ^ word) &* 0xBF58_476D_1CE4_E5B9
            a ^= a >> 31
            b = (b ^ word) &* 0x94D0_49BB_1331_11EB
            b ^= b >> 29
        }

        /// Mixes in one row: its track ID, then its values' bits, two to a word.
        ///
        /// - Precondition: `values` is one row, ``FeatureTable/columnCount`` wide (an even number).
        @inline(__always)
        public mutating func combine(trackID: Int64, values: UnsafeBufferPointer<Float>) {
            precondition(values.count == FeatureTable.columnCount && values.count % 2 == 0, "one row")
            mix(UInt64(bitPattern: trackID))
            var index = 0
            while index < values.count {
                mix(UInt64(values[index].bitPattern) << 32 | UInt64(values[index + 1].bitPattern))
                index += 2
            }
            rowCount += 1
        }

        /// The hash, as 32 hex digits; the row count is mixed in last.
        public func finalize() -> String {
            var copy = self
            copy.mix(rowCount)
            func hex(_ value: UInt64) -> String {
                let digits = String(value, radix: 16)
                return String(repeating: "0", count: 16 - digits.count) + digits
            }
            return hex(copy.a) + hex(copy.b)
        }
    }
}

extension FeatureSchema {
    /// The schema as text that names it exactly: features and weights (their bits), scaling and
    /// imputed features, in a fixed order, with the version of ``makeSpace(from:)``'s arithmetic.
    /// Equal schemas give equal text in every process (a `Set`'s order does not enter).
    public var spaceKey: String {
        "space-1;"
            + entries.map { "\($0.feature.rawValue)=\(String($0.weight.bitPattern, radix: 16))" }
            .joined(separator: ",")
            + ";\(scaling.rawValue);" + imputedFeatures.map(\.rawValue).sorted().joined(separator: ",")
    }
}
