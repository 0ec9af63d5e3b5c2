import Features

// MARK: - Sparse blocks of the hybrid similarity

extension Recommender {
    /// This recommender with `block` in its hybrid similarity, replacing a block of the same kind.
    ///
    /// ```swift
    /// var hybrid = recommender
    /// if let tags = SimilarityBlock.tags(
    ///     from: [SimilarityBlock.Source(signal: .artistGenreTags, terms: artistGenres)],
    ///     trackIDs: recommender.features.trackIDs
    /// ) {
    ///     hybrid = recommender.adding(tags)
    /// }
    /// ```
    ///
    /// - Precondition: `block` was built over ``features``' track IDs.
    public func adding(_ block: SimilarityBlock) -> Recommender {
        precondition(block.rowCount == trackCount, "A block needs one row per track of the recommender.")
        var copy = self
        copy.blocks.removeAll { $0.kind == block.kind }
        copy.blocks.append(block)
        copy.blocks.sort { $0.kind.rawValue < $1.kind.rawValue }
        return copy
    }

    /// This recommender with the same-artist block (``SimilarityBlock/sameArtist(artistOfRow:trackIDs:)``)
    /// over its own main artists, weighted by ``Features/SimilarityWeights/sameArtist``.
    public func addingSameArtist() -> Recommender {
        guard let block = SimilarityBlock.sameArtist(artistOfRow: attributes.artistCodes, trackIDs: table.trackIDs)
        else { return self }
        return adding(block)
    }

    /// The main artist of each row as a code (equal codes, same artist), −1 when unknown.
    public var artistOfRow: [Int32] { attributes.artistCodes }

    /// The weight of a block of `kind` in ``weights``.
    func weight(of kind: SimilarityBlock.Kind) -> Float {
        switch kind {
        case .tags: Float(weights.tags)
        case .coMembership: Float(weights.coMembership)
        case .artist: Float(weights.sameArtist)
        case .embedding: Float(SimilarityBlock.embeddingWeight)
        }
    }

    /// Turns the sound cosines `scores` into the hybrid scores of a query made of `seedRows` in
    /// place: the weighted mean of the sound cosine (weight 1) and the cosine of each block the
    /// seeds have terms in.
    func addHybridBlocks(seedRows: [Int], to scores: inout [Float]) {
        var total: Float = 1
        for block in blocks {
            let weight = weight(of: block.kind)
            guard weight > 0 else { continue }
            let query = block.query(rows: seedRows)
            guard !query.isEmpty else { continue }
            block.addSimilarities(of: query, weight: weight, to: &scores)
            total += weight
        }
        if total != 1 { for row in scores.indices { scores[row] /= total } }
    }
}

// MARK: - Building blocks

extension SimilarityBlock {
    /// The terms of one kind of tag and the signal they come from.
    public struct Source: Sendable {
        /// What the tags are derived from, such as ``SimilaritySignal/artistGenreTags``.
        public var signal: SimilaritySignal
        /// The tags of each track, by track ID.
        public var terms: [Int64: Set<String>]

        public init(signal: SimilaritySignal, terms: [Int64: Set<String>]) {
            self.signal = signal
            self.terms = terms
        }
    }

    /// A tag block over `trackIDs` from every source not in `excluded`, or `nil` when no track has
    /// a tag from them.
    ///
    /// Tags of different sources with the same text (an artist genre "pop" and a dataset genre
    /// "pop") are one term.
    ///
    /// - Parameters:
    ///   - sources: The tags, one source per signal.
    ///   - trackIDs: The rows of the space.
    ///   - excluded: Signals to leave out, such as those an evaluation's label derives.
    public static func tags(
        from sources: [Source],
        trackIDs: [Int64],
        excluding excluded: Set<SimilaritySignal> = []
    ) -> SimilarityBlock? {
        let kept = sources.filter { !excluded.contains($0.signal) && !$0.terms.isEmpty }
        guard !kept.isEmpty else { return nil }
        var terms: [Int64: Set<String>] = kept.count == 1 ? kept[0].terms : [:]
        if kept.count > 1 {
            for source in kept { for (id, set) in source.terms { terms[id, default: []].formUnion(set) } }
        }
        let block = SimilarityBlock(kind: .tags, signals: Set(kept.map(\.signal)), terms: terms, trackIDs: trackIDs)
        return block.coveredRowCount > 0 ? block : nil
    }

