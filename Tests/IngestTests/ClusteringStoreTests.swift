import Features
import Foundation
import GRDB
import Testing
import VibesTestSupport

@testable import Ingest

struct ClusteringStoreTests {
    private func withStore<T>(trackCount: Int, _ body: (LibraryStore, [Int64]) throws -> T) throws -> T {
        try withTemporaryDirectory { folder in
            let store = try LibraryStore(path: folder + "/library.sqlite")
            let ids = try store.database.write { db in
                try (0..<trackCount).map { index -> Int64 in
                    try db.execute(
                        sql: "INSERT INTO tracks (name, match_key) VALUES (?, ?)",
                        arguments: ["Track \(index)", "t\(index)"]
                    )
                    return db.lastInsertedRowID
                }
            }
            return try body(store, ids)
        }
    }

    private func makeRun(clusterCount: Int) throws -> ClusteringRun {
        let schema = try FeatureSchema(features: [.energy, .key], weights: [.energy: 2])
        let scaling = FeatureScaling(
            schema: schema,
            columns: [
                .init(name: "energy", feature: .energy, encoding: .linear, offset: 0.6, scale: 0.2, weight: 2),
                .init(name: "key_sin", feature: .key, encoding: .keySine, offset: 0, scale: 0.7, weight: 1),
                .init(name: "key_cos", feature: .key, encoding: .keyCosine, offset: 0, scale: 0.7, weight: 1),
            ]
        )
        return ClusteringRun(
            algorithm: .lloyd,
            clusterCount: clusterCount,
            seed: UInt64.max - 1,
            restartCount: 3,
            maxIterations: 300,
            tolerance: 1e-4,
            threadCount: 2,
            scaling: scaling,
            trackCount: 6,
            excludedTrackCount: 1,
            iterationCount: 7,
            hasConverged: true,
            inertia: 12.5,
            silhouette: 0.4,
            calinskiHarabasz: 80,
            daviesBouldin: 0.7,
            clusterCountScan: [
                ClusterQuality(
                    clusterCount: 2,
                    inertia: 12.5,
                    silhouette: 0.4,
                    calinskiHarabasz: 80,
                    daviesBouldin: 0.7,
                    silhouetteSampleSize: 6
                )
            ]
        )
    }

    private func makeClusters(count: Int) -> [ClusterRecord] {
        (0..<count).map { c in
            ClusterRecord(
                runID: 0,
                cluster: c,
                name: "Vibe \(c)",
                mood: .calm,
                size: 3,
                share: 0.5,
                centroidScaled: [Float(c), 0.5, -0.5],
                centroidOriginal: ["energy": 0.6 + Double(c) / 10],
                means: ["energy": 0.6],
                zScores: ["energy": Double(c)],
                distinguishingFeatures: ["energy"]
            )
        }
    }

    @Test func migrationIsApplied() throws {
        try withStore(trackCount: 0) { store, _ in
            let migrations = try store.appliedMigrations()
            #expect(migrations.contains("v2-clustering"))
        }
    }

