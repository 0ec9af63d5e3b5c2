import Foundation

/// Tempo and metre: the tempo from Essentia's Degara beat tracker (``DegaraBeatTracker``, over
/// ``ComplexDomainOnsets``), the metre from how the accents repeat.
///
/// On the 57-song test corpus the tempo agrees with Essentia's multi-feature tempo far more often
/// than the median interval of aubio's beat tracker or an autocorrelation of aubio's onset function
/// (`Benchmarks/RESULTS.md`).
enum TempoEstimator {
    struct Estimate {
        var bpm: Double
        /// 0 to 1: the share of beat-to-beat tempos within 5 BPM of `bpm`.
        var confidence: Double
        /// Beats per bar, 3 or 4, and a confidence from 0 to 1: see ``metre(of:period:)``.
        var timeSignature: (beats: Int, confidence: Double)?
    }

    /// The tempo of the complex-domain onset function `onsets`, sampled `onsetsPerSecond` times a
    /// second, or `nil` when no two beats are found in it.
    ///
    /// - Parameters:
    ///   - onsets: The complex-domain onset detection function.
    ///   - onsetsPerSecond: Its rate.
    ///   - envelope: The level per frame, whose rises give the accents the metre is read from.
    ///   - framesPerSecond: The rate of `envelope`.
    static func estimate(
        onsets: [Float],
        onsetsPerSecond: Double,
        envelope: [Float],
        framesPerSecond: Double
    )
        -> Estimate?
    {
        guard let tempo = DegaraBeatTracker.tempo(of: onsets, framesPerSecond: onsetsPerSecond), tempo.bpm > 0 else {
            return nil
        }
        return Estimate(
            bpm: tempo.bpm,
            confidence: tempo.agreement,
            timeSignature: metre(of: accents(envelope), period: framesPerSecond * 60 / tempo.bpm)
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
