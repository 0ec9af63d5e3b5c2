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
    /// - Parameters:
    ///   - recommender: The recommender, with its tag block if any (used only when it does not derive
    ///     from playlists); its weights are the starting point and the defaults graded against.
    ///   - playlists: The playlists of each track, catch-alls already left out.
    ///   - foldCount: The folds; 3 by default.
    ///   - k: The neighbours per query.
    ///   - queriesPerFold: The queries drawn from each fold.
    ///   - seed: The seed of the folds and the query sample.
    ///   - progress: Called with the folds done and the folds, then once more when the grid is done.
    /// - Throws: ``AnalyticsError/tooFewPlaylists(eligible:required:minimumLength:)``.
    public static func learn(
        recommender: Recommender,
        playlists: [Int64: Set<String>],
        foldCount: Int = 3,
        k: Int = 10,
        queriesPerFold: Int = defaultQueriesPerFold,
        seed: UInt64 = 42,
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
        // Tags given per playlist would grade the playlists on themselves.
        let tags = recommender.blocks.first {
            $0.kind == .tags && $0.signals.isDisjoint(with: EvaluationLabel.playlist.derivedSignals)
        }
        let context = recommender.artistContext
        let features = recommender.features
        let d = features.columnCount
        let n = recommender.trackCount
        // Each row's sound point x and artist context a, and their squared norms.
        var contexts = [Float](repeating: 0, count: n * d)
        for row in 0..<n {
            let a = context.context(row: row, features: features)
            for column in 0..<d { contexts[row * d + column] = a[column] }
        }
        let x = features.values.elements
        let xx = (0..<n).map { row in (0..<d).reduce(Float(0)) { $0 + x[row * d + $1] * x[row * d + $1] } }
        let aa = (0..<n).map { row in
            (0..<d).reduce(Float(0)) { $0 + contexts[row * d + $1] * contexts[row * d + $1] }
        }
        let artists = recommender.artistOfRow
        var pools: [Pool] = []
        var scratch = [Float](repeating: 0, count: n)
        for (fold, heldOut) in folds.enumerated() {
            let training = HeldOutPlaylists.restricted(eligible, to: names.subtracting(heldOut))
            let graded = HeldOutPlaylists.restricted(eligible, to: heldOut)
            let queries = LabelledQueries(
                trackIDs: trackIDs,
                labels: graded,
                k: k,
                sampleSize: queriesPerFold,
                sampleSeed: seed &+ UInt64(fold)
            )
            guard queries.isMeasurable else { continue }
            let coMembership = SimilarityBlock.coMembership(playlists: training, trackIDs: trackIDs)
            let rows = queries.rows
            func blockScores(_ block: SimilarityBlock?, query row: Int) -> [Float] {
                guard let block else { return [Float](repeating: 0, count: rows.count) }
                let query = block.query(rows: [row])
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
            for seed in queries.seeds {
                let q = rows[seed]
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
                let sound = contextGrid.map { weight -> [Float] in
                    let w2 = Float(weight * weight)
                    let queryNorm = (xx[q] + w2 * aa[q]).squareRoot()
                    return rows.indices.map { position in
                        let row = rows[position]
                        let norm = queryNorm * (xx[row] + w2 * aa[row]).squareRoot()
                        return norm > 0 ? (xDots[position] + w2 * aDots[position]) / norm : 0
                    }
                }
                let artist = rows.map { artists[$0] >= 0 && artists[$0] == artists[q] ? Float(1) : 0 }
                let tagScores = blockScores(tags, query: q)
                let coScores = blockScores(coMembership, query: q)
                // The pool: the best of each block (the seed left out), in row order.
                var keep = Set<Int>()
                for values in [sound[2], sound[0], artist, tagScores, coScores] {
                    var selection = TopK(capacity: poolPerBlock)
                    for (position, value) in values.enumerated() where position != seed && value > -2 {
                        selection.insert(similarity: value, row: position, trackID: trackIDs[rows[position]])
                    }
                    keep.formUnion(selection.neighbors.map(\.row))
                }
                let kept = keep.sorted()
                pools.append(
                    Pool(
                        fold: fold,
                        hits: kept.map { !queries.labelSets[$0].isDisjoint(with: queries.labelSets[seed]) },
                        sound: sound.map { values in kept.map { values[$0] } },
                        artist: kept.map { artist[$0] },
                        tags: kept.map { tagScores[$0] },
                        coMembership: kept.map { coScores[$0] }
                    )
                )
            }
            progress?(fold + 1, folds.count + 1)
        }
        let weights = recommender.weights
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
        // Precision of every pool at every grid point.
        var rates = [[Double]](repeating: [], count: grid.count)
        for (index, point) in grid.enumerated() {
            rates[index] = pools.map { precision(of: $0, at: point, k: k) }
        }
        func best(excludingFold fold: Int?) -> Int {
            var bestIndex = 0
            var bestValue = -Double.infinity
            for index in grid.indices {
                var sum = 0.0
                for (position, pool) in pools.enumerated() where pool.fold != fold { sum += rates[index][position] }
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
            for (position, pool) in pools.enumerated() where pool.fold == fold {
                defaultRates.append(rates[0][position])
                learnedRates.append(rates[chosen][position])
            }
        }
        let point = grid[best(excludingFold: nil)]
        progress?(folds.count + 1, folds.count + 1)
        var learned = weights
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

    /// Precision@k of one pool ranked by the grid point's score, ties by pool order.
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
