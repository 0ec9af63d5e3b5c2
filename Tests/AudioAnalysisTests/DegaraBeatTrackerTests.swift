import Foundation
import Testing

@testable import AudioAnalysis

/// The port of Essentia's Degara beat tracker on onset functions whose beats are known.
@Suite struct DegaraBeatTrackerTests {
    /// A function at 43 frames a second with a sharp onset on every beat, a weaker one halfway
    /// between beats, and a little steady noise.
    static func onsets(bpm: Double, seconds: Double, framesPerSecond: Double) -> [Float] {
        var generator = DegaraBeatTracker.SplitMix(seed: 7)
        let period = framesPerSecond * 60 / bpm
        return (0..<Int(seconds * framesPerSecond)).map { frame in
            let phase = (Double(frame) / period).truncatingRemainder(dividingBy: 1) * period
            let beat = exp(-phase * phase / 2)
            let offPhase = abs(phase - period / 2)
            return Float(beat + 0.15 * exp(-offPhase * offPhase / 2) + 0.05 * generator.nextUnit())
        }
    }

    @Test(arguments: [90.0, 110.0, 128.0, 160.0])
    func tempoOfARegularPulse(bpm: Double) throws {
        let rate = ComplexDomainOnsets.valuesPerSecond
        let tempo = try #require(
            DegaraBeatTracker.tempo(
                of: Self.onsets(bpm: bpm, seconds: 60, framesPerSecond: rate),
                framesPerSecond: rate
            )
        )
        #expect(abs(tempo.bpm - bpm) / bpm < 0.02, "\(tempo.bpm) BPM for \(bpm)")
        // Beats fall on whole frames (86 a second), so their tempos alternate about the true one.
        #expect(tempo.agreement > 0.5)
        let intervals = zip(tempo.beats.dropFirst(), tempo.beats).map { $0 - $1 }
        let median = intervals.sorted()[intervals.count / 2]
        #expect(abs(median - 60 / bpm) < 0.03, "median beat interval \(median) s")
    }

    @Test func tempoOfBeatTimesIsTheMeanNearTheCommonTempo() throws {
        // 120 BPM throughout, with one long gap and one pair 100 BPM apart: both are left out.
        let beats = [0.0, 0.5, 1.0, 1.5, 2.0, 3.6, 4.1, 4.6, 5.2, 5.7, 6.2]
        let tempo = try #require(DegaraBeatTracker.tempo(ofBeats: beats))
        #expect(abs(tempo.bpm - 120) < 1e-9)
        #expect(abs(tempo.agreement - 8.0 / 10) < 1e-9)
    }

    @Test func silenceHasNoTempo() {
        #expect(DegaraBeatTracker.tempo(of: [Float](repeating: 0, count: 2000), framesPerSecond: 43) == nil)
    }

    @Test func localMeanIsSubtractedAndRectified() {
        let values: [Double] = [0, 0, 3, 0, 0]
        let result = DegaraBeatTracker.subtractingLocalMean(values, halfWidth: 1)
        #expect(result == [0, 0, 2, 0, 0])
    }
}
