/// The kind of label neighbours and clusters are graded against.
public enum EvaluationLabel: String, CaseIterable, Codable, Hashable, Sendable {
    /// A genre tag, such as tidytuesday's `playlist_genre`.
    case genre
    /// A subgenre tag, such as tidytuesday's `playlist_subgenre`.
    case subgenre
    /// Membership of an imported playlist.
    case playlist

    /// Reads a label kind as the command line writes it: `genre`, `subgenre` or `playlist`, or the
    /// dataset column names `playlist_genre` and `playlist_subgenre`.
    public init?(name: String) {
        let name = name.lowercased()
        switch name {
        case "playlist_genre": self = .genre
        case "playlist_subgenre": self = .subgenre
        default: self.init(rawValue: name)
        }
    }

    /// The similarity signals that are this label or are derived from it; a space that uses one of
    /// them cannot be graded on this label, because its figure would partly measure the label itself.
    ///
    /// The sets are deliberately wide. Subgenres nest inside genres, so either leaks the other. The
    /// genre and subgenre columns of the public datasets are given per playlist, so playlist
    /// membership leaks them, and they leak playlist membership in turn. Artist genres (from
    /// Spotify or Exportify) are genre tags in the same vocabulary, and a dataset's genre column may
    /// have been filled from them, so they leak genre and subgenre; they are set per artist, never
    /// per playlist, so they do not leak playlist membership. Audio features and artist identity
    /// are never derived from these labels.
    public var derivedSignals: Set<SimilaritySignal> {
        switch self {
        case .genre, .subgenre: [.genreTags, .subgenreTags, .artistGenreTags, .playlistMembership]
        case .playlist: [.genreTags, .subgenreTags, .playlistMembership]
        }
    }
}
