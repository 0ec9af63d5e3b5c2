/// One vibe of a clustering run: its profile and its centre.
///
/// The Analytics library's `VibeClustering` finds them; the store keeps each as a `ClusterRecord`.
public struct Vibe: Hashable, Sendable {
    /// The name, mood, size and feature profile.
    public var profile: VibeProfile
    /// The centre in the scaled space, one value per schema column.
    public var centroidScaled: [Float]
    /// The centre in the features' own units, by feature name.
    public var centroidOriginal: [String: Double]

    public init(profile: VibeProfile, centroidScaled: [Float], centroidOriginal: [String: Double]) {
        self.profile = profile
        self.centroidScaled = centroidScaled
        self.centroidOriginal = centroidOriginal
    }
}
