import Features

// MARK: - Candidates

/// A track in a seed lane's pool, with its similarity and ranking score.
struct Candidate: Sendable {
    var row: Int
    var trackID: Int64
    var similarity: Double
    var score: Double
}

/// The best `capacity` candidates by score, ties by track ID.
///
/// With distinct track IDs (a store's rows), the candidates are kept in a binary heap whose root is
/// the one to go first, and sorted once when read: a scan of a million rows whose best candidates
/// come late (a library holding every song many times) spent a fifth of a query moving a sorted
/// array up by one on each insertion. Without, a sorted array keeps the order in which equal
/// candidates came.
struct TopKCandidates {
    let capacity: Int
    /// Whether no two candidates share a track ID, so that the order is total and the heap keeps
    /// exactly the candidates the sorted array would.
    let hasDistinctTrackIDs: Bool
    /// A heap with the worst candidate at the root when ``hasDistinctTrackIDs``, else sorted best first.
    private var kept: [Candidate] = []

    init(capacity: Int, distinctTrackIDs: Bool = false) {
        self.capacity = Swift.max(0, capacity)
        hasDistinctTrackIDs = distinctTrackIDs
    }

    /// The candidates, best first.
    var candidates: [Candidate] {
        hasDistinctTrackIDs ? kept.sorted(by: TopKCandidates.ranksBefore) : kept
    }

    static func ranksBefore(_ a: Candidate, _ b: Candidate) -> Bool {
        a.score > b.score || (a.score == b.score && a.trackID < b.trackID)
    }

    /// Whether a candidate of `score` and `trackID` would be kept now: a test that costs no
    /// candidate for the many rows that would not.
    @inline(__always)
    func admits(score: Double, trackID: Int64) -> Bool {
        guard kept.count == capacity else { return capacity > 0 }
        let last = hasDistinctTrackIDs ? kept[0] : kept[capacity - 1]
        return score > last.score || (score == last.score && trackID < last.trackID)
    }

    mutating func insert(_ candidate: Candidate) {
        guard capacity > 0, !candidate.score.isNaN else { return }
        guard hasDistinctTrackIDs else { return insertSorted(candidate) }
        if kept.count < capacity {
            kept.append(candidate)
            var child = kept.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard TopKCandidates.ranksBefore(kept[parent], kept[child]) else { break }
                kept.swapAt(parent, child)
                child = parent
            }
            return
        }
        guard TopKCandidates.ranksBefore(candidate, kept[0]) else { return }
        kept[0] = candidate
        var parent = 0
        while true {
            let (left, right) = (2 * parent + 1, 2 * parent + 2)
            var worst = parent
            if left < kept.count, TopKCandidates.ranksBefore(kept[worst], kept[left]) { worst = left }
            if right < kept.count, TopKCandidates.ranksBefore(kept[worst], kept[right]) { worst = right }
            guard worst != parent else { break }
            kept.swapAt(parent, worst)
            parent = worst
        }
    }

    private mutating func insertSorted(_ candidate: Candidate) {
        if kept.count == capacity {
            guard TopKCandidates.ranksBefore(candidate, kept[capacity - 1]) else { return }
            kept.removeLast()
        }
        var low = 0
        var high = kept.count
        while low < high {
            let middle = (low + high) / 2
            if TopKCandidates.ranksBefore(kept[middle], candidate) { low = middle + 1 } else { high = middle }
        }
        kept.insert(candidate, at: low)
    }
}

// MARK: - Maximal marginal relevance

extension Recommender {
    /// A picked candidate and the lane it came from.
    struct Pick {
        var candidate: Candidate
        var lane: Int
    }

    /// Picks up to `count` tracks from the lanes' pools, taking turns between lanes.
    ///
    /// Each turn takes the lane's candidate of highest maximal marginal relevance,
    /// `(1 − diversity) · score − diversity · max cos(candidate, picked)`, skipping tracks already
    /// picked, other releases of a song already picked (or of a seed), and artists at their limit:
    /// `maximumPerSeedArtist` (when given) for the main artists of the seed tracks (`seedArtists`),
    /// else `maximumPerArtist` (Carbonell & Goldstein, 1998). With diversity 0 this is the score order.
    ///
    /// - Complexity: O(*c* · *p* · *d*) for *c* picks from pools of *p* candidates.
    func select(
        from pools: [[Candidate]],
        count: Int,
        diversity: Double,
        maximumPerArtist: Int?,
        seedArtists: Set<Int32> = [],
        maximumPerSeedArtist: Int? = nil,
        excludingSongs excludedSongs: Set<Int32> = []
    ) -> [Pick] {
        var picks: [Pick] = []
        var pickedRows = Set<Int>()
        var pickedSongs = excludedSongs
        var perArtist: [Int32: Int] = [:]
        var redundancy = pools.map { [Double](repeating: -.infinity, count: $0.count) }
        var exhausted = [Bool](repeating: false, count: pools.count)
        var lane = 0
        // The unit-length rows only when diversity compares picks (built on first use).
        let vectors = diversity > 0 ? index.vectors : Matrix(rowCount: 0, columnCount: 0, elements: [])
        let d = vectors.columnCount
        while picks.count < count && exhausted.contains(false) {
            defer { lane = (lane + 1) % pools.count }
            guard !exhausted[lane] else { continue }
            var best: Int?
            var bestValue = -Double.infinity
            for (position, candidate) in pools[lane].enumerated() {
                guard !pickedRows.contains(candidate.row) else { continue }
                let song = attributes.songCodes[candidate.row]
                if song >= 0 && pickedSongs.contains(song) { continue }
                let artist = attributes.artistCodes[candidate.row]
                let isSeedArtist = artist >= 0 && seedArtists.contains(artist)
                if let limit = isSeedArtist ? (maximumPerSeedArtist ?? maximumPerArtist) : maximumPerArtist,
                    artist >= 0,
                    perArtist[artist, default: 0] >= limit
                {
                    continue
                }
                let value: Double
                if diversity > 0, !picks.isEmpty {
                    value = (1 - diversity) * candidate.score - diversity * redundancy[lane][position]
                } else {
                    value = candidate.score
                }
                if value > bestValue {
                    bestValue = value
                    best = position
                }
                if diversity == 0 || picks.isEmpty { break }  // pools are sorted: the first eligible wins
            }
            guard let position = best else {
                exhausted[lane] = true
                continue
            }
            let picked = pools[lane][position]
            picks.append(Pick(candidate: picked, lane: lane))
            pickedRows.insert(picked.row)
            if attributes.songCodes[picked.row] >= 0 { pickedSongs.insert(attributes.songCodes[picked.row]) }
            if attributes.artistCodes[picked.row] >= 0 {
                perArtist[attributes.artistCodes[picked.row], default: 0] += 1
            }
            if diversity > 0 {
                for l in pools.indices {
                    for (position, candidate) in pools[l].enumerated() {
                        var dot: Float = 0
                        for column in 0..<d {
                            dot +=
                                vectors.elements[candidate.row * d + column] * vectors.elements[picked.row * d + column]
                        }
                        redundancy[l][position] = Swift.max(redundancy[l][position], Double(dot))
                    }
                }
            }
        }
        return picks
    }
}
