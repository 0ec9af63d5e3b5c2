import Features

extension LabelledQueries {
    /// What ranking the seeds of one space takes, built once per space: each labelled row's track
    /// ID, main artist and labels as numbers, and where each row of the space sits among the
    /// labelled rows, so that a block's similarities go straight to the labelled rows.
    struct Ranking: Sendable {
        let k: Int
        /// The labelled rows of the space, ascending.
        let rows: [Int]
        /// The track ID, main artist (−1 when unknown) and label numbers (ascending) of each of
        /// ``rows``.
        let trackIDs: [Int64]
        let artists: [Int32]
        let labelCodes: [[Int32]]
        let blocks: [(block: SimilarityBlock, weight: Float)]
        /// The position in ``rows`` of each row of the space, −1 for an unlabelled row.
        let positionOfRow: [Int32]

        init(queries: LabelledQueries, space: SimilaritySpace, artistOfRow: [Int32]?) {
            k = queries.k
            rows = queries.rows
            trackIDs = rows.map { space.features.trackIDs[$0] }
            artists = rows.map { artistOfRow?[$0] ?? -1 }
            var codes: [String: Int32] = [:]
            labelCodes = queries.labelSets.map { set in
                set.map { label in
                    if let code = codes[label] { return code }
                    let code = Int32(codes.count)
                    codes[label] = code
                    return code
                }.sorted()
            }
            blocks = space.blocks
            var positions = [Int32](repeating: -1, count: space.features.rowCount)
            for (position, row) in rows.enumerated() { positions[row] = Int32(position) }
            positionOfRow = positions
        }

        /// Whether the labelled rows at `a` and `b` share a label.
        func sharesLabel(_ a: Int, _ b: Int) -> Bool {
            let theirs = labelCodes[b]
            return labelCodes[a].contains { theirs.contains($0) }
        }

        /// The hit rates of `seeds` (positions in ``rows``), plain and beyond the seed's artist,
        /// from their cosines with every labelled row: row *i* of `scores` (``rows``.count values)
        /// belongs to `seeds[i]`. Each block's weighted cosine is added to the row in place.
        ///
        /// - Parameter scratch: One value per labelled row, zero on entry and left zero.
        func hitRates(of seeds: [Int], scores: inout [Float], scratch: inout [Float]) -> RankedHitRates {
            let m = rows.count
            var plain: [Double] = []
            var beyond: [Double] = []
            var all = Selection(capacity: k)
            var others = Selection(capacity: k)
            for (local, seed) in seeds.enumerated() {
                addBlockScores(of: seed, to: &scores, at: local * m, scratch: &scratch)
                let seedArtist = artists[seed]
                all.removeAll()
                others.removeAll()
                scores.withUnsafeBufferPointer { buffer in
                    let row = UnsafeBufferPointer(rebasing: buffer[(local * m)..<((local + 1) * m)])
                    for position in 0..<m where position != seed {
                        let score = row[position]
                        // Most scores reach neither list: one comparison each (NaN goes on and is refused).
                        if score < all.threshold && score < others.threshold { continue }
                        if !(score < all.threshold) {
                            all.insert(score, trackID: trackIDs[position], position: position)
                        }
                        if seedArtist < 0 || artists[position] != seedArtist, !(score < others.threshold) {
                            others.insert(score, trackID: trackIDs[position], position: position)
                        }
                    }
                }
                plain.append(Double(all.positions[0..<all.count].count { sharesLabel($0, seed) }) / Double(k))
                beyond.append(Double(others.positions[0..<others.count].count { sharesLabel($0, seed) }) / Double(k))
            }
            return RankedHitRates(plain: plain, beyondArtist: beyond)
        }

        /// Adds each block's weighted similarities between the labelled row `seed` and every
        /// labelled row to `scores[offset...]`, summed per row as
        /// ``LabelledQueries/addBlockScores(_:of:over:to:scratch:)`` sums them.
        private func addBlockScores(of seed: Int, to scores: inout [Float], at offset: Int, scratch: inout [Float]) {
            for (block, weight) in blocks {
                let query = block.query(rows: [rows[seed]])
                guard !query.isEmpty else { continue }
                scratch.withUnsafeMutableBufferPointer { scratch in
                    for (term, value) in query {
                        let factor = weight * value
                        for entry in block.termStarts[Int(term)]..<block.termStarts[Int(term) + 1] {
                            let position = Int(positionOfRow[Int(block.termRows[entry])])
                            if position >= 0 { scratch[position] += factor * block.termValues[entry] }
                        }
                    }
                    scores.withUnsafeMutableBufferPointer { scores in
                        for position in 0..<scratch.count {
                            scores[offset + position] += scratch[position]
                            scratch[position] = 0
                        }
                    }
                }
            }
        }
    }

    /// The best `capacity` of a stream of scored positions, higher first and ties by smaller track
    /// ID, as ``TopK`` keeps them, in arrays kept from one seed to the next.
    struct Selection {
        let capacity: Int
        private(set) var scores: [Float]
        private(set) var trackIDs: [Int64]
        private(set) var positions: [Int]
        private(set) var count = 0
        /// Scores below this cannot enter: −∞ until the selection is full, then the last score kept.
        private(set) var threshold = -Float.infinity

        init(capacity: Int) {
            self.capacity = Swift.max(0, capacity)
            scores = [Float](repeating: 0, count: self.capacity)
            trackIDs = [Int64](repeating: 0, count: self.capacity)
            positions = [Int](repeating: 0, count: self.capacity)
        }

        mutating func removeAll() {
            count = 0
            threshold = -.infinity
        }

        mutating func insert(_ score: Float, trackID: Int64, position: Int) {
            guard capacity > 0, !score.isNaN else { return }
            if count == capacity {
                guard TopK.ranksBefore(score, trackID, scores[capacity - 1], trackIDs[capacity - 1]) else { return }
                count -= 1
            }
            var slot = count
            while slot > 0, TopK.ranksBefore(score, trackID, scores[slot - 1], trackIDs[slot - 1]) {
                scores[slot] = scores[slot - 1]
                trackIDs[slot] = trackIDs[slot - 1]
                positions[slot] = positions[slot - 1]
                slot -= 1
            }
            scores[slot] = score
            trackIDs[slot] = trackID
            positions[slot] = position
            count += 1
            if count == capacity { threshold = scores[capacity - 1] }
        }
    }
}
