import Analytics
import Numerics
import Testing

struct ClusterAgreementTests {
    @Test(arguments: [
        // Worked by hand from the contingency table (see adjustedRandIndex's formula):
        // pairs within cells 2, within rows 6, within columns 3, of all 15; E = 6 · 3 / 15 = 1.2;
        // (2 − 1.2) / ((6 + 3) / 2 − 1.2) = 0.8 / 3.3 = 8/33.
        ([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2], 8.0 / 33.0),
        // Crossed 2 × 2: no pair together in both; E = 2 · 2 / 6; (0 − 2/3) / (2 − 2/3) = −1/2.
        ([0, 0, 1, 1], [0, 1, 0, 1], -0.5),
        // The same grouping under other names.
        ([0, 0, 1, 1, 2], [5, 5, 3, 3, 9], 1.0),
        // One group against all apart: nothing agrees beyond chance.
        ([0, 0, 0, 0], [0, 1, 2, 3], 0.0),
    ])
    func adjustedRandIndex(clusters: [Int], labels: [Int], expected: Double) {
        let ari = ClusterAgreement.adjustedRandIndex(clusters, labels)
        #expect(ari.isApproximatelyEqual(to: expected, absoluteTolerance: 1e-12))
        // Symmetric in its arguments.
        #expect(
            ClusterAgreement.adjustedRandIndex(labels, clusters).isApproximatelyEqual(to: ari, absoluteTolerance: 1e-12)
        )
    }

    @Test func countsOnlyTracksWithBothAndTakesTheMostCommonLabel() {
        // Track 3 is in "big" and "small"; "big" is more common, so it counts as "big".
        // Track 6 has no label and track 7 no cluster: neither is counted.
        let clusters: [Int64: Int] = [1: 0, 2: 0, 3: 0, 4: 1, 5: 1, 6: 1]
        let labels: [Int64: Set<String>] = [
            1: ["big"], 2: ["big"], 3: ["big", "small"], 4: ["small"], 5: ["small"], 7: ["big"],
        ]
        let agreement = ClusterAgreement(clusters: clusters, labels: labels)
        #expect(agreement.itemCount == 5)
        #expect(agreement.clusterCount == 2 && agreement.labelCount == 2)
        #expect(agreement.adjustedRandIndex.isApproximatelyEqual(to: 1, absoluteTolerance: 1e-12))
        #expect(agreement.normalizedMutualInformation.isApproximatelyEqual(to: 1, absoluteTolerance: 1e-12))
    }
}
