import Analytics
import Features
import Ingest

extension LibraryStore {
    /// Builds the `blocks` snapshot of the whole library's space when it is missing, so that the
    /// next `recommend` from a seed track reads it instead of building it: commands that change
    /// the tags or playlists (`import`, `sync`, `analyze`) call this once they are done, after
    /// ``prepareSnapshots(memoryLimit:)``.
    ///
    /// The build reads the labels in ordered passes (``makeSimilarityBlockTerms(over:)``): on a
    /// million tracks it holds tens of megabytes, not the 700 MB of the dictionaries of sets.
    ///
    /// A snapshot built over other rows (an import that added tracks with features but no tags or
    /// playlists leaves one) is built again.
    ///
    /// - Returns: Whether the snapshot was built (`false` when it was current already).
    @discardableResult
    public func prepareBlockSnapshot() throws -> Bool {
        let trackIDs = try featureTrackIDs()
        var built = false
        _ = try similarityBlockTerms(over: trackIDs, saving: true) {
            built = true
            return try makeSimilarityBlockTerms(over: trackIDs)
                ?? (try makeSimilarityBlocks(over: trackIDs).map(\.sparseTermRows))
        }
        return built
    }

    /// Leaves every snapshot current after a write that changed features, tags or playlists, as
    /// `sync` and `analyze` do: the feature snapshots, then the `blocks` snapshot over them. A
    /// build that fails is left to the next command, which builds what is missing.
    public func prepareAllSnapshots() {
        if (try? prepareSnapshots()) == .prepared { _ = try? prepareBlockSnapshot() }
    }

    /// The terms of the tag block and the co-membership block over `trackIDs`, the very ones
    /// ``makeSimilarityBlocks(over:)`` gives (`.map(\.sparseTermRows)`), read in ordered passes
    /// over the store's labels (``Ingest/LibraryStore/labelRows(_:over:)``) instead of through a
    /// dictionary of sets per signal.
    ///
    /// - Returns: The blocks' terms, or `nil` when the rows are not ascending or the labels hold
    ///   texts that a set would merge (see ``Ingest/LibraryStore/labelRows(_:over:)``); build with
    ///   ``makeSimilarityBlocks(over:)`` then.
    public func makeSimilarityBlockTerms(over trackIDs: [Int64]) throws -> [SparseTermRows]? {
        guard zip(trackIDs, trackIDs.dropFirst()).allSatisfy({ $0 < $1 }) else { return nil }
        let tagSignals = Self.tagSignals
        let groups = [
            LabelGroup(tagKinds: Set(tagSignals.map(\.kind))),
            LabelGroup(tagKinds: [EvaluationLabel.playlist.rawValue], includesImportedPlaylists: true),
        ]
        guard let rows = try labelRows(groups, over: trackIDs) else { return nil }
        var blocks: [SparseTermRows] = []
        // A tag source counts when any track of the store has a tag of its kind (`tagSources()`).
        let signals = tagSignals.filter { rows[0].kindsPresent.contains($0.kind) }.map(\.signal.rawValue)
        if !signals.isEmpty,
            let tags = Self.termRows(rows[0], kind: .tags, signals: signals.sorted(), leavingOut: [])
        {
            blocks.append(tags)
        }
        // The catch-all playlists, as `CatchAllPlaylist.find` finds them among the rows' labels.
        let playlists = rows[1]
        var sizes = [Int](repeating: 0, count: playlists.names.count)
        for label in playlists.rowLabels { sizes[Int(label)] += 1 }
        let total = Double(max(1, trackIDs.count))
        let catchAll = Set(
            playlists.names.indices.filter { label in
                sizes[label] > 0
                    && (playlists.names[label].lowercased() == "liked songs"
                        || Double(sizes[label]) / total > CatchAllPlaylist.maximumShare)
            }.map(Int32.init)
        )
        if let membership = Self.termRows(
            playlists,
            kind: .coMembership,
            signals: [SimilaritySignal.playlistMembership.rawValue],
            leavingOut: catchAll
        ) {
            blocks.append(membership)
        }
        return blocks
    }

