/// What recommendations group and filter tracks by, one compact column each, in the rows of a
/// feature table: the main artist and the song as integer codes, the duration and the popularity.
///
/// Equal codes are the same artist (the folded main artist) or the same song (the folded
/// "artist␟title" of ``Track/songKey(artist:title:)``, shared by a song's single, album and
/// compilation releases); codes mean nothing across two values of this type. Codes rather than
/// strings: on a million tracks, decoding the names, artists and song keys of every track and
/// freeing them again took most of a `recommend` (about 0.6 s of 2.6 s), where these columns are
/// 14 bytes a track read straight from the `facts` snapshot.
public struct TrackAttributeColumns: Sendable, Equatable {
    /// The code of each row's main artist, or −1 when unknown.
    public private(set) var artistCodes: [Int32]
    /// The code of each row's song, or −1 for a track without a title.
    public private(set) var songCodes: [Int32]
    /// Each row's duration in milliseconds, or −1 when unknown or outside
    /// ``Track/validDurationMS``.
    public private(set) var durationMS: [Int32]
    /// Each row's popularity, 0–100, or −1 when unknown.
    public private(set) var popularity: [Int8]

    /// The number of rows.
    public var count: Int { artistCodes.count }

    /// - Parameters: one entry per row each; out-of-range durations and popularity become unknown.
    public init(artistCodes: [Int32], songCodes: [Int32], durationMS: [Int32], popularity: [Int8]) {
        precondition(
            [songCodes.count, durationMS.count, popularity.count].allSatisfy { $0 == artistCodes.count },
            "one entry per row in every column"
        )
        self.artistCodes = artistCodes
        self.songCodes = songCodes
        self.durationMS = durationMS.map { Track.validDurationMS.contains(Int($0)) ? $0 : -1 }
        self.popularity = popularity.map { (0...100).contains($0) ? $0 : -1 }
    }

    /// Columns of `count` rows with nothing known.
    public init(unknownCount count: Int) {
        artistCodes = [Int32](repeating: -1, count: count)
        songCodes = artistCodes
        durationMS = artistCodes
        popularity = [Int8](repeating: -1, count: count)
    }

    /// Interns keys into codes: equal non-empty keys get equal codes, in order of first
    /// appearance; `nil` and "" get −1.
    public struct Interner {
        private var codes: [String: Int32] = [:]

        public init() {}

        /// The code of `key`.
        public mutating func code(_ key: String?) -> Int32 {
            guard let key, !key.isEmpty else { return -1 }
            if let known = codes[key] { return known }
            let next = Int32(codes.count)
            codes[key] = next
            return next
        }
    }

    /// The duration of `row` in milliseconds, or `nil`.
    public func duration(row: Int) -> Int? { durationMS[row] < 0 ? nil : Int(durationMS[row]) }

    /// The popularity of `row`, or `nil`.
    public func popularity(row: Int) -> Int? { popularity[row] < 0 ? nil : Int(popularity[row]) }

    /// Keeps only the rows `rows` (ascending), moving them down in place: no copy when the columns'
    /// storage is not shared.
    ///
    /// - Precondition: `rows` ascend and are rows of the columns.
    public mutating func keepRows(_ rows: [Int32]) {
        let count = artistCodes.count
        precondition(rows.last.map { Int($0) < count } ?? true, "rows of the columns")
        guard rows.count < count else { return }
        func compact<T>(_ column: inout [T]) {
            column.withUnsafeMutableBufferPointer { column in
                for (target, row) in rows.enumerated() { column[target] = column[Int(row)] }
            }
            column.removeLast(count - rows.count)
        }
        var previous: Int32 = -1
        for row in rows {
            precondition(row > previous, "ascending rows")
            previous = row
        }
        compact(&artistCodes)
        compact(&songCodes)
        compact(&durationMS)
        compact(&popularity)
    }

    /// The columns of `rows`, in that order.
    public func selecting(rows: [Int32]) -> TrackAttributeColumns {
        var result = TrackAttributeColumns(unknownCount: 0)
        result.artistCodes = rows.map { artistCodes[Int($0)] }
        result.songCodes = rows.map { songCodes[Int($0)] }
        result.durationMS = rows.map { durationMS[Int($0)] }
        result.popularity = rows.map { popularity[Int($0)] }
        return result
    }
}
