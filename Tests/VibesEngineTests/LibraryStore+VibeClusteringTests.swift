import Analytics
import Features
import Foundation
import Ingest
import Testing
import VibesEngine
import VibesTestSupport

struct LibraryStoreVibeClusteringTests {
    /// A store of `perGroup` tracks in each of three well-separated groups.
    func withSyntheticLibrary<T>(
        perGroup: Int = 40,
        _ body: (LibraryStore) async throws -> T
    ) async throws -> T {
        try await withTemporaryDirectory { folder in
            let store = try LibraryStore(path: folder + "/library.sqlite")
            try LibrarySeeding.insert(LibrarySeeding.syntheticTracks(perGroup: perGroup), into: store, folder: folder)
            return try await body(store)
        }
    }

    /// `k` vibes with the default schema and `seed`.
    func request(k: Int, seed: UInt64 = 42) -> VibeRequest {
        var settings = VibeClustering.Settings(schema: .default, clusterCount: .fixed(k))
        settings.seed = seed
        return VibeRequest(settings: settings)
    }

    @Test func aSavedRunRecoversTheGroups() async throws {
        try await withSyntheticLibrary { store in
            var phases: [String] = []
            let found = try await store.findVibes(request(k: 3)) { phases.append($0) }
            #expect(phases == ["load", "space", "k-means and names", "save"])
            #expect(found.excludedTrackCount == 0 && found.missingCounts.values.allSatisfy { $0 == 0 })
            #expect(found.playlistName == nil && found.currentRunID == found.runID)
            #expect(["load", "matrix", "clustering", "save"].allSatisfy { found.timings[$0] != nil })
            let record = try #require(try store.clusteringRun()).run
            #expect(record.id == found.runID)
            #expect(record.clusterCount == 3 && record.trackCount == 120)
            let clusters = try store.clusters(ofRun: found.runID)
            #expect(clusters.map(\.size) == [40, 40, 40])
            #expect(Set(clusters.map(\.name)).count == 3)
            // Every cluster holds the tracks of exactly one synthetic group.
            let assignments = try store.assignments(ofRun: found.runID)
            let summaries = try store.trackSummaries(for: assignments.map(\.trackID))
            var groupsByCluster: [Int: Set<String>] = [:]
            for assignment in assignments {
                let group = String(summaries[assignment.trackID]!.name.split(separator: " ")[0])
                groupsByCluster[assignment.cluster, default: []].insert(group)
            }
            #expect(groupsByCluster.values.allSatisfy { $0.count == 1 })
            // The calm acoustic group is named as such, and its centroid is in the features' units.
            let calmTrack = try #require(summaries.values.first { $0.name.hasPrefix("calm") })
            let calmCluster = try #require(assignments.first { $0.trackID == calmTrack.id }).cluster
            let calm = try #require(clusters.first { $0.cluster == calmCluster })
            #expect(calm.name.contains("acoustic") && calm.mood == .calm)
            #expect(abs(try #require(calm.centroidOriginal["tempo"]) - 80) < 3)
            // The report is the saved run's.
            #expect(found.report.run.id == found.runID && found.report.vibes.count == 3)
            #expect(found.report.vibes.map(\.number) == [1, 2, 3])
        }
    }

    @Test func theSameSeedGivesTheSameReport() async throws {
        var reports: [Data] = []
        for _ in 0..<2 {
            try await withSyntheticLibrary(perGroup: 30) { store in
                let found = try await store.findVibes(request(k: 4, seed: 7))
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                reports.append(try encoder.encode(found.report))
            }
        }
        #expect(reports[0] == reports[1])
    }

    @Test func autoChoosesKBySilhouetteAndKeepsTheScores() async throws {
        try await withSyntheticLibrary(perGroup: 30) { store in
            // Three clear groups: the silhouette drops sharply past 3, so 3 is chosen.
            let found = try await store.findVibes(
                VibeRequest(settings: .init(schema: .default, clusterCount: .best(among: 2...6)))
            )
            let scan = try #require(found.report.run.clusterCountScan)
            #expect(scan.map(\.clusterCount) == [2, 3, 4, 5, 6])
            let best = try #require(scan.compactMap(\.silhouette).max())
            let withinTolerance = scan.filter { ($0.silhouette ?? -1) >= best - 0.01 }.map(\.clusterCount)
            #expect(found.report.run.clusterCount == withinTolerance.max())
            #expect(found.report.run.clusterCount == 3)
        }
    }

    /// `cluster --k auto --n-init 1` on the bundled sample.
    @Test func autoSearchesFourToTwelveAndPrefersFinerVibesOnTheSample() async throws {
        try await withTemporaryDirectory { folder in
            let store = try LibraryStore(path: folder + "/library.sqlite")
            _ = try store.importFile(at: SampleLibrary.path)
            var settings = VibeClustering.Settings(schema: .default, clusterCount: .best(among: 4...12))
            settings.kMeans.restartCount = 1
            _ = try await store.findVibes(VibeRequest(settings: settings))
            let run = try #require(try store.clusteringRun()).run
            let scan = try #require(run.clusterCountScan)
            #expect(scan.map(\.clusterCount) == Array(4...12))
            // Real audio features: the silhouette falls slowly with k, and the highest alone
            // would take the smallest k; the granularity prior takes more vibes.
            let highest = try #require(scan.max { ($0.silhouette ?? -1) < ($1.silhouette ?? -1) })
            #expect(run.clusterCount > highest.clusterCount)
            #expect(run.clusterCount >= 6)
        }
    }

