/// The terms of each row of a sparse similarity block (tags, playlists), numbered, as a store keeps
/// them: everything else of the block (document frequencies, TF-IDF weights, unit-length rows and
/// the term-wise transpose) follows from them.
///
/// Row *r*'s terms are `rowTerms[rowStarts[r]..<rowStarts[r + 1]]`, strictly ascending; a term is
/// an index into ``termNames``.
public struct SparseTermRows: Hashable, Sendable {
    /// What the block is made of, as its wire name (such as `tags` or `co_membership`).
    public var kind: String
    /// The signals its terms come from, as their wire names, sorted.
    public var signals: [String]
    /// The text of each term, by term number.
    public var termNames: [String]
    /// Where each row's terms start in ``rowTerms``, and where the last ends: one more than the
    /// number of rows.
    public var rowStarts: [Int]
    /// The terms of every row, end to end.
    public var rowTerms: [Int32]

    public init(kind: String, signals: [String], termNames: [String], rowStarts: [Int], rowTerms: [Int32]) {
        self.kind = kind
        self.signals = signals
        self.termNames = termNames
        self.rowStarts = rowStarts
        self.rowTerms = rowTerms
    }

    /// The number of rows.
    public var rowCount: Int { max(0, rowStarts.count - 1) }

    /// Whether the arrays fit together: the row starts rise from 0 to the end of ``rowTerms``, and
    /// each row's terms ascend strictly and name a term of ``termNames``. A damaged store can hold
    /// any bytes; rows that do not fit are refused, not trusted.
    ///
    /// - Complexity: O(*n* + *e*) for *n* rows and *e* row–term pairs.
    public var isConsistent: Bool {
        guard rowStarts.first == 0, rowStarts.last == rowTerms.count else { return false }
        let termCount = Int32(clamping: termNames.count)
        for row in 0..<rowCount {
            let (start, end) = (rowStarts[row], rowStarts[row + 1])
            guard start <= end else { return false }
            var previous: Int32 = -1
            for position in start..<end {
                let term = rowTerms[position]
                guard term > previous, term < termCount else { return false }
                previous = term
            }
        }
        return true
    }
}
