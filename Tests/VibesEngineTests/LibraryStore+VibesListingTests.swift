import Analytics
import Features
import Foundation
import Testing
import VibesEngine
import VibesTestSupport

@testable import Ingest

/// The listing and the reading of saved runs, on the synthetic library of the clustering tests.
extension LibraryStoreVibeClusteringTests {
    @Test func theRunsAreListedNewestFirstWithTheCurrentOne() async throws {
        try await withSyntheticLibrary(perGroup: 20) { store in
            #expect(try store.listClusteringRuns().runs.isEmpty)
            let first = try await store.findVibes(request(k: 2)).runID
            let second = try await store.findVibes(request(k: 3)).runID
            let listing = try store.listClusteringRuns()
            #expect(listing.runs.map(\.record.run.id) == [second, first])
            #expect(listing.runs.map(\.record.run.clusterCount) == [3, 2])
            #expect(listing.runs.allSatisfy { $0.scope == .library })
            #expect(listing.currentRunID == second)
            // A listed run encodes as its record plus its scope's wire value.
            let json = try #require(
                try JSONSerialization.jsonObject(with: JSONEncoder().encode(listing.runs[0])) as? [String: Any]
            )
            #expect(json["scope"] as? String == "library")
            #expect(((json["run"] as? [String: Any])?["id"] as? NSNumber)?.int64Value == second)
        }
    }

    @Test func aVibeNumberThatIsAlsoARunIsNoticed() async throws {
        try await withSyntheticLibrary(perGroup: 20) { store in
            _ = try await store.findVibes(request(k: 3))
            _ = try await store.findVibes(request(k: 3))
            _ = try await store.findVibes(request(k: 2))
            var noticed: [Int64] = []
            let report = try store.vibesReport(runID: nil, exampleCount: 2, vibe: VibeReference("1")) {
                noticed.append($0)
            }
            #expect(noticed == [1])
            #expect(report.run.id == 3 && report.vibes.map(\.number) == [1])
            // Vibe 3 is not one of the current run's two, but run 3 exists: the hint comes first.
            #expect(throws: EngineError.self) {
                try store.vibesReport(runID: nil, exampleCount: 2, vibe: VibeReference("3")) { noticed.append($0) }
            }
            #expect(noticed == [1, 3])
            // No run 4, a run named, or every vibe: nothing to notice.
            #expect(throws: EngineError.self) {
                try store.vibesReport(runID: nil, exampleCount: 2, vibe: VibeReference("4")) { noticed.append($0) }
            }
            _ = try store.vibesReport(runID: 1, exampleCount: 2, vibe: VibeReference("2")) { noticed.append($0) }
            let all = try store.vibesReport(runID: nil, exampleCount: 2, vibe: nil) { noticed.append($0) }
            #expect(noticed == [1, 3])
            #expect(all.vibes.count == 2)
        }
    }

    @Test func examplesShowEachSongOnce() async throws {
        try await withSyntheticLibrary(perGroup: 20) { store in
            let runID = try await store.findVibes(request(k: 3)).runID
            let nearest = try store.representativeTracks(ofRun: runID, cluster: 0, count: 4)
            let summaries = try store.trackSummaries(for: nearest.map(\.trackID))
            let first = try #require(summaries[nearest[0].trackID])
            #expect(summaries[nearest[1].trackID]?.artists == first.artists)
            // The second nearest becomes another release of the nearest: the same artist and title.
            try await store.database.write { db in
                try db.execute(
                    sql: "UPDATE tracks SET name = ? WHERE id = ?",
                    arguments: [first.name.uppercased(), nearest[1].trackID]
                )
            }
            let report = try store.vibesReport(runID: runID, exampleCount: 3, vibe: nil)
            let vibe = try #require(report.vibes.first { $0.cluster == 0 })
            #expect(vibe.examples.map(\.trackID) == [nearest[0].trackID, nearest[2].trackID, nearest[3].trackID])
        }
    }
}
