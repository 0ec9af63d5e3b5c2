import Foundation

/// Key and mode from a 12-bin pitch-class profile, by correlation with key profiles: a port of
/// Essentia's `Key` as its `KeyExtractor` runs it with the `edma` profiles.
///
/// The song's profile (``HarmonicPitchClassProfile``, averaged over the song) is scaled to a
/// maximum of 1 and its bins under 0.2 are set to 0; then each of the 24 keys is scored with the
/// Pearson correlation between it and the key's profile rotated to its tonic, and the best score
/// wins. The key profiles are Essentia's `edma`, learnt by Faraldo et al. (2016) from electronic
/// dance music, used without its polyphonic extension as `KeyExtractor` configures `Key`. The
/// confidence is the margin between the best key and the best other key, scaled so that a margin
/// of 0.15 or more (a clear winner) is 1, times the winning correlation over 0.5, times the
/// profile's contrast (1 − its mean over its maximum, before the threshold) over ⅔, each capped
/// at 1: the threshold makes a key of any near-flat profile, white noise's included (Essentia
/// calls noise C major with a strength of 0.78), and the contrast is what tells them apart. 0
/// when the profile is flat.
enum KeyEstimator {
    struct Estimate: Hashable {
        /// Pitch class of the tonic, 0 = C.
        var key: Int
        /// 1 major, 0 minor.
        var mode: Int
        /// The winning correlation, −1 to 1.
        var correlation: Double
        /// 0 to 1, as described above.
        var confidence: Double
    }

    /// Major-key weights from the tonic up, by semitone (Essentia's `edma`).
    static let majorProfile: [Double] = [1.00, 0.29, 0.50, 0.40, 0.60, 0.56, 0.32, 0.80, 0.31, 0.45, 0.42, 0.39]

    /// Minor-key weights from the tonic up, by semitone (Essentia's `edma`).
    static let minorProfile: [Double] = [1.00, 0.31, 0.44, 0.58, 0.33, 0.49, 0.29, 0.78, 0.43, 0.29, 0.53, 0.32]

    /// Bins of the scaled profile below this are set to 0 before the correlation (`pcpThreshold`).
    static let binThreshold = 0.2

    /// The key of `profile` (12 bins, C first), or `nil` when it is flat or empty.
    static func estimate(from profile: [Double]) -> Estimate? {
        precondition(profile.count == 12)
        guard let maximum = profile.max(), maximum > 0 else { return nil }
        let contrast = 1 - profile.reduce(0, +) / 12 / maximum
        let profile = profile.map { $0 / maximum < binThreshold ? 0 : $0 / maximum }
        let mean = profile.reduce(0, +) / 12
        let spread = profile.reduce(0) { $0 + ($1 - mean) * ($1 - mean) }
        guard spread > 1e-9 else { return nil }
        var scores: [(key: Int, mode: Int, score: Double)] = []
        for step in 0..<12 {
            let tonic = (step + 9) % 12
            scores.append((tonic, 1, correlation(profile, majorProfile, rotatedTo: tonic)))
            scores.append((tonic, 0, correlation(profile, minorProfile, rotatedTo: tonic)))
        }
        let order = scores.indices.sorted {
            scores[$0].score != scores[$1].score ? scores[$0].score > scores[$1].score : $0 < $1
        }
        let best = scores[order[0]]
        let margin = best.score - scores[order[1]].score
        let confidence = max(0, min(1, margin / 0.15)) * max(0, min(1, best.score / 0.5)) * min(1, contrast * 1.5)
        return Estimate(key: best.key, mode: best.mode, correlation: best.score, confidence: confidence)
    }

    /// Pearson correlation of `profile` with `template` shifted so that its first entry lies on `tonic`.
    static func correlation(_ profile: [Double], _ template: [Double], rotatedTo tonic: Int) -> Double {
        let meanP = profile.reduce(0, +) / 12
        let meanT = template.reduce(0, +) / 12
        var product = 0.0
        var squaresP = 0.0
        var squaresT = 0.0
        for pitchClass in 0..<12 {
            let p = profile[pitchClass] - meanP
            let t = template[(pitchClass - tonic + 12) % 12] - meanT
            product += p * t
            squaresP += p * p
            squaresT += t * t
        }
        return product / (squaresP * squaresT).squareRoot()
    }
}
