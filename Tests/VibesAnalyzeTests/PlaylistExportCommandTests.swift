import Features
import Foundation
import Ingest
import Testing
import VibesTestSupport

/// A CSV export imports back with every Exportify column the library kept.
struct PlaylistExportRoundTripTests {
    @Test func anExportedCSVImportsBackWithEveryColumn() async throws {
        try await withTemporaryDirectory { folder in
            let first = folder + "/first.sqlite"
            let second = folder + "/second.sqlite"
            let csv = folder + "/export.csv"
            for arguments in [
                ["import", "--db", first, "--quiet", Fixtures.path("exportify/Liked_Songs.csv")],
                ["playlist", "build", "--db", first, "--mood", "chill", "-n", "50", "--export", "csv", "--out", csv],
                ["import", "--db", second, "--quiet", csv],
            ] {
                let result = try await CommandLineTool.run(arguments)
                try #require(result.status == 0, "\(arguments): \(result.stderr)")
            }
            let before = try LibraryStore(path: first)
            let after = try LibraryStore(path: second)
            func tracks(_ store: LibraryStore) throws -> [String: (TrackSummary, Playlist.Entry.ExportDetails)] {
                let table = try store.featureTable()
                let summaries = try store.trackSummaries(for: table.trackIDs)
                let details = try store.exportDetails(for: table.trackIDs)
                var result: [String: (TrackSummary, Playlist.Entry.ExportDetails)] = [:]
                for id in table.trackIDs {
                    let summary = try #require(summaries[id])
                    result[try #require(summary.spotifyID)] = (summary, try #require(details[id]))
                }
                return result
            }
            let original = try tracks(before)
            let imported = try tracks(after)
            // One version of each song is picked, so the playlist may hold fewer tracks than the file.
            #expect(imported.count >= 10 && imported.count <= original.count, "\(imported.count) of \(original.count)")
            var withGenres = 0
            for (spotifyID, (summary, details)) in imported {
                let (expected, expectedDetails) = try #require(original[spotifyID])
                #expect(summary.name == expected.name && summary.artists == expected.artists, "\(spotifyID)")
                #expect(summary.album == expected.album && summary.durationMS == expected.durationMS)
                #expect(summary.popularity == expected.popularity)
                #expect(details == expectedDetails, "\(spotifyID): \(details) vs \(expectedDetails)")
                if !details.genres.isEmpty { withGenres += 1 }
            }
            // The fixture's columns are really there, not empty on both sides.
            #expect(withGenres > 0)
            #expect(imported.values.contains { $0.1.releaseDate != nil && $0.1.recordLabel != nil })
            #expect(imported.values.contains { $0.1.isExplicit != nil && $0.1.addedAt != nil })
            // Features too, value for value.
            let beforeTable = try before.featureTable()
            let afterTable = try after.featureTable()
            let beforeByID = Dictionary(
                uniqueKeysWithValues: try before.trackSummaries(for: beforeTable.trackIDs).map {
                    ($0.value.spotifyID!, $0.key)
                }
            )
            let afterSummaries = try after.trackSummaries(for: afterTable.trackIDs)
            for (row, id) in afterTable.trackIDs.enumerated() {
                let beforeRow = try #require(
                    beforeTable.trackIDs.firstIndex(of: beforeByID[afterSummaries[id]!.spotifyID!]!)
                )
                for feature in AudioFeature.all {
                    #expect(
                        afterTable.value(row: row, feature: feature)
                            == beforeTable.value(row: beforeRow, feature: feature)
                    )
                }
            }
        }
    }
}
