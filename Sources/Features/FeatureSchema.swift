/// Which audio features form the vibe space, how much each counts, and how each is scaled.
///
/// A schema turns a ``FeatureTable`` (raw features, `NaN` where missing) into a ``FeatureSpace``:
/// a ``FeatureMatrix`` of scaled columns plus the fitted ``FeatureScaling`` that maps points back to
/// original units.
///
/// - Key is circular: it is encoded as two columns, `key_sin` and `key_cos`, on the unit circle of
///   pitch classes, so B (11) and C (0) are neighbours rather than 11 apart.
/// - Tempo at or near 0 BPM means "not detected" and is missing, never "very slow".
/// - Tracks missing any feature of the schema are left out of the matrix and counted
///   (``FeatureSpace/excludedTrackCount``); nothing is zero-filled.
///
/// ```swift
/// let schema = try FeatureSchema(features: [.energy, .valence, .tempo], weights: [.tempo: 0.5])
/// let space = schema.makeSpace(from: table)
/// ```
public struct FeatureSchema: Hashable, Sendable, Codable {
    /// How each column is brought to a common scale before distances are taken.
    public enum Scaling: String, CaseIterable, Codable, Sendable {
        /// Replace each of ``FeatureSchema/rankNormalFeatures`` by the normal score of its rank in the
        /// library, take tempo on a log scale, and z-score the rest (the scaling of ``FeatureSchema/default``).
        ///
        /// Acousticness, instrumentalness, speechiness and liveness pile up near 0 with long tails:
        /// z-scored, a few spoken or live tracks sit far out and the crowd near 0 is squeezed
        /// together. Their ranks spread every part of the distribution evenly, and a ratio of tempos
        /// (120 against 60 BPM, 180 against 90) counts the same at any tempo. Each normal-score
        /// column keeps its ``NormalScoreTable``, so targets and centroids map both ways.
        case rankNormal = "ranknormal"
        /// Subtract the library mean and divide by the library standard deviation.
        case zScore = "zscore"
        /// Map the library minimum to 0 and maximum to 1.
        case minMax = "minmax"
        /// Use the values in their own units (loudness in dB and tempo in BPM then dominate).
        case raw
    }

    /// One feature of the schema with its weight.
    public struct Entry: Hashable, Sendable, Codable {
        /// The audio feature.
        public var feature: AudioFeature
        /// The factor applied to the scaled column; the feature's share of a squared distance grows
        /// with the square of the weight. Positive, 1 by default.
        public var weight: Double
    }

    /// The features in column order, each with its weight.
    public private(set) var entries: [Entry]
    /// The scaling fitted on the library.
    public var scaling: Scaling
    /// Features a track may lack and still be placed: a missing value takes the column's mean.
    /// Key is never imputed.
    public var imputedFeatures: Set<AudioFeature>

    /// The features clustered when none are named: the perceptual features, loudness and tempo.
    ///
    /// Key, mode and time signature are left out by default: they say little about a vibe and,
    /// being discrete, split the space into artificial slabs (mode into a major and a minor twin
    /// of every vibe).
    public static let defaultFeatures: [AudioFeature] = [
        .danceability, .energy, .valence, .acousticness, .instrumentalness, .speechiness, .liveness,
        .loudness, .tempo,
    ]

    /// The weights the command line gives when none is asked for: mode, when it is asked for,
    /// counts half, because a binary column that is z-scored otherwise splits every vibe into a
    /// major and a minor twin.
    public static let defaultWeights: [AudioFeature: Double] = [.mode: 0.5]

    /// The features that ``Scaling/rankNormal`` replaces by the normal scores of their ranks: the
    /// ones that pile up near 0 with a long tail.
    public static let rankNormalFeatures: Set<AudioFeature> = [
        .acousticness, .instrumentalness, .speechiness, .liveness,
    ]

    /// The features that some sources never provide, filled in rather than left out: local audio
    /// analysis has no liveness. A track missing only these takes the library's mean for them (0
    /// in z-scores), so it is placed by the features it has.
    public static let defaultImputedFeatures: Set<AudioFeature> = [.liveness]

    /// The default schema: ``defaultFeatures``, equally weighted, with ``Scaling/rankNormal``
    /// scaling.
    public static let `default` = try! FeatureSchema(
        weights: defaultWeights.filter { defaultFeatures.contains($0.key) },
        scaling: .rankNormal
    )

