/// The mood of a vibe: the quadrant of Russell's circumplex its centroid falls in, with valence as
/// pleasantness and energy as arousal, both measured against a fixed reference population (the
/// Analytics library's `VibeNames.referencePopulation`), so that calm music is calm in any library.
///
/// The raw value is the wire form, in the store's `clustering_clusters.mood` and in every JSON
/// output, such as `calm/content`.
public enum Mood: String, CaseIterable, Hashable, Sendable, Codable {
    /// Pleasant and aroused: happy, energetic.
    case happy = "happy/energetic"
    /// Pleasant and calm: calm, content.
    case calm = "calm/content"
    /// Unpleasant and calm: sad, melancholic.
    case sad = "sad/melancholic"
    /// Unpleasant and aroused: tense, angry.
    case tense = "tense/angry"

    /// The mood of a centroid with valence and energy z-scores `valence` and `energy`.
    public init(valence: Double, energy: Double) {
        switch (valence >= 0, energy >= 0) {
        case (true, true): self = .happy
        case (true, false): self = .calm
        case (false, false): self = .sad
        case (false, true): self = .tense
        }
    }

    /// The mood of a vibe from its valence and energy z-scores, reading soft, very quiet music as
    /// calm.
    ///
    /// Spotify's valence rates music without lyrics or strong harmonic cues low: ambient, classical
    /// and lo-fi collections average 0.07–0.31 on the reference population, beside sad songs. So a
    /// vibe of very low energy (z ≤ −1) that is soft (acousticness or instrumentalness z ≥ 0.5)
    /// is calm whatever its valence; otherwise the circumplex quadrant decides.
    ///
    /// - Parameter softness: The larger of the vibe's acousticness and instrumentalness z-scores.
    public init(valence: Double, energy: Double, softness: Double) {
        if energy <= -1, softness >= 0.5, valence < 0 {
            self = .calm
        } else {
            self.init(valence: valence, energy: energy)
        }
    }
}
