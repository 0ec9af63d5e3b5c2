import Analytics
import Features
import Foundation
import Ingest
import Testing
import VibesEngine
import VibesTestSupport

struct LibraryStoreMoodReportTests {
    static let songs = TidyTuesdaySongs.Song.synthetic(count: 60)
    static let utc = TimeZone(identifier: "UTC")!

    @Test func theNotesSayWhatTheReportLacks() async throws {
        try await withTemporaryDirectory { folder in
            let empty = try LibraryStore(path: folder + "/empty.sqlite")
            #expect(try empty.moodReportInput(runID: nil, timeZone: Self.utc).1 == [.noFeatures])

            let store = try makeStore(in: folder, songs: Self.songs)
            var phases: [String] = []
            let (input, notes) = try store.moodReportInput(runID: nil, timeZone: Self.utc) { phases.append($0) }
            #expect(phases == ["load features", "load credits", "load run", "load plays"])
            #expect(notes == [.noRun])
            #expect(input.run == nil && input.table.rowCount == 60 && input.overview.tracksWithFeatures == 60)

            let found = try await store.findVibes(
                VibeRequest(settings: .init(schema: .default, clusterCount: .fixed(3)))
            )
            let latest = try store.moodReportInput(runID: nil, timeZone: Self.utc)
            #expect(latest.1 == [.vibesOfRun(id: found.runID, scope: .library, isLatest: true)])
            #expect(latest.0.run?.vibes.count == 3 && latest.0.run?.trackIDs.count == 60)
            let named = try store.moodReportInput(runID: found.runID, timeZone: Self.utc)
            #expect(named.1 == [.vibesOfRun(id: found.runID, scope: .library, isLatest: false)])
            #expect(throws: StoreError.self) { try store.moodReportInput(runID: 99, timeZone: Self.utc) }
        }
    }

    @Test func theReportIsBuiltFromTheInput() throws {
        try withTemporaryDirectory { folder in
            let store = try makeStore(in: folder, songs: Self.songs)
            let (input, _) = try store.moodReportInput(runID: nil, timeZone: Self.utc)
            let report = try MoodReport(input)
            #expect(report.overview.tracksWithFeatures == 60 && report.overview.tracks == 60)
            #expect(report.vibes == nil)
        }
    }
}
