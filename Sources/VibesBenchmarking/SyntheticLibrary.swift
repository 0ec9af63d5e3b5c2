import Analytics
import Features
import Foundation

/// Libraries of any size drawn from an ``AudioFeatureMixture``, for benchmarks.
///
/// Rows are drawn in blocks of ``blockSize`` tracks, in parallel; each block has its own
/// ``Features/SplitMix64`` stream derived from the seed and the block number, so the same seed gives
/// the same bytes whatever the thread count. A track picks a component by weight, draws each
/// continuous feature from the component's normal distribution and clips it to
/// ``AudioFeatureMixture/clippingRange(of:)``, draws mode as a coin flip with the component's major
/// probability and key from its twelve probabilities. Time signature is 4.
///
/// ``makeMatrix(rowCount:columnCount:seed:threadCount:)`` places the tracks in the space of
/// ``schema`` with z-score scaling (``Features/FeatureSchema/makeSpace(from:)``).
///
/// ```swift
/// let matrix = await SyntheticLibrary().makeMatrix(rowCount: 100_000, seed: 42)
/// ```
public struct SyntheticLibrary: Hashable, Sendable {
    /// The mixture tracks are drawn from.
    public var mixture: AudioFeatureMixture

    /// Creates a generator for `mixture`, by default the one fitted to the bundled sample library.
    public init(mixture: AudioFeatureMixture = .tidyTuesdaySample) {
        self.mixture = mixture
    }

    /// The rows of one generated block.
    public static let blockSize = 16_384

    /// The space benchmark matrices live in: the default features and mode (weighted ½ as
    /// `cluster` weighs it), z-scored, followed by key as its sine and cosine — 12 columns, the
    /// width of the project's k-means benchmarks. It stays z-scored whatever `cluster`'s default
    /// scaling, so that benchmark figures remain comparable.
    public static let schema = try! FeatureSchema(
        features: FeatureSchema.defaultFeatures + [.mode, .key],
        weights: FeatureSchema.defaultWeights,
        scaling: .zScore
    )

    /// The names of the columns of a `columnCount`-column benchmark matrix: the first
    /// `columnCount` columns of ``schema``, then `noise_1`, `noise_2`, … for columns beyond it.
    public static func columnNames(count columnCount: Int) -> [String] {
        let names = schema.columnNames
        return Array(names.prefix(columnCount))
            + (0..<Swift.max(0, columnCount - names.count)).map { "noise_\($0 + 1)" }
    }

    /// Draws `rowCount` tracks as a raw feature table, with track IDs 1 … `rowCount`.
    ///
    /// - Parameters:
    ///   - rowCount: The number of tracks.
    ///   - seed: The seed; the same seed gives the same table.
    ///   - threadCount: The number of blocks drawn at once; it does not change the result.
    /// - Complexity: O(*n*), about 0.1 s per million tracks per core.
    public func makeTable(
        rowCount: Int,
        seed: UInt64,
        threadCount: Int = Parallelism.defaultThreadCount
    ) async -> FeatureTable {
        precondition(rowCount >= 0, "A library cannot have a negative number of tracks.")
        let mixture = mixture
        let values = await SyntheticLibrary.generateBlocks(
            rowCount: rowCount,
            width: FeatureTable.columnCount,
            seed: seed,
            stream: 0,
            threadCount: threadCount
        ) { rows, rng, output in
            SyntheticLibrary.drawTracks(count: rows, from: mixture, using: &rng, into: &output)
        }
        return FeatureTable(trackIDs: (0..<Int64(rowCount)).map { $0 + 1 }, values: values)
    }

    /// Draws `rowCount` tracks and returns them z-scored in the benchmark space.
    ///
    /// - Parameters:
    ///   - rowCount: The number of rows.
    ///   - columnCount: The number of columns *d*: the first *d* columns of ``schema`` when *d* ≤ 12,
    ///     else all 12 followed by independent standard normal columns (see
    ///     ``fitting(_:toColumnCount:seed:threadCount:)``). 12 by default.
    ///   - seed: The seed; the same seed gives the same matrix, bit for bit.
    ///   - threadCount: The number of blocks drawn at once; it does not change the result.
    /// - Complexity: O(*n* · *d*): about 0.3 s per million rows on the 2-core machine.
    public func makeMatrix(
        rowCount: Int,
        columnCount: Int = 12,
        seed: UInt64,
        threadCount: Int = Parallelism.defaultThreadCount
    ) async -> Matrix {
        let table = await makeTable(rowCount: rowCount, seed: seed, threadCount: threadCount)
        let space = SyntheticLibrary.schema.makeSpace(from: table)
        return await SyntheticLibrary.fitting(
            space.matrix.values,
            toColumnCount: columnCount,
            seed: seed,
            threadCount: threadCount
        )
    }

