/// What one vibe sounds like, in words and in numbers.
///
/// The Analytics library's `VibeNames` makes one per cluster of a run; the store keeps its words
/// and numbers with the run (`ClusterRecord`), and a report reads them back.
public struct VibeProfile: Hashable, Sendable, Codable {
    /// The cluster index in the model.
    public var cluster: Int
    /// A human name, distinct within the run, such as "Calm acoustic" or "Euphoric dance".
    public var name: String
    /// The valence–energy quadrant.
    public var mood: Mood
    /// The number of tracks.
    public var size: Int
    /// The share of the clustered tracks, from 0 to 1.
    public var share: Double
    /// The mean of every audio feature over the members, in original units, keyed by wire name.
    public var means: [String: Double]
    /// How far each mean lies from the library mean, in library standard deviations.
    public var zScores: [String: Double]
    /// How far each mean lies from the mean of the fixed reference population, in its standard
    /// deviations; empty when not known (a profile read back from the store).
    public var referenceZScores: [String: Double]
    /// The features that set the vibe apart, strongest first (|z| ≥ 0.25), such as `acousticness`.
    public var distinguishingFeatures: [String]

    public init(
        cluster: Int,
        name: String,
        mood: Mood,
        size: Int,
        share: Double,
        means: [String: Double],
        zScores: [String: Double],
        referenceZScores: [String: Double] = [:],
        distinguishingFeatures: [String] = []
    ) {
        self.cluster = cluster
        self.name = name
        self.mood = mood
        self.size = size
        self.share = share
        self.means = means
        self.zScores = zScores
        self.referenceZScores = referenceZScores
        self.distinguishingFeatures = distinguishingFeatures
    }

    enum CodingKeys: String, CodingKey {
        case cluster, name, mood, size, share, means
        case zScores = "z_scores"
        case referenceZScores = "reference_z_scores"
        case distinguishingFeatures = "distinguishing_features"
    }
}
