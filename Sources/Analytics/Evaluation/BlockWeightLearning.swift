import Features

/// Learns every block weight of the hybrid similarity (the artist context inside the sound, the
/// same-artist block, the tags and playlist co-membership) as a small linear ranker over block
/// similarities, on playlists held out by folds.
///
/// The playlists are split into folds. For the queries of each fold, graded on that fold's
/// playlists, co-membership is built from the *other* folds' playlists only, so it never sees the
/// playlist it is graded on. Each query's candidates (the fold's labelled tracks) and their block
/// similarities are computed once: the sound cosine at every artist-context weight of
/// ``contextGrid``, 1[same main artist], the tag cosine and the co-membership cosine. Every weight
/// vector of the grid then only re-ranks these numbers, so trying hundreds costs less than one
/// search. The score of a candidate is sound + *w*ₐ · artist + *w*ₜ · tags + *w*꜀ · co-membership,
/// which ranks as the recommender's weighted mean does.
///
/// The weights returned are the best over all folds' queries (ties keep the earlier grid point,
/// and the grid starts at the current defaults). How much they help is measured honestly by nested
/// folds: for each fold, the weights best on the other folds' queries are graded on that fold.
public enum BlockWeightLearning {
    /// The artist-context weights tried.
    public static let contextGrid: [Double] = [0, 0.5, 1, 2]
    /// The block weights tried, each for the same-artist, tag and co-membership blocks.
    public static let blockGrid: [Double] = [0, 0.25, 0.5, 1, 2]
    /// Per query, the candidates kept for re-ranking: the best of this many by each block.
    static let poolPerBlock = 150
    /// The queries per fold.
    public static let defaultQueriesPerFold = 500

    /// Weights learned on playlists and how they did on held-out ones.
    public struct Outcome: Hashable, Sendable {
        /// The learned weights: the feature factors of the recommender, the block weights learned.
        public var weights: SimilarityWeights
        /// Precision@k of each held-out query under the recommender's weights.
        public var defaultRates: [Double]
        /// Precision@k of each held-out query under the weights learned on the other folds.
        public var learnedRates: [Double]
        /// The number of playlists learned from and the folds.
        public var playlistCount: Int
        public var foldCount: Int
        /// The neighbours per query.
        public var k: Int

        /// The held-out figures as ``HeldOutPlaylists``: the defaults against the learned weights,
        /// with a paired bootstrap interval over the queries.
        public func heldOut(resampleCount: Int = 1_000, seed: UInt64 = 42) -> HeldOutPlaylists {
            func mean(_ values: [Double]) -> Double { values.isEmpty ? 0 : values.reduce(0, +) / Double(values.count) }
            return HeldOutPlaylists(
                playlistCount: playlistCount,
                foldCount: foldCount,
                queryCount: defaultRates.count,
                k: k,
                defaultPrecision: mean(defaultRates),
                variants: [
                    HeldOutPlaylists.Variant(
                        name: "personal weights (learned on the other folds)",
                        precision: mean(learnedRates),
                        difference: PairedBootstrap.meanDifference(
                            learnedRates,
                            defaultRates,
                            resampleCount: resampleCount,
                            seed: seed
                        )
                    )
                ],
                seed: seed
            )
        }
    }

    /// One point of the grid.
    struct GridPoint: Hashable {
        var context: Int
        var artist: Double
        var tags: Double
        var coMembership: Double
    }

    /// One query's pool: for each candidate its hit and its block similarities.
    struct Pool {
        var fold: Int
        var hits: [Bool]
        /// `sound[c][i]`: candidate *i*'s sound cosine at ``contextGrid``[c].
        var sound: [[Float]]
        var artist: [Float]
        var tags: [Float]
        var coMembership: [Float]
    }

