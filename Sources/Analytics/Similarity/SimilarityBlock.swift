import Features

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A sparse block of the hybrid similarity: genre tags or playlist co-membership, as unit-length
/// TF-IDF vectors, one per track, compared by cosine.
///
/// A term (a tag, a playlist) present on a track weighs its inverse document frequency
/// ln(1 + *n* / *df*), where *n* is the number of tracks with any term and *df* the number with
/// this one, so a niche genre or a small playlist says more than "pop" or a playlist of a
/// thousand tracks. Each track's vector is then scaled to unit length. Only the nonzero entries
/// are kept, row-wise and term-wise, so a million tracks with a few tags each take a few
/// megabytes; no dense track × term matrix is built.
///
/// Each block declares the ``SimilaritySignal``s it is made of, so that an evaluation can refuse a
/// block derived from its label.
public struct SimilarityBlock: Sendable {
    /// What the block is made of.
    public enum Kind: String, Codable, Hashable, Sendable {
        /// Genre tags of the track and its artists.
        case tags
        /// The playlists the track is in.
        case coMembership = "co_membership"
        /// Who the track is by: one term per main artist, so the cosine is 1 for tracks by the same
        /// main artist and 0 otherwise.
        case artist
        /// What a music tagger heard: each analysed track's embedding, its dimensions as terms
        /// (``embedding(_:trackIDs:)``).
        case embedding
    }

    /// What the block is made of.
    public let kind: Kind
    /// The signals its terms come from.
    public let signals: Set<SimilaritySignal>
    /// The number of distinct terms.
    public let termCount: Int
    /// The text of each term, by term number.
    let termNames: [String]
    /// The number of rows with at least one term.
    public let coveredRowCount: Int
    /// Row *r*'s entries are `rowStarts[r]..<rowStarts[r + 1]` of ``rowTerms`` (32 bits: half
    /// the memory of `Int`, a million rows' 4 MB per block).
    let rowStarts: [UInt32]
    let rowTerms: [Int32]
    /// The value of each row entry when it is given (an embedding); empty for a TF-IDF block, whose
    /// values follow from ``inverseFrequencies`` and the row's terms (``values(ofRow:)``) and are
    /// read only for the few seed and result rows of a query.
    let explicitRowValues: [Float]
    /// The inverse document frequency of each term of a TF-IDF block; empty for an embedding.
    let inverseFrequencies: [Float]
    /// Term *t*'s rows are `termStarts[t]..<termStarts[t + 1]` of ``termRows`` and ``termValues``.
    let termStarts: [Int]
    let termRows: [Int32]
    let termValues: [Float]

    /// Builds a block over `trackIDs` (the rows of a similarity space, in order).
    ///
    /// - Parameters:
    ///   - kind: What the terms are.
    ///   - signals: The signals the terms come from.
    ///   - terms: The terms of each track, by track ID; tracks absent or not in `trackIDs` have none.
    ///   - trackIDs: The track of each row.
    /// - Complexity: O(*n* + *e* log *e*) for *n* rows and *e* track–term pairs.
    public init(
        kind: Kind,
        signals: Set<SimilaritySignal>,
        terms: [Int64: Set<String>],
        trackIDs: [Int64]
    ) {
        var termIndex: [String: Int32] = [:]
        var termNames: [String] = []
        var rowStarts = [0]
        var rowTerms: [Int32] = []
        rowStarts.reserveCapacity(trackIDs.count + 1)
        for id in trackIDs {
            if let set = terms[id] {
                var row: [Int32] = []
                // Sorted, so that term numbers and float sums do not depend on hashing.
                for term in set.sorted() {
                    if let known = termIndex[term] {
                        row.append(known)
                    } else {
                        let index = Int32(termNames.count)
                        termIndex[term] = index
                        termNames.append(term)
                        row.append(index)
                    }
                }
                rowTerms += row.sorted()
            }
            rowStarts.append(rowTerms.count)
        }
        self.init(
            kind: kind,
            signals: signals,
            termNames: termNames,
            rowStarts: rowStarts,
            rowTerms: rowTerms
        )
    }

