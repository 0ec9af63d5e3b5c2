import Features
import GRDB

/// The feature table of a scope and what covers it (``LibraryStore/featureOverview(scope:)``).
public struct FeatureOverview: Sendable {
    /// The current features of the tracks in scope that have any, in track-ID order.
    public var table: FeatureTable
    /// The tracks in scope, with features or not.
    public var tracks: Int
    /// The tracks in scope with features.
    public var withFeatures: Int
    /// Each source's tracks in scope, most first.
    public var sources: [FeatureStatus.SourceCoverage]
    /// Per feature (wire name), the tracks in scope with a value of it.
    public var coverage: [String: Int]
}

/// Where a library's audio features come from, and why the rest are missing.
public struct FeatureStatus: Sendable, Hashable, Codable {
    /// One source's share.
    public struct SourceCoverage: Sendable, Hashable, Codable {
        /// The provenance key, such as `reccobeats` or `file:exportify`.
        public var source: String
        /// Tracks in scope with a row from this source.
        public var tracks: Int
        /// Tracks in scope whose analysed row is this source's (it ranks highest among theirs).
        public var preferred: Int
    }

    /// One playlist's coverage.
    public struct PlaylistCoverage: Sendable, Hashable, Codable {
        public var name: String
        public var tracks: Int
        public var withFeatures: Int

        enum CodingKeys: String, CodingKey {
            case name, tracks
            case withFeatures = "with_features"
        }
    }

    /// What one provider said it does not know, and when it was last asked.
    public struct NotFound: Sendable, Hashable, Codable {
        /// The provenance key, such as `reccobeats`.
        public var source: String
        /// Tracks without features this source does not know.
        public var tracks: Int
        /// When it was last asked, ISO 8601 UTC.
        public var lastAsked: String

        enum CodingKeys: String, CodingKey {
            case source, tracks
            case lastAsked = "last_asked"
        }
    }

    /// Why tracks lack features.
    public struct Missing: Sendable, Hashable, Codable {
        /// A provider was asked and does not know the track; it is asked again after a while.
        public var notFound = 0
        /// The track can be looked up (it has a Spotify ID or an ISRC) and has not been yet.
        public var pending = 0
        /// The track has neither a Spotify ID nor an ISRC, so no provider can look it up.
        public var noID = 0
        /// A local Spotify file (no Spotify ID): no provider serves it; only analysing the file can.
        public var noSource = 0

        public var total: Int { notFound + pending + noID + noSource }

        enum CodingKeys: String, CodingKey {
            case notFound = "not_found"
            case pending
            case noID = "no_id"
            case noSource = "no_source"
        }
    }

    /// Tracks in scope, and those with features.
    public var tracks = 0
    public var withFeatures = 0
    public var sources: [SourceCoverage] = []
    public var missing = Missing()
    /// Per source, the tracks without features it said it does not know.
    public var notFound: [NotFound] = []
    public var playlists: [PlaylistCoverage] = []
    /// The precedence in force, in its text form.
    public var precedence = FeatureSourcePrecedence.default.description
    /// How local analysis agrees with Spotify's values, when any track has local values.
    public var calibration: CalibrationReport?

    enum CodingKeys: String, CodingKey {
        case tracks, sources, missing, playlists, precedence, calibration
        case withFeatures = "with_features"
        case notFound = "not_found"
    }
}

extension LibraryStore {
    /// Only the first part of ``featureStatus(scope:)``: the tracks in `scope`, those with
    /// features, and the tracks of each source, without the queries of why the others are missing
    /// (on a million tracks those take seconds).
    public func featureCoverage(
        scope: TrackScope = .library
    ) throws -> (tracks: Int, withFeatures: Int, sources: [FeatureStatus.SourceCoverage]) {
        let overview = try featureOverview(scope: scope)
        return (overview.tracks, overview.withFeatures, overview.sources)
    }

