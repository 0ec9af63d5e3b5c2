import Features

/// The `cluster` command's work as one call: a library's feature table in, a named clustering run
/// out, ready for the store.
///
/// It builds the scaled matrix of the settings' schema, fits k-means (a fixed *k*, or the best
/// *k* of a range by silhouette), scores the result and names every vibe from its profile. The
/// same table, settings and seed give the same ``Outcome``, bit for bit, for a given thread count.
public enum VibeClustering {
    /// How many vibes to make.
    public enum ClusterCount: Hashable, Sendable {
        /// Exactly this many.
        case fixed(Int)
        /// The largest count in this range whose silhouette is within 0.01 of the best one's
        /// (``KMeans/fitChoosingClusterCount(_:among:options:silhouetteSampleSize:granularityTolerance:using:progress:)``).
        case best(among: ClosedRange<Int>)
    }

    /// What to cluster on and how.
    public struct Settings: Sendable {
        /// The features, weights and scaling of the space.
        public var schema: FeatureSchema
        /// How many vibes.
        public var clusterCount: ClusterCount
        /// Lloyd's algorithm or mini-batch (mini-batch needs a fixed count).
        public var algorithm: ClusteringRun.Algorithm = .lloyd
        /// The seed of every random choice.
        public var seed: UInt64 = 42
        /// Restarts, iterations, tolerance and threads of Lloyd's algorithm.
        public var kMeans = KMeans.Options()
        /// Batch size and steps of mini-batch k-means (its threads follow `kMeans`).
        public var miniBatch = KMeans.MiniBatchOptions()
        /// Genre tags by track ID, for the vibes' names (``VibeNames/profiles(table:tableRows:labels:clusterCount:tags:)``).
        public var tags: [Int64: Set<String>] = [:]
        /// The genre tags of every row of the table, numbered; used in place of ``tags`` when set
        /// (``VibeNames/profiles(table:tableRows:labels:clusterCount:tagRows:threadCount:)``).
        public var tagRows: VibeNames.TagRows?

        public init(schema: FeatureSchema, clusterCount: ClusterCount) {
            self.schema = schema
            self.clusterCount = clusterCount
        }
    }

    /// A finished run.
    public struct Outcome: Sendable {
        /// The run, not saved yet (its `id` is `nil`).
        public var run: ClusteringRun
        /// Every vibe, in cluster order.
        public var vibes: [Vibe]
        /// The clustered tracks, in matrix row order.
        public var trackIDs: [Int64]
        /// The vibe of each clustered track, parallel to ``trackIDs``.
        public var labels: [Int32]
        /// The Euclidean distance of each clustered track to its vibe's centre, parallel to ``trackIDs``.
        public var distances: [Float]
        /// Tracks left out because they miss a clustered feature that is not filled in, by feature.
        public var missingCounts: [AudioFeature: Int]
        /// Tracks given the library's mean for a feature no source measures for them, by feature.
        public var imputedCounts: [AudioFeature: Int]
        /// Wall-clock milliseconds by phase: `matrix`, `clustering`, `seeding`, `iterations`, `names`.
        public var timings: [String: Double]
    }

