import Features
import Numerics
import Testing

@testable import Analytics

struct VibeNamesTests {
    /// A table with one track per entry of `rows`, and every row clustered as `labels` says.
    private func profiles(
        _ rows: [[AudioFeature: Double]],
        labels: [Int32],
        clusterCount: Int,
        tags: [Int64: Set<String>] = [:]
    ) -> [VibeProfile] {
        var table = FeatureTable()
        for (index, row) in rows.enumerated() {
            var features = AudioFeatures()
            for (feature, value) in row { features[feature] = value }
            table.append(trackID: Int64(index + 1), features: features)
        }
        return VibeNames.profiles(
            table: table,
            tableRows: rows.indices.map { Int32($0) },
            labels: labels,
            clusterCount: clusterCount,
            tags: tags
        )
    }

    /// Two vibes of 20 tracks each: loud, fast and energetic, and quiet, slow and calm.
    private func energeticAndCalm() -> (rows: [[AudioFeature: Double]], labels: [Int32]) {
        var rows: [[AudioFeature: Double]] = []
        var labels: [Int32] = []
        for i in 0..<40 {
            let jitter = Double(i % 5) / 100
            let isEnergetic = i < 20
            rows.append([
                .valence: 0.6 + jitter, .energy: isEnergetic ? 0.9 : 0.15, .acousticness: isEnergetic ? 0.05 : 0.9,
                .danceability: 0.5, .tempo: isEnergetic ? 150 : 70, .loudness: isEnergetic ? -4 : -18,
                .speechiness: 0.05,
            ])
            labels.append(isEnergetic ? 0 : 1)
        }
        return (rows, labels)
    }

    @Test func aVibeIsNamedByItsMostDistinctiveTagBesideTheMoodWord() {
        let (rows, labels) = energeticAndCalm()
        // Every energetic track is "trap" and half of all tracks are "hip hop", which says less;
        // the calm ones are "piano" and "classical" alike.
        var tags: [Int64: Set<String>] = [:]
        for index in rows.indices {
            let id = Int64(index + 1)
            tags[id] = index < 20 ? ["trap", "hip hop"] : ["piano", "classical", "hip hop"]
            if index % 4 == 0 { tags[id]!.insert("rare") }
        }
        let named = profiles(rows, labels: labels, clusterCount: 2, tags: tags)
        #expect(named[0].name.hasSuffix(" trap"), "\(named.map(\.name))")
        #expect(named[1].name.hasSuffix(" classical & piano"), "\(named.map(\.name))")
        #expect(["Energetic", "Upbeat", "Euphoric"].contains(String(named[0].name.split(separator: " ")[0])))
        // Without tags, the names fall back to sound words.
        let plain = profiles(rows, labels: labels, clusterCount: 2)
        #expect(!plain[0].name.contains("trap") && !plain[1].name.contains("piano"))
    }

    @Test(arguments: [2, 3, 4])
    func profilesFromNumberedTagsDoNotDependOnTheThreadCount(threads: Int) {
        var rng = SplitMix64(seed: 12)
        var table = FeatureTable()
        var rowTags: [Int32] = []
        var rowStarts = [0]
        for index in 0..<6_000 {
            var features = AudioFeatures()
            // Every feature missing now and then, so the counts differ from feature to feature.
            for feature in AudioFeature.allCases where rng.next(below: 9) != 0 {
                features[feature] = Double.random(in: 0...1, using: &rng) * (feature == .tempo ? 200 : 1)
            }
            table.append(trackID: Int64(index + 1), features: features)
            for tag in 0..<5 where rng.next(below: 3) == 0 { rowTags.append(Int32(tag)) }
            rowStarts.append(rowTags.count)
        }
        let tags = VibeNames.TagRows(
            names: ["ambient", "dub", "folk", "jazz", "trap"],
            rowStarts: rowStarts,
            rowTags: rowTags
        )
        // Every other row clustered, into 7 vibes.
        let tableRows = stride(from: 0, to: 6_000, by: 2).map { Int32($0) }
        let labels = tableRows.map { _ in Int32(rng.next(below: 7)) }
        func profiles(threads: Int) -> [VibeProfile] {
            VibeNames.profiles(
                table: table,
                tableRows: tableRows,
                labels: labels,
                clusterCount: 7,
                tagRows: tags,
                threadCount: threads
            )
        }
        let reference = profiles(threads: 1)
        let parallel = profiles(threads: threads)
        #expect(parallel == reference)
        let bits = { (profiles: [VibeProfile]) in profiles.map { $0.means.mapValues(\.bitPattern) } }
        #expect(bits(parallel) == bits(reference))
        #expect(reference.map(\.size).reduce(0, +) == 3_000)
    }

