import Features
import Foundation
import Synchronization
import Testing
import VibesTestSupport

@testable import Analytics

/// The parts of a report that keep a library of a million tracks fast: decimals by arithmetic,
/// medians by selection, counts over credit codes, the named tracks looked up once, the explorer's
/// list sampled above its limit and the map fitted on a sample. Each is held to the plain way.
struct MoodReportScaleTests {
    @Test func decimalsByArithmeticAreThePrintedDigits() {
        var values: [Float] = []
        values += (0...1000).map { Float(Double($0) / 1000) }
        values += (0...60_000).map { Float(-Double($0) / 1000) }
        values += (0...25_000).map { Float(Double($0) / 100) }
        var random = SplitMix64(seed: 7)
        for _ in 0..<100_000 {
            let unit = Double(random.next() >> 11) / Double(1 << 53)
            values.append(Float(unit * 310 - 60))
        }
        values += [0, -0.0, 1e-5, 3.0517578e-05, 123_456.7, 999_999.9, 2e6, .leastNonzeroMagnitude]
        for value in values {
            let printed = Double(value.description)!
            #expect(MoodReport.decimal(value) == printed, "\(value)")
        }
    }

    @Test func selectionFindsEveryOrderStatistic() {
        var random = SplitMix64(seed: 11)
        for size in [1, 2, 3, 7, 64, 257] {
            for distinct in [1, 2, 5, 1000] {
                let values = (0..<size).map { _ in Double(random.next() % UInt64(distinct)) / 4 }
                let sorted = values.sorted()
                for k in 0..<size {
                    var scratch = values
                    #expect(MoodReport.select(k, in: &scratch) == sorted[k])
                    #expect(scratch[0..<k].allSatisfy { $0 <= sorted[k] })
                }
            }
        }
    }

    /// 300 tracks by 20 artists (track 7 has none), with zero, one or two genres, in four vibes;
    /// valence and danceability follow energy.
    static func largeInput(trackCount: Int = 300) throws -> (input: MoodReport.Input, credits: TrackCreditTable) {
        var random = SplitMix64(seed: 5)
        func unit() -> Double { Double(random.next() >> 11) / Double(1 << 53) }
        var table = FeatureTable()
        var tracks: [Int64: TrackCredit] = [:]
        var assignments: [Int64: ReportRun.Assignment] = [:]
        let genreNames = ["house", "techno", "folk", "jazz", "ambient"]
        var mainArtists: [Int32] = []
        var genreStarts: [Int32] = [0]
        var genres: [Int32] = []
        for index in 0..<trackCount {
            let id = Int64(index * 3 + 1)
            // Energy leads valence and danceability, so the map's first component is clear.
            let energy = unit()
            table.append(
                trackID: id,
                features: AudioFeatures(
                    danceability: 0.6 * energy + 0.4 * unit(),
                    energy: energy,
                    key: index % 12,
                    loudness: -30 * unit(),
                    mode: index % 2,
                    speechiness: unit() / 2,
                    acousticness: unit(),
                    instrumentalness: unit(),
                    liveness: unit(),
                    valence: 0.8 * energy + 0.2 * unit(),
                    tempo: 60 + 120 * unit()
                )
            )
            let artist = index == 7 ? nil : Int32(index % 20)
            let trackGenres = (0..<(index % 3)).map { Int32((index + $0) % genreNames.count) }
            mainArtists.append(artist ?? -1)
            genres += trackGenres
            genreStarts.append(Int32(genres.count))
            tracks[id] = TrackCredit(
                id: id,
                name: "Song \(index)",
                artists: artist.map { ["Artist \($0)", "Guest"] } ?? [],
                genres: trackGenres.map { genreNames[Int($0)] },
                spotifyID: nil,
                durationMS: 180_000 + index
            )
            assignments[id] = ReportRun.Assignment(cluster: index % 4, distance: unit() * 3)
        }
        let schema = try FeatureSchema(features: [.energy, .valence, .danceability])
        let vibes = (0..<4).map { cluster in
            VibeProfile(
                cluster: cluster,
                name: "Vibe \(cluster)",
                mood: .calm,
                size: trackCount / 4,
                share: 0.25,
                means: ["energy": 0.5],
                zScores: ["energy": 0]
            )
        }
        var input = MoodReport.Input(
            overview: SmallLibrary.overview,
            table: table,
            tracks: tracks,
            run: ReportRun(
                id: 3,
                scaling: schema.makeSpace(from: table).scaling,
                vibes: vibes,
                assignments: assignments
            ),
            plays: [],
            timeZone: TimeZone(identifier: "UTC")!
        )
        input.includesTrackList = true
        let credits = TrackCreditTable(
            mainArtists: mainArtists,
            artistNames: (0..<20).map { "Artist \($0)" },
            genreStarts: genreStarts,
            genres: genres,
            genreNames: genreNames
        )
        return (input, credits)
    }

