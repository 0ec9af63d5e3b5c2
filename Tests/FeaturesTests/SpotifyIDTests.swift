import Features
import Testing

struct SpotifyIDTests {
    @Test(arguments: [
        "6f807x0ima9a1j3VPbc7VN", "spotify:track:6f807x0ima9a1j3VPbc7VN",
        "https://open.spotify.com/track/6f807x0ima9a1j3VPbc7VN?si=abc", " 6f807x0ima9a1j3VPbc7VN ",
    ])
    func acceptsIDsURIsAndLinks(_ text: String) throws {
        let id = try #require(SpotifyID(uri: text, category: "track"))
        #expect(id.rawValue == "6f807x0ima9a1j3VPbc7VN")
        #expect(id.trackURI == "spotify:track:6f807x0ima9a1j3VPbc7VN")
    }

    @Test(arguments: [
        "", "6f807x0ima9a1j3VPbc7V", "6f807x0ima9a1j3VPbc7VN1", "6f807x0ima9a1j3VPbc7V!",
        "spotify:artist:6f807x0ima9a1j3VPbc7VN", "spotify:local:a:b:c:1",
    ])
    func rejectsEverythingElse(_ text: String) {
        #expect(SpotifyID(uri: text, category: "track") == nil)
    }
}

struct ReleaseDateTests {
    @Test(arguments: [("2019-06-14", ReleaseDate.Precision.day), ("2019-06", .month), ("2019", .year)])
    func keepsItsPrecision(_ text: String, _ precision: ReleaseDate.Precision) throws {
        let date = try #require(ReleaseDate(text))
        #expect(date.precision == precision)
        #expect(date.description == text)
    }

    @Test(arguments: ["19", "2019-13", "2019-06-32", "2019/06/14", "June 2019", ""])
    func rejectsOtherForms(_ text: String) {
        #expect(ReleaseDate(text) == nil)
    }
}

struct AudioFeaturesTests {
    @Test func flagsValuesOutsideTheDocumentedRange() {
        let features = AudioFeatures(danceability: 0.5, key: -1, loudness: 1.275, tempo: 0, timeSignature: 1)
        #expect(Set(features.outOfRangeFeatures) == [.loudness, .tempo, .timeSignature])
        #expect(AudioFeatures.features(inFlags: features.outOfRangeFlags) == features.outOfRangeFeatures)
        #expect(AudioFeature.key.isMissingSentinel(-1))
        #expect(AudioFeature.tempo.isMissingSentinel(0))
    }

    @Test func featureTableStoresSentinelsAsMissing() {
        var table = FeatureTable()
        table.append(trackID: 7, features: AudioFeatures(energy: 0.8, key: -1, tempo: 0))
        #expect(table.value(row: 0, feature: .energy) == 0.8)
        #expect(table.value(row: 0, feature: .key) == nil)
        #expect(table.value(row: 0, feature: .tempo) == nil)
        #expect(table.value(row: 0, feature: .valence) == nil)
    }
}