    @Test func moodAndSoundWordsNeverContradict() {
        // Fast, loud music named calm, and slow, quiet music named energetic, would contradict.
        let fast = ["fast", "loud"]
        let slow = ["slow", "quiet", "drifting"]
        for adjective in ["Energetic", "Upbeat", "Euphoric", "Intense", "Angry"] {
            for word in slow { #expect(VibeNames.contradicts(adjective: adjective, word: word)) }
            for word in fast { #expect(!VibeNames.contradicts(adjective: adjective, word: word)) }
        }
        for adjective in ["Mellow", "Calm", "Serene", "Wistful", "Melancholic"] {
            for word in fast { #expect(VibeNames.contradicts(adjective: adjective, word: word)) }
        }
        // A library of upbeat tracks whose slowest vibe is still energetic is not "Upbeat slow".
        var rows: [[AudioFeature: Double]] = []
        var labels: [Int32] = []
        for i in 0..<30 {
            let jitter = Double(i % 5) / 100
            rows.append([
                .valence: 0.8 + jitter, .energy: 0.85, .acousticness: 0.1, .danceability: 0.6,
                .tempo: i < 15 ? 95 : 170, .loudness: -5, .speechiness: 0.05,
            ])
            labels.append(i < 15 ? 0 : 1)
        }
        for profile in profiles(rows, labels: labels, clusterCount: 2) {
            let words = profile.name.split(separator: " ").map(String.init)
            for word in words.dropFirst() {
                #expect(!VibeNames.contradicts(adjective: words[0], word: word), "\(profile.name)")
            }
        }
    }

    @Test(arguments: [
        (0.8, 0.9, Mood.happy), (0.8, -0.9, Mood.calm), (-0.8, -0.9, Mood.sad), (-0.8, 0.9, Mood.tense),
    ])
    func moodIsTheCircumplexQuadrant(valence: Double, energy: Double, mood: Mood) {
        #expect(Mood(valence: valence, energy: energy) == mood)
    }

    @Test func calmAcousticAndEuphoricDanceAreNamedSo() throws {
        var rows: [[AudioFeature: Double]] = []
        var labels: [Int32] = []
        for i in 0..<20 {
            let jitter = Double(i % 5) / 100
            // Calm acoustic: pleasant, low energy, acoustic, slow, quiet.
            rows.append([
                .valence: 0.6 + jitter, .energy: 0.2 + jitter, .acousticness: 0.9, .danceability: 0.5,
                .tempo: 85, .loudness: -14, .speechiness: 0.04,
            ])
            labels.append(0)
            // Euphoric dance: pleasant, energetic, very danceable, electric.
            rows.append([
                .valence: 0.95 - jitter, .energy: 0.9 - jitter, .acousticness: 0.1, .danceability: 0.95,
                .tempo: 124, .loudness: -5, .speechiness: 0.05,
            ])
            labels.append(1)
            // Tense: unpleasant, energetic, loud.
            rows.append([
                .valence: 0.1 + jitter, .energy: 0.95 - jitter, .acousticness: 0.05, .danceability: 0.4,
                .tempo: 150, .loudness: -3, .speechiness: 0.05,
            ])
            labels.append(2)
        }
        let result = profiles(rows, labels: labels, clusterCount: 3)
        #expect(result[0].mood == .calm)
        #expect(result[0].name.hasSuffix("acoustic"))
        #expect(result[1].mood == .happy)
        #expect(result[1].name.hasPrefix("Euphoric"))
        #expect(result[1].name.contains("dance"))
        #expect(result[2].mood == .tense)
        #expect(result.map(\.size) == [20, 20, 20])
        #expect(result[0].share.isApproximatelyEqual(to: 1.0 / 3, relativeTolerance: 1e-12))
        #expect(result[0].distinguishingFeatures.prefix(4).contains("acousticness"))
        let zScores = result[0].distinguishingFeatures.map { abs(result[0].zScores[$0]!) }
        #expect(zScores == zScores.sorted(by: >))
    }

    @Test func profilesHoldMeansAndZScoresInOriginalUnits() throws {
        let rows: [[AudioFeature: Double]] = [[.tempo: 100], [.tempo: 120], [.tempo: 140], [.tempo: 160]]
        let result = profiles(rows, labels: [0, 0, 1, 1], clusterCount: 2)
        #expect(result[0].means["tempo"] == 110)
        #expect(result[1].means["tempo"] == 150)
        // Library mean 130, population deviation √500.
        let z = try #require(result[1].zScores["tempo"])
        #expect(z.isApproximatelyEqual(to: 20 / 500.0.squareRoot(), relativeTolerance: 1e-12))
    }

    @Test func identicalProfilesGetDistinctNames() {
        let rows: [[AudioFeature: Double]] = (0..<12).map { i in
            i < 4
                ? [.valence: 0.9, .energy: 0.9, .acousticness: 0.1] : [.valence: 0.2, .energy: 0.3, .acousticness: 0.8]
        }
        // Clusters 1, 2 and 3 share one profile.
        let labels: [Int32] = [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3]
        let names = profiles(rows, labels: labels, clusterCount: 4).map(\.name)
        #expect(Set(names).count == 4)
    }

    @Test func aCalmLibrarysVibesAreAllCalm() {
        // Soft piano: very low energy, low valence (as Spotify rates music without words), acoustic
        // and instrumental. Two vibes: the quietest and the less quiet.
        var rows: [[AudioFeature: Double]] = []
        var labels: [Int32] = []
        for i in 0..<20 {
            let jitter = Double(i % 5) / 100
            rows.append([.valence: 0.15 + jitter, .energy: 0.05 + jitter, .acousticness: 0.97, .instrumentalness: 0.92])
            labels.append(0)
            rows.append([.valence: 0.3 + jitter, .energy: 0.25 + jitter, .acousticness: 0.9, .instrumentalness: 0.85])
            labels.append(1)
        }
        let result = profiles(rows, labels: labels, clusterCount: 2)
        // Against the library alone, the less quiet vibe is above average energy; against the
        // reference population both are far below it, and soft: both are calm.
        #expect(result[1].zScores["energy"]! > 0.9)
        #expect(result[0].referenceZScores["energy"]! < -1.5 && result[1].referenceZScores["energy"]! < -1)
        #expect(result.allSatisfy { $0.mood == .calm }, "\(result.map(\.name))")
        #expect(result.allSatisfy { ["Calm", "Serene", "Mellow"].contains($0.name.split(separator: " ")[0]) })
    }

    @Test func aLoudSadVibeIsNotCalledCalm() {
        // Low valence and low energy, but neither acoustic nor instrumental: the circumplex decides.
        var rows: [[AudioFeature: Double]] = []
        for i in 0..<10 {
            let jitter = Double(i % 5) / 100
            rows.append([.valence: 0.1 + jitter, .energy: 0.2 + jitter, .acousticness: 0.1, .instrumentalness: 0])
            rows.append([.valence: 0.8 + jitter, .energy: 0.8 + jitter, .acousticness: 0.1, .instrumentalness: 0])
        }
        let result = profiles(rows, labels: (0..<20).map { Int32($0 % 2) }, clusterCount: 2)
        #expect(result[0].mood == .sad)
        #expect(result[1].mood == .happy)
    }

    @Test func representativeRowsAreTheNearestToTheCentroid() async throws {
        let data = Matrix(rows: [[0], [0.5], [-0.2], [10], [10.1], [13]])
        let model = try await KMeans.fit(data, initialCentroids: Matrix(rows: [[0], [11]]))
        let rows = model.representativeRows(count: 2)
        // Centroids 0.1 and 11.03: distances 0.1, 0.4, 0.3 and 1.03, 0.93, 1.97.
        #expect(rows == [[0, 2], [4, 3]])
    }
}
