import Analytics
import Features
import Ingest

/// The similarity weights a recommender uses.
public enum WeightChoice: Sendable, Equatable {
    /// The personal weights `weights learn` stored, or else the defaults.
    case personal
    /// The default weights.
    case defaults
    /// These weights.
    case given(SimilarityWeights)
}

extension LibraryStore {
    /// Reads the features of the tracks in `scope` and what recommendations filter by (artists,
    /// duration, popularity), and builds the similarity space. Display details are read later, for
    /// the few tracks shown (`trackSummaries(for:)`).
    ///
    /// With `context`, the hybrid similarity also holds the same-artist block, the tag block
    /// (artist genres, dataset genres and subgenres, and the tags a tagger heard in analysed
    /// files), the co-membership block (imported playlists, catch-alls left out) and, for analysed
    /// files, the embedding block (``Analytics/SimilarityBlock/embedding(_:trackIDs:)``).
    ///
    /// - Parameters:
    ///   - scope: The tracks that can be picked.
    ///   - weights: The similarity weights.
    ///   - context: Whether to add the artist, tag and co-membership blocks.
    /// - Returns: The recommender of the scope.
    /// - Throws: ``EngineError/noTracksWithFeatures(storePath:)`` when the scope has no tracks
    ///   with features, `TrackScopeError` for an unknown playlist.
    public func makeRecommender(
        scope: TrackScope = .all,
        weights: WeightChoice = .personal,
        context: Bool = true
    ) throws -> Recommender {
        let table = try featureTable(scope: scope)
        guard table.rowCount > 0 else { throw EngineError.noTracksWithFeatures(storePath: path) }
        // Versions of one song (remixes, remasters, live takes) share a song code, so
        // recommendations and playlists hold at most one of them.
        let attributes = try trackAttributeColumns(for: table.trackIDs)
        let chosen: SimilarityWeights =
            switch weights {
            case .personal: try personalWeights() ?? .default
            case .defaults: .default
            case .given(let given): given
            }
        // The space comes from the store's cache when the last command used this table and these
        // weights (see `LibraryStore.featureSpace(of:schema:)`).
        let space = try featureSpace(of: table, schema: FeatureSchema.default.applying(chosen))
        var recommender = Recommender(
            table: consume table,
            space: space,
            attributes: consume attributes,
            weights: chosen
        )
        if context {
            recommender = recommender.addingSameArtist()
            for block in try similarityBlocks(over: recommender.features.trackIDs, saving: scope == .all) {
                recommender = recommender.adding(block)
            }
            // Only analysed files have embeddings: other libraries get no such block.
            let trackIDs = recommender.features.trackIDs
            if let block = SimilarityBlock.embedding(try audioEmbeddings(of: trackIDs), trackIDs: trackIDs) {
                recommender = recommender.adding(block)
            }
        }
        return recommender
    }

    /// The tag block and the co-membership block over `trackIDs` (those that have a term), read
    /// from the store's `blocks` snapshot when it holds them for these rows, else built from the
    /// tags and playlists (``makeSimilarityBlockTerms(over:)``, the same terms as
    /// ``makeSimilarityBlocks(over:)`` in ordered passes) and, with `saving`, kept for the next
    /// command.
    ///
    /// The snapshot gives the very blocks a build gives, bit for bit: it keeps the numbered terms
    /// of each row, and ``Analytics/SimilarityBlock/init(_:)`` weighs them as a build does.
    public func similarityBlocks(over trackIDs: [Int64], saving: Bool) throws -> [SimilarityBlock] {
        let terms = try similarityBlockTerms(over: trackIDs, saving: saving) {
            try makeSimilarityBlockTerms(over: trackIDs)
                ?? (try makeSimilarityBlocks(over: trackIDs).map(\.sparseTermRows))
        }
        let blocks = terms.compactMap(SimilarityBlock.init)
        // A kind or signal this version does not know (a damaged store): built again, not trusted.
        return blocks.count == terms.count ? blocks : try makeSimilarityBlocks(over: trackIDs)
    }

    /// The tag block and the co-membership block over `trackIDs`, built from the store's tags and
    /// playlists (catch-all playlists left out), those that have a term.
    public func makeSimilarityBlocks(over trackIDs: [Int64]) throws -> [SimilarityBlock] {
        var blocks: [SimilarityBlock] = []
        if let tags = SimilarityBlock.tags(from: try tagSources(), trackIDs: trackIDs) { blocks.append(tags) }
        if let block = SimilarityBlock.coMembership(playlists: try playlistLabels(of: trackIDs), trackIDs: trackIDs) {
            blocks.append(block)
        }
        return blocks
    }

    /// The tags of the tag block, by the signal each kind of tag is: genres, subgenres and artist
    /// genres, and the `audio-tag` tags a tagger heard in analysed files.
    public func tagSources() throws -> [SimilarityBlock.Source] {
        // One list with `makeSimilarityBlockTerms(over:)`, which reads the same kinds in ordered passes.
        try Self.tagSignals.map { SimilarityBlock.Source(signal: $0.signal, terms: try trackLabels(kind: $0.kind)) }
    }

    /// Every genre tag of each track (artist genres, dataset genres and subgenres), for the names
    /// of vibes.
    public func nameTags() throws -> [Int64: Set<String>] {
        var tags: [Int64: Set<String>] = [:]
        for source in try tagSources() where source.signal != .audioTags {
            for (id, set) in source.terms { tags[id, default: []].formUnion(set) }
        }
        return tags
    }

    /// The labels of `kind` of each of `trackIDs`; for playlists, the catch-all playlists (Liked
    /// Songs, or any holding more than 30 % of the tracks) are left out unless
    /// `includingCatchAll`.
    ///
    /// - Returns: The labels, and the catch-all playlists left out.
    public func labels(
        _ kind: EvaluationLabel,
        of trackIDs: [Int64],
        includingCatchAll: Bool = false
    ) throws -> (labels: [Int64: Set<String>], catchAll: [CatchAllPlaylist]) {
        let inSpace = Set(trackIDs)
        let labels = try trackLabels(kind: kind.rawValue).filter { inSpace.contains($0.key) }
        guard kind == .playlist && !includingCatchAll else { return (labels, []) }
        let catchAll = CatchAllPlaylist.find(in: labels, libraryTrackCount: trackIDs.count)
        return (CatchAllPlaylist.removing(catchAll, from: labels), catchAll)
    }

    /// The imported playlists of each of `trackIDs`, catch-alls left out.
    public func playlistLabels(of trackIDs: [Int64]) throws -> [Int64: Set<String>] {
        try labels(.playlist, of: trackIDs).labels
    }

    /// "Artist – Title" for display, or "track ID" when the store does not hold it.
    public func title(of trackID: Int64) -> String {
        guard let summary = try? trackSummaries(for: [trackID])[trackID] else { return "track \(trackID)" }
        let artist = summary.artists.first.map { "\($0) – " } ?? ""
        return artist + summary.name
    }
}
