import Foundation
import Ingest
import Testing
import VibesEngine
import VibesTestSupport

/// `vibes-analyze analyze` leaves the snapshots `import` and `sync` leave, the similarity blocks
/// among them, so that the next command reads them instead of building them.
@Suite struct AnalyzeSnapshotsCommandTests {
    @Test func analyzeLeavesTheBlockSnapshotCurrent() async throws {
        try await withTemporaryDirectory { directory in
            let db = directory + "/library.sqlite"
            // A library with genres first, then analysed files, whose tags heard in audio change
            // the tag block and whose tracks add rows to it.
            let imported = try await CommandLineTool.run([
                "import", "--db", db, Fixtures.path("csv/tidytuesday-excerpt.csv"),
            ])
            #expect(imported.status == 0, "stderr: \(imported.stderr)")
            let importedCount = try LibraryStore(path: db).featureTrackIDs().count
            for (index, bpm) in [96.0, 132.0].enumerated() {
                try TestSignals.writeWAV(TestSignals.clicks(bpm: bpm, seconds: 6), to: directory + "/song-\(index).wav")
            }
            let analysed = try await CommandLineTool.run([
                "analyze", "--db", db, directory + "/song-0.wav", directory + "/song-1.wav",
            ])
            #expect(analysed.status == 0, "stderr: \(analysed.stderr)")

            let store = try LibraryStore(path: db)
            #expect(try store.hasBlockSnapshot())
            let ids = try store.featureTrackIDs()
            #expect(ids.count == importedCount + 2)
            let read = try store.similarityBlockTerms(over: ids, saving: false) {
                Issue.record("built again, not read from the snapshot")
                return []
            }
            #expect(read == (try store.makeSimilarityBlocks(over: ids).map(\.sparseTermRows)))
            #expect(read.contains { $0.kind == "tags" })
        }
    }
}
