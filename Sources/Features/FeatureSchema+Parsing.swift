import Foundation

extension FeatureSchema {
    /// A schema as a person writes it: a comma-separated list of features and `feature=number`
    /// weights.
    ///
    /// Features keep the order given; a feature without a weight takes its default weight
    /// (``defaultWeights``), or 1.
    ///
    /// ```swift
    /// let schema = try FeatureSchema(parsing: "energy, valence, tempo", weights: ["tempo=0.5"], scaling: .zScore)
    /// ```
    ///
    /// - Parameters:
    ///   - list: The features, such as `energy,valence,tempo`; blank names are skipped.
    ///   - weights: Weights such as `tempo=0.5`; a later weight of a feature replaces an earlier one.
    ///   - scaling: How each feature is scaled.
    /// - Throws: ``FeatureSchemaError/unknownFeature(_:)`` for a name that is not a feature,
    ///   ``FeatureSchemaError/malformedWeight(_:)`` for a weight not written as `feature=number`,
    ///   and what ``init(features:weights:scaling:imputing:)`` throws.
    public init(parsing list: String, weights: [String], scaling: Scaling) throws {
        var chosen: [AudioFeature] = []
        for name in list.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !name.isEmpty {
            guard let feature = FeatureSchema.feature(named: name) else {
                throw FeatureSchemaError.unknownFeature(name)
            }
            chosen.append(feature)
        }
        var weightsByFeature = FeatureSchema.defaultWeights.filter { chosen.contains($0.key) }
        for text in weights {
            let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let weight = Double(parts[1]) else {
                throw FeatureSchemaError.malformedWeight(text)
            }
            guard let feature = FeatureSchema.feature(named: parts[0]) else {
                throw FeatureSchemaError.unknownFeature(parts[0])
            }
            weightsByFeature[feature] = weight
        }
        try self.init(features: chosen, weights: weightsByFeature, scaling: scaling)
    }
}
