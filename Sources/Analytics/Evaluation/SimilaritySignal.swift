/// What a similarity space is computed from.
///
/// Every ``SimilaritySpace`` declares its signals, so that an evaluation against a label can refuse a
/// space that uses that label or anything derived from it (see ``EvaluationLabel/derivedSignals``).
public enum SimilaritySignal: String, CaseIterable, Codable, Hashable, Sendable {
    /// The audio features of the track (danceability, energy, tempo, …).
    case audioFeatures = "audio_features"
    /// Who the track is by: shared or related artists.
    case artistIdentity = "artist_identity"
    /// Genre tags given with the track by a dataset or a playlist export (`genre` tags), such as
    /// tidytuesday's `playlist_genre`, which is the genre of the playlist the track came from.
    case genreTags = "genre_tags"
    /// Genres of the track's artists, from Spotify (`sync`) or an Exportify `Genres` column
    /// (`artist-genre` tags): set per artist, never per playlist.
    case artistGenreTags = "artist_genre_tags"
    /// Subgenre tags of the track or its artists.
    case subgenreTags = "subgenre_tags"
    /// Which playlists the track shares with others.
    case playlistMembership = "playlist_membership"
    /// The tags a music tagger heard in the track's audio (`audio-tag` tags, from `analyze`).
    case audioTags = "audio_tags"
    /// What a music tagger's penultimate layer heard in the track's audio (from `analyze`).
    case audioEmbedding = "audio_embedding"
}
