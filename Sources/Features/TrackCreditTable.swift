/// Who each track of a ``FeatureTable`` is by, and its genres, as small integer codes, row by
/// row: what per-vibe counts of top artists and genres need, without a name per track.
///
/// A library of a million tracks has a million credits but only some thousands of distinct
/// artists and genres; codes let a report count them per vibe in one pass and name only the few
/// it shows.
public struct TrackCreditTable: Sendable {
    /// Per row of the table, the code of its main artist in ``artistNames``, or −1 for none.
    public var mainArtists: [Int32]
    /// The artists' names, by code.
    public var artistNames: [String]
    /// Per row of the table, where its genres start in ``genres``; one more entry than rows, the
    /// last one being `genres.count`.
    public var genreStarts: [Int32]
    /// The genres of every row, row after row, as codes in ``genreNames``.
    public var genres: [Int32]
    /// The genres' names, by code.
    public var genreNames: [String]

    /// - Precondition: The codes are in range, and `genreStarts` rises from 0 to `genres.count`
    ///   with one more entry than `mainArtists`.
    public init(
        mainArtists: [Int32],
        artistNames: [String],
        genreStarts: [Int32],
        genres: [Int32],
        genreNames: [String]
    ) {
        precondition(genreStarts.count == mainArtists.count + 1, "One genre start per row, and one more.")
        precondition(genreStarts.last.map { Int($0) == genres.count } ?? false, "The last start ends the genres.")
        self.mainArtists = mainArtists
        self.artistNames = artistNames
        self.genreStarts = genreStarts
        self.genres = genres
        self.genreNames = genreNames
    }

    /// The genre codes of row `row`.
    public func genres(ofRow row: Int) -> ArraySlice<Int32> {
        genres[Int(genreStarts[row])..<Int(genreStarts[row + 1])]
    }
}