    /// `cluster --k 3 --features energy,valence,tempo,key --weight tempo=0.5 --scaling minmax`.
    @Test func featuresAndWeightsShapeTheSavedSpace() async throws {
        let schema = try FeatureSchema(parsing: "energy,valence,tempo,key", weights: ["tempo=0.5"], scaling: .minMax)
        try await withSyntheticLibrary(perGroup: 20) { store in
            let record = try await store.findVibes(
                VibeRequest(settings: .init(schema: schema, clusterCount: .fixed(3)))
            ).report.run
            #expect(record.scaling.schema.features.map(\.rawValue) == ["energy", "valence", "tempo", "key"])
            #expect(record.scaling.columns.map(\.name) == ["energy", "valence", "tempo", "key_sin", "key_cos"])
            #expect(record.scaling.columns[2].weight == 0.5)
            #expect(record.scaling.schema.scaling == .minMax)
        }
    }

    @Test func vibesAreShownByRunByNumberAndByName() async throws {
        try await withSyntheticLibrary(perGroup: 20) { store in
            _ = try await store.findVibes(request(k: 2))
            _ = try await store.findVibes(request(k: 3))
            let latest = try VibesReport(store: store, runID: nil, exampleCount: 2)
            let first = try VibesReport(store: store, runID: 1, exampleCount: 2)
            #expect(latest.run.id == 2 && latest.vibes.count == 3)
            #expect(first.run.id == 1 && first.vibes.count == 2)
            #expect(first.vibes.allSatisfy { $0.examples.count == 2 })
            #expect(throws: StoreError.self) { try VibesReport(store: store, runID: 9, exampleCount: 2) }
            #expect {
                try VibesReport(store: store, runID: nil, exampleCount: 2, vibe: VibeReference("9"))
            } throws: { error in
                guard case EngineError.vibeNumberOutOfRange(9, 3, 2) = error else { return false }
                return true
            }
            let one = try VibesReport(store: store, runID: nil, exampleCount: 2, vibe: VibeReference("2"))
            #expect(one.vibes.map(\.number) == [2] && one.vibes[0].name == latest.vibes[1].name)
            // By name: any case, the start of it.
            let named = try VibesReport(
                store: store,
                runID: nil,
                exampleCount: 2,
                vibe: VibeReference(latest.vibes[2].name.uppercased())
            )
            #expect(named.vibes.map(\.number) == [3])
            #expect {
                try VibesReport(store: store, runID: nil, exampleCount: 2, vibe: VibeReference("no such vibe here"))
            } throws: { error in
                guard case EngineError.noSuchVibe("no such vibe here", 2, _) = error else { return false }
                return true
            }
        }
    }

    @Test(.enabled(if: SharedData.isAvailable, SharedData.skipReason))
    func clustersTidyTuesdayTracks() async throws {
        try await withTemporaryDirectory { folder in
            let store = try LibraryStore(path: folder + "/tidy.sqlite")
            try LibrarySeeding.importTidyTuesday(firstRecords: 2000, into: store, folder: folder)
            let tracks = try store.featureTable().rowCount
            let found = try await store.findVibes(request(k: 6))
            let record = found.report.run
            let clusters = try store.clusters(ofRun: found.runID)
            #expect(tracks > 1500)  // 2,000 records, some of them the same track in several playlists
            #expect(record.trackCount + record.excludedTrackCount == tracks)
            #expect(clusters.map(\.size).reduce(0, +) == record.trackCount)
            #expect(Set(clusters.map(\.name)).count == 6)
            #expect(clusters.allSatisfy { $0.size > 0 })
            let silhouette = try #require(record.silhouette)
            #expect(silhouette > 0.05 && silhouette < 1)
        }
    }

    @Test func anEmptyLibraryHasNothingToCluster() async throws {
        try await withTemporaryDirectory { folder in
            let store = try LibraryStore(path: folder + "/library.sqlite")
            await #expect {
                try await store.findVibes(request(k: 3))
            } throws: { error in
                guard case EngineError.noTracksToCluster(0, .library) = error else { return false }
                return true
            }
        }
    }

    @Test func aKeptRunIsRestoredOnceAndItsFileRemoved() async throws {
        try await withSyntheticLibrary(perGroup: 10) { store in
            let folder = (store.path as NSString).deletingLastPathComponent
            let missing = folder + "/missing.json"
            #expect {
                try store.restoreClusteringRun(from: missing, exampleCount: 3)
            } throws: { error in
                guard case EngineError.noKeptRun(let path) = error else { return false }
                return path == missing
            }
            let garbage = folder + "/garbage.json"
            try Data("{}".utf8).write(to: URL(fileURLWithPath: garbage))
            #expect {
                try store.restoreClusteringRun(from: garbage, exampleCount: 3)
            } throws: { error in
                guard case EngineError.notAKeptRun(let path) = error else { return false }
                return path == garbage
            }
        }
    }
}