    /// Builds a block from the terms of its rows (``Features/SparseTermRows``), as a store keeps
    /// them, or returns `nil` when they do not fit together or name an unknown kind or signal.
    ///
    /// The block is the one ``init(kind:signals:terms:trackIDs:)`` builds from the same terms, bit
    /// for bit: both number the terms the same way and share the weighting below.
    ///
    /// - Complexity: O(*n* + *e*) for *n* rows and *e* row–term pairs.
    public init?(_ rows: SparseTermRows) {
        // An embedding's values are not term weights: it is built from the vectors, never from terms.
        guard let kind = Kind(rawValue: rows.kind), kind != .embedding, rows.isConsistent else { return nil }
        let signals = rows.signals.compactMap(SimilaritySignal.init(rawValue:))
        guard signals.count == rows.signals.count else { return nil }
        self.init(
            kind: kind,
            signals: Set(signals),
            termNames: rows.termNames,
            rowStarts: rows.rowStarts,
            rowTerms: rows.rowTerms
        )
    }

    /// The terms of the block's rows, as a store keeps them (``init(_:)`` builds the block again).
    public var sparseTermRows: SparseTermRows {
        SparseTermRows(
            kind: kind.rawValue,
            signals: signals.map(\.rawValue).sorted(),
            termNames: termNames,
            rowStarts: rowStarts.map(Int.init),
            rowTerms: rowTerms
        )
    }

    /// Weighs the terms of each row (ascending within a row, every one a term of `termNames`) and
    /// builds the term-wise transpose.
    private init(
        kind: Kind,
        signals: Set<SimilaritySignal>,
        termNames: [String],
        rowStarts: [Int],
        rowTerms: [Int32]
    ) {
        let rowCount = rowStarts.count - 1
        var documentFrequency = [Int](repeating: 0, count: termNames.count)
        for term in rowTerms { documentFrequency[Int(term)] += 1 }
        var covered = 0
        for row in 0..<rowCount where rowStarts[row + 1] > rowStarts[row] { covered += 1 }
        let idf = documentFrequency.map { Float(log1p(Double(covered) / Double($0))) }
        self.init(
            kind: kind,
            signals: signals,
            termNames: termNames,
            rowStarts: rowStarts,
            rowTerms: rowTerms,
            rowValues: [],
            inverseFrequencies: idf
        )
    }

    /// A block of the given entries (ascending terms within a row), with its term-wise transpose:
    /// valued by `rowValues` (each row of unit length or empty), or when there are none by the
    /// TF-IDF weights of `inverseFrequencies`.
    init(
        kind: Kind,
        signals: Set<SimilaritySignal>,
        termNames: [String],
        rowStarts: [Int],
        rowTerms: [Int32],
        rowValues explicitRowValues: [Float],
        inverseFrequencies: [Float] = []
    ) {
        precondition(rowTerms.count <= UInt32.max, "row starts fit in 32 bits")
        self.kind = kind
        self.signals = signals
        let rowCount = rowStarts.count - 1
        var covered = 0
        for row in 0..<rowCount where rowStarts[row + 1] > rowStarts[row] { covered += 1 }
        // The transpose: rows of each term, ascending.
        var termStarts = [Int](repeating: 0, count: termNames.count + 1)
        for term in rowTerms { termStarts[Int(term) + 1] += 1 }
        for term in 0..<termNames.count { termStarts[term + 1] += termStarts[term] }
        var fill = termStarts
        var termRows = [Int32](repeating: 0, count: rowTerms.count)
        var termValues = [Float](repeating: 0, count: rowTerms.count)
        for row in 0..<rowCount {
            let entries = rowStarts[row]..<rowStarts[row + 1]
            let norm = explicitRowValues.isEmpty ? Self.norm(of: rowTerms[entries], inverseFrequencies) : 0
            for position in entries {
                let term = Int(rowTerms[position])
                termRows[fill[term]] = Int32(row)
                termValues[fill[term]] =
                    explicitRowValues.isEmpty ? inverseFrequencies[term] / norm : explicitRowValues[position]
                fill[term] += 1
            }
        }
        termCount = termNames.count
        self.termNames = termNames
        coveredRowCount = covered
        self.rowStarts = rowStarts.map { UInt32(truncatingIfNeeded: $0) }
        self.rowTerms = rowTerms
        self.explicitRowValues = explicitRowValues
        self.inverseFrequencies = inverseFrequencies
        self.termStarts = termStarts
        self.termRows = termRows
        self.termValues = termValues
    }

