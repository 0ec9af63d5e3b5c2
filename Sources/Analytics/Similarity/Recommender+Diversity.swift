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
struct TopKCandidates {
    let capacity: Int
    private(set) var candidates: [Candidate] = []

    init(capacity: Int) { self.capacity = Swift.max(0, capacity) }

    static func ranksBefore(_ a: Candidate, _ b: Candidate) -> Bool {
        a.score > b.score || (a.score == b.score && a.trackID < b.trackID)
    }

    mutating func insert(_ candidate: Candidate) {
        guard capacity > 0, !candidate.score.isNaN else { return }
        if candidates.count == capacity {
            guard TopKCandidates.ranksBefore(candidate, candidates[capacity - 1]) else { return }
            candidates.removeLast()
        }
        var low = 0
        var high = candidates.count
        while low < high {
            let middle = (low + high) / 2
            if TopKCandidates.ranksBefore(candidates[middle], candidate) { low = middle + 1 } else { high = middle }
        }
        candidates.insert(candidate, at: low)
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
        let vectors = index.vectors
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
