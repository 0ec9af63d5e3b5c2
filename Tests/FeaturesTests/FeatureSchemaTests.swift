import Features
import Foundation
import Numerics
import Testing

struct FeatureSchemaTests {
    /// A table of `rows`, each a dictionary of the features it has.
    private func makeTable(_ rows: [[AudioFeature: Double]]) -> FeatureTable {
        var table = FeatureTable()
        for (index, row) in rows.enumerated() {
            var features = AudioFeatures()
            for (feature, value) in row { features[feature] = value }
            table.append(trackID: Int64(100 + index), features: features)
        }
        return table
    }

    private func distance(_ matrix: Matrix, _ a: Int, _ b: Int) -> Float {
        zip(matrix.row(a), matrix.row(b)).map { ($0 - $1) * ($0 - $1) }.reduce(0, +).squareRoot()
    }

    @Test func defaultSchemaHasTheVibeFeatures() {
        let schema = FeatureSchema.default
        #expect(schema.features == FeatureSchema.defaultFeatures)
        #expect(schema.entries.allSatisfy { $0.weight == 1 })
        #expect(schema.scaling == .rankNormal)
        #expect(schema.columnNames.count == 9)
        #expect(!schema.features.contains(.key))
        #expect(!schema.features.contains(.mode))
    }

    @Test func keyIsCircularSoBAndCAreNeighbours() throws {
        let schema = try FeatureSchema(features: [.key], scaling: .raw)
        let table = makeTable((0..<12).map { [.key: Double($0)] })
        let space = schema.makeSpace(from: table)
        #expect(space.matrix.columnNames == ["key_sin", "key_cos"])
        let values = space.matrix.values
        let bToC = distance(values, 11, 0)
        #expect(bToC.isApproximatelyEqual(to: distance(values, 0, 1), relativeTolerance: 1e-5))
        #expect(bToC < distance(values, 0, 6) / 3)
    }

    @Test func keyRoundTripsThroughTheScaling() throws {
        let schema = try FeatureSchema(features: [.energy, .key])
        let table = makeTable((0..<24).map { [.energy: Double($0) / 24, .key: Double($0 % 12)] })
        let space = schema.makeSpace(from: table)
        for row in [0, 5, 11, 23] {
            let original = space.scaling.originalValues(ofScaledRow: space.matrix.values.row(row))
            let key = try #require(original[.key])
            #expect(key.isApproximatelyEqual(to: Double(row % 12), absoluteTolerance: 1e-4))
            #expect(original[.energy]!.isApproximatelyEqual(to: Double(row) / 24, absoluteTolerance: 1e-6))
        }
    }

    @Test func tracksMissingAFeatureAreLeftOutAndCounted() throws {
        let schema = try FeatureSchema(features: [.energy, .tempo, .valence])
        let table = makeTable([
            [.energy: 0.5, .tempo: 120, .valence: 0.2],
            [.energy: 0.6, .tempo: 0, .valence: 0.3],  // tempo 0 means "not detected"
            [.energy: 0.7, .valence: 0.4],  // no tempo at all
            [.tempo: 90, .valence: 0.5],  // no energy
            [.energy: 0.9, .tempo: 100, .valence: 0.6, .key: -1],  // key −1 is irrelevant here
        ])
        let space = schema.makeSpace(from: table)
        #expect(space.matrix.rowCount == 2)
        #expect(space.matrix.trackIDs == [100, 104])
        #expect(space.tableRows == [0, 4])
        #expect(space.excludedTrackCount == 3)
        #expect(space.missingCounts == [.energy: 1, .tempo: 2, .valence: 0])
        let isFinite = space.matrix.values.elements.allSatisfy { $0.isFinite }
        #expect(isFinite)
    }

