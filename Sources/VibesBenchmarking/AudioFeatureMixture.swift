import Analytics
import Features

/// A Gaussian mixture over raw audio features, fitted to a real library: what synthetic libraries
/// for benchmarking are drawn from.
///
/// Each component stands for one kind of track in the library it was fitted to. It has a weight
/// (its share of tracks), a mean and a standard deviation for every continuous feature in the
/// feature's own unit (independent within the component; the correlations between features come
/// from the mixture), the probability of a major key, and a probability for each of the twelve
/// pitch classes.
///
/// ``fit(to:componentCount:seed:)`` fits one with k-means: the components are the clusters of the
/// library's z-scored default features. ``tidyTuesdaySample`` was fitted to the bundled sample
/// library, `samples/tidytuesday-sample.csv`.
///
/// ```swift
/// let library = SyntheticLibrary(mixture: .tidyTuesdaySample)
/// let matrix = await library.makeMatrix(rowCount: 1_000_000, seed: 42)
/// ```
public struct AudioFeatureMixture: Hashable, Sendable, Codable {
    /// One kind of track.
    public struct Component: Hashable, Sendable, Codable {
        /// The share of tracks drawn from this component, in 0…1; the weights of a mixture sum to 1.
        public var weight: Double
        /// The mean of each feature of ``AudioFeatureMixture/continuousFeatures``, in that order and
        /// in the feature's own unit (dB for loudness, BPM for tempo).
        public var means: [Double]
        /// The standard deviation of each feature of ``AudioFeatureMixture/continuousFeatures``.
        public var standardDeviations: [Double]
        /// The probability that a track is in a major key (mode 1), in 0…1.
        public var majorProbability: Double
        /// The probability of each pitch class, 0 (C) to 11 (B); they sum to 1.
        public var keyProbabilities: [Double]

        public init(
            weight: Double,
            means: [Double],
            standardDeviations: [Double],
            majorProbability: Double,
            keyProbabilities: [Double]
        ) {
            precondition(
                means.count == AudioFeatureMixture.continuousFeatures.count
                    && standardDeviations.count == means.count,
                "A component needs a mean and a deviation for each of the \(AudioFeatureMixture.continuousFeatures.count) continuous features."
            )
            precondition(
                keyProbabilities.count == 12,
                "A component needs a probability for each of the 12 pitch classes."
            )
            self.weight = weight
            self.means = means
            self.standardDeviations = standardDeviations
            self.majorProbability = majorProbability
            self.keyProbabilities = keyProbabilities
        }
    }

    /// The components; at least one, with weights that sum to 1.
    public var components: [Component]

    /// Creates a mixture of `components`.
    public init(components: [Component]) {
        precondition(!components.isEmpty, "A mixture needs at least one component.")
        self.components = components
    }

    /// The features modelled as clipped normal distributions, in the order of
    /// ``Component/means``: the default schema's features except mode, which is a coin flip per
    /// component, and key, which is drawn from twelve probabilities.
    public static let continuousFeatures: [AudioFeature] = [
        .danceability, .energy, .valence, .acousticness, .instrumentalness, .speechiness, .liveness, .loudness,
        .tempo,
    ]

    /// The range a drawn value is clipped to: 0…1 for the 0–1 features, −60…0 dB for loudness and
    /// 50…220 BPM for tempo (the range where real tempo estimates fall; below 50 they are mostly
    /// detection failures).
    public static func clippingRange(of feature: AudioFeature) -> ClosedRange<Double> {
        switch feature {
        case .loudness: -60...0
        case .tempo: 50...220
        default: feature.documentedRange
        }
    }
}
