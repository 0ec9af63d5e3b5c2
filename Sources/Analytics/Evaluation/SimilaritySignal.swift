/// What a similarity space is computed from.
///
/// Every ``SimilaritySpace`` declares its signals, so that an evaluation against a label can refuse a
/// space that uses that label or anything derived from it (see ``EvaluationLabel/derivedSignals``).
public enum SimilaritySignal: String, CaseIterable, Codable, Hashable, Sendable {
    /// The audio features of the track (danceability, energy, tempo, …).
    case audioFeatures = "audio_features"
    /// Who the track is by: shared or related artists.
    case artistIdentity = "artist_identity"
    /// Genre tags of the track or its artists.
    case genreTags = "genre_tags"
    /// Subgenre tags of the track or its artists.
    case subgenreTags = "subgenre_tags"
    /// Which playlists the track shares with others.
    case playlistMembership = "playlist_membership"
}