    /// Clusters the tracks of `table`.
    ///
    /// - Parameters:
    ///   - table: The library's features; rows that miss a clustered feature are left out.
    ///   - settings: The space, the count and the algorithm.
    ///   - space: `table` placed in the space of `settings.schema`, when the caller has it (a
    ///     cache); built here otherwise.
    ///   - progress: Called after each cluster count tried, for ``ClusterCount/best(among:)``.
    /// - Throws: ``AnalyticsError`` for settings the data cannot take (more vibes than tracks, a
    ///   range starting below 2, mini-batch with a range).
    public static func cluster(
        _ table: FeatureTable,
        settings: Settings,
        space: FeatureSpace? = nil,
        progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil
    ) async throws -> Outcome {
        let clock = ContinuousClock()
        var timings: [String: Double] = [:]
        var start = clock.now
        let space = space ?? settings.schema.makeSpace(from: table)
        timings["matrix"] = milliseconds(clock.now - start)

        var rng = SplitMix64(seed: settings.seed)
        let data = space.matrix.values
        let model: KMeans
        var quality: ClusterQuality
        var scan: [ClusterQuality]?
        start = clock.now
        switch (settings.clusterCount, settings.algorithm) {
        case (.best(let range), .lloyd):
            let result = try await KMeans.fitChoosingClusterCount(
                data,
                among: range,
                options: settings.kMeans,
                using: &rng,
                progress: progress
            )
            model = result.model
            scan = result.qualities
            quality = result.qualities.first { $0.clusterCount == model.clusterCount }!
        case (.best, .minibatch):
            throw AnalyticsError.invalidParameter(
                name: "The cluster count of mini-batch k-means",
                value: "a range",
                expected: "a fixed count; choosing the count runs Lloyd's algorithm"
            )
        case (.fixed(let k), .minibatch):
            var miniBatch = settings.miniBatch
            miniBatch.threadCount = settings.kMeans.threadCount
            model = try await KMeans.fitMiniBatch(data, clusterCount: k, options: miniBatch, using: &rng)
            quality = ClusterQuality.evaluate(
                model,
                on: data,
                threadCount: settings.kMeans.threadCount,
                using: &rng
            )
        case (.fixed(let k), .lloyd):
            model = try await KMeans.fit(data, clusterCount: k, options: settings.kMeans, using: &rng)
            quality = ClusterQuality.evaluate(
                model,
                on: data,
                threadCount: settings.kMeans.threadCount,
                using: &rng
            )
        }
        timings["clustering"] = milliseconds(clock.now - start)
        timings["seeding"] = milliseconds(model.timings.seeding)
        timings["iterations"] = milliseconds(model.timings.iterations)
        quality.inertia = model.inertia

        start = clock.now
        let profiles =
            if let tagRows = settings.tagRows {
                VibeNames.profiles(
                    table: table,
                    tableRows: space.tableRows,
                    labels: model.labels,
                    clusterCount: model.clusterCount,
                    tagRows: tagRows,
                    threadCount: settings.kMeans.threadCount
                )
            } else {
                VibeNames.profiles(
                    table: table,
                    tableRows: space.tableRows,
                    labels: model.labels,
                    clusterCount: model.clusterCount,
                    tags: settings.tags
                )
            }
        let vibes = profiles.map { profile in
            let centroid = Array(model.centroids.row(profile.cluster))
            let original = space.scaling.originalValues(ofScaledRow: centroid)
            return Vibe(
                profile: profile,
                centroidScaled: centroid,
                centroidOriginal: Dictionary(uniqueKeysWithValues: original.map { ($0.key.rawValue, $0.value) })
            )
        }
        timings["names"] = milliseconds(clock.now - start)
        let isMiniBatch = settings.algorithm == .minibatch
        let run = ClusteringRun(
            algorithm: settings.algorithm,
            clusterCount: model.clusterCount,
            seed: settings.seed,
            restartCount: settings.kMeans.restartCount,
            maxIterations: isMiniBatch ? settings.miniBatch.maxSteps : settings.kMeans.maxIterations,
            tolerance: settings.kMeans.tolerance,
            threadCount: settings.kMeans.threadCount,
            scaling: space.scaling,
            trackCount: space.matrix.rowCount,
            excludedTrackCount: space.excludedTrackCount,
            iterationCount: model.iterationCount,
            hasConverged: model.hasConverged,
            inertia: model.inertia,
            silhouette: quality.silhouette,
            calinskiHarabasz: quality.calinskiHarabasz,
            daviesBouldin: quality.daviesBouldin,
            clusterCountScan: scan
        )
        return Outcome(
            run: run,
            vibes: vibes,
            trackIDs: space.matrix.trackIDs,
            labels: model.labels,
            distances: model.squaredDistances.map { $0.squareRoot() },
            missingCounts: space.missingCounts.filter { !space.scaling.schema.imputedFeatures.contains($0.key) },
            imputedCounts: space.imputedCounts,
            timings: timings
        )
    }

    private static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }
}
