import Analytics
import Features
import Foundation
import Numerics
import Testing
import VibesBenchmarking
import VibesTestSupport

struct AudioFeatureMixtureTests {
    /// The fit to the sample library, made once for the tests that need it.
    static let sampleFit = Task { try await AudioFeatureMixture.fit(to: SampleLibrary.featureTable) }

    /// The checked-in table is what the documented command prints: a fresh fit to the sample
    /// library, to the six significant digits the table keeps.
    @Test func theCheckedInMixtureIsAFreshFitOfTheSampleLibrary() async throws {
        let fitted = try await Self.sampleFit.value
        let checkedIn = AudioFeatureMixture.tidyTuesdaySample
        let hint =
            "regenerate with `swift run vibes-analyze bench --fit-mixture samples/tidytuesday-sample.csv > "
            + "Sources/VibesBenchmarking/AudioFeatureMixture+TidyTuesdaySample.swift`"
        try #require(fitted.components.count == checkedIn.components.count, "\(hint)")
        func close(_ a: Double, _ b: Double) -> Bool {
            a.isApproximatelyEqual(to: b, absoluteTolerance: 1e-6)
                || a.isApproximatelyEqual(to: b, relativeTolerance: 1e-5)
        }
        for (index, (a, b)) in zip(fitted.components, checkedIn.components).enumerated() {
            let values = [a.weight, a.majorProbability] + a.means + a.standardDeviations + a.keyProbabilities
            let expected = [b.weight, b.majorProbability] + b.means + b.standardDeviations + b.keyProbabilities
            #expect(zip(values, expected).allSatisfy { close($0, $1) }, "component \(index) differs: \(hint)")
        }
    }

    @Test func aFitIsAProperMixture() async throws {
        let mixture = try await Self.sampleFit.value
        #expect(mixture.components.count == 12)
        #expect(mixture.components.map(\.weight).reduce(0, +).isApproximatelyEqual(to: 1, absoluteTolerance: 1e-9))
        #expect(mixture.components.map(\.weight) == mixture.components.map(\.weight).sorted(by: >))
        for component in mixture.components {
            #expect(component.keyProbabilities.reduce(0, +).isApproximatelyEqual(to: 1, absoluteTolerance: 1e-9))
            #expect(component.keyProbabilities.allSatisfy { $0 > 0 })
            #expect((0...1).contains(component.majorProbability))
            #expect(component.standardDeviations.allSatisfy { $0 >= 0 })
            for (feature, mean) in zip(AudioFeatureMixture.continuousFeatures, component.means) {
                #expect(feature.documentedRange.contains(mean), "\(feature.rawValue) mean \(mean)")
            }
        }
    }

    @Test func fittingNeedsMoreTracksThanComponents() async {
        var table = FeatureTable()
        for id in 1...3 {
            table.append(
                trackID: Int64(id),
                features: AudioFeatures(
                    danceability: 0.5,
                    energy: 0.5,
                    key: 1,
                    loudness: -5,
                    mode: 1,
                    speechiness: 0.1,
                    acousticness: 0.2,
                    instrumentalness: 0,
                    liveness: 0.1,
                    valence: 0.5,
                    tempo: 120
                )
            )
        }
        await #expect(throws: AnalyticsError.self) { try await AudioFeatureMixture.fit(to: table, componentCount: 12) }
    }

    @Test func theSwiftSourceDeclaresTheMixture() throws {
        let source = AudioFeatureMixture.tidyTuesdaySample.swiftSource(name: "example", documentation: ["An example."])
        #expect(source.contains("public static let example = AudioFeatureMixture(components: ["))
        #expect(source.contains("/// An example."))
        #expect(
            source.components(separatedBy: "Component(").count - 1
                == AudioFeatureMixture.tidyTuesdaySample.components.count
        )
        #expect(source.split(separator: "\n").allSatisfy { $0.count <= 120 || $0.hasPrefix("    ///") })
    }
}
