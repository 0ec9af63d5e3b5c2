import Features

/// A feature value as `audio_features` keeps it: a decimal, its digits and its number of decimal
/// places packed into one integer (`digits × 16 + places`), which SQLite stores in as few bytes as
/// the integer needs.
///
/// Spotify's values have three significant digits (0.0331, 0.000353, 0.748) and its tempo and
/// loudness three decimals (122.036, −5.883): as `REAL` each took eight bytes of every row, as a
/// code two or three. A value that no decimal of up to 15 places gives back exactly (a local
/// analysis's values) is kept as `REAL`. A code decodes by one division of its digits by a power
/// of ten, the same in Swift and in the generated columns of `audio_features`
/// (``sqlDecoding(_:)``), so both read the very double that was written.
enum DecimalCode {
    /// The continuous features, kept as codes; the discrete ones (key, mode, time signature) are
    /// whole numbers already and stay `INTEGER` columns.
    static let features = AudioFeature.all.filter { !$0.isDiscrete }

    /// The column a continuous feature's code is kept in; the feature's own name is the column
    /// generated from it.
    static func column(of feature: AudioFeature) -> String { feature.rawValue + "_code" }

    /// 10⁰ … 10¹⁵, each exact as a `Double`.
    private static let powersOfTen: [Double] = (0...15).map { places in
        (0..<places).reduce(1.0) { power, _ in power * 10 }
    }

    /// The code of `value`: the fewest decimal places that give it back exactly, or `nil` when none
    /// of up to 15 places does, or the digits pass 2⁵³ (the value is then kept as it is).
    static func code(of value: Double) -> Int64? {
        guard value.isFinite else { return nil }
        for places in powersOfTen.indices {
            let scaled = value * powersOfTen[places]
            let digits = scaled.rounded()
            // Beyond 2⁵³ the digits are no longer whole numbers a double holds exactly.
            guard abs(digits) < 9_007_199_254_740_992 else { return nil }
            // When `digits` / 10^places gives `value` back, `scaled` is `digits` within two roundings
            // (a relative 2⁻⁵²): farther off, it does not, and the division is skipped. The margin
            // (2⁻⁴⁰) is thousands of times those roundings, so no code that reads back is missed.
            if abs(scaled - digits) > (abs(digits) + 1) * 0x1p-40 { continue }
            let code = Int64(digits) * 16 + Int64(places)
            // Bits, not `==`: −0 equals 0 but would read back as 0.
            if Self.value(ofCode: code).bitPattern == value.bitPattern { return code }
        }
        return nil
    }

    /// The value a code stands for.
    static func value(ofCode code: Int64) -> Double {
        Double(code >> 4) / powersOfTen[Int(code & 15)]
    }

    /// What a feature column holds: the code of `value`, or `value` itself when it has none.
    static func stored(_ value: Double) -> Stored {
        code(of: value).map(Stored.code) ?? .real(value)
    }

    enum Stored: Equatable {
        case code(Int64)
        case real(Double)
    }

    /// The continuous features of one row as their columns store them (``stored(_:)``), without
    /// an allocation: an importer codes them on its parsing thread, so that the writer only binds
    /// them (in a profile of the million-row import, the coding was a tenth of the writer's own
    /// work per row). It has room for 16 features, which `DecimalCodeTests` holds.
    struct Row: Equatable {
        /// Per column of ``Features/AudioFeature/all``: a code, or the bits of a `REAL`; 0 for a
        /// discrete or missing feature.
        private var words = SIMD16<Int64>()
        /// The columns whose word is a `REAL`'s bits.
        private var reals: UInt16 = 0

        init(_ features: AudioFeatures) {
            for (column, feature) in AudioFeature.all.enumerated() where !feature.isDiscrete {
                guard let value = features[feature] else { continue }
                switch DecimalCode.stored(value) {
                case .code(let code): words[column] = code
                case .real(let value):
                    words[column] = Int64(bitPattern: value.bitPattern)
                    reals |= 1 << column
                }
            }
        }

        /// What column `column` stores, when its feature is continuous and has a value.
        func stored(column: Int) -> Stored {
            reals & (1 << column) != 0
                ? .real(Double(bitPattern: UInt64(bitPattern: words[column]))) : .code(words[column])
        }
    }

    /// The SQL expression that reads `column` back as the value it keeps: a code is decoded, a
    /// `REAL` or `NULL` is itself.
    static func sqlDecoding(_ column: String) -> String {
        let powers = powersOfTen.indices.map { "WHEN \($0) THEN 1e\($0)" }.joined(separator: " ")
        return "CASE WHEN typeof(\(column)) = 'integer' THEN (\(column) >> 4) / CASE \(column) & 15 \(powers) END"
            + " ELSE \(column) END"
    }
}
