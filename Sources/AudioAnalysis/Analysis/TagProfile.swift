/// What Spotify's values typically are for music that carries a tag of the MSD tagger.
///
/// Each genre tag's profile is the median of Spotify's own values over the tracks of the matching
/// playlist genre in two public datasets (`spotify-music-dataset-2024`, 4,831 tracks in 34 genres,
/// and TidyTuesday 2020-01-21, 32,833 tracks in 24 subgenres; the source is named beside each
/// row). A mood or instrumentation tag with no playlist genre of its own (acoustic, Mellow, happy,
/// …) has the profile of the genre it most stands for, named beside it. Tags that say nothing
/// about these four features (decades, vocalists, experimental, instrumental) have none, nor do
/// happy and sad, which move valence alone (`FeatureEstimator`).
struct TagProfile: Sendable {
    var energy: Double
    var danceability: Double
    var valence: Double
    var acousticness: Double

    /// The profiles by MSD tag.
    static let byTag: [String: TagProfile] = [
        // Genres (2024: the 2024 dataset's playlist genre; tidy: TidyTuesday's subgenre or genre).
        "rock": TagProfile(energy: 0.78, danceability: 0.55, valence: 0.58, acousticness: 0.03),  // 2024 rock
        "alternative": TagProfile(energy: 0.75, danceability: 0.54, valence: 0.54, acousticness: 0.03),  // tidy permanent wave
        "alternative rock": TagProfile(energy: 0.75, danceability: 0.54, valence: 0.54, acousticness: 0.03),  // tidy permanent wave
        "indie rock": TagProfile(energy: 0.75, danceability: 0.54, valence: 0.54, acousticness: 0.03),  // tidy permanent wave
        "classic rock": TagProfile(energy: 0.72, danceability: 0.55, valence: 0.62, acousticness: 0.10),  // tidy classic rock
        "Progressive rock": TagProfile(energy: 0.69, danceability: 0.53, valence: 0.53, acousticness: 0.11),  // tidy album rock
        "hard rock": TagProfile(energy: 0.88, danceability: 0.49, valence: 0.47, acousticness: 0.00),  // tidy hard rock
        "metal": TagProfile(energy: 0.90, danceability: 0.43, valence: 0.41, acousticness: 0.00),  // 2024 metal
        "heavy metal": TagProfile(energy: 0.90, danceability: 0.43, valence: 0.41, acousticness: 0.00),  // 2024 metal
        "punk": TagProfile(energy: 0.89, danceability: 0.47, valence: 0.61, acousticness: 0.01),  // 2024 punk
        "pop": TagProfile(energy: 0.70, danceability: 0.66, valence: 0.56, acousticness: 0.10),  // 2024 pop
        "indie": TagProfile(energy: 0.67, danceability: 0.64, valence: 0.45, acousticness: 0.11),  // tidy indie poptimism
        "indie pop": TagProfile(energy: 0.67, danceability: 0.64, valence: 0.45, acousticness: 0.11),  // tidy indie poptimism
        "electronic": TagProfile(energy: 0.69, danceability: 0.64, valence: 0.35, acousticness: 0.15),  // 2024 electronic
        "electronica": TagProfile(energy: 0.69, danceability: 0.64, valence: 0.35, acousticness: 0.15),  // 2024 electronic
        "electro": TagProfile(energy: 0.83, danceability: 0.71, valence: 0.40, acousticness: 0.02),  // tidy electro house
        "dance": TagProfile(energy: 0.83, danceability: 0.66, valence: 0.37, acousticness: 0.02),  // tidy edm
        "House": TagProfile(energy: 0.84, danceability: 0.65, valence: 0.35, acousticness: 0.01),  // tidy progressive electro house
        "Hip-Hop": TagProfile(energy: 0.66, danceability: 0.77, valence: 0.52, acousticness: 0.14),  // 2024 hip-hop
        "rnb": TagProfile(energy: 0.55, danceability: 0.65, valence: 0.51, acousticness: 0.24),  // 2024 r&b
        "soul": TagProfile(energy: 0.51, danceability: 0.61, valence: 0.49, acousticness: 0.44),  // 2024 soul
        "funk": TagProfile(energy: 0.84, danceability: 0.71, valence: 0.67, acousticness: 0.00),  // 2024 funk
        "jazz": TagProfile(energy: 0.41, danceability: 0.69, valence: 0.47, acousticness: 0.57),  // 2024 jazz
        "blues": TagProfile(energy: 0.49, danceability: 0.62, valence: 0.40, acousticness: 0.33),  // 2024 blues
        "folk": TagProfile(energy: 0.41, danceability: 0.57, valence: 0.41, acousticness: 0.69),  // 2024 folk
        "country": TagProfile(energy: 0.42, danceability: 0.61, valence: 0.66, acousticness: 0.53),  // 2024 country
        "chillout": TagProfile(energy: 0.28, danceability: 0.67, valence: 0.30, acousticness: 0.80),  // 2024 lofi
        "chill": TagProfile(energy: 0.28, danceability: 0.67, valence: 0.30, acousticness: 0.80),  // 2024 lofi
        // Ambient as the calm instrumental music of the 2024 dataset: the medians over its
        // classical and wellness genres together (201 tracks); its own "ambient" playlists are
        // mostly soft pop. MSD has no classical tag: the tagger hears orchestras as ambient.
        "ambient": TagProfile(energy: 0.03, danceability: 0.18, valence: 0.07, acousticness: 0.97),
        // Moods and instrumentation.
        "acoustic": TagProfile(energy: 0.41, danceability: 0.57, valence: 0.41, acousticness: 0.69),  // as folk
        "guitar": TagProfile(energy: 0.49, danceability: 0.62, valence: 0.40, acousticness: 0.33),  // as blues
        "Mellow": TagProfile(energy: 0.41, danceability: 0.69, valence: 0.47, acousticness: 0.57),  // as jazz
        "easy listening": TagProfile(energy: 0.41, danceability: 0.69, valence: 0.47, acousticness: 0.57),  // as jazz
        "beautiful": TagProfile(energy: 0.41, danceability: 0.57, valence: 0.41, acousticness: 0.69),  // as folk
        "party": TagProfile(energy: 0.83, danceability: 0.66, valence: 0.37, acousticness: 0.02),  // as dance
        "catchy": TagProfile(energy: 0.70, danceability: 0.66, valence: 0.56, acousticness: 0.10),  // as pop
        "sexy": TagProfile(energy: 0.55, danceability: 0.65, valence: 0.51, acousticness: 0.24),  // as rnb
    ]
}
