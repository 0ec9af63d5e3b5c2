import Features

// MARK: - The scans of a query over every row

// A query from seed tracks passes over every row a few times: which rows may be picked, the
// hybrid scores, and the best of them. At a million rows each pass costs milliseconds, so they do
// no per-row work that a query can do once (hashing a track ID, reading a dictionary of bounds,
// making a candidate that will not be kept). The pointer code of these passes is in this file.

extension Recommender {
    /// Which rows may be picked: not excluded and within every `min_`/`max_` bound of `query`.
    ///
    /// - Returns: One flag per row, the number of rows not excluded, and the number of those
    ///   within the bounds.
    func candidateRows(
        excluding excluded: Set<Int64>,
        query: RecommendationQuery
    ) -> (isCandidate: [Bool], candidates: Int, afterFilters: Int) {
        var isCandidate = [Bool](repeating: true, count: trackCount)
        var candidateCount = trackCount
        if rowsByTrackID.ascends {
            // Each track is one row: the few excluded tracks are looked up, rather than every
            // row's track ID hashed (a tenth of a million-track query).
            for id in excluded {
                guard let row = row(of: id) else { continue }
                isCandidate[row] = false
                candidateCount -= 1
            }
        } else {
            for row in 0..<trackCount where excluded.contains(table.trackIDs[row]) {
                isCandidate[row] = false
                candidateCount -= 1
            }
        }
        let bounds = query.constraints.filter { $0.value.minimum != nil || $0.value.maximum != nil }
            .map { (attribute: $0.key, constraint: $0.value) }
        guard !bounds.isEmpty else { return (isCandidate, candidateCount, candidateCount) }
        var afterFilters = 0
        for row in 0..<trackCount where isCandidate[row] {
            if passesBounds(row: row, bounds: bounds, tempoOctave: query.tempoOctave) {
                afterFilters += 1
            } else {
                isCandidate[row] = false
            }
        }
        return (isCandidate, candidateCount, afterFilters)
    }

    /// Adds to `selection` every row of `isCandidate` with its similarity as its score.
    func selectBest(by similarities: [Float], among isCandidate: [Bool], into selection: inout TopKCandidates) {
        similarities.withUnsafeBufferPointer { similarities in
            isCandidate.withUnsafeBufferPointer { isCandidate in
                table.trackIDs.withUnsafeBufferPointer { trackIDs in
                    for row in 0..<similarities.count where isCandidate[row] {
                        let similarity = Double(similarities[row])
                        guard selection.admits(score: similarity, trackID: trackIDs[row]) else { continue }
                        selection.insert(
                            Candidate(row: row, trackID: trackIDs[row], similarity: similarity, score: similarity)
                        )
                    }
                }
            }
        }
    }
}

extension ArtistContext {
    /// The hybrid cosine of every row of `x` (the scaled points, row-major) with the query
    /// [`query` ; *w* · `context`] of length `queryNorm`; `artistDots[k]` is *a*_q · *S*ₖ.
    ///
    /// Eight rows at a time, each lane doing the very operations, in the same order, that one row
    /// alone does: the scores are the same to the bit, about twice as fast.
    func hybridCosines(
        query: [Float],
        context: [Float],
        queryNorm: Float,
        artistDots: [Float],
        features x: [Float]
    ) -> [Float] {
        let d = dimension
        let w2 = weight * weight
        let rowCount = artistOfRow.count
        return [Float](unsafeUninitializedCapacity: rowCount) { result, initialized in
            x.withUnsafeBufferPointer { x in
                artistOfRow.withUnsafeBufferPointer { artistOfRow in
                    counts.withUnsafeBufferPointer { counts in
                        rowNorms.withUnsafeBufferPointer { rowNorms in
                            func finish(_ row: Int, audio: Float, contextDot: Float) {
                                let artist = Int(artistOfRow[row])
                                let artistPart: Float =
                                    artist >= 0 && counts[artist] > 1
                                    ? (artistDots[artist] - contextDot) / Float(counts[artist]) : 0
                                let norm = queryNorm * rowNorms[row]
                                result[row] = norm > 0 ? (audio + w2 * artistPart) / norm : 0
                            }
                            var row = 0
                            while row + 8 <= rowCount {
                                var audio = SIMD8<Float>(repeating: 0)
                                var contextDot = SIMD8<Float>(repeating: 0)
                                let base = row * d
                                for column in 0..<d {
                                    var value = SIMD8<Float>()
                                    for lane in 0..<8 { value[lane] = x[base + lane * d + column] }
                                    audio += SIMD8(repeating: query[column]) * value
                                    contextDot += SIMD8(repeating: context[column]) * value
                                }
                                for lane in 0..<8 {
                                    finish(row + lane, audio: audio[lane], contextDot: contextDot[lane])
                                }
                                row += 8
                            }
                            while row < rowCount {
                                var audio: Float = 0
                                var contextDot: Float = 0
                                for column in 0..<d {
                                    let value = x[row * d + column]
                                    audio += query[column] * value
                                    contextDot += context[column] * value
                                }
                                finish(row, audio: audio, contextDot: contextDot)
                                row += 1
                            }
                        }
                    }
                }
            }
            initialized = rowCount
        }
    }
}