    /// Learns the block weights of `recommender` on `playlists`.
    ///
    /// The queries are shared out over `taskCount` threads; every query's pool and its precision
    /// at each grid point depend only on that query, and the sums over queries are taken in query
    /// order, so the outcome is the same, bit for bit, whatever the thread count.
    ///
    /// - Parameters:
    ///   - recommender: The recommender, with its tag block if any (used only when it does not derive
    ///     from playlists); its weights are the starting point and the defaults graded against.
    ///   - playlists: The playlists of each track, catch-alls already left out.
    ///   - foldCount: The folds; 3 by default.
    ///   - k: The neighbours per query.
    ///   - queriesPerFold: The queries drawn from each fold.
    ///   - seed: The seed of the folds and the query sample.
    ///   - taskCount: The threads the queries are shared over.
    ///   - progress: Called on the calling thread with the queries done and the queries, first with
    ///     none done; the last call, with all done, comes once the grid is graded.
    /// - Throws: ``AnalyticsError/tooFewPlaylists(eligible:required:minimumLength:)``.
    /// - Complexity: O(*q* · (*m* · *d* + *g* · *p*)) for *q* queries among *m* fold tracks, *g* grid
    ///   points and pools of *p* candidates, plus the blocks.
    public static func learn(
        recommender: Recommender,
        playlists: [Int64: Set<String>],
        foldCount: Int = 3,
        k: Int = 10,
        queriesPerFold: Int = defaultQueriesPerFold,
        seed: UInt64 = 42,
        taskCount: Int = Parallelism.defaultThreadCount,
        progress: ((_ done: Int, _ total: Int) -> Void)? = nil
    ) throws -> Outcome {
        let trackIDs = recommender.features.trackIDs
        let eligible = HeldOutPlaylists.eligible(playlists, trackIDs: trackIDs)
        let names = Set(eligible.values.flatMap { $0 })
        guard names.count >= HeldOutPlaylists.minimumPlaylistCount else {
            throw AnalyticsError.tooFewPlaylists(
                eligible: names.count,
                required: HeldOutPlaylists.minimumPlaylistCount,
                minimumLength: HeldOutPlaylists.minimumPlaylistLength
            )
        }
        let folds = HeldOutPlaylists.folds(of: eligible, foldCount: foldCount, seed: seed)
        let space = BlockSpace(recommender: recommender)
        let grid = makeGrid(from: recommender.weights)
        let graded = folds.enumerated().compactMap { fold, heldOut in
            GradedFold(
                fold: fold,
                heldOut: heldOut,
                eligible: eligible,
                names: names,
                space: space,
                k: k,
                queriesPerFold: queriesPerFold,
                seed: seed
            )
        }
        let total = graded.reduce(0) { $0 + $1.queries.seeds.count }
        progress?(0, total)
        // The precision of every pool at every grid point, pool by pool in query order.
        var poolFolds: [Int] = []
        var rates: [[Double]] = []
        poolFolds.reserveCapacity(total)
        rates.reserveCapacity(total)
        for fold in graded {
            let seeds = fold.queries.seeds
            for batch in Kernels.fixedChunks(count: seeds.count, size: queriesPerBatch) {
                let chunks = Kernels.fixedChunks(count: batch.count, size: queriesPerChunk).map {
                    ($0.lowerBound + batch.lowerBound)..<($0.upperBound + batch.lowerBound)
                }
                let parts = Kernels.parallelChunks(chunks, threadCount: taskCount) { chunk in
                    var scratch = [Float](repeating: 0, count: space.rowCount)
                    return chunk.map { index in
                        let pool = fold.pool(ofSeed: seeds[index], in: space, scratch: &scratch)
                        return precisions(of: pool, at: grid, k: k)
                    }
                }
                for part in parts { rates += part }
                poolFolds += Array(repeating: fold.fold, count: batch.count)
                progress?(rates.count, total)
            }
        }
        func best(excludingFold fold: Int?) -> Int {
            var bestIndex = 0
            var bestValue = -Double.infinity
            for index in grid.indices {
                var sum = 0.0
                for position in rates.indices where poolFolds[position] != fold { sum += rates[position][index] }
                if sum > bestValue + 1e-9 {
                    bestValue = sum
                    bestIndex = index
                }
            }
            return bestIndex
        }
        var defaultRates: [Double] = []
        var learnedRates: [Double] = []
        for fold in folds.indices {
            let chosen = best(excludingFold: fold)
            for position in rates.indices where poolFolds[position] == fold {
                defaultRates.append(rates[position][0])
                learnedRates.append(rates[position][chosen])
            }
        }
        let point = grid[best(excludingFold: nil)]
        var learned = recommender.weights
        learned.artistContext = contextGrid[point.context]
        learned.sameArtist = point.artist
        learned.tags = point.tags
        learned.coMembership = point.coMembership
        return Outcome(
            weights: learned,
            defaultRates: defaultRates,
            learnedRates: learnedRates,
            playlistCount: names.count,
            foldCount: folds.count,
            k: k
        )
    }

