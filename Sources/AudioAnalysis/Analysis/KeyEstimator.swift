import Foundation

/// Key and mode from a 12-bin pitch-class profile, by correlation with key profiles.
///
/// The song's profile is square-rooted first (so the loudest pitch classes do not drown the rest),
/// then each of the 24 keys is scored with the Pearson correlation between it and the key's
/// profile rotated to its tonic; the best score wins. The key profiles are Krumhansl and Kessler's
/// (1982), adjusted for popular and electronic music: the tonic, the major third and the major
/// seventh degree weigh a little more, and in minor the flat seventh (the Aeolian and Dorian minor of
/// pop) much more than in the classical minor. On the 57-song test corpus this agrees with
/// Essentia's `edma` key on 74 % of songs, against 68 % for the unadjusted profiles
/// (`Benchmarks/RESULTS.md`). The confidence is the margin between the best key and the best other
/// key, scaled so that a margin of 0.15 or more (a clear winner) is 1, times the winning
/// correlation over 0.5 (capped at 1); 0 when the profile is flat (no tonal content).
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

    /// Major-key weights from the tonic up, by semitone.
    static let majorProfile: [Double] = [6.6, 2.0, 3.5, 2.3, 4.6, 4.0, 2.5, 5.2, 2.4, 3.7, 2.3, 3.4]

    /// Minor-key weights from the tonic up, by semitone.
    static let minorProfile: [Double] = [6.5, 2.7, 3.5, 5.4, 2.6, 3.5, 2.5, 5.2, 4.0, 2.7, 4.3, 3.2]

    /// The key of `profile`, or `nil` when it is flat or empty.
    static func estimate(from profile: [Double]) -> Estimate? {
        precondition(profile.count == 12)
        let profile = profile.map { max(0, $0).squareRoot() }
        let mean = profile.reduce(0, +) / 12
        let spread = profile.reduce(0) { $0 + ($1 - mean) * ($1 - mean) }
        guard spread > 1e-9 else { return nil }
        var scores: [(key: Int, mode: Int, score: Double)] = []
        for tonic in 0..<12 {
            scores.append((tonic, 1, correlation(profile, majorProfile, rotatedTo: tonic)))
            scores.append((tonic, 0, correlation(profile, minorProfile, rotatedTo: tonic)))
        }
        scores.sort { $0.score > $1.score }
        let best = scores[0]
        let margin = best.score - scores[1].score
        let confidence = max(0, min(1, margin / 0.15)) * max(0, min(1, best.score / 0.5))
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
