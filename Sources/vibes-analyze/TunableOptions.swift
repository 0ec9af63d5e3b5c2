import Analytics
import ArgumentParser

/// Spotify's `min_*`, `max_*` and `target_*` parameters for the fourteen tunable attributes, as
/// `--min-energy`, `--max-tempo`, `--target-valence` and so on.
struct TunableOptions: ParsableArguments {
    @Option(name: .customLong("min-acousticness"), help: "Keep tracks with acousticness ≥ this (0–1).")
    var minAcousticness: Double?
    @Option(name: .customLong("max-acousticness"), help: "Keep tracks with acousticness ≤ this (0–1).")
    var maxAcousticness: Double?
    @Option(name: .customLong("target-acousticness"), help: "Prefer acousticness near this (0–1).")
    var targetAcousticness: Double?
    @Option(name: .customLong("min-danceability"), help: "Keep tracks with danceability ≥ this (0–1).")
    var minDanceability: Double?
    @Option(name: .customLong("max-danceability"), help: "Keep tracks with danceability ≤ this (0–1).")
    var maxDanceability: Double?
    @Option(name: .customLong("target-danceability"), help: "Prefer danceability near this (0–1).")
    var targetDanceability: Double?
    @Option(name: .customLong("min-duration-ms"), help: "Keep tracks at least this long (milliseconds).")
    var minDurationMS: Double?
    @Option(name: .customLong("max-duration-ms"), help: "Keep tracks at most this long (milliseconds).")
    var maxDurationMS: Double?
    @Option(name: .customLong("target-duration-ms"), help: "Prefer tracks about this long (milliseconds).")
    var targetDurationMS: Double?
    @Option(name: .customLong("min-energy"), help: "Keep tracks with energy ≥ this (0–1).") var minEnergy: Double?
    @Option(name: .customLong("max-energy"), help: "Keep tracks with energy ≤ this (0–1).") var maxEnergy: Double?
    @Option(name: .customLong("target-energy"), help: "Prefer energy near this (0–1).") var targetEnergy: Double?
    @Option(name: .customLong("min-instrumentalness"), help: "Keep tracks with instrumentalness ≥ this (0–1).")
    var minInstrumentalness: Double?
    @Option(name: .customLong("max-instrumentalness"), help: "Keep tracks with instrumentalness ≤ this (0–1).")
    var maxInstrumentalness: Double?
    @Option(name: .customLong("target-instrumentalness"), help: "Prefer instrumentalness near this (0–1).")
    var targetInstrumentalness: Double?
    @Option(name: .customLong("min-key"), help: "Keep tracks in pitch class ≥ this (0 = C … 11 = B).") var minKey:
        Double?
    @Option(name: .customLong("max-key"), help: "Keep tracks in pitch class ≤ this (0 = C … 11 = B).") var maxKey:
        Double?
    @Option(name: .customLong("target-key"), help: "Prefer keys near this pitch class, around the circle.")
    var targetKey: Double?
    @Option(name: .customLong("min-liveness"), help: "Keep tracks with liveness ≥ this (0–1).") var minLiveness: Double?
    @Option(name: .customLong("max-liveness"), help: "Keep tracks with liveness ≤ this (0–1).") var maxLiveness: Double?
    @Option(name: .customLong("target-liveness"), help: "Prefer liveness near this (0–1).") var targetLiveness: Double?
    @Option(name: .customLong("min-loudness"), help: "Keep tracks at least this loud (dB).") var minLoudness: Double?
    @Option(name: .customLong("max-loudness"), help: "Keep tracks at most this loud (dB).") var maxLoudness: Double?
    @Option(name: .customLong("target-loudness"), help: "Prefer loudness near this (dB).") var targetLoudness: Double?
    @Option(name: .customLong("min-mode"), help: "Keep tracks with mode ≥ this (1 = major, 0 = minor).") var minMode:
        Double?
    @Option(name: .customLong("max-mode"), help: "Keep tracks with mode ≤ this (1 = major, 0 = minor).") var maxMode:
        Double?
    @Option(name: .customLong("target-mode"), help: "Prefer this mode (1 = major, 0 = minor).") var targetMode: Double?
    @Option(name: .customLong("min-popularity"), help: "Keep tracks with popularity ≥ this (0–100).") var minPopularity:
        Double?
    @Option(name: .customLong("max-popularity"), help: "Keep tracks with popularity ≤ this (0–100).") var maxPopularity:
        Double?
    @Option(name: .customLong("target-popularity"), help: "Prefer popularity near this (0–100).") var targetPopularity:
        Double?
    @Option(name: .customLong("min-speechiness"), help: "Keep tracks with speechiness ≥ this (0–1).")
    var minSpeechiness: Double?
    @Option(name: .customLong("max-speechiness"), help: "Keep tracks with speechiness ≤ this (0–1).")
    var maxSpeechiness: Double?
    @Option(name: .customLong("target-speechiness"), help: "Prefer speechiness near this (0–1).") var targetSpeechiness:
        Double?
    @Option(name: .customLong("min-tempo"), help: "Keep tracks at least this fast (BPM).") var minTempo: Double?
    @Option(name: .customLong("max-tempo"), help: "Keep tracks at most this fast (BPM).") var maxTempo: Double?
    @Option(name: .customLong("target-tempo"), help: "Prefer tempos near this (BPM).") var targetTempo: Double?
    @Option(name: .customLong("min-time-signature"), help: "Keep tracks with at least this many beats per bar.")
    var minTimeSignature: Double?
    @Option(name: .customLong("max-time-signature"), help: "Keep tracks with at most this many beats per bar.")
    var maxTimeSignature: Double?
    @Option(name: .customLong("target-time-signature"), help: "Prefer this many beats per bar.")
    var targetTimeSignature: Double?
    @Option(name: .customLong("min-valence"), help: "Keep tracks with valence ≥ this (0–1).") var minValence: Double?
    @Option(name: .customLong("max-valence"), help: "Keep tracks with valence ≤ this (0–1).") var maxValence: Double?
    @Option(name: .customLong("target-valence"), help: "Prefer valence near this (0–1).") var targetValence: Double?