    /// The queries handed to the threads at a time, between two progress calls.
    static let queriesPerBatch = 64
    /// The queries one thread takes at a time.
    static let queriesPerChunk = 8

    /// The grid, starting at `weights` (so that ties keep them): every artist-context weight of
    /// ``contextGrid`` with every same-artist, tag and co-membership weight of ``blockGrid``.
    static func makeGrid(from weights: SimilarityWeights) -> [GridPoint] {
        let start = GridPoint(
            context: contextGrid.firstIndex(of: weights.artistContext) ?? 2,
            artist: weights.sameArtist,
            tags: weights.tags,
            coMembership: weights.coMembership
        )
        var grid = [start]
        for context in contextGrid.indices {
            for artist in blockGrid {
                for tags in blockGrid {
                    for co in blockGrid {
                        let point = GridPoint(context: context, artist: artist, tags: tags, coMembership: co)
                        if point != start { grid.append(point) }
                    }
                }
            }
        }
        return grid
    }

    /// What every query's pool is computed from: each row's sound point and artist context, their
    /// squared norms, the main artists, and the tag block the learning may use.
    struct BlockSpace {
        let rowCount: Int
        let dimension: Int
        let trackIDs: [Int64]
        /// The scaled features, row-major.
        let points: [Float]
        /// The artist context of each row, row-major.
        let contexts: [Float]
        let pointSquaredNorms: [Float]
        let contextSquaredNorms: [Float]
        let artists: [Int32]
        /// The tag block, when it does not derive from playlists (tags given per playlist would
        /// grade the playlists on themselves).
        let tags: SimilarityBlock?

        init(recommender: Recommender) {
            tags = recommender.blocks.first {
                $0.kind == .tags && $0.signals.isDisjoint(with: EvaluationLabel.playlist.derivedSignals)
            }
            let context = recommender.artistContext
            let features = recommender.features
            let d = features.columnCount
            let n = recommender.trackCount
            var contexts = [Float](repeating: 0, count: n * d)
            for row in 0..<n {
                let a = context.context(row: row, features: features)
                for column in 0..<d { contexts[row * d + column] = a[column] }
            }
            let x = features.values.elements
            pointSquaredNorms = (0..<n).map { row in
                (0..<d).reduce(Float(0)) { $0 + x[row * d + $1] * x[row * d + $1] }
            }
            contextSquaredNorms = (0..<n).map { row in
                (0..<d).reduce(Float(0)) { $0 + contexts[row * d + $1] * contexts[row * d + $1] }
            }
            rowCount = n
            dimension = d
            trackIDs = features.trackIDs
            points = x
            self.contexts = contexts
            artists = recommender.artistOfRow
        }
    }

    /// One fold's queries, graded on its playlists, with co-membership from the other folds'.
    struct GradedFold {
        let fold: Int
        let queries: LabelledQueries
        let coMembership: SimilarityBlock?

        /// `nil` when the fold has too few labelled tracks to be graded.
        init?(
            fold: Int,
            heldOut: Set<String>,
            eligible: [Int64: Set<String>],
            names: Set<String>,
            space: BlockSpace,
            k: Int,
            queriesPerFold: Int,
            seed: UInt64
        ) {
            let training = HeldOutPlaylists.restricted(eligible, to: names.subtracting(heldOut))
            let queries = LabelledQueries(
                trackIDs: space.trackIDs,
                labels: HeldOutPlaylists.restricted(eligible, to: heldOut),
                k: k,
                sampleSize: queriesPerFold,
                sampleSeed: seed &+ UInt64(fold)
            )
            guard queries.isMeasurable else { return nil }
            self.fold = fold
            self.queries = queries
            coMembership = SimilarityBlock.coMembership(playlists: training, trackIDs: space.trackIDs)
        }

