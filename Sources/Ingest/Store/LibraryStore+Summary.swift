import Features
import GRDB

/// What a library holds, as `vibes-analyze library` shows it.
public struct LibrarySummary: Codable, Sendable {
    public struct SourceCoverage: Codable, Sendable {
        public var source: String
        public var tracks: Int
        /// Tracks whose current (preferred) features come from this source.
        public var preferred: Int
    }

    public struct TagCount: Codable, Sendable {
        public var kind: String
        public var value: String
        public var tracks: Int
    }

    public var path: String
    public var tracks = 0
    /// Tracks in the reference pool (`import --reference`), not the user's library.
    public var referenceTracks = 0
    public var artists = 0
    public var tracksWithFeatures = 0
    public var playlists = 0
    public var playlistItems = 0
    public var savedTracks = 0
    public var plays = 0
    public var playsMatched = 0
    public var importRuns = 0
    /// Tracks with a value for each feature, among tracks with any features.
    public var featureCoverage: [String: Int] = [:]
    /// Feature rows outside the documented range, per feature.
    public var outOfRange: [String: Int] = [:]
    public var sources: [SourceCoverage] = []
    public var firstPlay: String?
    public var lastPlay: String?
    public var topTags: [TagCount] = []

    enum CodingKeys: String, CodingKey {
        case path, tracks, artists, playlists, plays, sources
        case referenceTracks = "reference_tracks"
        case tracksWithFeatures = "tracks_with_features"
        case playlistItems = "playlist_items"
        case savedTracks = "saved_tracks"
        case playsMatched = "plays_matched"
        case importRuns = "import_runs"
        case featureCoverage = "feature_coverage"
        case outOfRange = "out_of_range"
        case firstPlay = "first_play"
        case lastPlay = "last_play"
        case topTags = "top_tags"
    }
}

extension LibraryStore {
    /// Counts what the library holds: tracks, coverage of each feature and source, history, tags.
    ///
    /// - Parameter tagLimit: How many of the most used tags of each kind to list.
    public func summary(tagLimit: Int = 8) throws -> LibrarySummary {
        try database.read { db in
            var summary = LibrarySummary(path: path)
            func count(_ sql: String) throws -> Int { try Int.fetchOne(db, sql: sql) ?? 0 }
            summary.tracks = try count("SELECT count(*) FROM tracks")
            summary.referenceTracks = try count("SELECT count(*) FROM tracks WHERE in_library = 0")
            summary.artists = try count("SELECT count(*) FROM artists")
            summary.tracksWithFeatures = try count("SELECT count(DISTINCT track_id) FROM audio_features")
            summary.playlists = try count("SELECT count(*) FROM playlists")
            summary.playlistItems = try count("SELECT count(*) FROM playlist_items")
            summary.savedTracks = try count("SELECT count(*) FROM saved_tracks")
            summary.plays = try count("SELECT count(*) FROM plays")
            summary.playsMatched = try count("SELECT count(*) FROM plays WHERE track_id IS NOT NULL")
            summary.importRuns = try count("SELECT count(*) FROM import_runs")
            let features = AudioFeature.allCases
            let columns = features.map { "count(\($0.rawValue))" }.joined(separator: ", ")
            if let row = try Row.fetchOne(db, sql: "SELECT \(columns), sum(out_of_range != 0) FROM current_features") {
                for (index, feature) in features.enumerated() {
                    summary.featureCoverage[feature.rawValue] = row[index]
                }
            }
            let flagRows = try Int.fetchAll(
                db,
                sql: "SELECT out_of_range FROM current_features WHERE out_of_range != 0"
            )
            for flags in flagRows {
                for feature in AudioFeatures.features(inFlags: flags) {
                    summary.outOfRange[feature.rawValue, default: 0] += 1
                }
            }
            let preferred = try Dictionary(
                uniqueKeysWithValues: Row.fetchAll(
                    db,
                    sql: "SELECT source, count(*) AS n FROM current_features GROUP BY source"
                )
                .map { ($0["source"] as String, $0["n"] as Int) }
            )
            summary.sources = try Row.fetchAll(
                db,
                sql: "SELECT source, count(*) AS n FROM audio_features GROUP BY source ORDER BY n DESC, source"
            ).map {
                LibrarySummary.SourceCoverage(
                    source: $0["source"],
                    tracks: $0["n"],
                    preferred: preferred[$0["source"]] ?? 0
                )
            }
            if let row = try Row.fetchOne(db, sql: "SELECT min(played_at), max(played_at) FROM plays") {
                summary.firstPlay = row[0]
                summary.lastPlay = row[1]
            }
            summary.topTags = try Row.fetchAll(
                db,
                sql: """
                    SELECT kind, value, n FROM (
                        SELECT t.kind, t.value, count(*) AS n,
                               row_number() OVER (PARTITION BY t.kind ORDER BY count(*) DESC, t.value) AS rank
                        FROM track_tags tt JOIN tags t ON t.id = tt.tag_id GROUP BY t.id)
                    WHERE rank <= ? ORDER BY kind, n DESC, value
                    """,
                arguments: [tagLimit]
            ).map { LibrarySummary.TagCount(kind: $0["kind"], value: $0["value"], tracks: $0["n"]) }
            return summary
        }
    }
}
