/// A mood word, placed on the valence–energy plane (Russell's circumplex, valence across, energy up).
public enum MoodWord: String, CaseIterable, Sendable, Codable {
    case calm, chill, content, happy, euphoric, energetic, angry, tense, sad, melancholic, dreamy

    /// The mood's point: (valence, energy), each 0…1.
    public var point: (valence: Double, energy: Double) {
        switch self {
        case .calm: (0.45, 0.2)
        case .chill: (0.55, 0.35)
        case .content: (0.7, 0.45)
        case .happy: (0.85, 0.7)
        case .euphoric: (0.8, 0.9)
        case .energetic: (0.6, 0.9)
        case .angry: (0.2, 0.9)
        case .tense: (0.3, 0.7)
        case .sad: (0.15, 0.3)
        case .melancholic: (0.25, 0.45)
        case .dreamy: (0.4, 0.3)
        }
    }
}
