import Analytics
import Features
import Foundation
import Numerics
import Testing
import VibesTestSupport

/// A hand-checkable library: six tracks with known valence and energy, a two-vibe run and twenty
/// plays. The expected numbers in the tests are worked out in the comments.
enum SmallLibrary {
    /// A report input over `table` with a saved run of `vibes` (placed in the energy–valence
    /// space) and no plays, in UTC.
    static func input(
        table: FeatureTable,
        tracks: [Int64: TrackCredit],
        vibes: [VibeProfile],
        assignments: [Int64: ReportRun.Assignment]
    ) throws -> MoodReport.Input {
        let schema = try FeatureSchema(features: [.energy, .valence])
        return MoodReport.Input(
            overview: overview,
            table: table,
            tracks: tracks,
            run: ReportRun(
                id: 1,
                scaling: schema.makeSpace(from: table).scaling,
                vibes: vibes,
                assignments: assignments
            ),
            plays: [],
            timeZone: TimeZone(identifier: "UTC")!
        )
    }

    /// (id, artist, valence, energy, loudness).
    ///
    /// Soft moods per track (happy = e·v, sad = (1−e)(1−v), angry = e(1−v), chill = (1−e)·v):
    /// 1: .72 .02 .18 .08 · 2: .54 .04 .06 .36 · 3: .14 .24 .06 .56 · 4: .02 .72 .08 .18 ·
    /// 5: .24 .14 .56 .06 · 6: .09 .09 .81 .01.
    static let rows: [(id: Int64, artist: String, valence: Double, energy: Double, loudness: Double)] = [
        (1, "A", 0.8, 0.9, -3), (2, "A", 0.9, 0.6, -7), (3, "D", 0.7, 0.2, -12),
        (4, "E", 0.2, 0.1, -20), (5, "B", 0.3, 0.8, -4.5), (6, "C", 0.1, 0.9, -2),
    ]

    static var table: FeatureTable {
        var table = FeatureTable()
        for row in rows {
            table.append(
                trackID: row.id,
                features: AudioFeatures(
                    danceability: 0.5,
                    energy: row.energy,
                    loudness: row.loudness,
                    valence: row.valence
                )
            )
        }
        return table
    }

    /// Track 99 exists but has no features.
    static var tracks: [Int64: TrackCredit] {
        var tracks = Dictionary(
            uniqueKeysWithValues: rows.map {
                ($0.id, TrackCredit(id: $0.id, name: "Song \($0.id)", artists: [$0.artist]))
            }
        )
        tracks[99] = TrackCredit(id: 99, name: "Podcast", artists: ["Talker"])
        tracks[1]?.genres = ["french house", "disco"]
        tracks[2]?.genres = ["french house", "french house"]
        return tracks
    }

    static func date(_ text: String) -> Date {
        ISO8601DateFormatter().date(from: text)!
    }

    /// 20 plays (times UTC):
    /// - 8 × track 1, 60 000 ms, 2021-01-04 10:00 (a Monday);
    /// - 4 × track 4, 120 000 ms, 2021-02-06 22:30 (a Saturday);
    /// - 3 skips of track 6, 10 000 ms, 2021-02-06 22:40;
    /// - 3 unmatched plays, 30 000 ms, 2021-03-01 08:00 (a Monday);
    /// - 2 × track 99 (no features), 45 000 ms, 2021-03-01 09:00.
    static var plays: [PlayRecord] {
        Array(
            repeating: PlayRecord(endedAt: date("2021-01-04T10:00:00Z"), msPlayed: 60_000, trackID: 1, isSkip: false),
            count: 8
        )
            + Array(
                repeating: PlayRecord(
                    endedAt: date("2021-02-06T22:30:00Z"),
                    msPlayed: 120_000,
                    trackID: 4,
                    isSkip: false
                ),
                count: 4
            )
            + Array(
                repeating: PlayRecord(
                    endedAt: date("2021-02-06T22:40:00Z"),
                    msPlayed: 10_000,
                    trackID: 6,
                    isSkip: true
                ),
                count: 3
            )
            + Array(
                repeating: PlayRecord(
                    endedAt: date("2021-03-01T08:00:00Z"),
                    msPlayed: 30_000,
                    trackID: nil,
                    isSkip: false
                ),
                count: 3
            )
            + Array(
                repeating: PlayRecord(
                    endedAt: date("2021-03-01T09:00:00Z"),
                    msPlayed: 45_000,
                    trackID: 99,
                    isSkip: false
                ),
                count: 2
            )
    }

