import Features
import Foundation
import GRDB

/// A saved clustering run: its parameters, the schema and fitted scaling, the quality scores and
/// how long it took. One row of `clustering_runs`.
///
/// Array and dictionary properties are stored as JSON text.
public struct ClusteringRunRecord: Hashable, Sendable, Codable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "clustering_runs"

    /// The run number, assigned when the run is saved.
    public var id: Int64?
    /// When the run was made.
    public var createdAt: Date
    /// The algorithm, such as `lloyd` or `minibatch`.
    public var algorithm: String
    /// The number of clusters.
    public var clusterCount: Int
    /// The seed of the random choices, as its bit pattern (a `UInt64` seed above `Int64.max`
    /// is stored negative).
    public var seed: Int64
    /// The number of restarts (`--n-init`).
    public var restartCount: Int
    /// The most iterations per restart.
    public var maxIterations: Int
    /// The convergence tolerance, relative to the mean column variance.
    public var tolerance: Double
    /// The number of threads.
    public var threadCount: Int
    /// The schema and its fitted scaling, to map centroids to original units.
    public var scaling: FeatureScaling
    /// The number of tracks clustered.
    public var trackCount: Int
    /// The number of tracks left out because they miss a schema feature.
    public var excludedTrackCount: Int
    /// The iterations run by the kept restart.
    public var iterationCount: Int
    /// Whether the kept restart converged before the iteration limit.
    public var hasConverged: Bool
    /// The within-cluster sum of squared distances, in scaled units.
    public var inertia: Double
    /// The mean silhouette on a sample, when computed.
    public var silhouette: Double?
    /// The Calinski–Harabasz score, when computed.
    public var calinskiHarabasz: Double?
    /// The Davies–Bouldin score, when computed.
    public var daviesBouldin: Double?
    /// With `--k auto`, the scores of every cluster count tried.
    public var clusterCountScan: [ClusterCountScore]?
    /// Wall-clock durations by phase, in milliseconds (`load`, `matrix`, `seeding`, `iterations`, …).
    public var timings: [String: Double]

    public init(
        id: Int64? = nil,
        createdAt: Date,
        algorithm: String,
        clusterCount: Int,
        seed: Int64,
        restartCount: Int,
        maxIterations: Int,
        tolerance: Double,
        threadCount: Int,
        scaling: FeatureScaling,
        trackCount: Int,
        excludedTrackCount: Int,
        iterationCount: Int,
        hasConverged: Bool,
        inertia: Double,
        silhouette: Double?,
        calinskiHarabasz: Double?,
        daviesBouldin: Double?,
        clusterCountScan: [ClusterCountScore]?,
        timings: [String: Double]
    ) {
        self.id = id
        self.createdAt = createdAt
        self.algorithm = algorithm
        self.clusterCount = clusterCount
        self.seed = seed
        self.restartCount = restartCount
        self.maxIterations = maxIterations
        self.tolerance = tolerance
        self.threadCount = threadCount
        self.scaling = scaling
        self.trackCount = trackCount
        self.excludedTrackCount = excludedTrackCount
        self.iterationCount = iterationCount
        self.hasConverged = hasConverged
        self.inertia = inertia
        self.silhouette = silhouette
        self.calinskiHarabasz = calinskiHarabasz
        self.daviesBouldin = daviesBouldin
        self.clusterCountScan = clusterCountScan
        self.timings = timings
    }

    enum CodingKeys: String, CodingKey, ColumnExpression {
        case id
        case createdAt = "created_at"
        case algorithm
        case clusterCount = "cluster_count"
        case seed
        case restartCount = "restart_count"
        case maxIterations = "max_iterations"
        case tolerance
        case threadCount = "thread_count"
        case scaling
        case trackCount = "track_count"
        case excludedTrackCount = "excluded_track_count"
        case iterationCount = "iteration_count"
        case hasConverged = "has_converged"
        case inertia, silhouette
        case calinskiHarabasz = "calinski_harabasz"
        case daviesBouldin = "davies_bouldin"
        case clusterCountScan = "cluster_count_scan"
        case timings
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

/// The scores of one cluster count tried by `--k auto`.
public struct ClusterCountScore: Hashable, Sendable, Codable {
    public var clusterCount: Int
    public var inertia: Double
    public var silhouette: Double?
    public var calinskiHarabasz: Double?
    public var daviesBouldin: Double?

    public init(
        clusterCount: Int,
        inertia: Double,
        silhouette: Double?,
        calinskiHarabasz: Double?,
        daviesBouldin: Double?
    ) {
        self.clusterCount = clusterCount
        self.inertia = inertia
        self.silhouette = silhouette
        self.calinskiHarabasz = calinskiHarabasz
        self.daviesBouldin = daviesBouldin
    }

    enum CodingKeys: String, CodingKey {
        case clusterCount = "k"
        case inertia, silhouette
        case calinskiHarabasz = "calinski_harabasz"
        case daviesBouldin = "davies_bouldin"
    }
}

/// One cluster of a saved run: its name, size, centroid and profile. One row of
/// `clustering_clusters`.
public struct ClusterRecord: Hashable, Sendable, Codable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "clustering_clusters"

    /// The run the cluster belongs to.
    public var runID: Int64
    /// The cluster index within the run, from 0.
    public var cluster: Int
    /// The vibe name, distinct within the run.
    public var name: String
    /// The valence–energy quadrant, such as `calm/content`.
    public var mood: String
    /// The number of tracks.
    public var size: Int
    /// The share of the run's tracks, from 0 to 1.
    public var share: Double
    /// The centroid in the scaled space, one value per matrix column.
    public var centroidScaled: [Float]
    /// The centroid in original units, keyed by feature wire name.
    public var centroidOriginal: [String: Double]
    /// The mean of every feature over the members, in original units, keyed by wire name.
    public var means: [String: Double]
    /// The members' means in library standard deviations from the library mean.
    public var zScores: [String: Double]
    /// The features that set the cluster apart, strongest first.
    public var distinguishingFeatures: [String]

    public init(
        runID: Int64,
        cluster: Int,
        name: String,
        mood: String,
        size: Int,
        share: Double,
        centroidScaled: [Float],
        centroidOriginal: [String: Double],
        means: [String: Double],
        zScores: [String: Double],
        distinguishingFeatures: [String]
    ) {
        self.runID = runID
        self.cluster = cluster
        self.name = name
        self.mood = mood
        self.size = size
        self.share = share
        self.centroidScaled = centroidScaled
        self.centroidOriginal = centroidOriginal
        self.means = means
        self.zScores = zScores
        self.distinguishingFeatures = distinguishingFeatures
    }

    enum CodingKeys: String, CodingKey, ColumnExpression {
        case runID = "run_id"
        case cluster, name, mood, size, share
        case centroidScaled = "centroid_scaled"
        case centroidOriginal = "centroid_original"
        case means
        case zScores = "z_scores"
        case distinguishingFeatures = "distinguishing_features"
    }
}

