import Features
import Foundation
import GRDB

/// The `blocks` snapshot: the terms of each row of the recommender's sparse similarity blocks (the
/// tag block and the playlist co-membership block), over the rows of one similarity space.
///
/// Building the blocks means reading every track's tags and playlists into per-track sets: on a
/// million tracks, most of the 15–20 s a `recommend` from a seed track took. The snapshot keeps
/// what those sets come to, each block's term names and the numbered terms of each row (a byte or
/// two each), from which the block's weights follow in one pass (``Features/SparseTermRows``).
///
/// It is kept valid like the other snapshots: triggers delete it with any change to the tags, the
/// playlists or their items (``Snapshot/blocks``), and it names the rows it was built over, so a
/// space of other rows (another scope, tracks that gained or lost features) rebuilds it. `import`,
/// `sync` and `analyze` build it once they are done (`prepareBlockSnapshot()` of `VibesEngine`); otherwise
/// the first command that needs it and finds it absent or stale builds it. It is saved when the
/// store can be written without waiting and no other program wrote the store since the build
/// began reading.
extension LibraryStore {
    /// The terms of the similarity blocks over `trackIDs`, read from the `blocks` snapshot when it
    /// holds them for these very rows, else made by `build` (and saved, with `saving`, for the
    /// next command).
    ///
    /// - Parameters:
    ///   - trackIDs: The rows of the similarity space, in order.
    ///   - saving: Whether to keep what `build` makes in place of the snapshot (for the whole
    ///     library's space, not a scope's).
    ///   - build: Makes the blocks from the store's tags and playlists; called at most once.
    /// - Returns: The blocks' term rows, one per row of `trackIDs` each.
    /// - Throws: ``StoreError`` when the store cannot be read, or what `build` throws.
    public func similarityBlockTerms(
        over trackIDs: [Int64],
        saving: Bool,
        build: () throws -> [SparseTermRows]
    ) throws -> [SparseTermRows] {
        if let stored = try read({ db in
            try Self.snapshotParts(.blocks, in: db).flatMap { BlockSnapshot.decode($0, trackIDs: trackIDs) }
        }) {
            return stored
        }
        // Taken before the sources are read: a write by another program after it changes the
        // number, and what was built is then not saved.
        let version = saving ? try? dataVersion() : nil
        let built = try build()
        if let version, let parts = BlockSnapshot.parts(built, trackIDs: trackIDs) {
            opportunisticWrite.whileSet {
                _ = try? write { db in
                    guard try Int.fetchOne(db, sql: "PRAGMA data_version") == version else { return }
                    try Self.save(.blocks, parts: parts, in: db)
                }
            }
        }
        return built
    }

    /// The rows of the whole library's similarity space: every track with features, ascending, as
    /// the `features` snapshot lists them (``featureTable(scope:)`` with ``TrackScope/all``),
    /// without reading the values.
    public func featureTrackIDs() throws -> [Int64] {
        try featureSnapshot(only: ["track_ids"]).trackIDs
    }

    /// The `blocks` snapshot as it is stored, over whatever rows it was built over: `nil` when it is
    /// absent or damaged. A scope's rows are among the library's, so a reader of one block (the
    /// vibes' name tags) can cut them from it.
    public func storedSimilarityBlockTerms() throws -> (trackIDs: [Int64], blocks: [SparseTermRows])? {
        try read { db in
            try Self.snapshotParts(.blocks, in: db).flatMap { BlockSnapshot.decode($0, acceptingRows: { _ in true }) }
        }
    }

    /// Whether the `blocks` snapshot is present (it is current when present, or built over other
    /// rows, which its reader finds out).
    public func hasBlockSnapshot() throws -> Bool {
        try read { db in try Self.snapshotParts(.blocks, in: db, only: []) != nil }
    }
}

/// The parts of the `blocks` snapshot: the rows' track IDs, the number of blocks, and per block
/// *i* its kind and signals (`i.about`, packed strings), its term names (`i.terms`,
/// `i.term_ends`), the number of terms of each row (`i.counts`) and the terms (`i.row_terms`),
/// the integers as narrow as their range allows (``PackedColumns/narrow(_:)``); and a checksum
/// of them all, so that damage the structure cannot show (a changed byte of a name) is found.
enum BlockSnapshot {
    /// The names of a block's parts.
    static func blockParts(_ index: Int) -> [String] {
        ["about", "about_ends", "terms", "term_ends", "counts", "row_terms"].map { "\(index).\($0)" }
    }

