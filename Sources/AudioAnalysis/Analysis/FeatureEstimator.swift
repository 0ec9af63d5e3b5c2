import Features
import Foundation

/// Spotify-scale estimates of the perceptual features, from what a trained tagger heard and from
/// measured descriptors.
///
/// With the tagger's probabilities, each estimate mixes what music with those tags typically
/// measures on Spotify's scale (``TagProfile``) with the signals' own estimate
/// (``estimate(heard:signals:)``). Without them the signals decide alone: heuristics, whose
/// weights encode what Spotify documents each feature to reflect, on the typical ranges of the
/// descriptors. No public data pairs audio with Spotify's values, so neither is fitted; their
/// confidences are modest constants, higher with the tagger. Once a library holds enough tracks
/// with both local estimates and Spotify's values, calibration (`FeatureCalibration` in Features)
/// maps each estimate onto that user's Spotify scale and measures how well it agrees.
///
/// `σ` below is the logistic function 1 / (1 + e^−x).
enum FeatureEstimator {

    /// One estimated value and the confidence in it, 0 to 1.
    struct Estimate: Equatable {
        var value: Double
        var confidence: Double
    }

    struct Estimates {
        var energy: Double
        var danceability: Double
        var valence: Double
        var acousticness: Double
        var instrumentalness: Double
        var speechiness: Double
    }

    /// Confidence of an uncalibrated estimate from the signals alone, by feature.
    static let energyConfidence = 0.5
    static let danceabilityConfidence = 0.4
    static let valenceConfidence = 0.25
    static let acousticnessConfidence = 0.4
    static let instrumentalnessConfidence = 0.25
    static let speechinessConfidence = 0.25

    /// The six estimated features, from what the tagger heard (`tags`) together with the
    /// measured signals, or from the signals alone when `tags` is `nil`.
    static func estimate(
        from d: AudioDescriptors,
        tags: AudioTagProbabilities?,
        tempo: Double?,
        mode: Int?,
        keyConfidence: Double
    ) -> [(AudioFeature, Estimate)] {
        let signals = estimate(from: d, tempo: tempo, mode: mode, keyConfidence: keyConfidence)
        if let tags {
            let heard = estimate(heard: tags, signals: signals)
            let values: [(AudioFeature, Double)] = [
                (.energy, heard.energy), (.danceability, heard.danceability), (.valence, heard.valence),
                (.acousticness, heard.acousticness), (.instrumentalness, heard.instrumentalness),
                (.speechiness, heard.speechiness),
            ]
            return values.map { ($0, Estimate(value: $1, confidence: heardConfidence[$0] ?? 0)) }
        }
        return [
            (.energy, Estimate(value: signals.energy, confidence: energyConfidence)),
            (.danceability, Estimate(value: signals.danceability, confidence: danceabilityConfidence)),
            (.valence, Estimate(value: signals.valence, confidence: valenceConfidence)),
            (.acousticness, Estimate(value: signals.acousticness, confidence: acousticnessConfidence)),
            (.instrumentalness, Estimate(value: signals.instrumentalness, confidence: instrumentalnessConfidence)),
            (.speechiness, Estimate(value: signals.speechiness, confidence: speechinessConfidence)),
        ]
    }

    static func estimate(from d: AudioDescriptors, tempo: Double?, mode: Int?, keyConfidence: Double) -> Estimates {
        let loudness = d.integratedLoudness ?? -40
        let high = log(max(d.highFrequencyShare, 1e-5) / 0.02)
        let flatness = log(max(d.spectralFlatness, 1e-5) / 0.05)

        // Energy: "intensity and activity … dynamic range, perceived loudness, timbre, onset rate".
        // Louder, brighter, noisier, busier and more compressed (small loudness range) is more energetic.
        let range = d.loudnessRange ?? 8
        let energy = sigmoid(
            0.28 * (loudness + 12) + 0.7 * high + 0.4 * flatness + 0.3 * (d.onsetRate - 3) - 0.06 * (range - 8)
        )

        // Danceability: "tempo, rhythm stability, beat strength and overall regularity".
        // Even beats, a tempo near 120 BPM (a Gaussian in octaves, σ = 0.4 octave) and a strong pulse.
        let tempoFit = tempo.map { exp(-pow(log2($0 / 120), 2) / (2 * 0.16)) } ?? 0
        let pulse = min(1, d.tempoConfidence / 0.3)
        let danceability = clamp(0.1 + 0.45 * d.beatRegularity + 0.25 * tempoFit + 0.2 * pulse)

        // Valence: "musical positiveness". Major mode (as sure as the key is), faster, brighter and
        // more energetic reads as happier; the weakest of the estimates.
        let modeSign = mode == nil ? 0 : (mode == 1 ? 1.0 : -1.0)
        let tempoTerm = tempo.map { ($0 - 110) / 40 } ?? 0
        let valence = sigmoid(
            0.8 * modeSign * keyConfidence + 0.5 * tempoTerm + 0.5 * log(max(d.spectralCentroid, 100) / 1800)
                + 1.5 * (energy - 0.5) - 0.2
        )

        // Acousticness: the opposite of a bright, noisy, loud, dense production.
        let acousticness = sigmoid(-(0.9 * high + 0.7 * flatness + 0.12 * (loudness + 14)) - 0.3)

        // Speechiness and instrumentalness: the level moving at the rate of syllables (3–6 Hz) is
        // the mark of a voice; speech also has little stable pitch (a weak key correlation).
        let voice = sigmoid(12 * (d.syllabicModulation - 0.42))
        let instrumentalness = clamp(1 - voice)
        let speech = sigmoid(12 * (d.syllabicModulation - 0.55)) * (1 - max(0, min(1, d.keyCorrelation)))
        let speechiness = clamp(0.03 + 0.9 * speech)

        return Estimates(
            energy: energy,
            danceability: danceability,
            valence: valence,
            acousticness: acousticness,
            instrumentalness: instrumentalness,
            speechiness: speechiness
        )
    }

    static func sigmoid(_ x: Double) -> Double { 1 / (1 + exp(-x)) }

    static func clamp(_ x: Double) -> Double { min(1, max(0, x)) }
}