/// A track's cluster in a saved run and its distance to the centroid.
public struct ClusterAssignmentRecord: Hashable, Sendable, Codable {
    public var runID: Int64
    public var trackID: Int64
    public var cluster: Int
    /// The Euclidean distance to the cluster's centroid, in scaled units.
    public var distance: Double

    public init(runID: Int64, trackID: Int64, cluster: Int, distance: Double) {
        self.runID = runID
        self.trackID = trackID
        self.cluster = cluster
        self.distance = distance
    }

    enum CodingKeys: String, CodingKey {
        case runID = "run_id"
        case trackID = "track_id"
        case cluster, distance
    }
}

// MARK: - Writing and reading runs

extension LibraryStore {
    /// Saves a clustering run with its clusters and the assignment of every track, in one
    /// transaction.
    ///
    /// The assignments are stored packed, one row per run (`clustering_run_assignments`: track IDs,
    /// clusters and distances as arrays), not one row per track: on a million tracks one row per
    /// track took 14–23 s to write, with its index and two foreign keys, against well under a
    /// second packed.
    ///
    /// - Parameters:
    ///   - run: The run; its `id` is ignored and assigned.
    ///   - clusters: One record per cluster; their `runID` is replaced by the new run's.
    ///   - trackIDs: The clustered tracks.
    ///   - labels: The cluster of each track, parallel to `trackIDs`.
    ///   - distances: The Euclidean distance of each track to its centroid, parallel to `trackIDs`.
    /// - Returns: The new run's ID.
    /// - Throws: ``StoreError/notFound(what:)`` for a track the store does not hold or a label with
    ///   no cluster record (nothing is saved then), or another ``StoreError`` when the write fails.
    /// - Complexity: O(*n* log *n*) to sort and check the tracks, and one row written.
    @discardableResult
    public func saveClusteringRun(
        _ run: ClusteringRunRecord,
        clusters: [ClusterRecord],
        trackIDs: [Int64],
        labels: [Int32],
        distances: [Float]
    ) throws -> Int64 {
        precondition(
            trackIDs.count == labels.count && labels.count == distances.count,
            "Assignments must be parallel arrays."
        )
        let clusterNumbers = Set(clusters.map(\.cluster))
        if let label = labels.first(where: { !clusterNumbers.contains(Int($0)) }) {
            throw StoreError.notFound(what: "Cluster \(label) of the run")
        }
        let order = trackIDs.indices.sorted { trackIDs[$0] < trackIDs[$1] }
        let sortedIDs = order.map { trackIDs[$0] }
        do {
            return try database.write { db in
                // Every track must exist: one ordered pass over the track IDs, merged with ours.
                let known = try Int64.fetchCursor(db, sql: "SELECT id FROM tracks ORDER BY id")
                var next = try known.next()
                for id in sortedIDs {
                    while let candidate = next, candidate < id { next = try known.next() }
                    guard next == id else { throw StoreError.notFound(what: "Track \(id)") }
                }
                var run = run
                run.id = nil
                try run.insert(db)
                let runID = run.id!
                for var cluster in clusters {
                    cluster.runID = runID
                    try cluster.insert(db)
                }
                try db.execute(
                    sql: """
                        INSERT INTO clustering_run_assignments (run_id, track_count, track_ids, clusters, distances)
                        VALUES (?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        runID, sortedIDs.count, PackedArray.data(sortedIDs),
                        PackedArray.data(order.map { labels[$0] }), PackedArray.data(order.map { distances[$0] }),
                    ]
                )
                return runID
            }
        } catch let error as DatabaseError {
            throw StoreError(error, path: path)
        }
    }

    /// Saves a run kept in a file because it could not be saved when it was made.
    ///
    /// - Returns: The new run's ID.
    /// - Throws: As ``saveClusteringRun(_:clusters:trackIDs:labels:distances:)``.
    @discardableResult
    public func saveClusteringRun(_ unsaved: UnsavedClusteringRun) throws -> Int64 {
        guard unsaved.trackIDs.count == unsaved.labels.count && unsaved.labels.count == unsaved.distances.count else {
            throw StoreError.notFound(what: "A consistent set of assignments (track_ids, labels, distances)")
        }
        return try saveClusteringRun(
            unsaved.run,
            clusters: unsaved.clusters,
            trackIDs: unsaved.trackIDs,
            labels: unsaved.labels,
            distances: unsaved.distances
        )
    }

    /// The saved run with `id`, or the latest run when `id` is `nil`; `nil` when there is none.
    public func clusteringRun(id: Int64? = nil) throws -> ClusteringRunRecord? {
        try read { db in
            if let id { return try ClusteringRunRecord.fetchOne(db, key: id) }
            return try ClusteringRunRecord.order(ClusteringRunRecord.CodingKeys.id.desc).fetchOne(db)
        }
    }

    /// Every saved run, newest first.
    public func clusteringRuns() throws -> [ClusteringRunRecord] {
        try read { db in try ClusteringRunRecord.order(ClusteringRunRecord.CodingKeys.id.desc).fetchAll(db) }
    }

    /// The clusters of run `runID`, in cluster order.
    public func clusters(ofRun runID: Int64) throws -> [ClusterRecord] {
        try read { db in
            try ClusterRecord.filter(ClusterRecord.CodingKeys.runID == runID)
                .order(ClusterRecord.CodingKeys.cluster).fetchAll(db)
        }
    }

    /// The `count` tracks of a cluster nearest its centroid, nearest first (ties by track ID).
    public func representativeTracks(ofRun runID: Int64, cluster: Int, count: Int) throws -> [ClusterAssignmentRecord] {
        let members = try assignments(ofRun: runID).filter { $0.cluster == cluster }
        return Array(members.sorted { ($0.distance, $0.trackID) < ($1.distance, $1.trackID) }.prefix(count))
    }

    /// Every assignment of run `runID`, in track-ID order.
    public func assignments(ofRun runID: Int64) throws -> [ClusterAssignmentRecord] {
        try read { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: "SELECT track_ids, clusters, distances FROM clustering_run_assignments WHERE run_id = ?",
                    arguments: [runID]
                )
            else { return [] }
            let ids: [Int64] = PackedArray.values(row[0])
            let labels: [Int32] = PackedArray.values(row[1])
            let distances: [Float] = PackedArray.values(row[2])
            return ids.indices.map {
                ClusterAssignmentRecord(
                    runID: runID,
                    trackID: ids[$0],
                    cluster: Int(labels[$0]),
                    distance: Double(distances[$0])
                )
            }
        }
    }

    /// Deletes run `runID` with its clusters and assignments; returns whether it existed.
    @discardableResult
    public func deleteClusteringRun(id runID: Int64) throws -> Bool {
        do {
            return try database.write { db in try ClusteringRunRecord.deleteOne(db, key: runID) }
        } catch let error as DatabaseError {
            throw StoreError(error, path: path)
        }
    }

    private func read<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try database.read(body)
        } catch let error as DatabaseError {
            throw StoreError(error, path: path)
        }
    }
}

// MARK: - Packed arrays

/// Arrays of fixed-width numbers stored as one BLOB each, in the machine's byte order (little-endian
/// on every platform the package builds for).
enum PackedArray {
    static func data<T: BitwiseCopyable>(_ values: [T]) -> Data {
        values.withUnsafeBytes { Data($0) }
    }

    static func values<T: BitwiseCopyable>(_ data: Data?) -> [T] {
        guard let data, !data.isEmpty else { return [] }
        let count = data.count / MemoryLayout<T>.stride
        return [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            _ = data.copyBytes(to: buffer)
            initialized = count
        }
    }
}

// MARK: - Schema

extension LibraryStore {
    /// Migration `v7-packed-assignments`: moves every saved run's assignments from one row per track
    /// into one packed row per run, and drops the per-track table.
    static func packClusterAssignments(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE clustering_run_assignments (
                    run_id INTEGER PRIMARY KEY REFERENCES clustering_runs(id) ON DELETE CASCADE,
                    track_count INTEGER NOT NULL,
                    track_ids BLOB NOT NULL,  -- Int64 per track, ascending
                    clusters BLOB NOT NULL,   -- Int32 per track
                    distances BLOB NOT NULL   -- Float32 per track
                )
                """
        )
        for runID in try Int64.fetchAll(db, sql: "SELECT id FROM clustering_runs ORDER BY id") {
            var ids: [Int64] = []
            var labels: [Int32] = []
            var distances: [Float] = []
            let rows = try Row.fetchCursor(
                db,
                sql:
                    "SELECT track_id, cluster, distance FROM clustering_assignments WHERE run_id = ? ORDER BY track_id",
                arguments: [runID]
            )
            while let row = try rows.next() {
                ids.append(row[0])
                labels.append(Int32(row[1] as Int))
                distances.append(Float(row[2] as Double))
            }
            try db.execute(
                sql: """
                    INSERT INTO clustering_run_assignments (run_id, track_count, track_ids, clusters, distances)
                    VALUES (?, ?, ?, ?, ?)
                    """,
                arguments: [
                    runID, ids.count, PackedArray.data(ids), PackedArray.data(labels), PackedArray.data(distances),
                ]
            )
        }
        try db.execute(sql: "DROP TABLE clustering_assignments")
    }

    /// The tables of migration `v2-clustering`.
    static func createClusteringSchema(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE clustering_runs (
                    id INTEGER PRIMARY KEY,
                    created_at TEXT NOT NULL,
                    algorithm TEXT NOT NULL,
                    cluster_count INTEGER NOT NULL CHECK (cluster_count >= 1),
                    seed INTEGER NOT NULL,
                    restart_count INTEGER NOT NULL,
                    max_iterations INTEGER NOT NULL,
                    tolerance REAL NOT NULL,
                    thread_count INTEGER NOT NULL,
                    scaling TEXT NOT NULL,
                    track_count INTEGER NOT NULL,
                    excluded_track_count INTEGER NOT NULL,
                    iteration_count INTEGER NOT NULL,
                    has_converged INTEGER NOT NULL,
                    inertia REAL NOT NULL,
                    silhouette REAL,
                    calinski_harabasz REAL,
                    davies_bouldin REAL,
                    cluster_count_scan TEXT,
                    timings TEXT NOT NULL
                );

                CREATE TABLE clustering_clusters (
                    run_id INTEGER NOT NULL REFERENCES clustering_runs(id) ON DELETE CASCADE,
                    cluster INTEGER NOT NULL,
                    name TEXT NOT NULL,
                    mood TEXT NOT NULL,
                    size INTEGER NOT NULL,
                    share REAL NOT NULL,
                    centroid_scaled TEXT NOT NULL,
                    centroid_original TEXT NOT NULL,
                    means TEXT NOT NULL,
                    z_scores TEXT NOT NULL,
                    distinguishing_features TEXT NOT NULL,
                    PRIMARY KEY (run_id, cluster),
                    UNIQUE (run_id, name)
                ) WITHOUT ROWID;

                CREATE TABLE clustering_assignments (
                    run_id INTEGER NOT NULL REFERENCES clustering_runs(id) ON DELETE CASCADE,
                    track_id INTEGER NOT NULL REFERENCES tracks(id) ON DELETE CASCADE,
                    cluster INTEGER NOT NULL,
                    distance REAL NOT NULL,
                    PRIMARY KEY (run_id, track_id),
                    FOREIGN KEY (run_id, cluster) REFERENCES clustering_clusters(run_id, cluster) ON DELETE CASCADE
                ) WITHOUT ROWID;
                CREATE INDEX clustering_assignments_cluster ON clustering_assignments(run_id, cluster, distance);
                """
        )
    }
}

/// A finished clustering run with everything ``LibraryStore/saveClusteringRun(_:)`` needs, for
/// keeping a run in a file when the store cannot take it (another program held it too long, the
/// disk was full): finished work is never lost.
public struct UnsavedClusteringRun: Codable, Sendable {
    public var run: ClusteringRunRecord
    public var clusters: [ClusterRecord]
    public var trackIDs: [Int64]
    public var labels: [Int32]
    public var distances: [Float]

    public init(
        run: ClusteringRunRecord,
        clusters: [ClusterRecord],
        trackIDs: [Int64],
        labels: [Int32],
        distances: [Float]
    ) {
        self.run = run
        self.clusters = clusters
        self.trackIDs = trackIDs
        self.labels = labels
        self.distances = distances
    }

    enum CodingKeys: String, CodingKey {
        case run, clusters, labels, distances
        case trackIDs = "track_ids"
    }

    /// The run as JSON (non-finite numbers written as strings, so that any run can be kept).
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf",
            negativeInfinity: "-inf",
            nan: "nan"
        )
        return try encoder.encode(self)
    }

    /// Reads a run written by ``encoded()``.
    public init(json: Data) throws {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "inf",
            negativeInfinity: "-inf",
            nan: "nan"
        )
        self = try decoder.decode(UnsavedClusteringRun.self, from: json)
    }
}
