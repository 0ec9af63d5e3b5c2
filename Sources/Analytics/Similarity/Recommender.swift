import Features

/// Recommends tracks from a library by cosine similarity in the scaled feature space, with
/// Spotify-style seeds, bounds and targets, diversity, and an explanation for every result.
///
/// Build one per library and reuse it; it holds the scaled matrix and a ``CosineIndex``.
///
/// ```swift
/// let recommender = Recommender(table: try store.featureTable(), attributes: attributes)
/// var query = RecommendationQuery(seeds: [.track(42)], count: 20, diversity: 0.3)
/// query.setMaximum(120, for: .tempo)
/// let result = try recommender.recommend(query)
/// ```
public struct Recommender: Sendable {
    /// The raw features, in original units, one row per track.
    public let table: FeatureTable
    /// The scaled features the similarity is computed over.
    public let features: FeatureMatrix
    /// The cosine index over ``features``, built the first time it is read: it holds a unit-length
    /// copy of the matrix (36 MB at a million tracks), which a query from seed tracks, the
    /// server's kind, never reads.
    public var index: CosineIndex { indexCache.value }
    private let indexCache: BuiltOnce<CosineIndex>
    /// The fitted scaling of ``features``, used to place targets in the scaled space.
    public let scaling: FeatureScaling
    /// The number of tracks of the input table left out because they miss a schema feature.
    public let excludedTrackCount: Int
    /// The main artist, song, duration and popularity of each row, in row order. Equal song codes
    /// are one song (single, album and compilation releases), returned at most once.
    public let attributes: TrackAttributeColumns
    /// Finds a track's row: by binary search, as the rows ascend by track ID when they come from
    /// the store (a dictionary of a million rows took about 0.2 s to build).
    let rowsByTrackID: TrackIndex
    /// The artist half of the hybrid similarity of track-seeded queries, built the first time such
    /// a query comes: a million rows' artist sums and norms took about 60 ms, which a query of moods
    /// or vibes never needs.
    var artistContext: ArtistContext { artistContextCache.value }
    private let artistContextCache: BuiltOnce<ArtistContext>
    /// The artists who turn up in most lists, found the first time a query damps them.
    let wallpaperCache: BuiltOnce<WallpaperArtists>
    /// The weights of the hybrid similarity: feature factors (already in ``features``), the artist
    /// context and the sparse blocks.
    public let weights: SimilarityWeights
    /// The sparse blocks of the hybrid similarity (tags, playlist co-membership), added with
    /// ``adding(_:)``; none by default.
    public internal(set) var blocks: [SimilarityBlock] = []
    /// The library mean and standard deviation of each audio feature, in `AudioFeature.allCases` order.
    let rawMeans: [Double]
    let rawDeviations: [Double]

    /// Creates a recommender over the tracks of `table`, placed in the space of `schema`.
    ///
    /// Tracks missing a feature of the schema cannot be placed and are left out (counted in
    /// ``excludedTrackCount``).
    ///
    /// - Parameters:
    ///   - table: The raw features of the library.
    ///   - schema: The features, weights and scaling of the similarity space; the default
    ///     (``Features/FeatureSchema/default``) places the perceptual features, loudness and tempo
    ///     by rank-normal scaling.
    ///   - attributes: Artists, duration and popularity by track ID; tracks without an entry have
    ///     no artist and fail every duration or popularity bound.
    ///   - weights: The hybrid similarity's weights; their feature factors multiply the schema's
    ///     weights.
    /// - Complexity: O(*n* · *d*).
    public init(
        table: FeatureTable,
        schema: FeatureSchema = .default,
        attributes: [Int64: TrackAttributes] = [:],
        weights: SimilarityWeights = .default
    ) {
        self.init(
            table: table,
            schema: schema,
            attributesByRow: table.trackIDs.map { attributes[$0] ?? TrackAttributes() },
            weights: weights
        )
    }

