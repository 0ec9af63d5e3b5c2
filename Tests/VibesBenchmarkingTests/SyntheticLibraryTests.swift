import Analytics
import Features
import Foundation
import Numerics
import Testing
import VibesBenchmarking
import VibesTestSupport

struct SyntheticLibraryTests {
    /// The mean and population standard deviation of the present (non-NaN) values of `feature`.
    private func moments(of feature: AudioFeature, in table: FeatureTable) -> (mean: Double, deviation: Double) {
        let column = FeatureTable.columnIndex(of: feature)
        var sum = 0.0
        var squares = 0.0
        var count = 0.0
        for row in 0..<table.rowCount {
            let value = Double(table.values[row * FeatureTable.columnCount + column])
            guard !value.isNaN else { continue }
            sum += value
            squares += value * value
            count += 1
        }
        let mean = sum / count
        return (mean, (squares / count - mean * mean).squareRoot())
    }

    /// The share of each pitch class among the present keys.
    private func keyShares(in table: FeatureTable) -> [Double] {
        let column = FeatureTable.columnIndex(of: .key)
        var counts = [Double](repeating: 0, count: 12)
        for row in 0..<table.rowCount {
            let key = table.values[row * FeatureTable.columnCount + column]
            if !key.isNaN { counts[Int(key)] += 1 }
        }
        let total = counts.reduce(0, +)
        return counts.map { $0 / total }
    }

    @Test func tablesAndMatricesHaveTheAskedShape() async {
        let library = SyntheticLibrary()
        let table = await library.makeTable(rowCount: 1_000, seed: 1)
        #expect(table.rowCount == 1_000)
        #expect(table.values.count == 1_000 * FeatureTable.columnCount)
        #expect(table.trackIDs == Array(1...1_000))
        for columnCount in [1, 10, 12, 15] {
            let matrix = await library.makeMatrix(rowCount: 777, columnCount: columnCount, seed: 1)
            #expect(matrix.rowCount == 777)
            #expect(matrix.columnCount == columnCount)
            #expect(matrix.elements.allSatisfy { $0.isFinite })
            #expect(SyntheticLibrary.columnNames(count: columnCount).count == columnCount)
        }
        #expect(SyntheticLibrary.columnNames(count: 12).suffix(2) == ["key_sin", "key_cos"])
        #expect(SyntheticLibrary.columnNames(count: 14).suffix(2) == ["noise_1", "noise_2"])
        #expect(Array(SyntheticLibrary.columnNames(count: 9)) == FeatureSchema.default.columnNames)
        #expect(SyntheticLibrary.columnNames(count: 10).last == "mode")
    }

    @Test func theSameSeedGivesTheSameBytesWhateverTheThreadCount() async {
        let library = SyntheticLibrary()
        // More than one block, so that blocks are spread over the tasks.
        let rowCount = SyntheticLibrary.blockSize * 2 + 123
        let one = await library.makeMatrix(rowCount: rowCount, columnCount: 14, seed: 7, threadCount: 1)
        let three = await library.makeMatrix(rowCount: rowCount, columnCount: 14, seed: 7, threadCount: 3)
        let again = await library.makeMatrix(rowCount: rowCount, columnCount: 14, seed: 7, threadCount: 2)
        #expect(one.elements.map(\.bitPattern) == three.elements.map(\.bitPattern))
        #expect(one.elements.map(\.bitPattern) == again.elements.map(\.bitPattern))
        let other = await library.makeMatrix(rowCount: rowCount, columnCount: 14, seed: 8, threadCount: 2)
        #expect(one.elements != other.elements)
        // Rows of different blocks are not copies of each other.
        #expect(one.row(0) != one.row(SyntheticLibrary.blockSize))
    }

