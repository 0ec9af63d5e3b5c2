import Foundation

/// Tempo from the onset detection function, by autocorrelation: the method of librosa's
/// `beat.tempo` (after Ellis 2007), with its defaults.
///
/// The function is log-compressed, its slow trend (a 0.5 s moving average) removed and half-wave
/// rectified. Windows of 384 hops (8.9 s), Hann-weighted, every 16 hops, give autocorrelations
/// normalised by their energy; their mean, weighted by a log-normal prior centred on 120 BPM with a
/// standard deviation of one octave, peaks at the beat period, refined between lags by a parabola.
/// On the 57-song test corpus this agrees with Essentia's multi-feature tempo far more often than
/// the median interval of aubio's beat tracker (`Benchmarks/RESULTS.md`).
enum TempoEstimator {
    struct Estimate {
        var bpm: Double
        /// 0 to 1: how far the winning period stands above the best period that is not a double,
        /// half or the same tempo (1 − runner-up / winner, scaled so a ratio of ½ or less is 1).
        var confidence: Double
        /// Beats per bar, 3 or 4, and a confidence from 0 to 1: see ``metre(of:period:)``.
        var timeSignature: (beats: Int, confidence: Double)?
    }

    static let window = 384
    static let step = 16
    static let slowestBPM = 40.0
    static let fastestBPM = 240.0
    static let priorCentreBPM = 120.0
    static let priorOctaves = 1.0

    /// The tempo of `strength` sampled `framesPerSecond` times a second, or `nil` when the signal
    /// is too short (under one window) or has no onsets.
    ///
    /// - Parameters:
    ///   - strength: The onset detection function.
    ///   - envelope: The level per frame, whose rises give the accents the metre is read from.
    static func estimate(strength: [Float], envelope: [Float], framesPerSecond: Double) -> Estimate? {
        guard strength.count > window else { return nil }
        let sorted = strength.sorted()
        let high = Double(sorted[Int(Double(sorted.count - 1) * 0.95)])
        var onset = strength.map { log1p(Double($0) * 100 / (high + 1e-9)) }

        // Remove the trend: a centred moving average over half a second (zeros beyond the ends).
        let width = Int(framesPerSecond * 0.5)
        var prefix = [Double](repeating: 0, count: onset.count + 1)
        for (index, value) in onset.enumerated() { prefix[index + 1] = prefix[index] + value }
        let before = (width - 1) / 2
        onset = onset.indices.map { index in
            let lower = max(0, index - (width - 1 - before))
            let upper = min(onset.count, index + before + 1)
            return max(0, onset[index] - (prefix[upper] - prefix[lower]) / Double(width))
        }

        let shortestLag = Int(framesPerSecond * 60 / fastestBPM)
        let longestLag = Int(framesPerSecond * 60 / slowestBPM)
        let lags = Array(shortestLag...longestLag)
        let hann = (0..<window).map { 0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(window - 1)) }
        var correlation = [Double](repeating: 0, count: lags.count)
        var segment = [Double](repeating: 0, count: window)
        var windows = 0
        var start = 0
        while start < onset.count - window {
            var total = 0.0
            var energy = 0.0
            for i in 0..<window {
                segment[i] = onset[start + i] * hann[i]
                total += segment[i]
                energy += segment[i] * segment[i]
            }
            if total > 0, energy > 0 {
                for (index, lag) in lags.enumerated() where lag < window {
                    var sum = 0.0
                    for i in 0..<(window - lag) { sum += segment[i] * segment[i + lag] }
                    correlation[index] += sum / energy
                }
                windows += 1
            }
            start += step
        }
        guard windows > 0 else { return nil }

        let bpms = lags.map { framesPerSecond * 60 / Double($0) }
        let scores = zip(correlation, bpms).map { value, bpm in
            let octaves = (log2(bpm) - log2(priorCentreBPM)) / priorOctaves
            return value / Double(windows) * exp(-0.5 * octaves * octaves)
        }
        guard let best = scores.indices.max(by: { scores[$0] < scores[$1] }), scores[best] > 0 else { return nil }
        var offset = 0.0
        if best > 0, best < scores.count - 1 {
            let (a, b, c) = (scores[best - 1], scores[best], scores[best + 1])
            let curvature = a - 2 * b + c
            if curvature != 0 { offset = 0.5 * (a - c) / curvature }
        }
        let bpm = framesPerSecond * 60 / (Double(lags[best]) + offset)

        var runnerUp = 0.0
        for index in 1..<(scores.count - 1)
        where scores[index] >= scores[index - 1] && scores[index] >= scores[index + 1] {
            let related = [0.5, 1, 2].contains { abs(bpms[index] / bpm - $0) <= 0.06 }
            if !related { runnerUp = max(runnerUp, scores[index]) }
        }
        let confidence = max(0, min(1, (1 - runnerUp / scores[best]) / 0.5))
        let period = framesPerSecond * 60 / bpm
        return Estimate(
            bpm: bpm,
            confidence: confidence,
            timeSignature: metre(of: accents(envelope), period: period)
        )
    }

    /// The rise of the level from each frame to the next (0 where it falls).
    static func accents(_ envelope: [Float]) -> [Double] {
        guard envelope.count > 1 else { return [] }
        return [0] + zip(envelope.dropFirst(), envelope).map { max(0, Double($0) - Double($1)) }
    }

    /// Beats per bar from how strongly the accents repeat after 3 and after 4 beats (its
    /// autocorrelation at those lags, the best within a frame either side, over the whole song,
    /// normalised by its energy; smoothed over 5 frames first so that a beat falling between
    /// frames still lines up): 3 only when
    /// it repeats clearly more after 3, since most music is in 4. The confidence is the relative
    /// difference of the two, scaled so that 25 % or more is 0.8, and never above 0.8: a metre
    /// from onsets alone is a guess. `nil` with fewer than 8 bars of 4.
    static func metre(of onset: [Double], period: Double) -> (beats: Int, confidence: Double)? {
        let lag3 = Int((3 * period).rounded())
        let lag4 = Int((4 * period).rounded())
        guard period >= 1, onset.count > lag4 * 8 else { return nil }
        var smoothed = onset
        for index in onset.indices {
            let window = onset[max(0, index - 2)...min(onset.count - 1, index + 2)]
            smoothed[index] = window.reduce(0, +) / Double(window.count)
        }
        let mean = smoothed.reduce(0, +) / Double(smoothed.count)
        let centred = smoothed.map { $0 - mean }
        let energy = centred.reduce(0) { $0 + $1 * $1 }
        guard energy > 0 else { return nil }
        func repetition(after lag: Int) -> Double {
            ((lag - 1)...(lag + 1)).map { lag in
                var sum = 0.0
                for i in 0..<(centred.count - lag) { sum += centred[i] * centred[i + lag] }
                return sum / energy
            }.max() ?? 0
        }
        let three = repetition(after: lag3)
        let four = repetition(after: lag4)
        let difference = abs(four - three) / max(abs(four), abs(three), 1e-9)
        let confidence = min(0.8, difference / 0.25 * 0.8)
        return three > four * 1.1 && three > 0 ? (3, confidence) : (4, four > three ? confidence : 0.1)
    }
}
