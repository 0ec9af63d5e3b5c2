import Features
import Synchronization

/// The labelled tracks of a library and the seeds queried among them, shared by every space that is
/// measured on them, so that all figures come from the same queries.
struct LabelledQueries {
    /// The number of neighbours per seed.
    let k: Int
    /// The rows of the feature matrix whose track has a label, ascending.
    let rows: [Int]
    /// The labels of each of ``rows``.
    let labelSets: [Set<String>]
    /// The seeds, as positions in ``rows``, ascending.
    let seeds: [Int]
    /// The exact chance that a uniformly random other labelled track shares a label, per seed.
    let chance: [Double]

    /// Picks the labelled rows of `trackIDs` and the seeds among them.
    ///
    /// - Parameters:
    ///   - trackIDs: The track of each row of the spaces to be measured.
    ///   - labels: The labels by track ID; a track without any is neither seed nor candidate.
    ///   - k: The number of neighbours per seed.
    ///   - sampleSize: When set and smaller than the number of labelled tracks, only this many
    ///     seeds, drawn without replacement with `SplitMix64(seed: sampleSeed)`.
    ///   - sampleSeed: The seed of the sample.
    init(trackIDs: [Int64], labels: [Int64: Set<String>], k: Int, sampleSize: Int?, sampleSeed: UInt64) {
        self.k = k
        let rows = trackIDs.indices.filter { !(labels[trackIDs[$0]]?.isEmpty ?? true) }
        let labelSets = rows.map { labels[trackIDs[$0]]! }
        var seeds = Array(0..<rows.count)
        if let sampleSize, sampleSize < rows.count {
            var generator = SplitMix64(seed: sampleSeed)
            seeds.shuffle(using: &generator)
            seeds = seeds.prefix(Swift.max(1, sampleSize)).sorted()
        }
        self.rows = rows
        self.labelSets = labelSets
        self.seeds = seeds
        // The exact chance of a hit: group tracks by label set, count the others each set meets.
        var groupSizes: [Set<String>: Int] = [:]
        for set in labelSets { groupSizes[set, default: 0] += 1 }
        var sharing: [Set<String>: Int] = [:]
        for (set, _) in groupSizes {
            sharing[set] = groupSizes.reduce(0) { $0 + ($1.key.isDisjoint(with: set) ? 0 : $1.value) } - 1
        }
        let others = Double(Swift.max(1, rows.count - 1))
        chance = seeds.map { Double(sharing[labelSets[$0]]!) / others }
    }

    /// Whether there are more labelled tracks than neighbours per seed.
    var isMeasurable: Bool { rows.count > k }

    /// The fraction of each seed's `k` nearest labelled tracks in `space` (itself left out) that
    /// share a label with it, in seed order.
    ///
    /// - Precondition: `space` has the rows the queries were picked from, and ``isMeasurable``.
    func hitRates(in space: SimilaritySpace, taskCount: Int) async -> [Double] {
        let (index, queries) = space.makeSearch(rows: rows)
        if !space.blocks.isEmpty {
            return await hybridHitRates(in: space, index: index, queries: queries, taskCount: taskCount)
        }
        var seedQueries: [Float] = []
        seedQueries.reserveCapacity(seeds.count * queries.columnCount)
        for seed in seeds { seedQueries.append(contentsOf: queries.row(seed)) }
        let neighbors = await index.nearestNeighbors(
            of: Matrix(rowCount: seeds.count, columnCount: queries.columnCount, elements: seedQueries),
            count: k + 1,
            taskCount: taskCount
        )
        return zip(seeds, neighbors).map { seed, found in
            let others = found.lazy.filter { $0.row != seed }.prefix(k)
            let hits = others.count { !labelSets[$0.row].isDisjoint(with: labelSets[seed]) }
            return Double(hits) / Double(k)
        }
    }

    /// ``hitRates(in:taskCount:)`` of a space with sparse blocks: per seed, the cosines over the
    /// labelled rows plus each block's weighted cosine, then the top `k` (ties by track ID).
    private func hybridHitRates(
        in space: SimilaritySpace,
        index: CosineIndex,
        queries: Matrix,
        taskCount: Int
    ) async -> [Double] {
        let k = k
        let rows = rows
        let seeds = seeds
        let chunk = Swift.max(1, (seeds.count + taskCount - 1) / Swift.max(1, taskCount))
        let ranges = stride(from: 0, to: seeds.count, by: chunk).map { $0..<Swift.min($0 + chunk, seeds.count) }
        let labelSets = labelSets
        let trackIDs = space.features.trackIDs
        let blocks = space.blocks
        let n = space.features.rowCount
        let parts = await withTaskGroup(of: (Int, [Double]).self) { group in
            for (position, range) in ranges.enumerated() {
                group.addTask {
                    var scratch = [Float](repeating: 0, count: n)
                    var rates: [Double] = []
                    for seed in seeds[range] {
                        var scores = index.similarities(to: Array(queries.row(seed)))
                        Self.addBlockScores(blocks, of: rows[seed], over: rows, to: &scores, scratch: &scratch)
                        var selection = TopK(capacity: k + 1)
                        for (position, score) in scores.enumerated() where position != seed {
                            selection.insert(similarity: score, row: position, trackID: trackIDs[rows[position]])
                        }
                        let found = selection.neighbors.prefix(k)
                        let hits = found.count { !labelSets[$0.row].isDisjoint(with: labelSets[seed]) }
                        rates.append(Double(hits) / Double(k))
                    }
                    return (position, rates)
                }
            }
            var parts: [(Int, [Double])] = []
            for await part in group { parts.append(part) }
            return parts
        }
        return parts.sorted { $0.0 < $1.0 }.flatMap(\.1)
    }