    /// Builds the similarity space over `table`, with the attributes of each table row given in
    /// row order.
    ///
    /// - Parameters:
    ///   - table: The raw features of the library, in ascending track ID order (as the store reads it).
    ///   - schema: The features, weights and scaling of the similarity space.
    ///   - attributesByRow: One entry per row of `table`.
    ///   - weights: The hybrid similarity's weights; their feature factors multiply the schema's
    ///     weights.
    /// - Complexity: O(*n* · *d*).
    public init(
        table: FeatureTable,
        schema: FeatureSchema = .default,
        attributesByRow: [TrackAttributes],
        weights: SimilarityWeights = .default
    ) {
        precondition(attributesByRow.count == table.rowCount, "one attribute entry per table row")
        self.init(table: table, schema: schema, attributes: TrackAttributeColumns(attributesByRow), weights: weights)
    }

    /// Builds the similarity space over `table`, with the attributes of each table row as columns
    /// (what the store's `facts` snapshot holds): no string per track to build and free.
    ///
    /// - Parameters:
    ///   - table: The raw features of the library, in ascending track ID order (as the store reads it).
    ///   - schema: The features, weights and scaling of the similarity space.
    ///   - attributes: One entry per row of `table` in every column.
    ///   - weights: The hybrid similarity's weights; their feature factors multiply the schema's
    ///     weights.
    /// - Complexity: O(*n* · *d*).
    public init(
        table: FeatureTable,
        schema: FeatureSchema = .default,
        attributes: TrackAttributeColumns,
        weights: SimilarityWeights = .default
    ) {
        self.init(
            table: table,
            space: schema.applying(weights).makeSpace(from: table),
            attributes: attributes,
            weights: weights
        )
    }

    /// A recommender over `table` placed in `space`, built beforehand (or read from a cache) by
    /// `schema.applying(weights).makeSpace(from: table)`.
    ///
    /// - Parameters:
    ///   - table: The raw features of the library, in ascending track ID order.
    ///   - space: `table` in the similarity space of the schema with `weights` applied.
    ///   - attributes: One entry per row of `table` in every column.
    ///   - weights: The weights `space` was built with.
    /// - Complexity: O(*n* · *d*).
    public init(
        table: consuming FeatureTable,
        space: FeatureSpace,
        attributes: consuming TrackAttributeColumns,
        weights: SimilarityWeights = .default
    ) {
        precondition(attributes.count == table.rowCount, "one attribute entry per table row")
        precondition(
            space.tableRows.count + space.excludedTrackCount == table.rowCount,
            "the space is built from the table"
        )
        self.weights = weights
        // The rows of the space kept in place: passed with `consume` (as the command does), the
        // table and the attributes are not copied.
        var included = consume table
        included.keepRows(space.tableRows)
        var kept = consume attributes
        kept.keepRows(space.tableRows)
        self.table = included
        scaling = space.scaling
        excludedTrackCount = space.excludedTrackCount
        var matrix = space.matrix
        // The space lists the same track IDs as the rows kept: one array for both, not two.
        if matrix.trackIDs == included.trackIDs { matrix.trackIDs = included.trackIDs }
        let points = matrix
        features = points
        let soundIndex = BuiltOnce { CosineIndex(points) }
        indexCache = soundIndex
        self.attributes = kept
        let artistCodes = self.attributes.artistCodes
        artistContextCache = BuiltOnce {
            ArtistContext(features: points, artistOfRow: artistCodes, weight: Float(weights.artistContext))
        }
        wallpaperCache = BuiltOnce { WallpaperArtists(index: soundIndex.value, artistOfRow: artistCodes) }
        rowsByTrackID = TrackIndex(included.trackIDs)
        // Two passes over the values, as the mean and the variance need, without a column copy.
        // Row by row with the column as the inner index: `index % width` per value cost about
        // 0.1 s of a million-track `recommend` in integer divisions.
        let width = FeatureTable.columnCount
        var sums = [Double](repeating: 0, count: width)
        var counts = [Int](repeating: 0, count: width)
        var squares = [Double](repeating: 0, count: width)
        var columnMeans = [Double](repeating: 0, count: width)
        included.values.withUnsafeBufferPointer { buffer in
            func forEachPresentValue(_ body: (Int, Double) -> Void) {
                var start = 0
                while start < buffer.count {
                    for column in 0..<width where !buffer[start + column].isNaN {
                        body(column, Double(buffer[start + column]))
                    }
                    start += width
                }
            }
            forEachPresentValue { column, value in
                sums[column] += value
                counts[column] += 1
            }
            for column in 0..<width where counts[column] > 0 {
                columnMeans[column] = sums[column] / Double(counts[column])
            }
            forEachPresentValue { column, value in
                let offset = value - columnMeans[column]
                squares[column] += offset * offset
            }
        }
        var means: [Double] = []
        var deviations: [Double] = []
        for feature in AudioFeature.allCases {
            let column = FeatureTable.columnIndex(of: feature)
            let variance = counts[column] > 0 ? squares[column] / Double(counts[column]) : 0
            means.append(columnMeans[column])
            // Uniform keys: the standard deviation of the circular distance is about 3.45.
            deviations.append(feature == .key ? 3.45 : Swift.max(variance.squareRoot(), 1e-9))
        }
        rawMeans = means
        rawDeviations = deviations
    }