        /// The pool of the query at `seed` (a position in the fold's rows): its candidates, the best
        /// ``poolPerBlock`` of each block (the seed left out), in row order, with their block
        /// similarities.
        ///
        /// - Parameter scratch: One value per row of `space`, zero on entry and left zero.
        func pool(ofSeed seed: Int, in space: BlockSpace, scratch: inout [Float]) -> Pool {
            let rows = queries.rows
            let d = space.dimension
            let (x, contexts) = (space.points, space.contexts)
            let q = rows[seed]
            func blockScores(_ block: SimilarityBlock?) -> [Float] {
                guard let block else { return [Float](repeating: 0, count: rows.count) }
                let query = block.query(rows: [q])
                guard !query.isEmpty else { return [Float](repeating: 0, count: rows.count) }
                block.addSimilarities(of: query, weight: 1, to: &scratch)
                let values = rows.map { scratch[$0] }
                for (term, _) in query {
                    for position in block.termStarts[Int(term)]..<block.termStarts[Int(term) + 1] {
                        scratch[Int(block.termRows[position])] = 0
                    }
                }
                return values
            }
            var xDots = [Float](repeating: 0, count: rows.count)
            var aDots = [Float](repeating: 0, count: rows.count)
            for (position, row) in rows.enumerated() {
                var xDot: Float = 0
                var aDot: Float = 0
                for column in 0..<d {
                    xDot += x[q * d + column] * x[row * d + column]
                    aDot += contexts[q * d + column] * contexts[row * d + column]
                }
                xDots[position] = xDot
                aDots[position] = aDot
            }
            let (xx, aa) = (space.pointSquaredNorms, space.contextSquaredNorms)
            let sound = contextGrid.map { weight -> [Float] in
                let w2 = Float(weight * weight)
                let queryNorm = (xx[q] + w2 * aa[q]).squareRoot()
                return rows.indices.map { position in
                    let row = rows[position]
                    let norm = queryNorm * (xx[row] + w2 * aa[row]).squareRoot()
                    return norm > 0 ? (xDots[position] + w2 * aDots[position]) / norm : 0
                }
            }
            let artists = space.artists
            let artist = rows.map { artists[$0] >= 0 && artists[$0] == artists[q] ? Float(1) : 0 }
            let tagScores = blockScores(space.tags)
            let coScores = blockScores(coMembership)
            let ids = rows.map { space.trackIDs[$0] }
            var keep = Set<Int>()
            for values in [sound[2], sound[0], artist, tagScores, coScores] {
                keep.formUnion(bestPositions(poolPerBlock, of: values, trackIDs: ids, excluding: seed))
            }
            let kept = keep.sorted()
            let labelSets = queries.labelSets
            return Pool(
                fold: fold,
                hits: kept.map { !labelSets[$0].isDisjoint(with: labelSets[seed]) },
                sound: sound.map { values in kept.map { values[$0] } },
                artist: kept.map { artist[$0] },
                tags: kept.map { tagScores[$0] },
                coMembership: kept.map { coScores[$0] }
            )
        }
    }