    /// Returns `matrix` with `columnCount` columns: its first `columnCount` columns, or all of them
    /// followed by independent standard normal columns (z-scores of noise, seeded by `seed`).
    public static func fitting(
        _ matrix: Matrix,
        toColumnCount columnCount: Int,
        seed: UInt64,
        threadCount: Int = Parallelism.defaultThreadCount
    )
        async -> Matrix
    {
        precondition(columnCount >= 1, "A matrix needs at least one column.")
        let d = matrix.columnCount
        if columnCount == d { return matrix }
        let n = matrix.rowCount
        if columnCount < d {
            var elements = [Float]()
            elements.reserveCapacity(n * columnCount)
            for row in 0..<n { elements.append(contentsOf: matrix.elements[row * d..<row * d + columnCount]) }
            return Matrix(rowCount: n, columnCount: columnCount, elements: elements)
        }
        let extra = columnCount - d
        let noise = await generateBlocks(rowCount: n, width: extra, seed: seed, stream: 1, threadCount: threadCount) {
            rows,
            rng,
            output in
            var normals = NormalDraws()
            for _ in 0..<rows * extra { output.append(Float(normals.next(using: &rng))) }
        }
        var elements = [Float]()
        elements.reserveCapacity(n * columnCount)
        for row in 0..<n {
            elements.append(contentsOf: matrix.elements[row * d..<(row + 1) * d])
            elements.append(contentsOf: noise[row * extra..<(row + 1) * extra])
        }
        return Matrix(rowCount: n, columnCount: columnCount, elements: elements)
    }

    /// Rows `width` values wide, drawn by `draw` in blocks of ``blockSize`` rows spread over
    /// `threadCount` tasks and concatenated in block order. Block *b* draws from a generator seeded
    /// by `seed`, `stream` and *b* only.
    static func generateBlocks(
        rowCount: Int,
        width: Int,
        seed: UInt64,
        stream: UInt64,
        threadCount: Int,
        draw: @escaping @Sendable (_ rows: Int, _ rng: inout SplitMix64, _ output: inout [Float]) -> Void
    ) async -> [Float] {
        let blockCount = (rowCount + blockSize - 1) / blockSize
        let taskCount = Swift.max(1, Swift.min(threadCount, blockCount))
        func drawBlock(_ block: Int) -> [Float] {
            var mixer = SplitMix64(seed: seed ^ (stream &* 0xD1B5_4A32_D192_ED03))
            var rng = SplitMix64(seed: mixer.next() &+ UInt64(block) &* 0x9E37_79B9_7F4A_7C15)
            let rows = Swift.min(blockSize, rowCount - block * blockSize)
            var output = [Float]()
            output.reserveCapacity(rows * width)
            draw(rows, &rng, &output)
            return output
        }
        let parts = await withTaskGroup(of: (Int, [[Float]]).self) { group in
            for task in 0..<taskCount {
                group.addTask {
                    // Task t draws blocks t, t + taskCount, …, so work stays balanced.
                    (task, stride(from: task, to: blockCount, by: taskCount).map { drawBlock($0) })
                }
            }
            var parts = [[[Float]]](repeating: [], count: taskCount)
            for await (task, blocks) in group { parts[task] = blocks }
            return parts
        }
        var values = [Float]()
        values.reserveCapacity(rowCount * width)
        for block in 0..<blockCount { values.append(contentsOf: parts[block % taskCount][block / taskCount]) }
        return values
    }

    /// Appends `count` tracks drawn from `mixture` to `output`, one ``Features/FeatureTable`` row each.
    static func drawTracks(
        count: Int,
        from mixture: AudioFeatureMixture,
        using rng: inout SplitMix64,
        into output: inout [Float]
    ) {
        let features = AudioFeatureMixture.continuousFeatures
        let columns = features.map { FeatureTable.columnIndex(of: $0) }
        let ranges = features.map { AudioFeatureMixture.clippingRange(of: $0) }
        let modeColumn = FeatureTable.columnIndex(of: .mode)
        let keyColumn = FeatureTable.columnIndex(of: .key)
        let timeSignatureColumn = FeatureTable.columnIndex(of: .timeSignature)
        let width = FeatureTable.columnCount
        let weights = mixture.components.map(\.weight)
        let total = weights.reduce(0, +)
        var normals = NormalDraws()
        var row = [Float](repeating: 0, count: width)
        for _ in 0..<count {
            let component = mixture.components[pick(weights, total: total, using: &rng)]
            for j in features.indices {
                let value = component.means[j] + component.standardDeviations[j] * normals.next(using: &rng)
                row[columns[j]] = Float(Swift.min(ranges[j].upperBound, Swift.max(ranges[j].lowerBound, value)))
            }
            row[modeColumn] = rng.nextUnitInterval() < component.majorProbability ? 1 : 0
            row[keyColumn] = Float(pick(component.keyProbabilities, total: 1, using: &rng))
            row[timeSignatureColumn] = 4
            output.append(contentsOf: row)
        }
    }

    /// An index drawn with probability proportional to `weights`.
    @inline(__always)
    private static func pick(_ weights: [Double], total: Double, using rng: inout SplitMix64) -> Int {
        var target = rng.nextUnitInterval() * total
        for (index, weight) in weights.enumerated() {
            target -= weight
            if target < 0 { return index }
        }
        return weights.count - 1
    }
}

/// Standard normal draws by the Box–Muller transform, two per pair of uniform draws.
struct NormalDraws {
    private var spare: Double?

    mutating func next(using rng: inout SplitMix64) -> Double {
        if let value = spare {
            spare = nil
            return value
        }
        // (0, 1], so that the logarithm is finite.
        let u1 = Double((rng.next() >> 11) + 1) * 0x1p-53
        let u2 = rng.nextUnitInterval()
        let radius = (-2 * log(u1)).squareRoot()
        spare = radius * sin(2 * .pi * u2)
        return radius * cos(2 * .pi * u2)
    }
}