    @Test func valuesStayInTheirRanges() async {
        let table = await SyntheticLibrary().makeTable(rowCount: 20_000, seed: 3)
        let width = FeatureTable.columnCount
        for feature in AudioFeatureMixture.continuousFeatures {
            let column = FeatureTable.columnIndex(of: feature)
            let range = AudioFeatureMixture.clippingRange(of: feature)
            let values = (0..<table.rowCount).map { Double(table.values[$0 * width + column]) }
            #expect(values.allSatisfy { range.contains($0) }, "\(feature.rawValue) leaves \(range)")
        }
        let modes = Set((0..<table.rowCount).map { table.values[$0 * width + FeatureTable.columnIndex(of: .mode)] })
        #expect(modes == [0, 1])
        let keys = Set((0..<table.rowCount).map { table.values[$0 * width + FeatureTable.columnIndex(of: .key)] })
        #expect(keys == Set((0..<12).map(Float.init)))
    }

    @Test func marginalsResembleTheSampleLibrary() async {
        let real = SampleLibrary.featureTable
        let synthetic = await SyntheticLibrary().makeTable(rowCount: 30_000, seed: 42)
        for feature in AudioFeatureMixture.continuousFeatures {
            let expected = moments(of: feature, in: real)
            let actual = moments(of: feature, in: synthetic)
            // Means within a tenth of the real spread; spreads within a fifth of it.
            #expect(
                abs(actual.mean - expected.mean) <= 0.1 * expected.deviation,
                "\(feature.rawValue): mean \(actual.mean), sample \(expected.mean) ± \(expected.deviation)"
            )
            #expect(
                abs(actual.deviation - expected.deviation) <= 0.2 * expected.deviation,
                "\(feature.rawValue): deviation \(actual.deviation), sample \(expected.deviation)"
            )
        }
        let realMode = moments(of: .mode, in: real).mean
        #expect(abs(moments(of: .mode, in: synthetic).mean - realMode) <= 0.03)
        let realKeys = keyShares(in: real)
        let syntheticKeys = keyShares(in: synthetic)
        let totalVariation = zip(realKeys, syntheticKeys).map { abs($0 - $1) }.reduce(0, +) / 2
        #expect(totalVariation <= 0.05, "key distributions differ by \(totalVariation)")
    }

    @Test func matricesAreZScoredAsClusterScalesThem() async {
        let library = SyntheticLibrary()
        let table = await library.makeTable(rowCount: 5_000, seed: 11)
        let matrix = await library.makeMatrix(rowCount: 5_000, seed: 11)
        // The same scaling `cluster` applies: the schema's space of the same table.
        let space = SyntheticLibrary.schema.makeSpace(from: table)
        #expect(matrix.elements == space.matrix.values.elements)
        // Linear columns have mean 0 and a deviation of their weight (mode ½).
        for (column, name) in SyntheticLibrary.schema.columnNames.enumerated() where !name.hasPrefix("key") {
            let values = (0..<matrix.rowCount).map { Double(matrix[$0, column]) }
            let mean = values.reduce(0, +) / Double(values.count)
            let deviation = (values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count)).squareRoot()
            #expect(abs(mean) < 1e-4, "\(name)")
            #expect(deviation.isApproximatelyEqual(to: name == "mode" ? 0.5 : 1, relativeTolerance: 1e-3), "\(name)")
        }
    }

    @Test func columnsBeyondTheSchemaAreStandardNormalNoise() async {
        let library = SyntheticLibrary()
        let base = await library.makeMatrix(rowCount: 4_000, columnCount: 12, seed: 5)
        let wide = await library.makeMatrix(rowCount: 4_000, columnCount: 14, seed: 5)
        let narrow = await library.makeMatrix(rowCount: 4_000, columnCount: 10, seed: 5)
        for row in 0..<4_000 {
            #expect(Array(wide.row(row).prefix(12)) == Array(base.row(row)))
            #expect(Array(narrow.row(row)) == Array(base.row(row).prefix(10)))
        }
        for column in 12..<14 {
            let values = (0..<wide.rowCount).map { Double(wide[$0, column]) }
            let mean = values.reduce(0, +) / Double(values.count)
            let deviation = (values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count)).squareRoot()
            #expect(abs(mean) < 0.1)
            #expect(abs(deviation - 1) < 0.1)
        }
    }
}