    @Flag(
        name: .customLong("tempo-octave"),
        help:
            "Treat half and double time as matching a tempo window and --target-tempo (60 BPM fits --min-tempo 110 --max-tempo 130)."
    )
    var tempoOctave = false

    /// Refuses a bound or target outside its attribute's range, and a minimum above its maximum, as
    /// command-line mistakes (exit 64 with the usage), before the store is opened.
    func validate() throws {
        for (attribute, constraint) in constraints.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            let range = attribute.acceptedRange
            for (kind, value) in [
                ("min", constraint.minimum), ("max", constraint.maximum), ("target", constraint.target),
            ] {
                guard let value else { continue }
                guard value.isFinite, range.contains(value) else {
                    throw ValidationError(
                        "--\(kind)-\(attribute.optionName) \(Self.format(value)) is outside \(attribute.rawValue)'s range "
                            + "\(Self.format(range.lowerBound))–\(Self.format(range.upperBound))."
                    )
                }
            }
            if let minimum = constraint.minimum, let maximum = constraint.maximum, minimum > maximum {
                throw ValidationError(
                    RecommendationError.emptyRange(attribute: attribute, minimum: minimum, maximum: maximum).description
                )
            }
        }
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    /// The constraints given, by attribute.
    var constraints: [TunableAttribute: AttributeConstraint] {
        let table: [(TunableAttribute, Double?, Double?, Double?)] = [
            (.acousticness, minAcousticness, maxAcousticness, targetAcousticness),
            (.danceability, minDanceability, maxDanceability, targetDanceability),
            (.durationMS, minDurationMS, maxDurationMS, targetDurationMS),
            (.energy, minEnergy, maxEnergy, targetEnergy),
            (.instrumentalness, minInstrumentalness, maxInstrumentalness, targetInstrumentalness),
            (.key, minKey, maxKey, targetKey),
            (.liveness, minLiveness, maxLiveness, targetLiveness),
            (.loudness, minLoudness, maxLoudness, targetLoudness),
            (.mode, minMode, maxMode, targetMode),
            (.popularity, minPopularity, maxPopularity, targetPopularity),
            (.speechiness, minSpeechiness, maxSpeechiness, targetSpeechiness),
            (.tempo, minTempo, maxTempo, targetTempo),
            (.timeSignature, minTimeSignature, maxTimeSignature, targetTimeSignature),
            (.valence, minValence, maxValence, targetValence),
        ]
        var result: [TunableAttribute: AttributeConstraint] = [:]
        for (attribute, minimum, maximum, target) in table where minimum != nil || maximum != nil || target != nil {
            result[attribute] = AttributeConstraint(minimum: minimum, maximum: maximum, target: target)
        }
        return result
    }
}
