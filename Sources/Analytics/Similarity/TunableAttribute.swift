import Features

/// One of the fourteen attributes of Spotify's recommendations endpoint, by its wire name.
///
/// Twelve are audio features; `duration_ms` and `popularity` are track metadata. Use the raw value
/// after `min_`, `max_` or `target_` to get Spotify's parameter names.
public enum TunableAttribute: String, CaseIterable, Sendable, Codable, Hashable {
    case acousticness, danceability
    case durationMS = "duration_ms"
    case energy, instrumentalness, key, liveness, loudness, mode, popularity, speechiness, tempo
    case timeSignature = "time_signature"
    case valence

    /// The audio feature this attribute reads, or `nil` for track metadata.
    public var audioFeature: AudioFeature? {
        switch self {
        case .durationMS, .popularity: nil
        case .timeSignature: .timeSignature
        default: AudioFeature(rawValue: rawValue)
        }
    }

    /// The values a bound or target may take (Spotify's documented ranges, loosened where real data
    /// strays outside them).
    public var acceptedRange: ClosedRange<Double> {
        switch self {
        case .durationMS: 0...86_400_000
        case .popularity: 0...100
        case .key: 0...11
        case .mode: 0...1
        case .tempo: 0...300
        case .timeSignature: 0...11
        case .loudness: -60...10
        default: 0...1
        }
    }

    /// The width used to turn a distance to a target into a 0…1 penalty.
    var targetSpan: Double {
        switch self {
        case .durationMS: 300_000
        case .popularity: 100
        case .key: 6  // circular: the farthest key is 6 semitones away
        case .tempo: 60
        case .timeSignature: 4
        case .loudness: 20
        default: 1
        }
    }
}