    @Test func runRoundTripsWithClustersAndAssignments() throws {
        try withStore(trackCount: 6) { store, ids in
            let run = try makeRun(clusterCount: 2)
            let before = Date()
            let runID = try store.saveClusteringRun(
                run,
                timings: ["iterations": 1.5],
                clusters: makeClusters(count: 2),
                trackIDs: ids,
                labels: [0, 1, 0, 1, 0, 1],
                distances: [0.3, 0.2, 0.1, 0.9, 0.5, 0.05]
            )
            let saved = try #require(try store.clusteringRun(id: runID))
            var expected = run
            expected.id = runID
            #expect(saved.run == expected)
            #expect(saved.run.seed == UInt64.max - 1)
            #expect(saved.timings == ["iterations": 1.5])
            #expect(abs(saved.createdAt.timeIntervalSince(before)) < 60)
            let latest = try store.clusteringRun()
            #expect(latest?.run.id == runID)
            // The columns are the run's own JSON keys.
            let columns = try store.database.read { db in try db.columns(in: "clustering_runs").map(\.name) }
            #expect(Set(ClusteringRun.CodingKeys.allCases.map(\.rawValue)).isSubset(of: Set(columns)))

            let clusters = try store.clusters(ofRun: runID)
            #expect(clusters.map(\.cluster) == [0, 1])
            #expect(clusters.allSatisfy { $0.runID == runID })
            #expect(clusters[1].centroidScaled == [1, 0.5, -0.5])

            let nearest = try store.representativeTracks(ofRun: runID, cluster: 0, count: 2)
            #expect(nearest.map(\.trackID) == [ids[2], ids[0]])
            let assignments = try store.assignments(ofRun: runID)
            #expect(assignments.count == 6)
            let packed = try store.packedAssignments(ofRun: runID)
            #expect(packed.trackIDs == assignments.map(\.trackID))
            #expect(packed.clusters == assignments.map { Int32($0.cluster) })
            #expect(packed.distances.map(Double.init) == assignments.map(\.distance))
            #expect(try store.packedAssignments(ofRun: runID + 1).trackIDs.isEmpty)
        }
    }

    @Test(arguments: [
        [Int64](), [7], Array(1...1_000), [1, 2, 3, 300, 301, 70_000, 70_001, Int64.max - 1, Int64.max],
        [-5, 0, 4], [Int64.min, 0, Int64.max],
    ])
    func compactIDsReadBackAsTheyWere(ids: [Int64]) {
        let data = PackedAssignments.encode(ascendingIDs: ids)
        #expect(data.count <= 8 * ids.count)
        #expect(PackedAssignments.ascendingIDs(data, count: ids.count) == ids)
        #expect(PackedAssignments.ascendingIDs(PackedArray.data(ids), count: ids.count) == ids, "the plain form")
        if ids.count > 1 {
            #expect(PackedAssignments.ascendingIDs(data, count: ids.count - 1) == nil)
            #expect(PackedAssignments.ascendingIDs(data.dropLast(), count: ids.count) == nil)
        }
    }

    @Test func consecutiveIDsTakeAByteAndSmallClustersAByte() {
        let ids = Array(Int64(1)...100_000)
        #expect(PackedAssignments.encode(ascendingIDs: ids).count == 100_000)
        let labels = ids.map { Int32($0 % 16) }
        let data = PackedAssignments.encode(labels: labels)
        #expect(data.count == labels.count)
        #expect(PackedAssignments.labels(data, count: labels.count) == labels)
        let wide: [Int32] = [0, 256, 3]
        #expect(PackedAssignments.labels(PackedAssignments.encode(labels: wide), count: 3) == wide)
        #expect(PackedAssignments.labels(Data([1, 2]), count: 3) == nil)
        // Differences that do not ascend are damage, not IDs.
        #expect(PackedAssignments.ascendingIDs(Data([5, 0, 1]), count: 3) == nil)
    }

    @Test func runsSavedInThePlainFormStillRead() throws {
        try withStore(trackCount: 4) { store, ids in
            let runID = try store.saveClusteringRun(
                try makeRun(clusterCount: 2),
                clusters: makeClusters(count: 2),
                trackIDs: ids,
                labels: [1, 0, 1, 0],
                distances: [0.5, 0.25, 1, 2]
            )
            let compact = try store.packedAssignments(ofRun: runID)
            let stored = try store.database.read { db in
                try Row.fetchOne(db, sql: "SELECT length(track_ids), length(clusters) FROM clustering_run_assignments")
            }
            #expect(stored?[0] as Int? == 4 && stored?[1] as Int? == 4, "a byte an ID and a cluster")
            try store.database.write { db in
                try db.execute(
                    sql: "UPDATE clustering_run_assignments SET track_ids = ?, clusters = ?",
                    arguments: [PackedArray.data(ids), PackedArray.data([Int32(1), 0, 1, 0])]
                )
            }
            let plain = try store.packedAssignments(ofRun: runID)
            #expect(plain.trackIDs == compact.trackIDs && plain.clusters == compact.clusters)
            #expect(plain.trackIDs == ids && plain.clusters == [1, 0, 1, 0])
            try store.database.write { db in
                try db.execute(
                    sql: "UPDATE clustering_run_assignments SET track_ids = ?",
                    arguments: [Data([1, 0, 2, 3])]
                )
            }
            #expect(throws: StoreError.self) { try store.packedAssignments(ofRun: runID) }
        }
    }