    @Test func zScoresHaveZeroMeanAndUnitDeviation() throws {
        var rows: [[AudioFeature: Double]] = []
        for i in 0..<50 {
            let energy = Double(i % 7) / 7
            let loudness = -30 + Double(i % 11)
            let tempo = 80 + Double(i * 3 % 90)
            rows.append([.energy: energy, .loudness: loudness, .tempo: tempo])
        }
        let table = makeTable(rows)
        let space = try FeatureSchema(features: [.energy, .loudness, .tempo]).makeSpace(from: table)
        let matrix = space.matrix.values
        for column in 0..<3 {
            let values: [Double] = (0..<matrix.rowCount).map { Double(matrix[$0, column]) }
            let mean: Double = values.reduce(0, +) / Double(values.count)
            let squares: [Double] = values.map { ($0 - mean) * ($0 - mean) }
            let variance: Double = squares.reduce(0, +) / Double(values.count)
            #expect(mean.isApproximatelyEqual(to: 0, absoluteTolerance: 1e-5))
            #expect(variance.isApproximatelyEqual(to: 1, relativeTolerance: 1e-4))
        }
    }

    @Test func minMaxMapsTheRangeToTheUnitInterval() throws {
        let table = makeTable([[.loudness: -20], [.loudness: -5], [.loudness: -12.5]])
        let space = try FeatureSchema(features: [.loudness], scaling: .minMax).makeSpace(from: table)
        #expect(space.matrix.values.elements == [0, 1, 0.5])
    }

    @Test func rawKeepsOriginalUnits() throws {
        let table = makeTable([[.tempo: 120, .energy: 0.5], [.tempo: 90.5, .energy: 0.25]])
        let space = try FeatureSchema(features: [.tempo, .energy], scaling: .raw).makeSpace(from: table)
        #expect(space.matrix.values.elements == [120, 0.5, 90.5, 0.25])
    }

    @Test func constantFeatureBecomesZerosNotNaN() throws {
        let table = makeTable((0..<5).map { [.mode: 1, .energy: Double($0) / 5] })
        let space = try FeatureSchema(features: [.mode, .energy]).makeSpace(from: table)
        #expect((0..<5).allSatisfy { space.matrix.values[$0, 0] == 0 })
        #expect(space.scaling.columns[0].scale == 1)
    }

    @Test(arguments: [0.5, 2.0, 3.0])
    func weightsScaleTheirColumn(weight: Double) throws {
        let table = makeTable((0..<6).map { [.tempo: 100 + Double($0) * 10, .energy: Double($0) / 6] })
        let plain = try FeatureSchema(features: [.tempo, .energy]).makeSpace(from: table)
        let weighted = try FeatureSchema(features: [.tempo, .energy], weights: [.tempo: weight]).makeSpace(from: table)
        for row in 0..<6 {
            #expect(
                weighted.matrix.values[row, 0].isApproximatelyEqual(
                    to: plain.matrix.values[row, 0] * Float(weight),
                    relativeTolerance: 1e-5
                )
            )
            #expect(weighted.matrix.values[row, 1] == plain.matrix.values[row, 1])
        }
        // Centroids map back to original units whatever the weight.
        let original = weighted.scaling.originalValues(ofScaledRow: weighted.matrix.values.row(2))
        #expect(original[.tempo]!.isApproximatelyEqual(to: 120, relativeTolerance: 1e-5))
    }

    @Test func invalidSchemasAreRejected() {
        #expect(throws: FeatureSchemaError.noFeatures) { _ = try FeatureSchema(features: []) }
        #expect(throws: FeatureSchemaError.repeatedFeature(.energy)) {
            _ = try FeatureSchema(features: [.energy, .energy])
        }
        #expect(throws: FeatureSchemaError.weightOutsideSchema(.tempo)) {
            _ = try FeatureSchema(features: [.energy], weights: [.tempo: 2])
        }
        #expect(throws: FeatureSchemaError.invalidWeight(.energy, 0)) {
            _ = try FeatureSchema(features: [.energy], weights: [.energy: 0])
        }
    }

    @Test func featureNamesParseInEitherSpelling() {
        #expect(FeatureSchema.feature(named: "time_signature") == .timeSignature)
        #expect(FeatureSchema.feature(named: "timeSignature") == .timeSignature)
        #expect(FeatureSchema.feature(named: "Energy") == .energy)
        #expect(FeatureSchema.feature(named: "loudnes") == nil)
    }

    @Test func emptyTableGivesAnEmptyMatrix() {
        let space = FeatureSchema.default.makeSpace(from: FeatureTable())
        #expect(space.matrix.rowCount == 0)
        #expect(space.matrix.columnCount == 9)
        #expect(space.excludedTrackCount == 0)
    }
}

