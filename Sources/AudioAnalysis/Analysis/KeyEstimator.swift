import Foundation

/// Key and mode from a 12-bin pitch-class profile, by correlation with key profiles.
///
/// Each of the 24 keys is scored with the Pearson correlation between the song's profile and the
/// key's profile rotated to its tonic; the best score wins. The profile is an average of two
/// published ones, Temperley's (Kostka–Payne corpus, 2001) and Krumhansl–Kessler's (1982): the
/// first separates relative keys better, the second fifths. The confidence is the margin between
/// the best key and the best other key, scaled so that a margin of 0.15 or more (a clear winner) is
/// 1, and 0 when the profile is flat (no tonal content).
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

    static let majorProfile: [Double] = zip(
        [5.0, 2.0, 3.5, 2.0, 4.5, 4.0, 2.0, 4.5, 2.0, 3.5, 1.5, 4.0],
        [6.35, 2.23, 3.48, 2.33, 4.38, 4.09, 2.52, 5.19, 2.39, 3.66, 2.29, 2.88]
    ).map { $0 / 5.0 + $1 / 6.35 }

    static let minorProfile: [Double] = zip(
        [5.0, 2.0, 3.5, 4.5, 2.0, 4.0, 2.0, 4.5, 3.5, 2.0, 1.5, 4.0],
        [6.33, 2.68, 3.52, 5.38, 2.60, 3.53, 2.54, 4.75, 3.98, 2.69, 3.34, 3.17]
    ).map { $0 / 5.0 + $1 / 6.33 }

    /// The key of `profile`, or `nil` when it is flat or empty.
    static func estimate(from profile: [Double]) -> Estimate? {
        precondition(profile.count == 12)
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