    @Test func latestRunIsTheNewest() throws {
        try withStore(trackCount: 2) { store, ids in
            let first = try store.saveClusteringRun(
                try makeRun(clusterCount: 1),
                clusters: makeClusters(count: 1),
                trackIDs: ids,
                labels: [0, 0],
                distances: [1, 2]
            )
            let second = try store.saveClusteringRun(
                try makeRun(clusterCount: 2),
                clusters: makeClusters(count: 2),
                trackIDs: ids,
                labels: [0, 1],
                distances: [1, 2]
            )
            let latest = try store.clusteringRun()
            let all = try store.clusteringRuns()
            #expect(latest?.run.id == second)
            #expect(all.map(\.run.id) == [second, first])
        }
    }

    @Test func deletingARunDeletesItsClustersAndAssignments() throws {
        try withStore(trackCount: 2) { store, ids in
            let runID = try store.saveClusteringRun(
                try makeRun(clusterCount: 2),
                clusters: makeClusters(count: 2),
                trackIDs: ids,
                labels: [0, 1],
                distances: [1, 2]
            )
            let deleted = try store.deleteClusteringRun(id: runID)
            #expect(deleted)
            let clusters = try store.clusters(ofRun: runID)
            let assignments = try store.assignments(ofRun: runID)
            let latest = try store.clusteringRun()
            #expect(clusters.isEmpty)
            #expect(assignments.isEmpty)
            #expect(latest == nil)
        }
    }