    /// The feature table of the tracks in `scope` with its coverage, from one read of the
    /// `features` snapshot: what a report starts from.
    ///
    /// Reading the table and the coverage one after the other decodes the snapshot twice and
    /// lists the scope's tracks twice; on a million tracks this takes about half the time.
    public func featureOverview(scope: TrackScope = .library) throws -> FeatureOverview {
        let snapshot = try featureSnapshot()
        let selection = try selection(of: scope)
        let mask = selection?.mask(of: snapshot.trackIDs)
        let statistics =
            snapshot.hasStatistics
            ? snapshot.statistics(keeping: mask)
            : try featureStatistics(of: snapshot, scope: scope, selection: selection)
        return FeatureOverview(
            table: mask.map { Self.rows(of: snapshot.table, keeping: $0) } ?? snapshot.table,
            tracks: try trackCount(in: selection),
            withFeatures: statistics.preferred.values.reduce(0, +),
            sources: statistics.rows.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map {
                FeatureStatus.SourceCoverage(
                    source: $0.key,
                    tracks: $0.value,
                    preferred: statistics.preferred[$0.key] ?? 0
                )
            },
            coverage: Dictionary(
                uniqueKeysWithValues: zip(AudioFeature.allCases.map(\.rawValue), statistics.coverage)
            )
        )
    }

    /// Coverage per source and per playlist, and what is missing and why, for the tracks in `scope`.
    public func featureStatus(scope: TrackScope = .library) throws -> FeatureStatus {
        let coverage = try featureCoverage(scope: scope)
        return try read { db in
            let (condition, arguments) = try condition(for: scope, in: db)
            var status = FeatureStatus()
            status.precedence = try Self.precedence(in: db).description
            let inScope = "SELECT t.id FROM tracks t WHERE \(condition)"
            status.tracks = coverage.tracks
            status.withFeatures = coverage.withFeatures
            status.sources = coverage.sources
            let missing = try Row.fetchOne(
                db,
                sql: """
                    SELECT sum(t.is_local = 1),
                           sum(t.is_local = 0 AND t.spotify_id IS NULL AND t.isrc IS NULL),
                           sum(t.is_local = 0 AND (t.spotify_id IS NOT NULL OR t.isrc IS NOT NULL)
                               AND EXISTS (SELECT 1 FROM feature_lookups l WHERE l.track_id = t.id)),
                           sum(t.is_local = 0 AND (t.spotify_id IS NOT NULL OR t.isrc IS NOT NULL)
                               AND NOT EXISTS (SELECT 1 FROM feature_lookups l WHERE l.track_id = t.id))
                    FROM tracks t
                    WHERE (\(condition)) AND NOT EXISTS (SELECT 1 FROM audio_features f WHERE f.track_id = t.id)
                    """,
                arguments: arguments
            )
            status.missing.noSource = missing?[0] ?? 0
            status.missing.noID = missing?[1] ?? 0
            status.missing.notFound = missing?[2] ?? 0
            status.missing.pending = missing?[3] ?? 0
            status.notFound = try Row.fetchAll(
                db,
                sql: """
                    SELECT l.source, count(*) AS n, max(l.checked_at) AS last FROM feature_lookups l
                    WHERE l.outcome = 'not_found' AND l.track_id IN (\(inScope))
                      AND NOT EXISTS (SELECT 1 FROM audio_features f WHERE f.track_id = l.track_id)
                    GROUP BY l.source ORDER BY n DESC, l.source
                    """,
                arguments: arguments
            ).map { FeatureStatus.NotFound(source: $0["source"], tracks: $0["n"], lastAsked: $0["last"]) }
            status.playlists = try Row.fetchAll(
                db,
                sql: """
                    SELECT p.name, count(DISTINCT i.track_id) AS n,
                           count(DISTINCT CASE WHEN EXISTS (SELECT 1 FROM audio_features f WHERE f.track_id = i.track_id)
                                          THEN i.track_id END) AS covered
                    FROM playlists p JOIN playlist_items i ON i.playlist_id = p.id
                    JOIN tracks t ON t.id = i.track_id
                    WHERE \(condition)
                    GROUP BY p.id ORDER BY n DESC, p.name
                    """,
                arguments: arguments
            ).map { FeatureStatus.PlaylistCoverage(name: $0["name"], tracks: $0["n"], withFeatures: $0["covered"]) }
            if try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM local_files WHERE error IS NULL)") == true {
                status.calibration = try Self.calibration(in: db).report
            }
            return status
        }
    }
}
