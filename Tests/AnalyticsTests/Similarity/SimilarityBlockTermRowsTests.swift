import Features
import Testing

@testable import Analytics

/// A block made again from the terms of its rows, as a store keeps them, is the block a build
/// makes, bit for bit; and the same-artist block numbered straight from the codes is the one the
/// tracks' terms give.
struct SimilarityBlockTermRowsTests {
    /// Tags for `count` tracks from a seeded random source: 0–4 of 12 tags each, some tracks none.
    static func randomTerms(count: Int, seed: UInt64) -> [Int64: Set<String>] {
        var rng = SplitMix64(seed: seed)
        var terms: [Int64: Set<String>] = [:]
        for id in 1...Int64(count) {
            let tagCount = Int(rng.next() % 5)
            guard tagCount > 0 else { continue }
            terms[id] = Set((0..<tagCount).map { _ in "tag \(rng.next() % 12)" })
        }
        return terms
    }

    static func expectSameBits(
        _ a: SimilarityBlock,
        _ b: SimilarityBlock,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(a.sparseTermRows == b.sparseTermRows, sourceLocation: sourceLocation)
        #expect(a.kind == b.kind && a.signals == b.signals, sourceLocation: sourceLocation)
        #expect(a.coveredRowCount == b.coveredRowCount && a.termCount == b.termCount, sourceLocation: sourceLocation)
        let values = { (block: SimilarityBlock) in
            (0..<block.rowCount).map { block.values(ofRow: $0).map(\.bitPattern) }
        }
        #expect(values(a) == values(b), sourceLocation: sourceLocation)
        #expect(a.termStarts == b.termStarts && a.termRows == b.termRows, sourceLocation: sourceLocation)
        #expect(a.termValues.map(\.bitPattern) == b.termValues.map(\.bitPattern), sourceLocation: sourceLocation)
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func aBlockFromItsTermRowsIsTheBlockBuilt(seed: UInt64) throws {
        let terms = Self.randomTerms(count: 300, seed: seed)
        // Rows beyond the tracks with terms, and a track with terms outside the rows.
        let ids = Array(0...320) as [Int64]
        let built = SimilarityBlock(kind: .tags, signals: [.genreTags, .subgenreTags], terms: terms, trackIDs: ids)
        let rows = built.sparseTermRows
        #expect(rows.rowCount == ids.count && rows.isConsistent)
        #expect(rows.signals == ["genre_tags", "subgenre_tags"])
        let again = try #require(SimilarityBlock(rows))
        Self.expectSameBits(again, built)
        // The same scores for a query, to the bit.
        var fromBuilt = [Float](repeating: 0, count: ids.count)
        var fromRows = fromBuilt
        let seeds = ids.indices.filter { terms[ids[$0]] != nil }.prefix(2).map { $0 }
        built.addSimilarities(of: built.query(rows: seeds), weight: 0.7, to: &fromBuilt)
        again.addSimilarities(of: again.query(rows: seeds), weight: 0.7, to: &fromRows)
        #expect(fromBuilt.map(\.bitPattern) == fromRows.map(\.bitPattern))
        #expect(fromBuilt.contains { $0 > 0 })
    }

    @Test func termRowsOfAnUnknownKindOrSignalOrThatDoNotFitAreRefused() {
        let rows = SparseTermRows(
            kind: "tags",
            signals: ["genre_tags"],
            termNames: ["a"],
            rowStarts: [0, 1],
            rowTerms: [0]
        )
        #expect(SimilarityBlock(rows) != nil)
        var kind = rows
        kind.kind = "moods"
        var signal = rows
        signal.signals = ["horoscope"]
        var terms = rows
        terms.rowTerms = [1]
        for bad in [kind, signal, terms] { #expect(SimilarityBlock(bad) == nil) }
    }

    @Test(arguments: [1, 2] as [UInt64])
    func theSameArtistBlockFromCodesIsTheOneFromTerms(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        // Codes up to 40 in any order, some unknown (−1); IDs ascending with gaps.
        let codes = (0..<500).map { _ in Int32(rng.next() % 42) - 1 }
        let ids = (0..<500).map { Int64($0 * 3 + 1) }
        let fast = try #require(SimilarityBlock.sameArtist(artistOfRow: codes, trackIDs: ids))
        let byTrack = try #require(SimilarityBlock.sameArtistByTrackID(artistOfRow: codes, trackIDs: ids))
        Self.expectSameBits(fast, byTrack)
        #expect(SimilarityBlock.sameArtist(artistOfRow: [-1, -1], trackIDs: [1, 2]) == nil)
    }
}