    /// Two vibes: cluster 0 = tracks 1, 2, 5, 6 (loud) and cluster 1 = tracks 3, 4 (quiet), with
    /// distances chosen so that track 2 and track 3 are the most representative and track 6 the
    /// farthest from its centroid.
    static func run() throws -> ReportRun {
        let schema = try FeatureSchema(features: [.energy, .valence])
        let scaling = schema.makeSpace(from: table).scaling
        let assignments: [Int64: ReportRun.Assignment] = [
            1: .init(cluster: 0, distance: 0.5), 2: .init(cluster: 0, distance: 0.2),
            5: .init(cluster: 0, distance: 0.9),
            6: .init(cluster: 0, distance: 1.7), 3: .init(cluster: 1, distance: 0.3),
            4: .init(cluster: 1, distance: 0.6),
        ]
        let vibes = [
            VibeProfile(
                cluster: 0,
                name: "Loud",
                mood: .tense,
                size: 4,
                share: 4.0 / 6,
                means: ["energy": 0.8],
                zScores: ["energy": 0.7]
            ),
            VibeProfile(
                cluster: 1,
                name: "Quiet",
                mood: .sad,
                size: 2,
                share: 2.0 / 6,
                means: ["energy": 0.15],
                zScores: ["energy": -1.4]
            ),
        ]
        return ReportRun(id: 1, scaling: scaling, vibes: vibes, assignments: assignments)
    }

    static let overview = MoodReport.Overview(
        tracks: 7,
        artists: 6,
        tracksWithFeatures: 6,
        playlists: 0,
        savedTracks: 0,
        plays: 20,
        sources: [],
        coverage: []
    )

    static func input(timeZone: String = "UTC", withRun: Bool = true) throws -> MoodReport.Input {
        MoodReport.Input(
            overview: overview,
            table: table,
            tracks: tracks,
            run: withRun ? try run() : nil,
            plays: plays,
            timeZone: TimeZone(identifier: timeZone)!
        )
    }
}

struct MoodReportTests {
    private func approx(_ value: Double?, _ expected: Double, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let value else {
            Issue.record("Expected \(expected), got nil", sourceLocation: sourceLocation)
            return
        }
        #expect(value.isApproximatelyEqual(to: expected, absoluteTolerance: 1e-9), sourceLocation: sourceLocation)
    }