    /// The row of `trackID` in ``features``, or `nil` when the track has no features.
    public func row(of trackID: Int64) -> Int? { rowsByTrackID.index(of: trackID) }

    /// The number of tracks the recommender can return.
    public var trackCount: Int { table.rowCount }

    /// Recommends tracks for `query`.
    ///
    /// Seeds become points of the scaled space (a track's row, the centroid of a group, the
    /// centroid of the 50 tracks nearest a mood's valence and energy). With `.average` they make
    /// one query at their mean; with `.interleave` each seed is a query of its own and results
    /// alternate. Negative seeds push the query away (half their mean is subtracted). Targets
    /// replace the query's coordinate for their feature and add a closeness term: the score is
    /// ½ · cosine + ½ · target fit, or the fit alone without seeds. Bounds are hard filters.
    ///
    /// - Parameter query: The request; checked with ``RecommendationQuery/validate()``.
    /// - Returns: The tracks, best first, with explanations and pool sizes.
    /// - Throws: ``RecommendationError`` for an invalid query, a seed without features, or filters
    ///   that leave nothing.
    /// - Complexity: O(*s* · *n* · *d*) for *s* seed lanes, plus O(*c* · *p*) for MMR over a pool of
    ///   *p* candidates.
    public func recommend(_ query: RecommendationQuery) throws -> RecommendationResult {
        try query.validate()
        let positive = try query.seeds.map(point(for:))
        let negative = try query.negativeSeeds.map(point(for:))
        var excluded = query.excludedTrackIDs
        for seed in query.seeds + query.negativeSeeds {
            if case .track(let id) = seed { excluded.insert(id) }
        }
        let lanes = makeLanes(positive: positive, negative: negative, query: query)

        let (isCandidate, candidateCount, afterFilters) = candidateRows(excluding: excluded, query: query)
        guard afterFilters > 0 else { throw RecommendationError.nothingLeft(candidates: candidateCount) }

        let targets = query.targets
        let fits: [Double]? =
            targets.isEmpty
            ? nil : (0..<trackCount).map { targetFit(row: $0, targets: targets, tempoOctave: query.tempoOctave) }
        var seedSongs = Set<Int32>()
        for seed in query.seeds + query.negativeSeeds {
            if case .track(let id) = seed, let row = row(of: id), attributes.songCodes[row] >= 0 {
                seedSongs.insert(attributes.songCodes[row])
            }
        }
        var seedArtists = Set<Int32>()
        for seed in query.seeds {
            if case .track(let id) = seed, let row = row(of: id), attributes.artistCodes[row] >= 0 {
                seedArtists.insert(attributes.artistCodes[row])
            }
        }
        // Artists who turn up in most lists are damped in lists from seed tracks, except the seeds' own.
        let damping =
            query.dampsWallpaperArtists && !seedArtists.isEmpty
            ? wallpaperArtists.damping.filter { !seedArtists.contains($0.key) } : [:]
        let similaritiesByLane = lanes.map { lane -> [Float]? in
            guard lane.hasDirection else { return nil }
            guard let context = lane.artistContext else { return index.similarities(to: lane.query) }
            var scores = artistContext.similarities(query: lane.query, context: context, features: features)
            if let seedRows = lane.seedRows { addHybridBlocks(seedRows: seedRows, to: &scores) }
            return scores
        }
        // Each lane keeps its best candidates; when de-duplication and the artist limit leave
        // fewer than asked for (a library holding many releases of each song), the pools grow and
        // the selection runs again, until the count is met or every candidate was in a pool.
        // Twenty candidates per pick up to 100 picks; long playlists take four, so re-ranking for
        // diversity stays O(c²) rather than O(20 c²).
        var poolSize = query.count <= 100 ? Swift.max(200, query.count * 20) : Swift.max(2_000, query.count * 4)
        var picks: [Pick]
        while true {
            var pools: [[Candidate]] = []
            for (laneIndex, lane) in lanes.enumerated() {
                var selection = TopKCandidates(capacity: poolSize, distinctTrackIDs: rowsByTrackID.ascends)
                if let similarities = similaritiesByLane[laneIndex], fits == nil, damping.isEmpty {
                    // The common case, the score being the similarity: one scan, no candidate
                    // made for the many rows that would not be kept.
                    selectBest(by: similarities, among: isCandidate, into: &selection)
                } else {
                    for row in 0..<trackCount where isCandidate[row] {
                        let similarity = similaritiesByLane[laneIndex].map { Double($0[row]) } ?? 0
                        let score: Double
                        if let fits {
                            score = lane.hasDirection ? 0.5 * similarity + 0.5 * fits[row] : fits[row]
                        } else {
                            score = similarity
                        }
                        let damped = damping.isEmpty ? score : score - (damping[attributes.artistCodes[row]] ?? 0)
                        guard selection.admits(score: damped, trackID: table.trackIDs[row]) else { continue }
                        selection.insert(
                            Candidate(row: row, trackID: table.trackIDs[row], similarity: similarity, score: damped)
                        )
                    }
                }
                pools.append(selection.candidates)
            }
            picks = select(
                from: pools,
                count: query.count,
                diversity: query.diversity,
                maximumPerArtist: query.maximumPerArtist,
                seedArtists: seedArtists,
                maximumPerSeedArtist: query.maximumPerSeedArtist,
                excludingSongs: seedSongs
            )
            if picks.count >= query.count || poolSize >= afterFilters { break }
            poolSize = Swift.min(afterFilters, poolSize * 8)
        }
        let recommendations = picks.map { pick in
            let lane = lanes[pick.lane]
            return Recommendation(
                trackID: pick.candidate.trackID,
                similarity: pick.candidate.similarity,
                score: pick.candidate.score,
                targetFit: fits?[pick.candidate.row],
                seed: lane.label,
                differences: differences(row: pick.candidate.row, reference: lane.reference),
                reasons: reasons(
                    row: pick.candidate.row,
                    seedRows: lane.seedRows,
                    seedArtists: seedArtists,
                    reference: lane.reference
                )
            )
        }
        return RecommendationResult(
            recommendations: recommendations,
            pool: RecommendationPool(
                candidates: candidateCount,
                afterFilters: afterFilters,
                returned: recommendations.count
            ),
            seeds: lanes.map(\.label)
        )
    }
}

