/// A track as a report or a playlist names it: its store ID, title and credited artists, its
/// genres, and where it can be played.
///
/// The store reads it (`LibraryStore.trackCredits(for:)`); the mood report names its tracks with it.
public struct TrackCredit: Hashable, Sendable {
    /// The store's track ID.
    public var id: Int64
    public var name: String
    /// The credited artists, main artist first.
    public var artists: [String]
    /// Its genres: the `artist-genre` tags (from Spotify or an Exportify export), else `genre`
    /// tags (a dataset's playlist genre), most specific first as stored.
    public var genres: [String]
    /// Its Spotify track ID, when it has a valid one.
    public var spotifyID: SpotifyID?
    /// The path of the audio file it was analysed from, if any.
    public var filePath: String?
    /// Its length in milliseconds, when known.
    public var durationMS: Int?

    public init(
        id: Int64,
        name: String,
        artists: [String],
        genres: [String] = [],
        spotifyID: SpotifyID? = nil,
        filePath: String? = nil,
        durationMS: Int? = nil
    ) {
        self.id = id
        self.name = name
        self.artists = artists
        self.genres = genres
        self.spotifyID = spotifyID
        self.filePath = filePath
        self.durationMS = durationMS
    }
}
