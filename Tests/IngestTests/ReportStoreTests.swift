import Foundation
import GRDB
import Testing
import VibesTestSupport

@testable import Ingest

struct ReportStoreTests {
    @Test(arguments: [
        "2021-04-22T05:41:00Z", "2023-08-07T21:07:25Z", "2024-02-29T12:00:00Z", "1999-12-31T23:59:59Z",
        "2000-03-01T00:00:00Z", "1970-01-01T00:00:00Z",
    ])
    func parsesISOTimesAsFoundationDoes(text: String) throws {
        let expected = try #require(ISO8601DateFormatter().date(from: text))
        #expect(LibraryStore.utcDate(fromISO: text) == expected)
    }

    @Test func parsesMinutePrecisionAndDropsFractions() {
        #expect(
            LibraryStore.utcDate(fromISO: "2021-04-22T05:41Z") == LibraryStore.utcDate(fromISO: "2021-04-22T05:41:00Z")
        )
        #expect(
            LibraryStore.utcDate(fromISO: "2016-12-13T20:44:04.589Z")
                == LibraryStore.utcDate(fromISO: "2016-12-13T20:44:04Z")
        )
    }

    @Test(arguments: [
        "yesterday", "2021-13-01T00:00:00Z", "2021-04-22T05:41:00", "2021-04-22T25:00:00Z", "2021/04/22T05:41:00Z", "",
    ])
    func rejectsOtherText(text: String) {
        #expect(LibraryStore.utcDate(fromISO: text) == nil)
    }

    @Test func playHistoryKeepsSkipsReasonsAndTracks() throws {
        try withStore { store in
            _ = try store.importFile(at: Fixtures.path("csv/tidytuesday-excerpt.csv"))
            _ = try store.importFile(at: Fixtures.path("json/Streaming_History_Audio_2023-2024_0.json"))
            let (plays, unreadable) = try store.playHistory()
            #expect(unreadable == 0)
            // The fixture: two tidytuesday tracks (the second skipped with fwdbtn), a podcast episode
            // (not imported) and a track not in the excerpt.
            #expect(plays.map(\.msPlayed) == [215_000, 12_000, 200_000])
            #expect(plays.map(\.skipped) == [false, true, false])
            #expect(plays.map(\.reasonEnd) == ["trackdone", "fwdbtn", "trackdone"])
            #expect(plays[0].endedAt == ISO8601DateFormatter().date(from: "2023-08-07T21:07:25Z"))
            let credits = try store.trackCredits()
            let memories = try #require(plays[0].trackID.flatMap { credits[$0] })
            #expect(memories.name == "Memories - Dillon Francis Remix")
            #expect(memories.artists == ["Maroon 5"])
            // Where the report's explorer links it, and how long its M3U entry says it is.
            #expect(memories.spotifyID?.rawValue == "0r7CVbZTWZgbTCYdfa2P31")
            #expect(memories.durationMS == 162_600)
            // The track of the last play was created from the play and has no features.
            let table = try store.featureTable()
            #expect(table.trackIDs.contains(plays[0].trackID!))
            #expect(!table.trackIDs.contains(plays[2].trackID!))
        }
    }

    @Test func accountHistoryHasNoSkipInformation() throws {
        try withStore { store in
            _ = try store.importFile(at: Fixtures.path("json/StreamingHistory0.json"))
            let (plays, _) = try store.playHistory()
            #expect(plays.count == 40)
            #expect(plays.allSatisfy { $0.skipped == nil && $0.reasonEnd == nil && $0.trackID == nil })
            #expect(zip(plays, plays.dropFirst()).allSatisfy { $0.endedAt <= $1.endedAt })
        }
    }

    /// `library`'s top tags, counted in one scan, are what SQL's grouping and ranking give, ties
    /// and all.
    @Test func topTagsAgreeWithGroupingInSQL() throws {
        try withStore { store in
            _ = try store.importFile(at: Fixtures.path("csv/tidytuesday-excerpt.csv"))
            _ = try store.importFile(at: Fixtures.path("exportify/Liked_Songs.csv"))
            for limit in [1, 3, 1000] {
                let (counted, grouped) = try store.database.read { db in
                    (
                        try LibraryStore.topTags(in: db, limit: limit),
                        try Row.fetchAll(
                            db,
                            sql: """
                                SELECT kind, value, n FROM (
                                    SELECT t.kind, t.value, count(*) AS n,
                                           row_number() OVER (PARTITION BY t.kind ORDER BY count(*) DESC, t.value) AS rank
                                    FROM track_tags tt JOIN tags t ON t.id = tt.tag_id GROUP BY t.id)
                                WHERE rank <= ? ORDER BY kind, n DESC, value
                                """,
                            arguments: [limit]
                        )
                    )
                }
                #expect(Set(counted.map(\.kind)).count >= 2)
                #expect(counted.contains { $0.tracks > 1 })
                #expect(
                    counted.map { "\($0.kind)|\($0.value)|\($0.tracks)" }
                        == grouped.map { "\($0[0] as String)|\($0[1] as String)|\($0[2] as Int)" },
                    "limit \(limit)"
                )
            }
        }
    }

    /// What a report reads of a big library, held to the plain reads: the credit codes name the
    /// same main artist and genres as ``LibraryStore/trackCredits()``, the lookup by ID returns
    /// the same tracks, and the coverage is `features status`'s.
    @Test func creditCodesAndLookupsAgreeWithThePlainReads() throws {
        try withStore { store in
            _ = try store.importFile(at: Fixtures.path("csv/tidytuesday-excerpt.csv"))
            // Exportify's Genres are the artists' genres; they win over a dataset's genre.
            _ = try store.importFile(at: Fixtures.path("exportify/Liked_Songs.csv"))
            let table = try store.featureTable(scope: .all)
            let credits = try store.trackCredits()
            let codes = try store.trackCreditTable(for: table.trackIDs)
            #expect(codes.mainArtists.count == table.rowCount)
            var withGenres = 0
            for (row, id) in table.trackIDs.enumerated() {
                let credit = try #require(credits[id])
                let main = codes.mainArtists[row]
                #expect((main >= 0 ? codes.artistNames[Int(main)] : nil) == credit.artists.first, "track \(id)")
                let genres = codes.genres(ofRow: row).map { codes.genreNames[Int($0)] }
                #expect(Set(genres) == Set(credit.genres), "track \(id)")
                if !genres.isEmpty { withGenres += 1 }
            }
            #expect(withGenres > table.rowCount / 2)
            // Rows in another order, and an ID the store does not hold.
            let reversed = codes.mainArtists.reversed() as [Int32]
            #expect(try store.trackCreditTable(for: table.trackIDs.reversed()).mainArtists == reversed)
            #expect(try store.trackCreditTable(for: [999_999]).mainArtists == [-1])

            let some = Array(table.trackIDs.prefix(3)) + [999_999]
            let looked = try store.trackCredits(for: some)
            #expect(looked.count == 3)
            for id in some.prefix(3) { #expect(looked[id] == credits[id]) }

            let status = try store.featureStatus(scope: .library)
            let coverage = try store.featureCoverage(scope: .library)
            #expect(coverage.tracks == status.tracks)
            #expect(coverage.withFeatures == status.withFeatures)
            #expect(coverage.sources == status.sources)
        }
    }

    /// The library scope is every track but the reference ones, which the partial index
    /// `tracks_reference` lists: the overview counts, the table and the coverage leave them out.
    @Test func theLibraryOverviewLeavesReferenceTracksOut() throws {
        try withStore { store in
            let reference = try store.importFile(
                at: Fixtures.path("csv/tidytuesday-excerpt.csv"),
                options: ImportOptions(isReference: true)
            )
            let own = try store.importFile(at: Fixtures.path("csv/kaggle-2024-high-excerpt.csv"))
            let library = try store.featureOverview(scope: .library)
            let all = try store.featureOverview(scope: .all)
            let inLibrary = try store.database.read { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM tracks WHERE in_library = 1") ?? 0
            }
            #expect(library.tracks == inLibrary && inLibrary == own.tracksNew)
            #expect(all.tracks == inLibrary + reference.tracksNew)
            #expect(library.table.rowCount == own.tracksNew)
            #expect(library.coverage["energy"] == own.tracksNew)
            #expect(all.coverage["energy"] == own.tracksNew + reference.tracksNew)
            #expect(try store.featureTable(scope: .library).trackIDs == library.table.trackIDs)
            let plan = try store.database.read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT id FROM tracks WHERE in_library = 0 ORDER BY id")
                    .map { $0["detail"] as String }.joined()
            }
            #expect(plan.contains("tracks_reference"))
        }
    }

    /// `library` reads the features snapshot for its counts only, without the values: the counts
    /// are those of a whole read.
    @Test func theCountsOfTheSnapshotReadWithoutItsValuesAreTheWholeReadsCounts() throws {
        try withStore { store in
            _ = try store.importFile(at: Fixtures.path("csv/tidytuesday-excerpt.csv"))
            _ = try store.importFile(at: Fixtures.path("exportify/Liked_Songs.csv"))
            let whole = try store.featureSnapshot()
            let counts = try store.featureSnapshot(only: FeatureSnapshot.countParts)
            #expect(counts.table.rowCount == 0 && whole.table.rowCount > 0)
            #expect(counts.trackIDs == whole.table.trackIDs)
            #expect(counts.hasStatistics && whole.hasStatistics)
            let all = counts.statistics(keeping: nil)
            let expected = whole.statistics(keeping: nil)
            #expect(all.coverage == expected.coverage)
            #expect(all.preferred == expected.preferred)
            #expect(all.rows == expected.rows)
            #expect(all.outOfRangeFlags == expected.outOfRangeFlags)
            #expect(all.coverage.reduce(0, +) > 0)
        }
    }
}
