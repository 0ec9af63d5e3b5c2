import Features

extension VibeNames {
    /// The mean and population standard deviation of a feature in the reference population.
    public struct ReferenceStatistic: Hashable, Sendable {
        /// The mean, in the feature's own units.
        public var mean: Double
        /// The population standard deviation, in the feature's own units.
        public var deviation: Double
    }

    /// A fixed population a vibe's mood is measured against, besides the library itself: the
    /// Kaggle "Spotify music dataset 2024" (its high- and low-popularity files together, 4,494
    /// distinct tracks in 35 genres from ambient, classical, jazz and lo-fi to pop, rock, rap,
    /// latin and metal), Spotify's own features.
    ///
    /// Measured against the library alone, a calm library's calmest vibe is only "average", and a
    /// party library's mellowest vibe is "mellow". Measured against this population, calm music
    /// is calm in any library. A test recomputes these figures from the dataset when
    /// `../shared/data` is there.
    public static let referencePopulation: [AudioFeature: ReferenceStatistic] = [
        .danceability: .init(mean: 0.620488, deviation: 0.189443),
        .energy: .init(mean: 0.579485, deviation: 0.249894),
        .loudness: .init(mean: -9.48741, deviation: 7.2865),
        .mode: .init(mean: 0.56453, deviation: 0.495818),
        .speechiness: .init(mean: 0.100418, deviation: 0.100522),
        .acousticness: .init(mean: 0.351175, deviation: 0.328856),
        .instrumentalness: .init(mean: 0.212179, deviation: 0.359087),
        .liveness: .init(mean: 0.167819, deviation: 0.125168),
        .valence: .init(mean: 0.478801, deviation: 0.259616),
        .tempo: .init(mean: 118.275, deviation: 28.7027),
        .timeSignature: .init(mean: 3.93636, deviation: 0.410639),
    ]

    /// How far `mean` lies from the reference population's mean of `feature`, in its deviations.
    public static func referenceZScore(of mean: Double, for feature: AudioFeature) -> Double? {
        guard let reference = referencePopulation[feature], reference.deviation > 0 else { return nil }
        return (mean - reference.mean) / reference.deviation
    }

    /// The z-scores a vibe's mood and opening word are read from: valence, energy, acousticness
    /// and instrumentalness against the reference population, or against the library for a
    /// feature the reference lacks.
    ///
    /// Against the library, every library has its "energetic" and its "mellow" vibe, and a soft
    /// piano collection's less quiet half was named "Balanced" or "Upbeat". The words describe the
    /// music, so they are measured against music at large; what sets a vibe apart within the
    /// library is told by the words that follow (``descriptors``, against the library).
    static func moodZScores(library: [String: Double], reference: [String: Double]) -> [String: Double] {
        var chosen: [String: Double] = [:]
        for feature in [AudioFeature.valence, .energy, .acousticness, .instrumentalness] {
            chosen[feature.rawValue] = reference[feature.rawValue] ?? library[feature.rawValue]
        }
        return chosen
    }
}