    /// The positions of the best `count` of `values` above −2, higher first and ties by smaller
    /// track ID, leaving out `excluded`: the rows ``TopK`` keeps, found with a heap.
    ///
    /// - Complexity: O(*m* log `count`) for *m* values.
    static func bestPositions(_ count: Int, of values: [Float], trackIDs: [Int64], excluding excluded: Int) -> [Int] {
        guard count > 0 else { return [] }
        // A heap whose root ranks last of those kept: a candidate enters when it ranks before it.
        var heap: [Int] = []
        heap.reserveCapacity(count)
        func ranksBefore(_ a: Int, _ b: Int) -> Bool {
            TopK.ranksBefore(values[a], trackIDs[a], values[b], trackIDs[b])
        }
        func siftDown(from start: Int) {
            var parent = start
            while true {
                let left = 2 * parent + 1
                guard left < heap.count else { return }
                var child = left
                if left + 1 < heap.count, ranksBefore(heap[left], heap[left + 1]) { child = left + 1 }
                guard ranksBefore(heap[parent], heap[child]) else { return }
                heap.swapAt(parent, child)
                parent = child
            }
        }
        for position in values.indices where position != excluded && values[position] > -2 {
            if heap.count < count {
                heap.append(position)
                var child = heap.count - 1
                while child > 0, ranksBefore(heap[(child - 1) / 2], heap[child]) {
                    heap.swapAt(child, (child - 1) / 2)
                    child = (child - 1) / 2
                }
            } else if ranksBefore(position, heap[0]) {
                heap[0] = position
                siftDown(from: 0)
            }
        }
        return heap
    }

    /// ``precision(of:at:k:)`` of `pool` at every point of `grid`, in grid order, without a copy
    /// of the pool per point: each point's scores go into one buffer, and the best `k` are kept
    /// in place.
    static func precisions(of pool: Pool, at grid: [GridPoint], k: Int) -> [Double] {
        let count = pool.hits.count
        var scores = [Float](repeating: 0, count: count)
        var bestScores = [Float](repeating: 0, count: k + 1)
        var bestPositions = [Int](repeating: 0, count: k + 1)
        return grid.map { point in
            let (a, t, c) = (Float(point.artist), Float(point.tags), Float(point.coMembership))
            pool.sound[point.context].withUnsafeBufferPointer { sound in
                pool.artist.withUnsafeBufferPointer { artist in
                    pool.tags.withUnsafeBufferPointer { tags in
                        pool.coMembership.withUnsafeBufferPointer { co in
                            scores.withUnsafeMutableBufferPointer { scores in
                                for position in 0..<count {
                                    scores[position] =
                                        sound[position] + a * artist[position] + t * tags[position] + c * co[position]
                                }
                            }
                        }
                    }
                }
            }
            // As `precision(of:at:k:)` ranks: a score enters before those it beats, after its equals.
            var kept = 0
            scores.withUnsafeBufferPointer { scores in
                bestScores.withUnsafeMutableBufferPointer { best in
                    bestPositions.withUnsafeMutableBufferPointer { positions in
                        for position in 0..<count {
                            let score = scores[position]
                            if kept == k, score <= best[k - 1] { continue }
                            var slot = kept
                            while slot > 0, score > best[slot - 1] {
                                best[slot] = best[slot - 1]
                                positions[slot] = positions[slot - 1]
                                slot -= 1
                            }
                            best[slot] = score
                            positions[slot] = position
                            if kept < k { kept += 1 }
                        }
                    }
                }
            }
            return Double(bestPositions[0..<kept].count { pool.hits[$0] }) / Double(k)
        }
    }

    /// Precision@k of one pool ranked by the grid point's score, ties by pool order: the plain
    /// definition that ``precisions(of:at:k:)`` computes for a whole grid at once.
    static func precision(of pool: Pool, at point: GridPoint, k: Int) -> Double {
        let sound = pool.sound[point.context]
        let (a, t, c) = (Float(point.artist), Float(point.tags), Float(point.coMembership))
        var best = [(score: Float, position: Int)]()
        best.reserveCapacity(k + 1)
        for position in sound.indices {
            let score =
                sound[position] + a * pool.artist[position] + t * pool.tags[position] + c
                * pool.coMembership[position]
            if best.count == k, score <= best[k - 1].score { continue }
            var slot = best.count
            while slot > 0, score > best[slot - 1].score { slot -= 1 }
            best.insert((score, position), at: slot)
            if best.count > k { best.removeLast() }
        }
        return Double(best.count { pool.hits[$0.position] }) / Double(k)
    }
}