    @Test func creditCodesAndOneLookupGiveTheReportOfEveryTrack() throws {
        let (full, credits) = try Self.largeInput()
        var lean = full
        lean.tracks = [:]
        lean.credits = credits
        let known = full.tracks
        let calls = Mutex<[[Int64]]>([])
        lean.trackLookup = { ids in
            calls.withLock { $0.append(ids) }
            return known.filter { ids.contains($0.key) }
        }
        let expected = try MoodReport(full)
        let report = try MoodReport(lean)
        #expect(try report.renderedJSON() == (try expected.renderedJSON()))
        #expect(report.tracks == expected.tracks)
        #expect(report.renderedHTML(noVibesHint: "") == expected.renderedHTML(noVibesHint: ""))
        // One call, for the tracks the report shows and no others: here the list holds every track.
        let asked = calls.withLock { $0 }
        #expect(asked.count == 1)
        #expect(asked.first?.count == full.table.rowCount)
        // The counts are real: every vibe has top artists, and genres where its tracks have any.
        let vibes = try #require(report.vibes?.vibes)
        #expect(vibes.allSatisfy { !$0.topArtists.isEmpty && $0.topGenres?.isEmpty == false })
    }

    @Test func theExplorerListsTheDrawnSampleAboveItsLimit() throws {
        var (input, _) = try Self.largeInput()
        input.trackListPointLimit = 40
        input.trackListLimit = 100
        let report = try MoodReport(input)
        let list = try #require(report.tracks)
        #expect(list.trackCount == 300)
        #expect(list.entries.count == 40)
        #expect(list.entries.allSatisfy { $0.isDrawn })
        #expect(!list.listsEveryTrack)
        #expect(list.groups.map(\.tracks).reduce(0, +) == 300)
        let html = report.renderedHTML(noVibesHint: "")
        #expect(html.contains("hold 40 of the 300 tracks, an even sample by track ID"))
        #expect(html.contains("vibes-analyze playlist build --vibe 1 -n 10000 --order none --export m3u"))

        input.trackListLimit = 300
        let every = try #require(try MoodReport(input).tracks)
        #expect(every.entries.count == 300)
        #expect(every.listsEveryTrack)
        #expect(every.entries.count { $0.isDrawn } == 40)
    }

    @Test func theMapFittedOnASampleAgreesWithTheFullFit() throws {
        var (input, _) = try Self.largeInput(trackCount: 4000)
        input.includesTrackList = false
        let full = try #require(try MoodReport(input).map)
        input.mapFitLimit = 1000
        let sampled = try #require(try MoodReport(input).map)
        #expect(sampled.basis.hasSuffix("components fitted on an even sample of 1000 of the 4000 tracks"))
        #expect(!full.basis.contains("sample"))
        #expect(sampled.trackCount == full.trackCount)
        #expect(sampled.points.count == full.points.count)
        // The components' loadings move by little; the groups of the points not at all.
        for (a, b) in zip(sampled.loadings, full.loadings) {
            #expect(abs(a.pc1 - b.pc1) < 0.05, "\(a.column)")
            #expect(abs(a.pc2 - b.pc2) < 0.1, "\(a.column)")
        }
        #expect(sampled.points.map(\.group) == full.points.map(\.group))
    }
}