struct SplitMix64Tests {
    @Test func sameSeedSameSequence() {
        var a = SplitMix64(seed: 42)
        var b = SplitMix64(seed: 42)
        #expect((0..<100).map { _ in a.next() } == (0..<100).map { _ in b.next() })
    }

    @Test func knownFirstValues() {
        // Reference values of SplitMix64 from seed 0 (Vigna's splitmix64.c).
        var rng = SplitMix64(seed: 0)
        #expect(rng.next() == 0xE220_A839_7B1D_CDAF)
        #expect(rng.next() == 0x6E78_9E6A_A1B9_65F4)
    }

    @Test func boundedDrawsStayInRangeAndCoverIt() {
        var rng = SplitMix64(seed: 7)
        var seen = Set<Int>()
        for _ in 0..<1000 {
            let value = rng.next(below: 10)
            #expect((0..<10).contains(value))
            seen.insert(value)
        }
        #expect(seen.count == 10)
        let unit = (0..<1000).map { _ in rng.nextUnitInterval() }
        #expect(unit.allSatisfy { $0 >= 0 && $0 < 1 })
    }
}

// MARK: - Rank-normal scaling

extension FeatureSchemaTests {
    @Test func rankNormalScoresTheSkewedFeaturesLogsTempoAndZScoresTheRest() throws {
        let schema = try FeatureSchema(features: [.acousticness, .tempo, .energy], scaling: .rankNormal)
        let table = makeTable([
            [.acousticness: 0.5, .tempo: 240, .energy: 0.9],
            [.acousticness: 0.1, .tempo: 120, .energy: 0.1],
            [.acousticness: 0.3, .tempo: 60, .energy: 0.5],
            [.acousticness: 0.2, .tempo: 120, .energy: 0.3],
            [.acousticness: 0.4, .tempo: 120, .energy: 0.7],
        ])
        let space = schema.makeSpace(from: table)
        #expect(space.scaling.columns.map(\.encoding) == [.normalScore, .logarithm, .linear])
        let values = space.matrix.values
        // Acousticness ranks 5, 1, 3, 2, 4 of 5.
        let z90 = 1.2815515655446004
        let z70 = 0.5244005127080407
        for (row, want) in [z90, -z90, 0, -z70, z70].enumerated() {
            #expect(Double(values[row, 0]).isApproximatelyEqual(to: want, absoluteTolerance: 1e-6))
        }
        // log tempo is ln 120 ± ln 2 on two tracks and ln 120 on three: mean ln 120, deviation
        // ln 2 · √(2/5), so the doubled tempo sits √(5/2) deviations up.
        let up = (5.0 / 2).squareRoot()
        for (row, want) in [up, 0, -up, 0, 0].enumerated() {
            #expect(Double(values[row, 1]).isApproximatelyEqual(to: want, absoluteTolerance: 1e-5))
        }
        // Energy 0.9 is 0.4 above the mean 0.5, with a deviation of √0.08.
        #expect(Double(values[0, 2]).isApproximatelyEqual(to: 0.4 / 0.08.squareRoot(), absoluteTolerance: 1e-5))
    }

