import Features
import Foundation
import Ingest

/// A saved clustering run as `cluster` and `vibes` print it: the run's parameters and scores and
/// every vibe with its profile and representative tracks.
///
/// The run is printed as ``ClusteringRun`` encodes it, with the store's column names as keys. The
/// report leaves out the creation time and timings, so the same seed prints the same report.
public struct VibesReport: Codable, Sendable {
    public struct Example: Codable, Sendable {
        public var trackID: Int64
        public var name: String
        public var artists: [String]
        public var distance: Double

        enum CodingKeys: String, CodingKey {
            case trackID = "track_id"
            case name, artists, distance
        }
    }

    public struct Vibe: Codable, Sendable {
        /// The number `vibes` shows and `--vibe` takes: 1 for the largest.
        public var number: Int
        public var cluster: Int
        public var name: String
        public var mood: Mood
        public var size: Int
        public var share: Double
        public var centroid: [String: Double]
        public var means: [String: Double]
        public var zScores: [String: Double]
        public var distinguishingFeatures: [String]
        public var examples: [Example]

        enum CodingKeys: String, CodingKey {
            case number, cluster, name, mood, size, share, centroid, means
            case zScores = "z_scores"
            case distinguishingFeatures = "distinguishing_features"
            case examples
        }
    }

    public var run: ClusteringRun
    /// What the run was made of: `library` or `playlist:NAME`.
    public var scope: String
    /// The vibes, largest first.
    public var vibes: [Vibe]

    /// Reads run `runID` (the current one when `nil`) from the store.
    ///
    /// - Parameter vibe: The one vibe to show, by number or name; every vibe when `nil`.
    /// - Throws: `StoreError.notFound` when there is no such run, ``EngineError`` when there is
    ///   no such vibe.
    public init(store: LibraryStore, runID: Int64?, exampleCount: Int, vibe: VibeReference? = nil) throws {
        guard let record = try store.clusteringRun(id: runID), let id = record.run.id else {
            throw StoreError.notFound(
                what: runID.map { "Clustering run \($0)" } ?? "A clustering run (run `vibes-analyze cluster` first)"
            )
        }
        run = record.run
        scope = (try store.clusteringRunScopes()[id] ?? .library).wireValue
        var ranked = try store.rankedClusters(ofRun: id).enumerated().map {
            (number: $0.offset + 1, cluster: $0.element)
        }
        if let vibe {
            ranked = [ranked[try vibe.index(in: ranked.map(\.cluster.name), runID: id)]]
        }
        // A few more than shown, so that releases of one song (the same artists and title under
        // several IDs: single, album, compilation) are shown once.
        var examplesByCluster = try store.representativeTracks(ofRun: id, count: exampleCount * 4 + 4)
        let summaries = try store.trackSummaries(for: examplesByCluster.values.flatMap { $0.map(\.trackID) })
        for (cluster, candidates) in examplesByCluster {
            var seen = Set<String>()
            examplesByCluster[cluster] = Array(
                candidates.filter { assignment in
                    guard let summary = summaries[assignment.trackID] else { return true }
                    let song = (summary.artists.map { $0.lowercased() } + [summary.name.lowercased()])
                        .joined(separator: "\u{1F}")
                    return seen.insert(song).inserted
                }
                .prefix(exampleCount)
            )
        }
        vibes = ranked.map { number, cluster in
            Vibe(
                number: number,
                cluster: cluster.cluster,
                name: cluster.name,
                mood: cluster.mood,
                size: cluster.size,
                share: cluster.share,
                centroid: cluster.centroidOriginal,
                means: cluster.means,
                zScores: cluster.zScores,
                distinguishingFeatures: cluster.distinguishingFeatures,
                examples: (examplesByCluster[cluster.cluster] ?? []).map { assignment in
                    let summary = summaries[assignment.trackID]
                    return Example(
                        trackID: assignment.trackID,
                        name: summary?.name ?? "track \(assignment.trackID)",
                        artists: summary?.artists ?? [],
                        distance: assignment.distance
                    )
                }
            )
        }
    }
}
