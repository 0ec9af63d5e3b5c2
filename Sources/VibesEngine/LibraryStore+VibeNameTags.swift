import Analytics
import Features
import Ingest

extension LibraryStore {
    /// The genre tags that name vibes (those ``nameTags()`` gives) of each of `trackIDs`, numbered,
    /// with no set or text per track.
    ///
    /// They are cut from the tag block of the `blocks` snapshot when it holds every one of the
    /// tracks, else read in ordered passes over the tags
    /// (``Ingest/LibraryStore/labelRows(_:over:)``), else gathered from ``nameTags()``. On a
    /// million tracks, the sets of texts took most of a `cluster`'s second; the snapshot's terms
    /// are read in tens of milliseconds.
    ///
    /// - Parameters:
    ///   - trackIDs: The rows, in the order of the feature table they name vibes of.
    ///   - needed: The rows whose tags are used (those in the space, which excludes tracks
    ///     missing a feature it needs), or `nil` for all. The snapshot, built over the rows of a
    ///     space, may lack the others: they are given no tags rather than read from the tags.
    /// - Returns: The tags of each row, as ``nameTags()`` gives them.
    public func nameTagRows(of trackIDs: [Int64], needing needed: [Int32]? = nil) throws -> VibeNames.TagRows {
        let isAscending = zip(trackIDs, trackIDs.dropFirst()).allSatisfy { $0 < $1 }
        if isAscending, let rows = try nameTagRowsFromBlockSnapshot(of: trackIDs, needing: needed) { return rows }
        if isAscending, let rows = try labelRows([LabelGroup(tagKinds: Self.nameTagKinds)], over: trackIDs)?.first {
            return VibeNames.TagRows(names: rows.names, rowStarts: rows.rowStarts, rowTags: rows.rowLabels)
        }
        return VibeNames.TagRows(try nameTags(), trackIDs: trackIDs)
    }

    /// The name tags of `trackIDs` (ascending) cut from the `blocks` snapshot's tag block, or `nil`
    /// when the snapshot is absent or damaged, when its rows miss one of the tracks, or when its
    /// terms cannot tell a genre from a tag heard in audio.
    ///
    /// The block's terms are the texts of the tags of every kind of ``tagSignals``, merged by
    /// text. A term is a name tag when its text is the value of a genre tag and of no audio tag;
    /// when it is both, a row holding it may hold only the audio tag, and the rows are read from
    /// the tags instead. So are texts equal as strings but not in bytes, which a set of texts
    /// would merge in the order it meets them.
    func nameTagRowsFromBlockSnapshot(
        of trackIDs: [Int64],
        needing needed: [Int32]? = nil
    ) throws
        -> VibeNames.TagRows?
    {
        guard let stored = try storedSimilarityBlockTerms() else { return nil }
        var isNeeded = [Bool](repeating: needed == nil, count: trackIDs.count)
        for row in needed ?? [] where trackIDs.indices.contains(Int(row)) { isNeeded[Int(row)] = true }
        // The snapshot's row of each track (-1 for a row not needed that it lacks), walking both
        // ascending lists.
        var storedRows = [Int](repeating: 0, count: trackIDs.count)
        var next = 0
        for (row, id) in trackIDs.enumerated() {
            while next < stored.trackIDs.count, stored.trackIDs[next] < id { next += 1 }
            if next < stored.trackIDs.count, stored.trackIDs[next] == id {
                storedRows[row] = next
            } else {
                guard !isNeeded[row] else { return nil }
                storedRows[row] = -1
            }
        }
        guard let block = stored.blocks.first(where: { $0.kind == SimilarityBlock.Kind.tags.rawValue }) else {
            // No track of the snapshot's rows has a tag of any kind.
            return VibeNames.TagRows(names: [], rowStarts: [Int](repeating: 0, count: trackIDs.count + 1), rowTags: [])
        }
        let audioKind = AudioTagProbabilities.tagKind
        let values = try tagValues(ofKinds: Self.nameTagKinds.union([audioKind]))
        guard Set(values.map(\.value)).count == Set(values.map { Array($0.value.utf8) }).count else { return nil }
        let genres = Set(values.filter { $0.kind != audioKind }.map(\.value))
        let heard = Set(values.filter { $0.kind == audioKind }.map(\.value))
        // Each term's number among the names, or -1 for a tag heard in audio.
        var nameOfTerm = [Int32](repeating: -1, count: block.termNames.count)
        var names: [String] = []
        for (term, text) in block.termNames.enumerated() {
            switch (genres.contains(text), heard.contains(text)) {
            case (true, false):
                nameOfTerm[term] = Int32(names.count)
                names.append(text)
            case (false, true): continue
            default: return nil
            }
        }
        var rowStarts = [Int](repeating: 0, count: trackIDs.count + 1)
        var rowTags: [Int32] = []
        for (row, storedRow) in storedRows.enumerated() {
            guard storedRow >= 0 else {
                rowStarts[row + 1] = rowTags.count
                continue
            }
            for position in block.rowStarts[storedRow]..<block.rowStarts[storedRow + 1] {
                let name = nameOfTerm[Int(block.rowTerms[position])]
                if name >= 0 { rowTags.append(name) }
            }
            rowStarts[row + 1] = rowTags.count
        }
        return VibeNames.TagRows(names: names, rowStarts: rowStarts, rowTags: rowTags)
    }
}
