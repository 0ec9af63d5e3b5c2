import Foundation
import GRDB
import Testing
import VibesTestSupport

@testable import Ingest

/// A store written before assignments were packed migrates in place and reads back the same.
struct ClusteringMigrationTests {
    @Test func perTrackAssignmentsAreRepackedPerRun() throws {
        // The schema as the previous version left it, with two runs saved one row per track.
        try withStoreFromEarlierVersion(migratedUpTo: "v6-local-files") { db in
            for index in 0..<5 {
                try db.execute(
                    sql: "INSERT INTO tracks (id, name, match_key) VALUES (?, ?, ?)",
                    arguments: [index + 1, "Track \(index)", "t\(index)"]
                )
            }
            for run in 1...2 {
                try db.execute(
                    sql: """
                        INSERT INTO clustering_runs (id, created_at, algorithm, cluster_count, seed, restart_count,
                            max_iterations, tolerance, thread_count, scaling, track_count, excluded_track_count,
                            iteration_count, has_converged, inertia, timings)
                        VALUES (?, '2026-01-01T00:00:00Z', 'lloyd', 2, 1, 1, 10, 0, 1, '{}', 5, 0, 3, 1, 1.5, '{}')
                        """,
                    arguments: [run]
                )
                for cluster in 0..<2 {
                    try db.execute(
                        sql: """
                            INSERT INTO clustering_clusters (run_id, cluster, name, mood, size, share, centroid_scaled,
                                centroid_original, means, z_scores, distinguishing_features)
                            VALUES (?, ?, ?, 'calm', 1, 0.5, '[]', '[]', '{}', '{}', '[]')
                            """,
                        arguments: [run, cluster, "Vibe \(cluster)"]
                    )
                }
                // Inserted out of track order, as nothing promised an order.
                for track in [3, 1, 5, 2, 4] {
                    try db.execute(
                        sql:
                            "INSERT INTO clustering_assignments (run_id, track_id, cluster, distance) VALUES (?, ?, ?, ?)",
                        arguments: [run, track, (track + run) % 2, Double(track) / 4 + Double(run)]
                    )
                }
            }
        } _: { store in
            for run in Int64(1)...2 {
                let assignments = try store.assignments(ofRun: run)
                #expect(assignments.map(\.trackID) == [1, 2, 3, 4, 5])
                for assignment in assignments {
                    #expect(assignment.cluster == Int((assignment.trackID + run) % 2))
                    #expect(assignment.distance == Double(assignment.trackID) / 4 + Double(run))
                }
                let nearest = try store.representativeTracks(ofRun: run, cluster: 0, count: 1)
                #expect(nearest.first?.trackID == (run == 1 ? 1 : 2))
            }
            let oldTable = try store.database.read { db in try db.tableExists("clustering_assignments") }
            #expect(!oldTable)
            // Deleting a run takes its packed assignments with it.
            try store.deleteClusteringRun(id: 1)
            #expect(try store.assignments(ofRun: 1).isEmpty)
            #expect(try store.assignments(ofRun: 2).count == 5)
        }
    }
}
