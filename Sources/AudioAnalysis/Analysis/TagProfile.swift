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

    init(energy: Double, danceability: Double, valence: Double, acousticness: Double) {
        self.energy = energy
        self.danceability = danceability
        self.valence = valence
        self.acousticness = acousticness
    }

    /// Energy, danceability, valence and acousticness, in this order.
    private init(_ energy: Double, _ danceability: Double, _ valence: Double, _ acousticness: Double) {
        self.init(energy: energy, danceability: danceability, valence: valence, acousticness: acousticness)
    }

    /// The profiles by MSD tag: energy, danceability, valence, acousticness.
    static let byTag: [String: TagProfile] = [
        // Genres (2024: the 2024 dataset's playlist genre; tidy: TidyTuesday's subgenre or genre).
        "rock": TagProfile(0.78, 0.55, 0.58, 0.03),  // 2024 rock
        "alternative": TagProfile(0.75, 0.54, 0.54, 0.03),  // tidy permanent wave
        "alternative rock": TagProfile(0.75, 0.54, 0.54, 0.03),  // tidy permanent wave
        "indie rock": TagProfile(0.75, 0.54, 0.54, 0.03),  // tidy permanent wave
        "classic rock": TagProfile(0.72, 0.55, 0.62, 0.10),  // tidy classic rock
        "Progressive rock": TagProfile(0.69, 0.53, 0.53, 0.11),  // tidy album rock
        "hard rock": TagProfile(0.88, 0.49, 0.47, 0.00),  // tidy hard rock
        "metal": TagProfile(0.90, 0.43, 0.41, 0.00),  // 2024 metal
        "heavy metal": TagProfile(0.90, 0.43, 0.41, 0.00),  // 2024 metal
        "punk": TagProfile(0.89, 0.47, 0.61, 0.01),  // 2024 punk
        "pop": TagProfile(0.70, 0.66, 0.56, 0.10),  // 2024 pop
        "indie": TagProfile(0.67, 0.64, 0.45, 0.11),  // tidy indie poptimism
        "indie pop": TagProfile(0.67, 0.64, 0.45, 0.11),  // tidy indie poptimism
        "electronic": TagProfile(0.69, 0.64, 0.35, 0.15),  // 2024 electronic
        "electronica": TagProfile(0.69, 0.64, 0.35, 0.15),  // 2024 electronic
        "electro": TagProfile(0.83, 0.71, 0.40, 0.02),  // tidy electro house
        "dance": TagProfile(0.83, 0.66, 0.37, 0.02),  // tidy edm
        "House": TagProfile(0.84, 0.65, 0.35, 0.01),  // tidy progressive electro house
        "Hip-Hop": TagProfile(0.66, 0.77, 0.52, 0.14),  // 2024 hip-hop
        "rnb": TagProfile(0.55, 0.65, 0.51, 0.24),  // 2024 r&b
        "soul": TagProfile(0.51, 0.61, 0.49, 0.44),  // 2024 soul
        "funk": TagProfile(0.84, 0.71, 0.67, 0.00),  // 2024 funk
        "jazz": TagProfile(0.41, 0.69, 0.47, 0.57),  // 2024 jazz
        "blues": TagProfile(0.49, 0.62, 0.40, 0.33),  // 2024 blues
        "folk": TagProfile(0.41, 0.57, 0.41, 0.69),  // 2024 folk
        "country": TagProfile(0.42, 0.61, 0.66, 0.53),  // 2024 country
        "chillout": TagProfile(0.28, 0.67, 0.30, 0.80),  // 2024 lofi
        "chill": TagProfile(0.28, 0.67, 0.30, 0.80),  // 2024 lofi
        // Ambient as the calm instrumental music of the 2024 dataset: the medians over its
        // classical and wellness genres together (201 tracks); its own "ambient" playlists are
        // mostly soft pop. MSD has no classical tag: the tagger hears orchestras as ambient.
        "ambient": TagProfile(0.03, 0.18, 0.07, 0.97),
        // Moods and instrumentation.
        "acoustic": TagProfile(0.41, 0.57, 0.41, 0.69),  // as folk
        "guitar": TagProfile(0.49, 0.62, 0.40, 0.33),  // as blues
        "Mellow": TagProfile(0.41, 0.69, 0.47, 0.57),  // as jazz
        "easy listening": TagProfile(0.41, 0.69, 0.47, 0.57),  // as jazz
        "beautiful": TagProfile(0.41, 0.57, 0.41, 0.69),  // as folk
        "party": TagProfile(0.83, 0.66, 0.37, 0.02),  // as dance
        "catchy": TagProfile(0.70, 0.66, 0.56, 0.10),  // as pop
        "sexy": TagProfile(0.55, 0.65, 0.51, 0.24),  // as rnb
    ]
}
