import Analytics
import Features
import Ingest

/// More tracks like a playlist's.
public struct PlaylistExtension: Sendable {
    /// The playlist's distinct tracks with features that seeded the search.
    public var seedCount: Int
    /// The tracks found, best first; none of the playlist's own.
    public var recommendations: [Recommendation]
    /// The display summaries of the tracks found.
    public var summaries: [Int64: TrackSummary]
    /// The tracks found in the reference pool rather than the user's library.
    public var referenceTrackIDs: Set<Int64>
}

extension LibraryStore {
    /// Finds tracks of the library like those of playlist `rowID`, each of its tracks weighted
    /// by how central it is (``weightedSeeds(_:recommender:)``); its own tracks are never
    /// suggested.
    ///
    /// - Parameters:
    ///   - rowID: The playlist's row.
    ///   - name: Its name, for the seed's label and the errors.
    ///   - count: How many tracks to find.
    ///   - diversity: Variety against similarity, 0…1.
    ///   - maximumPerArtist: At most this many tracks by one artist.
    /// - Throws: ``EngineError/nothingToExtend(name:)`` when none of its tracks has
    ///   features, ``EngineError/nothingBeyondPlaylist(name:)`` when the library holds nothing
    ///   else, `RecommendationError` for a query that cannot run.
    public func extendPlaylist(
        rowID: Int64,
        name: String,
        count: Int,
        diversity: Double,
        maximumPerArtist: Int
    ) throws -> PlaylistExtension {
        let members = try playlistTrackIDs(rowID: rowID)
        let recommender = try makeRecommender()
        let seeds = Self.weightedSeeds(members, recommender: recommender)
        guard !seeds.isEmpty else { throw EngineError.nothingToExtend(name: name) }
        var query = RecommendationQuery(
            seeds: [.tracks(seeds, label: "playlist \(name)")],
            count: count,
            diversity: diversity,
            maximumPerArtist: maximumPerArtist
        )
        query.excludedTrackIDs = Set(members)
        let candidates = recommender.features.trackIDs.count { !query.excludedTrackIDs.contains($0) }
        guard candidates > 0 else { throw EngineError.nothingBeyondPlaylist(name: name) }
        let found = try recommender.recommend(query).recommendations
        let ids = found.map(\.trackID)
        return PlaylistExtension(
            seedCount: Set(seeds).count,
            recommendations: found,
            summaries: try trackSummaries(for: ids),
            referenceTrackIDs: try referenceTracks(among: ids)
        )
    }

    /// The playlist's tracks with features, each repeated by how central it is: 3 times for
    /// the third nearest the playlist's centre (cosine in the similarity space), twice for the
    /// middle third, once for the rest. The recommender's centroid of a group of tracks is their
    /// mean, so repeats weight it.
    static func weightedSeeds(_ members: [Int64], recommender: Recommender) -> [Int64] {
        let unique = Array(Set(members)).sorted()
        let rows = unique.compactMap { id in recommender.row(of: id).map { (id, $0) } }
        guard rows.count > 2 else { return rows.map(\.0) }
        let matrix = recommender.features.values
        let d = matrix.columnCount
        var centre = [Double](repeating: 0, count: d)
        for (_, row) in rows {
            for column in 0..<d { centre[column] += Double(matrix.elements[row * d + column]) }
        }
        func cosine(_ row: Int) -> Double {
            var dot = 0.0
            var norm = 0.0
            var centreNorm = 0.0
            for column in 0..<d {
                let value = Double(matrix.elements[row * d + column])
                dot += value * centre[column]
                norm += value * value
                centreNorm += centre[column] * centre[column]
            }
            return norm > 0 && centreNorm > 0 ? dot / (norm * centreNorm).squareRoot() : 0
        }
        let ranked = rows.map { ($0.0, cosine($0.1)) }.sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }
        var seeds: [Int64] = []
        for (rank, (id, _)) in ranked.enumerated() {
            let weight = rank < ranked.count / 3 ? 3 : rank < 2 * ranked.count / 3 ? 2 : 1
            seeds += Array(repeating: id, count: weight)
        }
        return seeds
    }
}
