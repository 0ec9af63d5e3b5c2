import Features
import Foundation
import GRDB

/// A saved clustering run as the store keeps it: the ``ClusteringRun`` itself, and when it was made
/// and how long it took. One row of `clustering_runs`, whose columns are the run's own JSON keys.
///
/// The schema and scaling, the `--k auto` scan and the timings are stored as JSON text; the seed is
/// stored as its bit pattern (SQLite integers are signed, so a seed above `Int64.max` is stored
/// negative).
///
/// As JSON (`vibes --list --json`) it is `{"run": …, "created_at": …, "timings": …}`, the run
/// in its one shape.
public struct ClusteringRunRecord: Hashable, Sendable, Encodable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "clustering_runs"

    /// The run; its ``ClusteringRun/id`` is assigned when it is saved.
    public var run: ClusteringRun
    /// When the run was made.
    public var createdAt: Date
    /// Wall-clock durations by phase, in milliseconds (`load`, `matrix`, `seeding`, `iterations`, …).
    public var timings: [String: Double]

    public init(run: ClusteringRun, createdAt: Date, timings: [String: Double]) {
        self.run = run
        self.createdAt = createdAt
        self.timings = timings
    }

    private typealias Key = ClusteringRun.CodingKeys

    public init(row: Row) throws {
        func json<T: Decodable>(_ type: T.Type, _ column: String) throws -> T {
            try JSONDecoder().decode(T.self, from: Data((row[column] as String).utf8))
        }
        let algorithmName: String = row[Key.algorithm.rawValue]
        guard let algorithm = ClusteringRun.Algorithm(rawValue: algorithmName) else {
            throw DatabaseError(message: "clustering_runs.algorithm: unknown algorithm '\(algorithmName)'")
        }
        let scanText: String? = row[Key.clusterCountScan.rawValue]
        run = ClusteringRun(
            id: row[Key.id.rawValue],
            algorithm: algorithm,
            clusterCount: row[Key.clusterCount.rawValue],
            seed: UInt64(bitPattern: row[Key.seed.rawValue] as Int64),
            restartCount: row[Key.restartCount.rawValue],
            maxIterations: row[Key.maxIterations.rawValue],
            tolerance: row[Key.tolerance.rawValue],
            threadCount: row[Key.threadCount.rawValue],
            scaling: try json(FeatureScaling.self, Key.scaling.rawValue),
            trackCount: row[Key.trackCount.rawValue],
            excludedTrackCount: row[Key.excludedTrackCount.rawValue],
            iterationCount: row[Key.iterationCount.rawValue],
            hasConverged: row[Key.hasConverged.rawValue],
            inertia: row[Key.inertia.rawValue],
            silhouette: row[Key.silhouette.rawValue],
            calinskiHarabasz: row[Key.calinskiHarabasz.rawValue],
            daviesBouldin: row[Key.daviesBouldin.rawValue],
            clusterCountScan: try scanText.map { try JSONDecoder().decode([ClusterQuality].self, from: Data($0.utf8)) }
        )
        createdAt = row["created_at"]
        timings = try json([String: Double].self, "timings")
    }

    public func encode(to container: inout PersistenceContainer) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        func json(_ value: some Encodable) throws -> String {
            String(decoding: try encoder.encode(value), as: UTF8.self)
        }
        container[Key.id.rawValue] = run.id
        container["created_at"] = createdAt
        container[Key.algorithm.rawValue] = run.algorithm.rawValue
        container[Key.clusterCount.rawValue] = run.clusterCount
        container[Key.seed.rawValue] = Int64(bitPattern: run.seed)
        container[Key.restartCount.rawValue] = run.restartCount
        container[Key.maxIterations.rawValue] = run.maxIterations
        container[Key.tolerance.rawValue] = run.tolerance
        container[Key.threadCount.rawValue] = run.threadCount
        container[Key.scaling.rawValue] = try json(run.scaling)
        container[Key.trackCount.rawValue] = run.trackCount
        container[Key.excludedTrackCount.rawValue] = run.excludedTrackCount
        container[Key.iterationCount.rawValue] = run.iterationCount
        container[Key.hasConverged.rawValue] = run.hasConverged
        container[Key.inertia.rawValue] = run.inertia
        container[Key.silhouette.rawValue] = run.silhouette
        container[Key.calinskiHarabasz.rawValue] = run.calinskiHarabasz
        container[Key.daviesBouldin.rawValue] = run.daviesBouldin
        container[Key.clusterCountScan.rawValue] = try run.clusterCountScan.map(json)
        container["timings"] = try json(timings)
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        run.id = inserted.rowID
    }

    enum CodingKeys: String, CodingKey {
        case run
        case createdAt = "created_at"
        case timings
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
    /// The valence–energy quadrant, stored as its raw value, such as `calm/content`.
    public var mood: Mood
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
        mood: Mood,
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

    /// The record of `vibe` in run `runID`; its reference z-scores are not stored.
    public init(runID: Int64, vibe: Vibe) {
        self.init(
            runID: runID,
            cluster: vibe.profile.cluster,
            name: vibe.profile.name,
            mood: vibe.profile.mood,
            size: vibe.profile.size,
            share: vibe.profile.share,
            centroidScaled: vibe.centroidScaled,
            centroidOriginal: vibe.centroidOriginal,
            means: vibe.profile.means,
            zScores: vibe.profile.zScores,
            distinguishingFeatures: vibe.profile.distinguishingFeatures
        )
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

    /// The cluster's words and numbers, without its reference z-scores (not stored).
    public var profile: VibeProfile {
        VibeProfile(
            cluster: cluster,
            name: name,
            mood: mood,
            size: size,
            share: share,
            means: means,
            zScores: zScores,
            distinguishingFeatures: distinguishingFeatures
        )
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
    ///   - timings: How long the run took, by phase, in milliseconds.
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
        _ run: ClusteringRun,
        timings: [String: Double] = [:],
        clusters: [ClusterRecord],
        trackIDs: [Int64],
        labels: [Int32],
        distances: [Float]
    ) throws -> Int64 {
        precondition(
            trackIDs.count == labels.count && labels.count == distances.count,
            "Assignments must be parallel arrays."
        )
        if let label = Self.firstLabelWithoutCluster(labels, clusters: clusters) {
            throw StoreError.notFound(what: "Cluster \(label) of the run")
        }
        // A feature table's IDs already ascend; only others are sorted.
        let ascending = zip(trackIDs, trackIDs.dropFirst()).allSatisfy { $0 < $1 }
        let order = ascending ? nil : trackIDs.indices.sorted { trackIDs[$0] < trackIDs[$1] }
        let sortedIDs = order.map { $0.map { trackIDs[$0] } } ?? trackIDs
        return try write { db in
            // Every track must exist. The `features` snapshot, when there is one, lists tracks
            // that exist: deleting a track deletes its feature rows, and their trigger the
            // snapshot. Its 8 MB of IDs at a million tracks read in milliseconds, where the
            // ordered pass over every track below read the whole table (0.7 s).
            if try !Self.snapshotHolds(sortedIDs, in: db) {
                try Self.checkTracksExist(sortedIDs, in: db)
            }
            var record = ClusteringRunRecord(run: run, createdAt: Date(), timings: timings)
            record.run.id = nil
            try record.insert(db)
            let runID = record.run.id!
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
                    runID, sortedIDs.count, PackedAssignments.encode(ascendingIDs: sortedIDs),
                    PackedAssignments.encode(labels: order.map { $0.map { labels[$0] } } ?? labels),
                    PackedArray.data(order.map { $0.map { distances[$0] } } ?? distances),
                ]
            )
            return runID
        }
    }

    /// The first of `labels` that no record of `clusters` has, or `nil`.
    ///
    /// When the labels lie in a small range (a run's are `0 ..< k`), they are looked up in a
    /// table indexed by label rather than hashed into a `Set`, one lookup per track.
    static func firstLabelWithoutCluster(_ labels: [Int32], clusters: [ClusterRecord]) -> Int32? {
        guard let smallest = labels.min(), let largest = labels.max() else { return nil }
        guard smallest >= 0, largest < 1 << 16 else {
            let clusterNumbers = Set(clusters.map(\.cluster))
            return labels.first { !clusterNumbers.contains(Int($0)) }
        }
        var isCluster = [Bool](repeating: false, count: Int(largest) + 1)
        for cluster in clusters where isCluster.indices.contains(cluster.cluster) { isCluster[cluster.cluster] = true }
        return labels.first { !isCluster[Int($0)] }
    }

    /// Whether the current `features` snapshot lists every one of `sortedIDs` (ascending).
    static func snapshotHolds(_ sortedIDs: [Int64], in db: Database) throws -> Bool {
        guard let parts = try snapshotParts(.features, in: db, only: ["track_ids"]),
            let known = parts.ascending("track_ids")
        else { return false }
        var next = 0
        for id in sortedIDs {
            while next < known.count, known[next] < id { next += 1 }
            guard next < known.count, known[next] == id else { return false }
        }
        return true
    }

    /// Throws ``StoreError/notFound(what:)`` for the first of `sortedIDs` (ascending) that names
    /// no track: one ordered pass over the track IDs, merged with them.
    static func checkTracksExist(_ sortedIDs: [Int64], in db: Database) throws {
        var next = 0
        try PreparedStatement(db, sql: "SELECT id FROM tracks ORDER BY id").forEachRow { row in
            let known = row.int64(0)
            while next < sortedIDs.count, sortedIDs[next] < known {
                throw StoreError.notFound(what: "Track \(sortedIDs[next])")
            }
            while next < sortedIDs.count, sortedIDs[next] == known { next += 1 }
        }
        if next < sortedIDs.count { throw StoreError.notFound(what: "Track \(sortedIDs[next])") }
    }

    /// Saves a run kept in a file because it could not be saved when it was made.
    ///
    /// - Returns: The new run's ID.
    /// - Throws: As ``saveClusteringRun(_:timings:clusters:trackIDs:labels:distances:)``.
    @discardableResult
    public func saveClusteringRun(_ unsaved: UnsavedClusteringRun) throws -> Int64 {
        guard unsaved.trackIDs.count == unsaved.labels.count && unsaved.labels.count == unsaved.distances.count else {
            throw StoreError.notFound(what: "A consistent set of assignments (track_ids, labels, distances)")
        }
        return try saveClusteringRun(
            unsaved.run,
            timings: unsaved.timings,
            clusters: unsaved.clusters,
            trackIDs: unsaved.trackIDs,
            labels: unsaved.labels,
            distances: unsaved.distances
        )
    }

    /// The saved run with `id`, or the current run when `id` is `nil` (the latest of the library,
    /// ``currentClusteringRunID()``); `nil` when there is none.
    public func clusteringRun(id: Int64? = nil) throws -> ClusteringRunRecord? {
        try read { db in
            if let id { return try ClusteringRunRecord.fetchOne(db, key: id) }
            return try ClusteringRunRecord.filter(sql: Self.currentRunCondition).order(Column("id").desc).fetchOne(db)
        }
    }

    /// Every saved run, newest first.
    public func clusteringRuns() throws -> [ClusteringRunRecord] {
        try read { db in try ClusteringRunRecord.order(Column("id").desc).fetchAll(db) }
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
        try representativeTracks(ofRun: runID, count: count)[cluster] ?? []
    }

    /// The `count` tracks of every cluster nearest its centroid, nearest first (ties by track ID),
    /// keyed by cluster: one pass over the run's packed assignments, without sorting them.
    public func representativeTracks(ofRun runID: Int64, count: Int) throws -> [Int: [ClusterAssignmentRecord]] {
        let packed = try packedAssignments(ofRun: runID)
        guard count > 0, let largest = packed.clusters.max(), largest >= 0 else { return [:] }
        var nearest = [[(distance: Float, trackID: Int64)]](repeating: [], count: Int(largest) + 1)
        for index in packed.trackIDs.indices where packed.clusters[index] >= 0 {
            let cluster = Int(packed.clusters[index])
            let candidate = (distance: packed.distances[index], trackID: packed.trackIDs[index])
            if nearest[cluster].count == count {
                guard let last = nearest[cluster].last,
                    (candidate.distance, candidate.trackID) < (last.distance, last.trackID)
                else { continue }
                nearest[cluster].removeLast()
            }
            let position = nearest[cluster].firstIndex {
                (candidate.distance, candidate.trackID) < ($0.distance, $0.trackID)
            }
            nearest[cluster].insert(candidate, at: position ?? nearest[cluster].count)
        }
        return Dictionary(
            uniqueKeysWithValues: nearest.enumerated().filter { !$0.element.isEmpty }.map { cluster, best in
                (
                    cluster,
                    best.map {
                        ClusterAssignmentRecord(
                            runID: runID,
                            trackID: $0.trackID,
                            cluster: cluster,
                            distance: Double($0.distance)
                        )
                    }
                )
            }
        )
    }

    /// Every assignment of run `runID`, in track-ID order.
    public func assignments(ofRun runID: Int64) throws -> [ClusterAssignmentRecord] {
        let packed = try packedAssignments(ofRun: runID)
        return packed.trackIDs.indices.map {
            ClusterAssignmentRecord(
                runID: runID,
                trackID: packed.trackIDs[$0],
                cluster: Int(packed.clusters[$0]),
                distance: Double(packed.distances[$0])
            )
        }
    }

    /// Every assignment of run `runID` as the store packs them: the track IDs ascending, and each
    /// one's cluster and distance at the same index. Empty arrays when the run has none.
    ///
    /// A million assignments come back as three arrays from three BLOBs, with no value per track.
    public func packedAssignments(
        ofRun runID: Int64
    ) throws -> (trackIDs: [Int64], clusters: [Int32], distances: [Float]) {
        try read { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: "SELECT track_ids, clusters, distances FROM clustering_run_assignments WHERE run_id = ?",
                    arguments: [runID]
                )
            else { return ([], [], []) }
            let distances: [Float] = PackedArray.values(row[2])
            guard let ids = PackedAssignments.ascendingIDs(row[0], count: distances.count),
                let labels = PackedAssignments.labels(row[1], count: distances.count)
            else {
                throw StoreError.damaged(path: path, what: "the assignments of run \(runID) do not fit together")
            }
            return (ids, labels, distances)
        }
    }

    /// Deletes run `runID` with its clusters and assignments; returns whether it existed.
    @discardableResult
    public func deleteClusteringRun(id runID: Int64) throws -> Bool {
        try write { db in try ClusteringRunRecord.deleteOne(db, key: runID) }
    }
}

