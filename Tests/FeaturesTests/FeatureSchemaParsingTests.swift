import Features
import Testing

struct FeatureSchemaParsingTests {
    @Test func featuresKeepTheirOrderAndTakeDefaultOrGivenWeights() throws {
        let schema = try FeatureSchema(parsing: " energy, mode ,,tempo", weights: ["tempo=0.5"], scaling: .zScore)
        #expect(schema.features == [.energy, .mode, .tempo])
        let weights = Dictionary(uniqueKeysWithValues: schema.entries.map { ($0.feature, $0.weight) })
        #expect(weights == [.energy: 1, .mode: 0.5, .tempo: 0.5])
        #expect(schema.scaling == .zScore)
    }

    @Test(arguments: [
        ("energy,loudnes", [String](), FeatureSchemaError.unknownFeature("loudnes")),
        ("energy", ["tempo"], .malformedWeight("tempo")),
        ("energy", ["tempo=fast"], .malformedWeight("tempo=fast")),
        ("energy", ["tempi=1"], .unknownFeature("tempi")),
        ("energy", ["tempo=1"], .weightOutsideSchema(.tempo)),
        ("energy", ["energy=0"], .invalidWeight(.energy, 0)),
        (" , ", [], .noFeatures),
    ])
    func aMistakeIsNamed(list: String, weights: [String], expected: FeatureSchemaError) {
        #expect(throws: expected) { try FeatureSchema(parsing: list, weights: weights, scaling: .zScore) }
    }
}
