import Features
import Ingest
import Testing
import VibesEngine
import VibesTestSupport

@testable import Analytics

/// The fast paths of `weights learn` and `eval` (pools graded at every grid point at once, the
/// one-pass ranking of a space's seeds, both on two threads) against the plain definitions, on the
/// bundled sample imported into a real store.
struct LibraryStoreWeightLearningTests {
    /// The sample's recommender as `weights learn` builds it, and its playlists.
    static func sample(in folder: String) throws -> (recommender: Recommender, playlists: [Int64: Set<String>]) {
        let store = try LibraryStore(path: folder + "/library.sqlite")
        _ = try store.importFile(at: SampleLibrary.path)
        var recommender = try store.makeRecommender(weights: .defaults, context: false)
        let ids = recommender.features.trackIDs
        if let tags = SimilarityBlock.tags(
            from: try store.tagSources(),
            trackIDs: ids,
            excluding: EvaluationLabel.playlist.derivedSignals
        ) {
            recommender = recommender.adding(tags)
        }
        return (recommender, try store.playlistLabels(of: ids))
    }

    @Test func learningOnTwoThreadsMatchesThePlainGradingOfEveryPool() throws {
        try withTemporaryDirectory { folder in
            let (recommender, playlists) = try Self.sample(in: folder)
            let (k, perFold, seed): (Int, Int, UInt64) = (10, 60, 5)
            var calls: [Int] = []
            let outcome = try BlockWeightLearning.learn(
                recommender: recommender,
                playlists: playlists,
                k: k,
                queriesPerFold: perFold,
                seed: seed,
                taskCount: 2,
                progress: { done, _ in calls.append(done) }
            )
            let serial = try BlockWeightLearning.learn(
                recommender: recommender,
                playlists: playlists,
                k: k,
                queriesPerFold: perFold,
                seed: seed,
                taskCount: 1
            )
            #expect(outcome == serial)
            #expect(calls.first == 0 && calls.last == outcome.defaultRates.count && calls == calls.sorted())

            // The plain path: every pool chosen with `TopK`, graded point by point.
            let eligible = HeldOutPlaylists.eligible(playlists, trackIDs: recommender.features.trackIDs)
            let names = Set(eligible.values.flatMap { $0 })
            let folds = HeldOutPlaylists.folds(of: eligible, foldCount: 3, seed: seed)
            let space = BlockWeightLearning.BlockSpace(recommender: recommender)
            let grid = BlockWeightLearning.makeGrid(from: recommender.weights)
            var rates: [[Double]] = []
            var poolFolds: [Int] = []
            for (fold, heldOut) in folds.enumerated() {
                let graded = try #require(
                    BlockWeightLearning.GradedFold(
                        fold: fold,
                        heldOut: heldOut,
                        eligible: eligible,
                        names: names,
                        space: space,
                        k: k,
                        queriesPerFold: perFold,
                        seed: seed
                    )
                )
                var scratch = [Float](repeating: 0, count: space.rowCount)
                for seedPosition in graded.queries.seeds {
                    let pool = graded.pool(ofSeed: seedPosition, in: space, scratch: &scratch)
                    #expect(scratch.allSatisfy { $0 == 0 })
                    let plain = grid.map { BlockWeightLearning.precision(of: pool, at: $0, k: k) }
                    #expect(BlockWeightLearning.precisions(of: pool, at: grid, k: k) == plain)
                    rates.append(plain)
                    poolFolds.append(fold)
                }
            }
            func best(excludingFold fold: Int?) -> Int {
                var (bestIndex, bestValue) = (0, -Double.infinity)
                for index in grid.indices {
                    let sum = rates.indices.filter { poolFolds[$0] != fold }.reduce(0.0) { $0 + rates[$1][index] }
                    if sum > bestValue + 1e-9 { (bestIndex, bestValue) = (index, sum) }
                }
                return bestIndex
            }
            var learned: [Double] = []
            for fold in folds.indices {
                let chosen = best(excludingFold: fold)
                learned += rates.indices.filter { poolFolds[$0] == fold }.map { rates[$0][chosen] }
            }
            #expect(outcome.defaultRates == rates.map { $0[0] })
            #expect(outcome.learnedRates == learned)
            #expect(outcome.weights.sameArtist == grid[best(excludingFold: nil)].artist)
        }
    }

    @Test func aPoolHoldsTheBestOfEachBlockAsTopKChoosesThem() {
        var generator = SplitMix64(seed: 9)
        // Few distinct values, so that many ties are broken by track ID.
        let values = (0..<500).map { _ in Float(generator.next(below: 7)) / 2 - 2 }
        let ids = (0..<500).map { _ in Int64(generator.next(below: 1_000_000)) }
        for count in [1, 10, 150, 600] {
            var selection = TopK(capacity: count)
            for (position, value) in values.enumerated() where position != 3 && value > -2 {
                selection.insert(similarity: value, row: position, trackID: ids[position])
            }
            let found = BlockWeightLearning.bestPositions(count, of: values, trackIDs: ids, excluding: 3)
            #expect(Set(found) == Set(selection.neighbors.map(\.row)) && found.count == selection.neighbors.count)
        }
    }

    @Test func rankingASpaceOnTwoThreadsMatchesThePlainRanking() throws {
        try withTemporaryDirectory { folder in
            let store = try LibraryStore(path: folder + "/library.sqlite")
            _ = try store.importFile(at: SampleLibrary.path)
            let recommender = try store.makeRecommender(weights: .defaults)
            let ids = recommender.features.trackIDs
            let labels = try store.labels(.playlist, of: ids).labels
            let queries = LabelledQueries(trackIDs: ids, labels: labels, k: 10, sampleSize: 300, sampleSeed: 2)
            let artists = recommender.artistOfRow
            let spaces =
                [recommender.similaritySpace(excluding: EvaluationLabel.playlist.derivedSignals)]
                + SimilaritySpace.informedBaselines(for: recommender.table, artistOfRow: artists, tags: nil)
                + SimilaritySpace.naiveBaselines(for: recommender.table)
            #expect(spaces.contains { !$0.blocks.isEmpty })
            for space in spaces {
                let fast = queries.rankedHitRates(in: space, artistOfRow: artists, taskCount: 2)
                let serial = queries.rankedHitRates(in: space, artistOfRow: artists, taskCount: 1)
                #expect(fast.plain == serial.plain && fast.beyondArtist == serial.beyondArtist)
                let plain = Self.plainRanking(queries, in: space, artistOfRow: artists)
                #expect(fast.plain == plain.plain, "\(space.name)")
                #expect(fast.beyondArtist == plain.beyondArtist, "\(space.name)")
            }
        }
    }

    /// Every seed's scores one at a time, blocks added through a row-sized scratch, and `TopK`.
    static func plainRanking(
        _ queries: LabelledQueries,
        in space: SimilaritySpace,
        artistOfRow: [Int32]
    ) -> LabelledQueries.RankedHitRates {
        let (index, vectors) = space.makeSearch(rows: queries.rows)
        let rows = queries.rows
        var scratch = [Float](repeating: 0, count: space.features.rowCount)
        var plain: [Double] = []
        var beyond: [Double] = []
        for start in stride(from: 0, to: queries.seeds.count, by: LabelledQueries.seedChunk) {
            let chunk = Array(queries.seeds[start..<min(start + LabelledQueries.seedChunk, queries.seeds.count)])
            let matrix = index.scoreMatrix(
                of: CosineIndex.normalizedRows(
                    of: Matrix(
                        rowCount: chunk.count,
                        columnCount: vectors.columnCount,
                        elements: chunk.flatMap { Array(vectors.row($0)) }
                    )
                )
            )
            for (local, seed) in chunk.enumerated() {
                var scores = Array(matrix[(local * rows.count)..<((local + 1) * rows.count)])
                LabelledQueries.addBlockScores(space.blocks, of: rows[seed], over: rows, to: &scores, scratch: &scratch)
                var all = TopK(capacity: queries.k)
                var others = TopK(capacity: queries.k)
                for (position, score) in scores.enumerated() where position != seed {
                    let id = space.features.trackIDs[rows[position]]
                    all.insert(similarity: score, row: position, trackID: id)
                    if artistOfRow[rows[seed]] < 0 || artistOfRow[rows[position]] != artistOfRow[rows[seed]] {
                        others.insert(similarity: score, row: position, trackID: id)
                    }
                }
                let isHit = { (found: Neighbor) in
                    !queries.labelSets[found.row].isDisjoint(with: queries.labelSets[seed])
                }
                plain.append(Double(all.neighbors.count(where: isHit)) / Double(queries.k))
                beyond.append(Double(others.neighbors.count(where: isHit)) / Double(queries.k))
            }
        }
        return LabelledQueries.RankedHitRates(plain: plain, beyondArtist: beyond)
    }
}