    /// The hit rates of one space per seed: among all other labelled tracks, and among those by
    /// other artists than the seed's.
    struct RankedHitRates {
        /// Precision@k of each seed among every other labelled track.
        var plain: [Double]
        /// Precision@k of each seed among labelled tracks by other main artists than the seed's;
        /// the same as ``plain`` for a seed whose artist is unknown.
        var beyondArtist: [Double]
    }

    /// Seeds scored together in one `sgemm`: fixed, so that every score is the same whatever the
    /// number of tasks.
    static let seedChunk = 64

    /// Adds to `scores` (one per row of `rows`, in that order) the weighted similarities of
    /// `blocks` between feature row `seedRow` and each row of `rows`.
    ///
    /// - Parameter scratch: One value per feature row, zero on entry and left zero.
    static func addBlockScores(
        _ blocks: [(block: SimilarityBlock, weight: Float)],
        of seedRow: Int,
        over rows: [Int],
        to scores: inout [Float],
        scratch: inout [Float]
    ) {
        for (block, weight) in blocks {
            let query = block.query(rows: [seedRow])
            guard !query.isEmpty else { continue }
            block.addSimilarities(of: query, weight: weight, to: &scratch)
            for (position, row) in rows.enumerated() { scores[position] += scratch[row] }
            for row in rows { scratch[row] = 0 }
        }
    }

    /// The hit rates of every seed in `space`, plain and beyond the seed's artist.
    ///
    /// Each seed's scores over the labelled rows are the cosine of its query with every row plus
    /// each block's weighted cosine; the top `k` (ties by track ID) are taken twice: among every
    /// other row, and among the rows whose main artist (`artistOfRow`, indexed by the space's
    /// rows, −1 when unknown) differs from the seed's.
    ///
    /// The seeds are scored ``seedChunk`` at a time, the chunks shared out over `taskCount`
    /// threads; each chunk's figures depend only on its seeds, so they are the same whatever the
    /// thread count.
    ///
    /// - Parameter progress: Called with the chunks done and the chunks, one call at a time.
    /// - Complexity: O(*q* · *n* · *d*) for *q* seeds and *n* labelled rows, plus the blocks.
    func rankedHitRates(
        in space: SimilaritySpace,
        artistOfRow: [Int32]?,
        taskCount: Int,
        progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil
    ) -> RankedHitRates {
        let (index, queries) = space.makeSearch(rows: rows)
        let ranking = Ranking(queries: self, space: space, artistOfRow: artistOfRow)
        let chunks = Kernels.fixedChunks(count: seeds.count, size: LabelledQueries.seedChunk)
        let done = Mutex(0)
        // Score and scratch buffers, handed from one chunk to the next: a chunk's 64 rows of
        // scores are megabytes, which the allocator would otherwise map and clear every time.
        let buffers = Mutex<[(scores: [Float], scratch: [Float])]>([])
        let seeds = seeds
        let parts = Kernels.parallelChunks(chunks, threadCount: taskCount) { chunk in
            var elements: [Float] = []
            elements.reserveCapacity(chunk.count * queries.columnCount)
            for seed in seeds[chunk] { elements.append(contentsOf: queries.row(seed)) }
            let normalized = CosineIndex.normalizedRows(
                of: Matrix(rowCount: chunk.count, columnCount: queries.columnCount, elements: elements)
            )
            var (scores, scratch) = buffers.withLock { $0.popLast() } ?? ([], [Float](repeating: 0, count: rows.count))
            index.scoreMatrix(of: normalized, into: &scores)
            let rates = ranking.hitRates(of: Array(seeds[chunk]), scores: &scores, scratch: &scratch)
            buffers.withLock { $0.append((scores, scratch)) }
            if let progress {
                done.withLock {
                    $0 += 1
                    progress($0, chunks.count)
                }
            }
            return rates
        }
        return RankedHitRates(plain: parts.flatMap(\.plain), beyondArtist: parts.flatMap(\.beyondArtist))
    }

    /// The evaluation of one space from its hit rates per seed.
    func evaluation(hitRates: [Double]) -> RetrievalEvaluation {
        let allLabels = Set(labelSets.flatMap { $0 })
        guard isMeasurable, !seeds.isEmpty else {
            return RetrievalEvaluation(
                k: k,
                seedCount: rows.count,
                labelCount: allLabels.count,
                precision: 0,
                randomBaseline: 0,
                perLabel: []
            )
        }
        let seedLabels = seeds.map { labelSets[$0] }
        var perLabel: [RetrievalEvaluation.LabelPrecision] = []
        for label in allLabels {
            let seeds = seedLabels.indices.filter { seedLabels[$0].contains(label) }
            guard !seeds.isEmpty else { continue }
            perLabel.append(
                RetrievalEvaluation.LabelPrecision(
                    label: label,
                    seedCount: seeds.count,
                    precision: seeds.reduce(0) { $0 + hitRates[$1] } / Double(seeds.count),
                    randomBaseline: seeds.reduce(0) { $0 + chance[$1] } / Double(seeds.count)
                )
            )
        }
        perLabel.sort { $0.seedCount > $1.seedCount || ($0.seedCount == $1.seedCount && $0.label < $1.label) }
        return RetrievalEvaluation(
            k: k,
            seedCount: seeds.count,
            labelCount: allLabels.count,
            precision: hitRates.reduce(0, +) / Double(seeds.count),
            randomBaseline: chance.reduce(0, +) / Double(seeds.count),
            perLabel: perLabel
        )
    }
}
