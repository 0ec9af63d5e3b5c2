import Analytics
import Features
import Testing
import VibesTestSupport

struct PlaylistBuilderTests {
    static let songs = try? TidyTuesdaySongs.realOrBundledSample()
    static let recommender: Recommender? = songs.map { songs in
        var attributes: [Int64: TrackAttributes] = [:]
        for (offset, song) in songs.songs.enumerated() {
            attributes[Int64(offset + 1)] = TrackAttributes(artists: [song.artist], durationMS: song.durationMS)
        }
        return Recommender(table: songs.featureTable(), attributes: attributes)
    }

    @Test func moodPathGoesFromCalmToEnergeticWithoutRepeats() throws {
        let recommender = try #require(PlaylistBuilderTests.recommender)
        let builder = PlaylistBuilder(recommender: recommender)
        let path = try builder.moodPath(from: .calm, to: .energetic, length: .trackCount(12))
        #expect(path.count == 12)
        #expect(Set(path).count == 12)
        let energies: [Double] = path.map { recommender.audioFeatures(of: $0).energy! }
        let start: Double = energies.prefix(3).reduce(0, +) / 3
        let end: Double = energies.suffix(3).reduce(0, +) / 3
        #expect(start + 0.3 < end)
        let artists = path.map { PlaylistBuilderTests.songs!.songs[Int($0 - 1)].artist }
        #expect(zip(artists, artists.dropFirst()).allSatisfy { $0 != $1 })
    }

    @Test(arguments: [12, 20, 31])
    func flowKeepsTheMoodPathRampStepByStep(trackCount: Int) throws {
        let recommender = try #require(PlaylistBuilderTests.recommender)
        let songs = try #require(PlaylistBuilderTests.songs).songs
        let path = try PlaylistBuilder(recommender: recommender)
            .moodPath(from: .calm, to: .energetic, length: .trackCount(trackCount))
        let entries = path.map { id in
            Playlist.Entry(
                trackID: id,
                spotifyID: nil,
                name: songs[Int(id - 1)].name,
                artists: [songs[Int(id - 1)].artist],
                features: recommender.audioFeatures(of: id)
            )
        }
        let steps = PlaylistBuilder.moodPathSteps(trackCount: trackCount)
        #expect(steps.count == (trackCount + 2) / 3)
        #expect(steps.allSatisfy { $0.count == 3 || $0 == steps.last! })
        #expect(steps.first?.lowerBound == 0 && steps.last?.upperBound == trackCount)
        let ordered = PlaylistOrdering().arrange(entries, steps: steps).entries
        for step in steps {
            #expect(Set(ordered[step].map(\.trackID)) == Set(path[step]))
        }
        // The ramp, step by step: each step lies further along the way from calm to energetic on
        // the valence–energy plane (the path's own direction) than the one before.
        let (from, to) = (MoodWord.calm.point, MoodWord.energetic.point)
        func progress(_ entry: Playlist.Entry) -> Double {
            (entry.features.valence! - from.valence) * (to.valence - from.valence)
                + (entry.features.energy! - from.energy) * (to.energy - from.energy)
        }
        let means = steps.map { step in ordered[step].map(progress).reduce(0, +) / Double(step.count) }
        #expect(zip(means, means.dropFirst()).allSatisfy { $0 < $1 }, "\(means)")
    }

    @Test func durationLengthReachesTheDuration() throws {
        let recommender = try #require(PlaylistBuilderTests.recommender)
        let builder = PlaylistBuilder(recommender: recommender)
        let ids = try builder.tracks(
            for: RecommendationQuery(seeds: [.mood(.chill)]),
            length: .duration(milliseconds: 45 * 60_000)
        )
        let total = ids.reduce(0) { $0 + PlaylistBuilderTests.songs!.songs[Int($1 - 1)].durationMS! }
        let last = PlaylistBuilderTests.songs!.songs[Int(ids.last! - 1)].durationMS!
        #expect(total >= 45 * 60_000 && total - last < 45 * 60_000)
    }

    @Test func vibeTracksComeStrongestFirst() throws {
        let recommender = try #require(PlaylistBuilderTests.recommender)
        let builder = PlaylistBuilder(recommender: recommender)
        let members = Array(Int64(1)...Int64(300))
        let ids = try builder.vibeTracks(members: members, label: "vibe test", length: .trackCount(10))
        #expect(ids.count == 10)
        #expect(Set(ids).isSubset(of: Set(members)))
        #expect(throws: RecommendationError.emptySeed(label: "vibe none")) {
            try builder.vibeTracks(members: [-5], label: "vibe none", length: .trackCount(10))
        }
    }
}

/// Playlists on a small library built in the test, so they run without `../shared`.
struct PlaylistBuilderVersionTests {
    @Test func aVibePlaylistHoldsOneVersionOfEachSong() throws {
        let titles = ["Travesuras", "Travesuras - Remix", "Otra Vez", "Otra Vez (Live)", "Lejos"]
        var table = FeatureTable()
        var attributes: [Int64: TrackAttributes] = [:]
        for (offset, title) in titles.enumerated() {
            var features = AudioFeatures()
            for (index, feature) in AudioFeature.allCases.enumerated() {
                let range = feature.documentedRange
                let unit = 0.3 + 0.05 * Double(index % 5) + 0.01 * Double(offset)
                features[feature] =
                    feature.isDiscrete
                    ? (range.lowerBound + unit * (range.upperBound - range.lowerBound)).rounded()
                    : range.lowerBound + unit * (range.upperBound - range.lowerBound)
            }
            let id = Int64(offset + 1)
            table.append(trackID: id, features: features)
            attributes[id] = TrackAttributes(
                artists: ["Nio García"],
                songKey: Track.songKey(artist: "Nio García", title: title),
                durationMS: 200_000
            )
        }
        let builder = PlaylistBuilder(recommender: Recommender(table: table, attributes: attributes))
        let ids = try builder.vibeTracks(members: Array(1...5), label: "vibe 1", length: .trackCount(10))
        let picked = ids.map { titles[Int($0 - 1)] }
        #expect(picked.count == 3)
        #expect(picked.filter { $0.hasPrefix("Travesuras") }.count == 1)
        #expect(picked.filter { $0.hasPrefix("Otra Vez") }.count == 1)
        #expect(picked.contains("Lejos"))
    }
}