    static func parts(_ blocks: [SparseTermRows], trackIDs: [Int64]) -> [String: SnapshotBlob]? {
        guard blocks.allSatisfy({ $0.rowCount == trackIDs.count }),
            zip(trackIDs, trackIDs.dropFirst()).allSatisfy({ $0 < $1 })
        else { return nil }
        var parts = [
            "track_ids": SnapshotBlob.ascending(trackIDs),
            "block_count": .narrow([Int64(blocks.count)]),
        ]
        for (index, block) in blocks.enumerated() {
            let about = PackedStrings.parts([block.kind] + block.signals)
            let names = PackedStrings.parts(block.termNames)
            let counts = zip(block.rowStarts, block.rowStarts.dropFirst()).map { $1 - $0 }
            let blobs = [about.bytes, about.ends, names.bytes, names.ends, .narrow(counts), .narrow(block.rowTerms)]
            for (name, blob) in zip(blockParts(index), blobs) { parts[name] = blob }
        }
        parts["checksum"] = SnapshotBlob([checksum(of: parts, blockCount: blocks.count)])
        return parts
    }

    /// A 64-bit FNV-1a-style hash of the parts, eight bytes at a time, each part's size first.
    static func checksum(of parts: [String: SnapshotBlob], blockCount: Int) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ word: UInt64) {
            hash = (hash ^ word) &* 0x100_0000_01b3
            hash ^= hash >> 32
        }
        for name in ["track_ids", "block_count"] + (0..<blockCount).flatMap(blockParts) {
            guard let blob = parts[name] else {
                mix(.max)
                continue
            }
            mix(UInt64(blob.byteCount))
            blob.withUnsafeBytes { bytes in
                var offset = 0
                while offset + 8 <= bytes.count {
                    mix(bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                    offset += 8
                }
                while offset < bytes.count {
                    mix(UInt64(bytes[offset]))
                    offset += 1
                }
            }
        }
        return hash
    }

    /// The blocks of `stored`, or `nil` when they were built over other rows, fail their checksum
    /// or do not fit together (a damaged store is rebuilt from, not trusted).
    static func decode(_ stored: SnapshotParts, trackIDs: [Int64]) -> [SparseTermRows]? {
        decode(stored, acceptingRows: { $0 == trackIDs })?.blocks
    }

    /// The rows and blocks of `stored` when `accepts` takes its rows, else `nil`, as
    /// ``decode(_:trackIDs:)`` decodes them.
    static func decode(
        _ stored: SnapshotParts,
        acceptingRows accepts: ([Int64]) -> Bool
    ) -> (trackIDs: [Int64], blocks: [SparseTermRows])? {
        guard let blockCount = stored.integers("block_count", of: Int.self).first, (0...8).contains(blockCount)
        else { return nil }
        // Every part read once into memory, checked, then decoded from there.
        var blobs: [String: SnapshotBlob] = [:]
        for name in ["track_ids", "block_count"] + (0..<blockCount).flatMap(blockParts) where stored.contains(name) {
            blobs[name] = SnapshotBlob(stored.array(name, of: UInt8.self))
        }
        guard stored.array("checksum", of: UInt64.self) == [checksum(of: blobs, blockCount: blockCount)] else {
            return nil
        }
        let parts = SnapshotParts(blobs)
        guard let ids = parts.ascending("track_ids"), accepts(ids) else { return nil }
        var blocks: [SparseTermRows] = []
        for index in 0..<blockCount {
            guard
                let about = PackedStrings.strings(bytes: parts["\(index).about"], ends: parts["\(index).about_ends"]),
                let kind = about.first,
                let names = PackedStrings.strings(bytes: parts["\(index).terms"], ends: parts["\(index).term_ends"])
            else { return nil }
            let counts: [Int32] = parts.integers("\(index).counts")
            guard counts.count == ids.count, counts.allSatisfy({ $0 >= 0 }) else { return nil }
            var starts = [Int](repeating: 0, count: counts.count + 1)
            for (row, count) in counts.enumerated() { starts[row + 1] = starts[row] + Int(count) }
            let terms: [Int32] = parts.integers("\(index).row_terms")
            let block = SparseTermRows(
                kind: kind,
                signals: Array(about.dropFirst()),
                termNames: names,
                rowStarts: starts,
                rowTerms: terms
            )
            guard block.isConsistent else { return nil }
            blocks.append(block)
        }
        return (ids, blocks)
    }
}