    /// Creates a schema.
    ///
    /// - Parameters:
    ///   - features: The features, in column order; each at most once.
    ///   - weights: Weights for some of `features`; the others weigh 1.
    ///   - scaling: How columns are scaled; z-score by default.
    /// - Throws: ``FeatureSchemaError`` when a feature is repeated, the list is empty, or a weight
    ///   is not a positive finite number or names a feature outside the schema.
    public init(
        features: [AudioFeature] = FeatureSchema.defaultFeatures,
        weights: [AudioFeature: Double] = [:],
        scaling: Scaling = .zScore,
        imputing imputed: Set<AudioFeature> = FeatureSchema.defaultImputedFeatures
    ) throws {
        guard !features.isEmpty else { throw FeatureSchemaError.noFeatures }
        var seen: Set<AudioFeature> = []
        for feature in features where !seen.insert(feature).inserted {
            throw FeatureSchemaError.repeatedFeature(feature)
        }
        for (feature, weight) in weights.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            guard seen.contains(feature) else { throw FeatureSchemaError.weightOutsideSchema(feature) }
            guard weight.isFinite, weight > 0 else { throw FeatureSchemaError.invalidWeight(feature, weight) }
        }
        entries = features.map { Entry(feature: $0, weight: weights[$0] ?? 1) }
        self.scaling = scaling
        imputedFeatures = imputed.intersection(features).subtracting([.key])
    }

    /// The features, in column order.
    public var features: [AudioFeature] { entries.map(\.feature) }

    /// The name of every matrix column: the feature's wire name, or `key_sin` and `key_cos` for key.
    public var columnNames: [String] {
        entries.flatMap { entry in
            entry.feature == .key ? ["key_sin", "key_cos"] : [entry.feature.rawValue]
        }
    }

    /// The number of matrix columns (key takes two).
    public var columnCount: Int { entries.reduce(0) { $0 + ($1.feature == .key ? 2 : 1) } }
}

// MARK: - Parsing

extension FeatureSchema {
    /// Parses a feature name as written on the command line: the wire name (`time_signature`) or
    /// the Swift case name (`timeSignature`), in any case.
    public static func feature(named name: String) -> AudioFeature? {
        let lowered = name.lowercased()
        return AudioFeature.allCases.first {
            $0.rawValue == lowered || String(describing: $0).lowercased() == lowered
        }
    }
}

/// A schema that cannot be used as given.
public enum FeatureSchemaError: Error, Hashable, CustomStringConvertible {
    /// The feature list is empty.
    case noFeatures
    /// A feature appears more than once.
    case repeatedFeature(AudioFeature)
    /// A weight names a feature the schema does not include.
    case weightOutsideSchema(AudioFeature)
    /// A weight is zero, negative or not finite.
    case invalidWeight(AudioFeature, Double)
    /// A name is not an audio feature.
    case unknownFeature(String)
    /// A weight is not written as `feature=number`.
    case malformedWeight(String)

    public var description: String {
        switch self {
        case .noFeatures:
            "The feature list is empty; name at least one feature, such as energy,valence."
        case .repeatedFeature(let feature):
            "The feature \(feature.rawValue) is listed more than once."
        case .weightOutsideSchema(let feature):
            "A weight is given for \(feature.rawValue), which is not among the clustered features; add it to --features."
        case .invalidWeight(let feature, let weight):
            "The weight of \(feature.rawValue) must be a positive number (got \(weight))."
        case .unknownFeature(let name):
            "'\(name)' is not an audio feature; choose from "
                + AudioFeature.allCases.map(\.rawValue).joined(separator: ", ") + "."
        case .malformedWeight(let text):
            "Please write a weight as feature=number, such as tempo=0.5 (got '\(text)')."
        }
    }
}

// MARK: - Codable

extension FeatureSchema {
    enum CodingKeys: String, CodingKey {
        case entries, scaling
        case imputedFeatures = "imputed_features"
    }

    /// Decodes a schema; one saved before imputation existed imputes nothing, as it was fitted.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        entries = try container.decode([Entry].self, forKey: .entries)
        scaling = try container.decode(Scaling.self, forKey: .scaling)
        imputedFeatures = Set(try container.decodeIfPresent([AudioFeature].self, forKey: .imputedFeatures) ?? [])
    }

    /// Encodes the imputed features sorted, so the same schema always encodes to the same bytes.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(entries, forKey: .entries)
        try container.encode(scaling, forKey: .scaling)
        try container.encode(imputedFeatures.sorted { $0.rawValue < $1.rawValue }, forKey: .imputedFeatures)
    }
}
