import Features
import Foundation
import Testing

@Suite struct FeatureCalibrationTests {
    /// Estimates that are a monotone distortion of the truth (cubed, then shifted) plus noise.
    private func distortedPairs(count: Int, noise: Double) -> (truth: [Double], estimates: [Double]) {
        var rng = SplitMix64(seed: 7)
        var truth: [Double] = []
        var estimates: [Double] = []
        for _ in 0..<count {
            let value = Double(rng.next() % 10_000) / 10_000
            truth.append(value)
            let jitter = (Double(rng.next() % 10_000) / 10_000 - 0.5) * 2 * noise
            estimates.append(pow(value, 3) * 0.6 + 0.3 + jitter)
        }
        return (truth, estimates)
    }

    @Test func recoversAKnownMonotoneDistortion() throws {
        let (truth, estimates) = distortedPairs(count: 400, noise: 0)
        let map = try #require(FeatureCalibration.fit(estimates: estimates, references: truth))
        for value in stride(from: 0.1, through: 0.9, by: 0.1) {
            let recovered = map(pow(value, 3) * 0.6 + 0.3)
            #expect(abs(recovered - value) < 0.03, "\(value) came back as \(recovered)")
        }
    }

    @Test func mapIsNonDecreasingAndHoldsItsEnds() throws {
        let (truth, estimates) = distortedPairs(count: 300, noise: 0.05)
        let map = try #require(FeatureCalibration.fit(estimates: estimates, references: truth))
        var previous = -Double.infinity
        for step in 0...200 {
            let value = map(Double(step) / 200)
            #expect(value >= previous)
            previous = value
        }
        #expect(map(-5) == map.knots.first?.value)
        #expect(map(5) == map.knots.last?.value)
    }

    @Test func crossValidatedCalibrationLowersTheErrorOfNoisyEstimates() {
        let (truth, estimates) = distortedPairs(count: 300, noise: 0.05)
        let raw = FeatureAgreement(values: estimates, references: truth)
        let calibrated = FeatureAgreement.crossValidated(estimates: estimates, references: truth)
        #expect(calibrated.meanAbsoluteError < raw.meanAbsoluteError / 2)
        #expect(calibrated.rankCorrelation > 0.9)
        #expect(calibrated.count == 300)
    }

    @Test func unrelatedEstimatesGainNothing() {
        var rng = SplitMix64(seed: 11)
        let truth = (0..<300).map { _ in Double(rng.next() % 1000) / 1000 }
        let estimates = (0..<300).map { _ in Double(rng.next() % 1000) / 1000 }
        let calibrated = FeatureAgreement.crossValidated(estimates: estimates, references: truth)
        #expect(abs(calibrated.rankCorrelation) < 0.2)
    }

    @Test func rankCorrelationHandlesTiesAndOrder() {
        #expect(FeatureAgreement(values: [1, 2, 3, 4], references: [10, 20, 30, 40]).rankCorrelation == 1)
        #expect(FeatureAgreement(values: [1, 2, 3, 4], references: [40, 30, 20, 10]).rankCorrelation == -1)
        let tied = FeatureAgreement(values: [1, 1, 2, 3], references: [1, 2, 3, 4])
        #expect(tied.rankCorrelation > 0.9 && tied.rankCorrelation < 1)
        #expect(abs(FeatureAgreement(values: [0.5, 0.7], references: [0.4, 0.9]).meanAbsoluteError - 0.15) < 1e-12)
    }
}