// MARK: - Packed assignments

/// The compact forms of a run's track IDs and clusters, told from the plain ones by their length
/// (the row holds the track count), so that rows written before them read as they are.
///
/// A million assignments took 16 MB plainly (IDs 8 bytes, clusters 4, distances 4 a track), most
/// of the time `cluster` spent saving. The IDs ascend, mostly by 1: as LEB128 differences they
/// take about a byte each; clusters below 256 take one byte. That is 6 MB a million tracks.
enum PackedAssignments {
    /// The IDs as LEB128 differences (the first from 0), or plainly when that is not shorter.
    static func encode(ascendingIDs ids: [Int64]) -> Data {
        let bytes = AscendingDeltas.encode(ids)
        // Not shorter than plain: store plainly (a length of 8 · count means plain).
        return bytes.count >= 8 * ids.count ? PackedArray.data(ids) : Data(bytes)
    }

    /// The clusters one byte each when every one fits, else four.
    static func encode(labels: [Int32]) -> Data {
        guard labels.allSatisfy({ (0...255).contains($0) }), !labels.isEmpty else { return PackedArray.data(labels) }
        return Data(labels.map { UInt8($0) })
    }

    /// The `count` ascending IDs of `data` in either form, or `nil` when it does not hold them.
    static func ascendingIDs(_ data: Data?, count: Int) -> [Int64]? {
        let data = data ?? Data()
        if data.count == 8 * count { return PackedArray.values(data) }
        let ids = data.withUnsafeBytes { AscendingDeltas.decode($0, atMost: count) }
        return ids?.count == count ? ids : nil
    }

    /// The `count` clusters of `data` in either form, or `nil` when it does not hold them.
    static func labels(_ data: Data?, count: Int) -> [Int32]? {
        let data = data ?? Data()
        if data.count == 4 * count { return PackedArray.values(data) }
        guard data.count == count else { return nil }
        return data.withUnsafeBytes { bytes in bytes.map { Int32($0) } }
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
    public var run: ClusteringRun
    /// How long the run took, by phase, in milliseconds.
    public var timings: [String: Double]
    public var clusters: [ClusterRecord]
    public var trackIDs: [Int64]
    public var labels: [Int32]
    public var distances: [Float]

    public init(
        run: ClusteringRun,
        timings: [String: Double],
        clusters: [ClusterRecord],
        trackIDs: [Int64],
        labels: [Int32],
        distances: [Float]
    ) {
        self.run = run
        self.timings = timings
        self.clusters = clusters
        self.trackIDs = trackIDs
        self.labels = labels
        self.distances = distances
    }

    enum CodingKeys: String, CodingKey {
        case run, timings, clusters, labels, distances
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