    @Test func quadrantsAndSoftMoodsOfTheLibrary() throws {
        let report = try MoodReport(SmallLibrary.input())
        // Tracks 1, 2 are happy/energetic; 3 calm; 4 sad; 5, 6 tense.
        #expect(report.moodMap.tracks == 6)
        #expect(
            report.moodMap.quadrants.map(\.mood) == [
                "happy/energetic", "calm/content", "sad/melancholic", "tense/angry",
            ]
        )
        #expect(report.moodMap.quadrants.map(\.tracks) == [2, 1, 1, 2])
        approx(report.moodMap.quadrants[0].share, 1.0 / 3)
        approx(report.moodMap.quadrants[1].share, 1.0 / 6)
        // Means of the per-track soft moods: happy 1.75/6, sad 1.25/6, angry 1.75/6, chill 1.25/6.
        approx(report.moodMap.softMoods.happy, 1.75 / 6)
        approx(report.moodMap.softMoods.sad, 1.25 / 6)
        approx(report.moodMap.softMoods.angry, 1.75 / 6)
        approx(report.moodMap.softMoods.chill, 1.25 / 6)
        // Grid rows are energy, columns valence: track 1 (v .8, e .9) is in row 9, column 8.
        #expect(report.moodMap.grid[9][8] == 1)
        #expect(report.moodMap.grid[9][1] == 1)  // track 6
        #expect(report.moodMap.grid.flatMap { $0 }.reduce(0, +) == 6)
    }

    @Test func featureHistogramsBinByHand() throws {
        let report = try MoodReport(SmallLibrary.input())
        let energy = try #require(report.features.first { $0.feature == "energy" })
        // Energies 0.9, 0.6, 0.2, 0.1, 0.8, 0.9 in ten bins of 0.1; 0.9 falls in the last bin.
        #expect(energy.bins.map(\.count) == [0, 1, 1, 0, 0, 0, 1, 0, 1, 2])
        #expect(energy.count == 6 && energy.missing == 0)
        approx(energy.median, 0.7)  // (0.6 + 0.8) / 2
        approx(energy.mean, 3.5 / 6)
        let loudness = try #require(report.features.first { $0.feature == "loudness" })
        // −20 … −2 dB in 5 dB bins from −20 to 0: −20 | −12 | −7 | −4.5, −3, −2.
        #expect(loudness.bins.map(\.lower) == [-20, -15, -10, -5])
        #expect(loudness.bins.map(\.count) == [1, 1, 1, 3])
        let tempo = try #require(report.features.first { $0.feature == "tempo" })
        #expect(tempo.count == 0 && tempo.missing == 6 && tempo.bins.isEmpty)
    }

    @Test func listeningTotalsCountSkipsAndPlaysWithoutFeaturesApart() throws {
        let listening = try #require(try MoodReport(SmallLibrary.input()).listening)
        #expect(listening.plays == 20)
        #expect(listening.msPlayed == 1_170_000)  // 480 000 + 480 000 + 30 000 + 90 000 + 90 000
        #expect(listening.skips == 3 && listening.skippedMS == 30_000)
        #expect(listening.playsWithFeatures == 12 && listening.msWithFeatures == 960_000)
        #expect(listening.playsWithoutFeatures == 5 && listening.msWithoutFeatures == 180_000)
        #expect(listening.unmatchedPlays == 3)
        // Equal time on track 1 (v .8, e .9) and track 4 (v .2, e .1); the skips of track 6 do not count.
        approx(listening.valence, 0.5)
        approx(listening.energy, 0.5)
        let soft = try #require(listening.softMoods)
        approx(soft.happy, 0.37)
        approx(soft.sad, 0.37)
        approx(soft.angry, 0.13)
        approx(soft.chill, 0.13)
        #expect(listening.firstPlay == "2021-01-04T10:00:00Z")
        #expect(listening.lastPlay == "2021-03-01T09:00:00Z")
    }

    @Test func monthsWeekdaysAndHoursInUTC() throws {
        let listening = try #require(try MoodReport(SmallLibrary.input()).listening)
        #expect(listening.byMonth.map(\.label) == ["2021-01", "2021-02", "2021-03"])
        #expect(listening.byMonth.map(\.plays) == [8, 7, 5])
        #expect(listening.byMonth.map(\.msPlayed) == [480_000, 510_000, 180_000])
        #expect(listening.byMonth.map(\.skips) == [0, 3, 0])
        approx(listening.byMonth[0].valence, 0.8)
        approx(listening.byMonth[1].energy, 0.1)
        #expect(listening.byMonth[2].valence == nil)
        #expect(listening.byWeekday.map(\.label) == ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"])
        #expect(listening.byWeekday.map(\.plays) == [13, 0, 0, 0, 0, 7, 0])
        #expect(listening.byHour.count == 24)
        #expect(listening.byHour[10].plays == 8 && listening.byHour[22].plays == 7)
        #expect(listening.byHour[8].plays == 3 && listening.byHour[9].plays == 2)
    }

    /// Tokyo is UTC+9 all year: Saturday 22:30 UTC is Sunday 07:30, Monday 10:00 is 19:00.
    /// New York is UTC−5 in winter: Saturday 22:30 stays Saturday, at 17:30; 08:00 becomes 03:00.
    @Test(arguments: [
        ("Asia/Tokyo", [13, 0, 0, 0, 0, 0, 7], [7: 7, 17: 3, 18: 2, 19: 8]),
        ("America/New_York", [13, 0, 0, 0, 0, 7, 0], [3: 3, 4: 2, 5: 8, 17: 7]),
    ])
    func bucketsInTheLocalTimeZone(zone: String, weekdays: [Int], hours: [Int: Int]) throws {
        let listening = try #require(try MoodReport(SmallLibrary.input(timeZone: zone)).listening)
        #expect(listening.byWeekday.map(\.plays) == weekdays)
        for (hour, plays) in hours { #expect(listening.byHour[hour].plays == plays, "hour \(hour)") }
        #expect(listening.byHour.map(\.plays).reduce(0, +) == 20)
    }

    /// 2021-04-30 23:30 UTC is Friday 23:30 in UTC, Saturday 1 May 01:30 in Berlin (CEST, +2) and
    /// Friday 16:30 in Los Angeles (PDT, −7).
    @Test(arguments: [
        ("UTC", "2021-04", 4, 23), ("Europe/Berlin", "2021-05", 5, 1), ("America/Los_Angeles", "2021-04", 4, 16),
    ])
    func aPlayNearMidnightChangesMonthAndDayWithTheZone(zone: String, month: String, weekday: Int, hour: Int) throws {
        var input = try SmallLibrary.input(timeZone: zone)
        input.plays = [
            PlayRecord(endedAt: SmallLibrary.date("2021-04-30T23:30:00Z"), msPlayed: 1000, trackID: 1, isSkip: false)
        ]
        let listening = try #require(try MoodReport(input).listening)
        #expect(listening.byMonth.map(\.label) == [month])
        #expect(listening.byWeekday[weekday].plays == 1)
        #expect(listening.byHour[hour].plays == 1)
    }

    @Test func vibesOfTheRunWithListeningShares() throws {
        let report = try MoodReport(SmallLibrary.input())
        let section = try #require(report.vibes)
        #expect(section.runID == 1 && section.tracks == 6)
        #expect(section.vibes.map(\.name) == ["Loud", "Quiet"])
        // Nearest the centroids: track 2 (0.2), then 1 (0.5), then 5 (0.9); track 3 then 4.
        #expect(section.vibes[0].representatives.map(\.id) == [2, 1, 5])
        #expect(section.vibes[1].representatives.map(\.id) == [3, 4])
        #expect(section.vibes[0].topArtists.map(\.artist) == ["A", "B", "C"])
        #expect(section.vibes[0].topArtists.map(\.tracks) == [2, 1, 1])
        // Tracks 1 and 2 (Loud) carry genres; a genre named twice on one track counts once.
        let genres = try #require(section.vibes[0].topGenres)
        #expect(genres.map(\.genre) == ["french house", "disco"] && genres.map(\.tracks) == [2, 1])
        #expect(section.vibes[1].topGenres == nil)
        #expect(report.renderedText().contains("Top genres: french house (2), disco (1)"))
        #expect(report.renderedHTML().contains("<strong>Top genres:</strong> french house (2), disco (1)"))
        // 480 000 ms on track 1 (Loud) and 480 000 ms on track 4 (Quiet); the skips of 6 do not count.
        approx(section.vibes[0].listenedShare, 0.5)
        let listening = try #require(report.listening)
        #expect(listening.vibes.map(\.msPlayed) == [480_000, 480_000])
        approx(listening.vibes[0].libraryShare, 4.0 / 6)
    }

    @Test func outliersAreTheTracksFarthestFromTheirVibe() throws {
        let report = try MoodReport(SmallLibrary.input())
        #expect(report.outliers.basis == "distance to vibe centroid")
        #expect(report.outliers.tracks.prefix(2).map(\.track.id) == [6, 5])
        #expect(report.outliers.tracks[0].vibe == "Loud")
        #expect(report.outliers.tracks[0].standsOut.count == 2)

        // Without a run: distance from the mean in z-scores of the default features the library
        // has (danceability is constant here, so it adds nothing). Track 4 (v .2, e .1, −20 dB) is
        // the farthest from the mean of all six.
        let withoutRun = try MoodReport(SmallLibrary.input(withRun: false))
        #expect(withoutRun.vibes == nil)
        #expect(withoutRun.outliers.basis == "distance from library mean")
        #expect(withoutRun.outliers.tracks.count == 6)
        #expect(withoutRun.outliers.tracks.first?.track.id == 4)
        #expect(withoutRun.outliers.tracks.first?.vibe == nil)
    }

    @Test func mapProjectsTheRunTracksInTheRunSpace() throws {
        let report = try MoodReport(SmallLibrary.input())
        let map = try #require(report.map)
        #expect(map.trackCount == 6 && map.points.count == 6)
        #expect(map.groups == ["Loud", "Quiet"])
        #expect(map.loadings.map(\.column) == ["energy", "valence"])
        #expect(map.explainedVarianceRatios.reduce(0, +).isApproximatelyEqual(to: 1, absoluteTolerance: 1e-5))
        #expect(map.points.filter { $0.group == 1 }.count == 2)

        var sampled = try SmallLibrary.input()
        sampled.mapPointLimit = 4
        let sampledMap = try #require(try MoodReport(sampled).map)
        #expect(sampledMap.trackCount == 6 && sampledMap.points.count == 3)  // every second track

        // Without a run, the map uses the default features the library has and colours by quadrant.
        let fallback = try #require(try MoodReport(SmallLibrary.input(withRun: false)).map)
        #expect(fallback.loadings.map(\.column) == ["danceability", "energy", "valence", "loudness"])
        #expect(fallback.groups == ["happy/energetic", "calm/content", "sad/melancholic", "tense/angry"])
        #expect(fallback.points.map(\.group) == [0, 0, 1, 2, 3, 3])
    }

    @Test func trackListHoldsEveryTrackOfItsVibe() throws {
        #expect(try MoodReport(SmallLibrary.input()).tracks == nil)  // only when asked

        var input = try SmallLibrary.input()
        input.includesTrackList = true
        input.tracks[1]?.spotifyID = SpotifyID("4uLU6hMCjMI75M1A2tKUQC")
        input.tracks[2]?.filePath = "/music/Song 2.flac"
        input.tracks[2]?.durationMS = 201_500
        let list = try #require(try MoodReport(input).tracks)
        #expect(list.features.prefix(3) == ["danceability", "energy", "valence"])
        #expect(list.units.last == "BPM")
        #expect(list.groups.map(\.name) == ["Loud", "Quiet"] && list.groups.map(\.tracks) == [4, 2])
        #expect(list.entries.map(\.id) == [1, 2, 3, 4, 5, 6])
        #expect(list.entries.map(\.group) == [0, 0, 1, 1, 0, 0])
        #expect(list.entries.map(\.distance) == [0.5, 0.2, 0.3, 0.6, 0.9, 1.7])
        #expect(list.entries.allSatisfy(\.isDrawn) && list.drawnCount == 6 && list.pointLimit == 20_000)
        let first = list.entries[0]
        #expect(first.name == "Song 1" && first.artists == ["A"])
        #expect(first.spotifyID?.rawValue == "4uLU6hMCjMI75M1A2tKUQC" && first.filePath == nil)
        #expect(list.entries[1].filePath == "/music/Song 2.flac" && list.entries[1].durationMS == 201_500)
        // Values in `features` order, as stored (0.9, not 0.899999976); no tempo in this library.
        #expect(first.values.prefix(3) == [0.5, 0.9, 0.8])
        #expect(first.values[list.features.firstIndex(of: "loudness")!] == -3)
        #expect(first.values.last == .some(nil))
    }

    @Test func trackListGroupsByMoodWithoutARunAndKeepsTracksOutsideTheRun() throws {
        var input = try SmallLibrary.input(withRun: false)
        input.includesTrackList = true
        let moods = try #require(try MoodReport(input).tracks)
        #expect(moods.groups.map(\.name) == ["happy/energetic", "calm/content", "sad/melancholic", "tense/angry"])
        #expect(moods.groups.map(\.tracks) == [2, 1, 1, 2])
        #expect(moods.entries.map(\.group) == [0, 0, 1, 2, 3, 3])
        #expect(moods.entries.allSatisfy { $0.distance == nil })

        var partial = try SmallLibrary.input()
        partial.includesTrackList = true
        partial.run?.assignments[5] = nil
        let list = try #require(try MoodReport(partial).tracks)
        #expect(list.groups.map(\.name) == ["Loud", "Quiet", "not in run 1"])
        #expect(list.groups.map(\.tracks) == [3, 2, 1])
        #expect(list.entries[4].id == 5 && list.entries[4].group == 2 && list.entries[4].distance == nil)
    }

    /// Above the point limit the scatter draws the tracks at ⌊i · n / limit⌋: with 6 tracks and a
    /// limit of 4, rows 0, 1, 3 and 4 (tracks 1, 2, 4 and 5); the list stays complete.
    @Test func trackListSamplesTheScatterEvenlyAndKeepsEveryTrack() throws {
        var input = try SmallLibrary.input()
        input.includesTrackList = true
        input.trackListPointLimit = 4
        let list = try #require(try MoodReport(input).tracks)
        #expect(list.entries.count == 6 && list.drawnCount == 4)
        #expect(list.entries.filter(\.isDrawn).map(\.id) == [1, 2, 4, 5])
        #expect(try MoodReport(input).tracks == list)  // the same sample every time
    }

    @Test func skipsFollowSkippedThenReasonEnd() {
        #expect(PlayRecord.isSkip(skipped: true, reasonEnd: "trackdone"))
        #expect(!PlayRecord.isSkip(skipped: false, reasonEnd: "fwdbtn"))
        #expect(PlayRecord.isSkip(skipped: nil, reasonEnd: "fwdbtn"))
        #expect(!PlayRecord.isSkip(skipped: nil, reasonEnd: nil))
        #expect(PlayRecord.skipIsRecorded(skipped: false, reasonEnd: nil))
        #expect(PlayRecord.skipIsRecorded(skipped: nil, reasonEnd: "trackdone"))
        #expect(!PlayRecord.skipIsRecorded(skipped: nil, reasonEnd: nil))
    }

    /// An account-data history says nothing about skips: the report counts no skips and knows
    /// that it cannot, overall and per bucket; a history with some skip data counts the gap.
    @Test func aHistoryWithoutSkipDataIsNotAHistoryWithoutSkips() throws {
        let recorded = try #require(try MoodReport(SmallLibrary.input()).listening)
        #expect(recorded.playsWithSkipData == 20 && recorded.skipsAreRecorded)

        var input = try SmallLibrary.input()
        input.plays = input.plays.map { play in
            var play = play
            play.skipped = nil
            play.reasonEnd = nil
            return play
        }
        let unrecorded = try #require(try MoodReport(input).listening)
        #expect(unrecorded.skips == 0 && unrecorded.playsWithSkipData == 0)
        #expect(!unrecorded.skipsAreRecorded)
        #expect(unrecorded.byMonth.allSatisfy { !$0.skipsAreRecorded })
        #expect(unrecorded.byHour[0].plays == 0 && unrecorded.byHour[0].skipsAreRecorded)

        // The first four plays of track 1 say whether they were skipped; the other 16 do not.
        for index in 4..<input.plays.count { input.plays[index].skipped = nil }
        for index in 0..<4 { input.plays[index].skipped = false }
        let partial = try #require(try MoodReport(input).listening)
        #expect(partial.playsWithSkipData == 4 && partial.skipsAreRecorded)
        #expect(partial.byMonth.map(\.playsWithSkipData) == [4, 0, 0])
    }
}
