/// One of the twelve audio features that Spotify's audio-features object carries.
///
/// The raw values are the wire names used by the Spotify Web API and by the CSV datasets
/// built from it, so `AudioFeature(rawValue: "time_signature")` reads a column header directly.
/// Ranges are the documented ones; real data strays outside them (loudness of +1.3 dB, tempo 0),
/// and such values are kept but flagged (see ``AudioFeatures/outOfRangeFeatures``).
public enum AudioFeature: String, CaseIterable, Codable, Hashable, Sendable {
    /// How suitable a track is for dancing, from 0.0 (least danceable) to 1.0 (most danceable).
    case danceability
    /// A perceptual measure of intensity and activity, from 0.0 to 1.0.
    case energy
    /// The estimated key as a pitch class (0 = C, 1 = C♯/D♭, … 11 = B); −1 means no key was detected.
    case key
    /// The overall loudness in decibels (LUFS-like), typically −60 dB to 0 dB.
    case loudness
    /// The modality: 1 is major, 0 is minor.
    case mode
    /// The presence of spoken words, from 0.0 to 1.0; above 0.66 is probably entirely spoken.
    case speechiness
    /// A confidence from 0.0 to 1.0 that the track is acoustic.
    case acousticness
    /// The likelihood, from 0.0 to 1.0, that the track contains no vocals.
    case instrumentalness
    /// The likelihood, from 0.0 to 1.0, that the track was performed live.
    case liveness
    /// The musical positiveness, from 0.0 (sad, angry) to 1.0 (happy, euphoric).
    case valence
    /// The estimated tempo in beats per minute. A tempo of 0 means that no tempo was detected.
    case tempo
    /// The estimated meter as beats per bar, documented from 3 to 7 (3/4 to 7/4).
    case timeSignature = "time_signature"
}

// MARK: - Documented ranges and units

extension AudioFeature {
    /// The documented range of the feature, in its own unit.
    public var documentedRange: ClosedRange<Double> {
        switch self {
        case .key: -1...11
        case .loudness: -60...0
        case .mode: 0...1
        case .tempo: 1...300
        case .timeSignature: 3...7
        default: 0...1
        }
    }

    /// The range a value must lie in to be stored at all, wider than ``documentedRange`` because
    /// real data strays outside that (loudness of +1.3 dB, tempo 0, time signature 0 or 1).
    ///
    /// A value outside it (or not finite, or not whole for a discrete feature) is not a measurement:
    /// importers refuse it with its place in the file, or keep it as missing with `--skip-invalid`;
    /// the feature table reads it as missing. The bounds:
    ///
    /// | feature | valid range |
    /// |---|---|
    /// | danceability, energy, speechiness, acousticness, instrumentalness, liveness, valence | 0 … 1 |
    /// | key | −1 … 11, whole |
    /// | mode | 0 … 1, whole |
    /// | loudness | −100 … 20 dB |
    /// | tempo | 0 … 1000 BPM |
    /// | time_signature | 0 … 16, whole |
    public var validRange: ClosedRange<Double> {
        switch self {
        case .key: -1...11
        case .loudness: -100...20
        case .mode: 0...1
        case .tempo: 0...1000
        case .timeSignature: 0...16
        default: 0...1
        }
    }

    /// Whether `value` may be stored for this feature: finite, inside ``validRange``, and whole
    /// for a discrete feature.
    @inlinable
    public func isValid(_ value: Double) -> Bool {
        validRange.contains(value) && (!isDiscrete || value == value.rounded())
    }

    /// The valid range as text for messages, such as `0 to 1` or `-1 to 11 (whole numbers)`.
    public var validRangeDescription: String {
        func text(_ bound: Double) -> String { bound == bound.rounded() ? String(Int(bound)) : String(bound) }
        return "\(text(validRange.lowerBound)) to \(text(validRange.upperBound))"
            + (isDiscrete ? " (whole numbers)" : unit == "0–1" ? "" : " \(unit)")
    }

    /// The unit of the feature's values, for display.
    public var unit: String {
        switch self {
        case .loudness: "dB"
        case .tempo: "BPM"
        case .key: "pitch class"
        case .mode: "major=1"
        case .timeSignature: "beats/bar"
        default: "0–1"
        }
    }

    /// Whether the feature takes whole-number values (key, mode, time signature).
    public var isDiscrete: Bool {
        switch self {
        case .key, .mode, .timeSignature: true
        default: false
        }
    }

    /// Whether a value is a sentinel meaning "not measured" rather than a measurement.
    ///
    /// A key of −1 means no key was detected and a tempo of 0 (or below 1 BPM) means no tempo was
    /// detected; analysis treats both as missing, never as "very slow" or "C minus one".
    public func isMissingSentinel(_ value: Double) -> Bool {
        switch self {
        case .key: value == -1
        case .tempo: value < 1
        default: false
        }
    }

    /// All features in declaration order, allocated once (`allCases` builds a new array per call).
    public static let all: [AudioFeature] = allCases

    /// The features whose values lie in 0…1 and are written as 0–100 integers by some datasets.
    public static let unitIntervalFeatures: [AudioFeature] = [
        .danceability, .energy, .speechiness, .acousticness, .instrumentalness, .liveness, .valence,
    ]
}

// MARK: - Key names

extension AudioFeature {
    /// The names of Spotify's twelve pitch classes, 0 (C) to 11 (B), in the spellings of the
    /// usual key signatures: C, C♯, D, E♭, E, F, F♯, G, A♭, A, B♭, B. Every module displays keys
    /// with this one table.
    public static let pitchClassNames = ["C", "C♯", "D", "E♭", "E", "F", "F♯", "G", "A♭", "A", "B♭", "B"]

    /// The name of a pitch class, such as `E♭` for 3; a value outside 0…11 is taken modulo 12
    /// (after rounding), so bin edges and averages name their nearest key.
    public static func pitchClassName(of pitchClass: Double) -> String {
        guard pitchClass.isFinite else { return "?" }
        let rounded = Int(pitchClass.rounded().truncatingRemainder(dividingBy: 12))
        return pitchClassNames[(rounded + 12) % 12]
    }
}