/// Artists, duration and popularity of a track, for filters, artist limits and artist separation.
public struct TrackAttributes: Hashable, Sendable {
    /// The credited artists, main artist first.
    public var artists: [String]
    /// A key equal for every release of one song (single, album, compilation), such as the store's
    /// folded "artist␟title" match key; such tracks are returned at most once.
    public var songKey: String?
    /// The duration in milliseconds, within ``Features/Track/validDurationMS`` (anything else is
    /// kept as missing, so that sums of durations cannot overflow).
    public var durationMS: Int? {
        didSet { if let durationMS, !Track.validDurationMS.contains(durationMS) { self.durationMS = nil } }
    }
    /// Spotify's popularity, 0…100 (anything else is kept as missing).
    public var popularity: Int? {
        didSet { if let popularity, !(0...100).contains(popularity) { self.popularity = nil } }
    }

    public init(artists: [String] = [], songKey: String? = nil, durationMS: Int? = nil, popularity: Int? = nil) {
        self.artists = artists
        self.songKey = songKey
        self.durationMS = durationMS.flatMap { Track.validDurationMS.contains($0) ? $0 : nil }
        self.popularity = popularity.flatMap { (0...100).contains($0) ? $0 : nil }
    }
}

extension TrackAttributeColumns {
    /// The columns of `rows`: each main artist folded (the start of the song key when there is
    /// one, else ``Features/Track/normalizedName(_:)`` of the first artist) and each song key,
    /// interned into codes.
    public init(_ rows: [TrackAttributes]) {
        var artists = Interner()
        var songs = Interner()
        var artistCodes: [Int32] = []
        var songCodes: [Int32] = []
        artistCodes.reserveCapacity(rows.count)
        songCodes.reserveCapacity(rows.count)
        for row in rows {
            artistCodes.append(artists.code(row.mainArtistKey))
            songCodes.append(songs.code(row.songKey))
        }
        self.init(
            artistCodes: artistCodes,
            songCodes: songCodes,
            durationMS: rows.map { Int32($0.durationMS ?? -1) },
            popularity: rows.map { Int8($0.popularity ?? -1) }
        )
    }
}