    @Test func rankNormalPointsMapBackToOriginalUnits() throws {
        let schema = try FeatureSchema(features: [.speechiness, .tempo, .valence], scaling: .rankNormal)
        let rows: [[AudioFeature: Double]] = (0..<40).map { index -> [AudioFeature: Double] in
            let speechiness: Double = 0.03 + Double(index * index) / 2000
            let tempo: Double = 70 + Double(index * 37 % 110)
            return [.speechiness: speechiness, .tempo: tempo, .valence: Double(index) / 40]
        }
        let space = schema.makeSpace(from: makeTable(rows))
        for (row, raw) in rows.enumerated() {
            let original = space.scaling.originalValues(ofScaledRow: space.matrix.values.row(row))
            for feature in [AudioFeature.speechiness, .tempo, .valence] {
                #expect(
                    original[feature]!.isApproximatelyEqual(
                        to: raw[feature]!,
                        absoluteTolerance: 1e-6,
                        relativeTolerance: 1e-5
                    )
                )
            }
        }
        // A target the library does not hold lands between its neighbours, and one beyond the
        // library at its edge.
        let speechiness = space.scaling.columns[0]
        let between = speechiness.scaled(value: 0.5)
        #expect(between > speechiness.scaled(value: 0.03 + 30 * 30 / 2000.0))
        #expect(between < speechiness.scaled(value: 0.03 + 31 * 31 / 2000.0))
        #expect(speechiness.scaled(value: 0.99) == speechiness.scaled(value: 0.03 + 39 * 39 / 2000.0))
    }

    @Test func rankNormalImputesTheMeanScore() throws {
        let schema = try FeatureSchema(features: [.energy, .liveness], scaling: .rankNormal)
        let table = makeTable([
            [.energy: 0.2, .liveness: 0.1],
            [.energy: 0.4, .liveness: 0.9],
            [.energy: 0.6, .liveness: 0.3],
            [.energy: 0.8],
        ])
        let space = schema.makeSpace(from: table)
        #expect(space.imputedCounts == [.liveness: 1])
        // Ranks 1, 3, 2 of 3 score −Φ⁻¹(5/6), Φ⁻¹(5/6), 0: the mean is 0.
        #expect(abs(space.matrix.values[3, 1]) < 1e-9)
        #expect(space.scaling.columns[1].normalScores?.knotCount == 3)
    }

    @Test func theSameLibraryGivesTheSameScalingBitForBit() throws {
        let schema = try FeatureSchema(features: FeatureSchema.defaultFeatures, scaling: .rankNormal)
        let rows: [[AudioFeature: Double]] = (0..<600).map { index in
            var row: [AudioFeature: Double] = [:]
            for (offset, feature) in FeatureSchema.defaultFeatures.enumerated() {
                row[feature] = Double((index * (offset + 3) * 2_654_435_761) % 1000) / 1000
            }
            row[.tempo] = 60 + Double(index % 140)
            row[.loudness] = -Double(index % 30)
            return row
        }
        let first = schema.makeSpace(from: makeTable(rows))
        let second = schema.makeSpace(from: makeTable(rows))
        #expect(first.scaling == second.scaling)
        #expect(first.matrix.values.elements == second.matrix.values.elements)
    }

    @Test func aScalingSavedBeforeNormalScoresDecodesAndMapsAsBefore() throws {
        // The shape a run saved by a version without normal scores holds.
        let saved = """
            {"columns":[\
            {"encoding":"linear","feature":"energy","name":"energy","offset":0.5,"scale":0.25,"weight":1},\
            {"encoding":"linear","feature":"mode","name":"mode","offset":0.5,"scale":0.5,"weight":0.5},\
            {"encoding":"key_sin","feature":"key","name":"key_sin","offset":0,"scale":0.5,"weight":1},\
            {"encoding":"key_cos","feature":"key","name":"key_cos","offset":0,"scale":0.5,"weight":1}],\
            "schema":{"entries":[{"feature":"energy","weight":1},{"feature":"mode","weight":0.5},\
            {"feature":"key","weight":1}],"imputed_features":[],"scaling":"zscore"}}
            """
        let scaling = try JSONDecoder().decode(FeatureScaling.self, from: Data(saved.utf8))
        #expect(scaling.schema.scaling == .zScore)
        #expect(scaling.columns.allSatisfy { $0.normalScores == nil })
        // Energy 1.5 · 0.25 + 0.5, mode 0.5 / 0.5 · 0.5 + 0.5, and key at the angle whose sine is
        // 2 · 0.5 and cosine 0: 90°, pitch class 3.
        let original = scaling.originalValues(ofScaledRow: [1.5, 0.5, 2, 0] as [Float])
        #expect(original[.energy] == 0.875)
        #expect(original[.mode] == 1)
        #expect(original[.key]!.isApproximatelyEqual(to: 3, absoluteTolerance: 1e-12))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(String(decoding: try encoder.encode(scaling), as: UTF8.self) == saved)
    }
}
