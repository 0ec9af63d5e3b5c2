import Features
import Testing

struct AudioFeatureTests {
    @Test func everyFeaturesColumnIsItsPlaceInAll() {
        #expect(AudioFeature.all.map(FeatureTable.columnIndex(of:)) == Array(AudioFeature.all.indices))
    }

    @Test(arguments: [(0.0, "C"), (1, "C♯"), (3, "E♭"), (8, "A♭"), (10, "B♭"), (11, "B"), (11.6, "C"), (14.2, "D")])
    func pitchClassesHaveOneSpelling(pitchClass: Double, name: String) {
        #expect(AudioFeature.pitchClassName(of: pitchClass) == name)
    }

    @Test func theTableHoldsTwelveDistinctNames() {
        #expect(AudioFeature.pitchClassNames.count == 12 && Set(AudioFeature.pitchClassNames).count == 12)
        #expect(AudioFeature.pitchClassName(of: .nan) == "?")
    }
}