extension TrackAttributes {
    /// The folded main artist: the start of a store song key ("artist␟title"), found among its
    /// bytes, else the first artist folded; "" when unknown.
    var mainArtistKey: String {
        if let key = songKey, let separator = key.utf8.firstIndex(of: 0x1F) { return String(key[..<separator]) }
        return artists.first.map(Track.normalizedName) ?? ""
    }
}

/// One recommended track and why it was picked.
public struct Recommendation: Hashable, Sendable, Codable {
    /// The store's track ID.
    public var trackID: Int64
    /// The similarity to the query, −1…1: the cosine of the audio features, or for track seeds the
    /// hybrid score of ``Features/SimilarityWeights`` (sound, tags, playlist co-membership).
    public var similarity: Double
    /// The ranking score: the similarity, blended half and half with ``targetFit`` when targets are
    /// set, less the damping of a wallpaper artist (``RecommendationQuery/dampsWallpaperArtists``).
    public var score: Double
    /// How close the track is to the targets, 0 (far) to 1 (on target); `nil` without targets.
    public var targetFit: Double?
    /// Which seed (or "mean of N seeds") the track was found for.
    public var seed: String
    /// The features that differ most from the seed point, largest first.
    public var differences: [FeatureDifference]
    /// What made the track close, for people, strongest first: "same artist", "shares 'yacht
    /// rock'", "sound: close in energy, valence; acousticness +1.2σ".
    public var reasons: [String] = []

    enum CodingKeys: String, CodingKey {
        case trackID = "track_id"
        case similarity, score
        case targetFit = "target_fit"
        case seed, differences
        case reasons = "why"
    }
}

/// How one feature of a result differs from the seed point.
public struct FeatureDifference: Hashable, Sendable, Codable {
    /// The audio feature.
    public var feature: AudioFeature
    /// The result's value, in the feature's unit.
    public var value: Double
    /// The seed point's value (the seeds' mean, or the target), in the feature's unit.
    public var reference: Double
    /// `value − reference` in library standard deviations; key uses the circular distance.
    public var deviations: Double
}

/// Pool sizes, like the `initialPoolSize` and `afterFilteringSize` of Spotify's seed objects.
public struct RecommendationPool: Hashable, Sendable, Codable {
    /// Tracks with features, minus the seeds and excluded tracks.
    public var candidates: Int
    /// Candidates that pass every `min_*`/`max_*` bound.
    public var afterFilters: Int
    /// Tracks returned.
    public var returned: Int

    enum CodingKeys: String, CodingKey {
        case candidates
        case afterFilters = "after_filters"
        case returned
    }
}

/// The answer to a ``RecommendationQuery``.
public struct RecommendationResult: Hashable, Sendable, Codable {
    /// The tracks, best first.
    public var recommendations: [Recommendation]
    /// Pool sizes before and after filtering.
    public var pool: RecommendationPool
    /// The query lanes: one label per seed with `.interleave`, one for the mean otherwise.
    public var seeds: [String]
}
