import Foundation
import Testing

@testable import AudioAnalysis

/// The ports of Essentia's `HPCP` chain and `Key` (`edma`), on profiles and tones whose pitch
/// classes are known.
@Suite struct KeyEstimatorTests {
    @Test(arguments: 0..<12)
    func eachKeysOwnProfileIsThatKey(tonic: Int) throws {
        for (mode, template) in [(1, KeyEstimator.majorProfile), (0, KeyEstimator.minorProfile)] {
            let profile = (0..<12).map { template[($0 - tonic + 12) % 12] }
            let estimate = try #require(KeyEstimator.estimate(from: profile))
            #expect(estimate.key == tonic && estimate.mode == mode)
            #expect(abs(estimate.correlation - 1) < 1e-9)
        }
    }

    @Test func aFlatProfileHasNoKeyAndANearlyFlatOneLittleConfidence() throws {
        #expect(KeyEstimator.estimate(from: [Double](repeating: 1, count: 12)) == nil)
        #expect(KeyEstimator.estimate(from: [Double](repeating: 0, count: 12)) == nil)
        let nearlyFlat = [0.9, 0.8, 0.85, 1, 0.8, 0.85, 0.8, 0.9, 0.85, 0.8, 0.85, 0.8]
        let estimate = try #require(KeyEstimator.estimate(from: nearlyFlat))
        #expect(estimate.confidence < 0.3)
    }

    @Test func binsUnderAFifthOfThePeakAreIgnored() throws {
        // C major's triad, plus a faint F♯ that the threshold removes.
        var profile = [Double](repeating: 0, count: 12)
        (profile[0], profile[4], profile[7]) = (1, 0.8, 0.9)
        let clean = try #require(KeyEstimator.estimate(from: profile))
        profile[6] = 0.19
        let faint = try #require(KeyEstimator.estimate(from: profile))
        #expect(clean == faint)
        #expect(clean.key == 0 && clean.mode == 1)
    }

    /// A tone with four harmonics credits its own pitch class most, its fifth next (the 3rd harmonic).
    @Test(arguments: [(220.0, 9), (261.63, 0), (392.0, 7)])
    func aHarmonicToneLandsOnItsPitchClass(hz: Double, pitchClass: Int) throws {
        let rate = 22_050
        let samples = (0..<(rate * 3)).map { index -> Float in
            let t = Double(index) / Double(rate)
            return Float((1...4).reduce(0.0) { $0 + 0.25 / Double($1) * sin(2 * .pi * hz * Double($1) * t) })
        }
        let profiler = try HarmonicPitchClassProfile(sampleRate: rate)
        samples.withUnsafeBufferPointer { profiler.add($0) }
        let profile = profiler.pitchClassProfile()
        let ranked = profile.indices.sorted { profile[$0] > profile[$1] }
        #expect(ranked[0] == pitchClass, "\(profile)")
        #expect(ranked[1] == (pitchClass + 7) % 12, "\(profile)")
    }
}