    /// The number of rows.
    public var rowCount: Int { rowStarts.count - 1 }

    /// The length of the TF-IDF vector of a row with `terms`: each term weighs its inverse
    /// frequency before the row is scaled to unit length.
    private static func norm(of terms: ArraySlice<Int32>, _ inverseFrequencies: [Float]) -> Float {
        terms.reduce(Float(0)) { $0 + inverseFrequencies[Int($1)] * inverseFrequencies[Int($1)] }.squareRoot()
    }

    /// The positions of `row`'s entries in ``rowTerms``.
    func entries(ofRow row: Int) -> Range<Int> { Int(rowStarts[row])..<Int(rowStarts[row + 1]) }

    /// The value of each entry of `row` (``entries(ofRow:)``), the very floats the term-wise copy holds.
    func values(ofRow row: Int) -> [Float] {
        let entries = entries(ofRow: row)
        guard explicitRowValues.isEmpty else { return Array(explicitRowValues[entries]) }
        let norm = Self.norm(of: rowTerms[entries], inverseFrequencies)
        return entries.map { inverseFrequencies[Int(rowTerms[$0])] / norm }
    }

    /// The term `row` shares with any of `others` that weighs most in `row`'s vector (ties by
    /// term text), or `nil` when they share none.
    func strongestSharedTerm(of row: Int, with others: [Int]) -> String? {
        var theirs = Set<Int32>()
        for other in others { theirs.formUnion(rowTerms[entries(ofRow: other)]) }
        var best: (value: Float, name: String)?
        for (position, value) in zip(entries(ofRow: row), values(ofRow: row)) where theirs.contains(rowTerms[position])
        {
            let name = termNames[Int(rowTerms[position])]
            if best.map({ value > $0.value || (value == $0.value && name < $0.name) }) ?? true { best = (value, name) }
        }
        return best?.name
    }

    /// The unit-length mean of the vectors of `rows`, as (term, value) pairs sorted by term; empty
    /// when none of them has a term.
    func query(rows: [Int]) -> [(term: Int32, value: Float)] {
        var sums: [Int32: Float] = [:]
        for row in rows {
            for (position, value) in zip(entries(ofRow: row), values(ofRow: row)) {
                sums[rowTerms[position], default: 0] += value
            }
        }
        // Summed in term order, not the dictionary's (which differs from process to process), so
        // the same query gives the same bits every run.
        let sorted = sums.sorted { $0.key < $1.key }
        let norm = sorted.reduce(Float(0)) { $0 + $1.value * $1.value }.squareRoot()
        guard norm > 0 else { return [] }
        return sorted.map { ($0.key, $0.value / norm) }
    }

    /// Adds `weight` × the cosine of `query` with every row to `scores` (one per row).
    ///
    /// - Complexity: O(the entries of the query's terms), never O(*n* · terms).
    func addSimilarities(of query: [(term: Int32, value: Float)], weight: Float, to scores: inout [Float]) {
        for (term, value) in query {
            let factor = weight * value
            for position in termStarts[Int(term)]..<termStarts[Int(term) + 1] {
                scores[Int(termRows[position])] += factor * termValues[position]
            }
        }
    }
}