    @Test func unknownTrackFailsTheWholeSave() throws {
        try withStore(trackCount: 1) { store, ids in
            let run = try makeRun(clusterCount: 1)
            #expect(throws: StoreError.self) {
                try store.saveClusteringRun(
                    run,
                    clusters: makeClusters(count: 1),
                    trackIDs: [ids[0], 999],
                    labels: [0, 0],
                    distances: [1, 2]
                )
            }
            let runs = try store.clusteringRuns()
            #expect(runs.isEmpty)
        }
    }

    @Test func assignmentToAMissingClusterFails() throws {
        try withStore(trackCount: 1) { store, ids in
            let run = try makeRun(clusterCount: 1)
            #expect(throws: StoreError.self) {
                try store.saveClusteringRun(
                    run,
                    clusters: makeClusters(count: 1),
                    trackIDs: ids,
                    labels: [3],
                    distances: [1]
                )
            }
        }
    }

    /// The first label with no cluster record is named, whether the labels lie in the small
    /// range looked up in a table or outside it (negative, or past 65,535).
    @Test(arguments: [([0, 2, 1, 5], 2), ([1, 0, -1, 2], -1), ([0, 70_000, 3], 70_000)] as [([Int32], Int32)])
    func theFirstLabelWithoutAClusterIsNamed(labels: [Int32], missing: Int32) throws {
        try withStore(trackCount: labels.count) { store, ids in
            let run = try makeRun(clusterCount: 2)
            #expect {
                try store.saveClusteringRun(
                    run,
                    clusters: makeClusters(count: 2),
                    trackIDs: ids,
                    labels: labels,
                    distances: labels.map { _ in 1 }
                )
            } throws: { error in
                guard case .notFound(let what) = error as? StoreError else { return false }
                return what == "Cluster \(missing) of the run"
            }
            #expect(try store.clusteringRuns().isEmpty)
            // The same labels with a record for every one of them are saved.
            let clusters = Set(labels).sorted().map { label in
                var record = makeClusters(count: 1)[0]
                record.cluster = Int(label)
                record.name = "Vibe \(label)"
                return record
            }
            let runID = try store.saveClusteringRun(
                run,
                clusters: clusters,
                trackIDs: ids,
                labels: labels,
                distances: labels.map { _ in 1 }
            )
            #expect(try store.assignments(ofRun: runID).map(\.cluster) == labels.map { Int($0) })
        }
    }

    @Test func aRunSavedByThePreviousVersionReadsBack() throws {
        // Before the run vocabulary was unified, the `--k auto` scan was kept with the key "k" and
        // without the silhouette's sample size.
        try withStore(trackCount: 0) { store, _ in
            let scaling = String(
                decoding: try JSONEncoder().encode(try makeRun(clusterCount: 2).scaling),
                as: UTF8.self
            )
            try store.database.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO clustering_runs (created_at, algorithm, cluster_count, seed, restart_count,
                            max_iterations, tolerance, thread_count, scaling, track_count, excluded_track_count,
                            iteration_count, has_converged, inertia, silhouette, calinski_harabasz, davies_bouldin,
                            cluster_count_scan, timings)
                        VALUES ('2026-01-02 03:04:05.000', 'minibatch', 2, -2, 3, 300, 0.0001, 2, ?, 6, 0, 7, 1,
                            12.5, 0.4, 80, 0.7, '[{"k":2,"inertia":12.5,"silhouette":0.4}]', '{"load":3}')
                        """,
                    arguments: [scaling]
                )
            }
            let saved = try #require(try store.clusteringRun())
            #expect(saved.run.algorithm == .minibatch)
            #expect(saved.run.seed == UInt64.max - 1)
            #expect(saved.run.clusterCountScan?.first?.clusterCount == 2)
            #expect(saved.run.clusterCountScan?.first?.calinskiHarabasz == nil)
            #expect(saved.timings == ["load": 3])
        }
    }

    /// A run's tracks are checked against the `features` snapshot when there is one; a track
    /// deleted since (its feature rows go with it, and the snapshot with them) is still refused.
    @Test func aRunOfDeletedTracksIsRefusedEvenAfterTheSnapshotListedThem() throws {
        try withTemporaryDirectory { folder in
            let store = try LibraryStore(path: folder + "/library.sqlite")
            _ = try store.importFile(at: Fixtures.path("csv/tidytuesday-excerpt.csv"))
            let ids = try store.featureTable(scope: .all).trackIDs
            let hasSnapshot = {
                try store.database.read { db in try LibraryStore.snapshotParts(.features, in: db) != nil }
            }
            #expect(try hasSnapshot())
            // The snapshot answers for the tracks it lists (not the scan of every track), and
            // not for others.
            let holds = try store.database.read { db in
                try [ids, [ids[0], ids[2]], [ids[0], ids.last! + 1]].map { try LibraryStore.snapshotHolds($0, in: db) }
            }
            #expect(holds == [true, true, false])
            let labels = [Int32](repeating: 0, count: ids.count)
            let distances = [Float](repeating: 1, count: ids.count)
            let saved = try store.saveClusteringRun(
                try makeRun(clusterCount: 1),
                clusters: makeClusters(count: 1),
                trackIDs: ids,
                labels: labels,
                distances: distances
            )
            #expect(try store.packedAssignments(ofRun: saved).trackIDs == ids)

            try store.database.write { db in try db.execute(sql: "DELETE FROM tracks WHERE id = ?", arguments: [ids[3]])
            }
            #expect(try !hasSnapshot())
            #expect(throws: StoreError.notFound(what: "Track \(ids[3])")) {
                try store.saveClusteringRun(
                    try makeRun(clusterCount: 1),
                    clusters: makeClusters(count: 1),
                    trackIDs: ids,
                    labels: labels,
                    distances: distances
                )
            }
        }
    }
}