    /// The tag kinds of the tag block, by the signal each is (what ``tagSources()`` reads).
    static let tagSignals: [(kind: String, signal: SimilaritySignal)] = [
        ("artist-genre", .artistGenreTags), ("genre", .genreTags), ("subgenre", .subgenreTags),
        (AudioTagProbabilities.tagKind, .audioTags),
    ]

    /// The tag kinds vibes are named by (``nameTags()``): the tag block's, but those heard in audio.
    static var nameTagKinds: Set<String> { Set(tagSignals.filter { $0.signal != .audioTags }.map(\.kind)) }

    /// The genre tags of each of `trackIDs` that has any, as ``nameTags()`` gives them, read in
    /// ordered passes; tracks with the same tags share one set.
    ///
    /// On a million tracks, ``nameTags()`` made a set per track (about 0.5 GB and seconds of a
    /// `cluster`); the tags of a library come in a few hundred combinations.
    public func nameTags(of trackIDs: [Int64]) throws -> [Int64: Set<String>] {
        guard zip(trackIDs, trackIDs.dropFirst()).allSatisfy({ $0 < $1 }),
            let rows = try labelRows([LabelGroup(tagKinds: Self.nameTagKinds)], over: trackIDs)?.first
        else {
            let wanted = Set(trackIDs)
            return try nameTags().filter { wanted.contains($0.key) }
        }
        // Keyed by slices of the rows' labels, which share their storage: no array per track.
        var shared: [ArraySlice<Int32>: Set<String>] = [:]
        var tags: [Int64: Set<String>] = [:]
        tags.reserveCapacity(trackIDs.indices.count { rows.rowStarts[$0 + 1] > rows.rowStarts[$0] })
        for row in trackIDs.indices where rows.rowStarts[row + 1] > rows.rowStarts[row] {
            let labels = rows.rowLabels[rows.rowStarts[row]..<rows.rowStarts[row + 1]]
            if let set = shared[labels] {
                tags[trackIDs[row]] = set
            } else {
                let set = Set(labels.map { rows.names[Int($0)] })
                shared[labels] = set
                tags[trackIDs[row]] = set
            }
        }
        return tags
    }

    /// The rows' labels numbered as ``Analytics/SimilarityBlock`` numbers a track's terms: in
    /// order of first appearance, a row's new terms in text order, each row's terms ascending; `nil`
    /// when no row has a term.
    private static func termRows(
        _ rows: LabelRows,
        kind: SimilarityBlock.Kind,
        signals: [String],
        leavingOut left: Set<Int32>
    ) -> SparseTermRows? {
        var termOfLabel = [Int32](repeating: -1, count: rows.names.count)
        var termNames: [String] = []
        var rowStarts = [Int](repeating: 0, count: rows.rowStarts.count)
        var rowTerms: [Int32] = []
        rowTerms.reserveCapacity(rows.rowLabels.count)
        var covered = false
        for row in 0..<(rows.rowStarts.count - 1) {
            let first = rowTerms.count
            for position in rows.rowStarts[row]..<rows.rowStarts[row + 1] {
                let label = rows.rowLabels[position]
                if left.contains(label) { continue }
                if termOfLabel[Int(label)] < 0 {
                    termOfLabel[Int(label)] = Int32(termNames.count)
                    termNames.append(rows.names[Int(label)])
                }
                rowTerms.append(termOfLabel[Int(label)])
            }
            if rowTerms.count - first > 1 { rowTerms[first...].sort() }
            covered = covered || rowTerms.count > first
            rowStarts[row + 1] = rowTerms.count
        }
        guard covered else { return nil }
        return SparseTermRows(
            kind: kind.rawValue,
            signals: signals,
            termNames: termNames,
            rowStarts: rowStarts,
            rowTerms: rowTerms
        )
    }
}