    /// A same-artist block over the rows of a space: row *r*'s one term is `artistOfRow[r]`, so two
    /// rows' cosine is 1 when they share a main artist and 0 otherwise; `nil` when no artist is known.
    ///
    /// - Parameters:
    ///   - artistOfRow: The main artist of each row as a code, −1 when unknown.
    ///   - trackIDs: The track of each row.
    ///
    /// - Complexity: O(*n*) for *n* rows: the terms are numbered straight from the codes, with no
    ///   dictionary of the tracks' terms (which took seconds on a million tracks).
    public static func sameArtist(artistOfRow: [Int32], trackIDs: [Int64]) -> SimilarityBlock? {
        precondition(artistOfRow.count == trackIDs.count, "one artist code per row")
        guard zip(trackIDs, trackIDs.dropFirst()).allSatisfy({ $0 < $1 }) else {
            return sameArtistByTrackID(artistOfRow: artistOfRow, trackIDs: trackIDs)
        }
        // Each row's one term is its code's text, numbered in order of first appearance: the
        // numbering `init(kind:signals:terms:trackIDs:)` gives the same terms.
        var termOfCode = [Int32](repeating: -1, count: (artistOfRow.max().map(Int.init) ?? -1) + 1)
        var termNames: [String] = []
        var rowStarts = [0]
        var rowTerms: [Int32] = []
        rowStarts.reserveCapacity(artistOfRow.count + 1)
        rowTerms.reserveCapacity(artistOfRow.count)
        for code in artistOfRow {
            if code >= 0 {
                if termOfCode[Int(code)] < 0 {
                    termOfCode[Int(code)] = Int32(termNames.count)
                    termNames.append(String(code))
                }
                rowTerms.append(termOfCode[Int(code)])
            }
            rowStarts.append(rowTerms.count)
        }
        let rows = SparseTermRows(
            kind: Kind.artist.rawValue,
            signals: [SimilaritySignal.artistIdentity.rawValue],
            termNames: termNames,
            rowStarts: rowStarts,
            rowTerms: rowTerms
        )
        guard let block = SimilarityBlock(rows) else { preconditionFailure("the rows just built fit together") }
        return block.coveredRowCount > 0 ? block : nil
    }

    /// ``sameArtist(artistOfRow:trackIDs:)`` through the tracks' terms by track ID, for rows whose
    /// IDs do not ascend (a repeated ID keeps the code of its last row, as a dictionary does).
    static func sameArtistByTrackID(artistOfRow: [Int32], trackIDs: [Int64]) -> SimilarityBlock? {
        var terms: [Int64: Set<String>] = [:]
        terms.reserveCapacity(trackIDs.count)
        for (row, code) in artistOfRow.enumerated() where code >= 0 { terms[trackIDs[row]] = [String(code)] }
        let block = SimilarityBlock(kind: .artist, signals: [.artistIdentity], terms: terms, trackIDs: trackIDs)
        return block.coveredRowCount > 0 ? block : nil
    }

    /// A co-membership block over `trackIDs` from the playlists of each track, or `nil` when no
    /// track is in one. Leave catch-all playlists out first (``CatchAllPlaylist/removing(_:from:)``).
    public static func coMembership(playlists: [Int64: Set<String>], trackIDs: [Int64]) -> SimilarityBlock? {
        let block = SimilarityBlock(
            kind: .coMembership,
            signals: [.playlistMembership],
            terms: playlists,
            trackIDs: trackIDs
        )
        return block.coveredRowCount > 0 ? block : nil
    }
}
