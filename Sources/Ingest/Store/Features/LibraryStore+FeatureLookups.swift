import Features
import Foundation
import GRDB

extension LibraryStore {
    /// The tracks in `scope` that lack features: from `source` when one is named, else from any.
    ///
    /// Local files are left out (no provider knows them).
    func tracksMissingFeatures(in scope: TrackScope, from source: FeatureSource?) throws -> [FeatureLookup] {
        try read { db in
            let (condition, arguments) = try condition(for: scope, in: db)
            var sourceFilter = ""
            var allArguments = arguments
            if let source {
                sourceFilter = " AND f.source_id = (SELECT id FROM sources WHERE key = ?)"
                allArguments += [source.key]
            }
            return try Row.fetchAll(
                db,
                sql: """
                    SELECT t.id, t.spotify_id, t.isrc, t.name, t.duration_ms,
                           (SELECT a.name FROM track_artists ta JOIN artists a ON a.id = ta.artist_id
                            WHERE ta.track_id = t.id ORDER BY ta.position LIMIT 1) AS artist
                    FROM tracks t
                    WHERE (\(condition)) AND t.is_local = 0
                      AND NOT EXISTS (SELECT 1 FROM audio_features f WHERE f.track_id = t.id\(sourceFilter))
                    ORDER BY t.id
                    """,
                arguments: allArguments
            ).map { row in
                FeatureLookup(
                    trackID: row["id"],
                    spotifyID: (row["spotify_id"] as String?).flatMap { SpotifyID($0) },
                    isrc: row["isrc"],
                    title: row["name"],
                    artist: row["artist"],
                    durationMS: row["duration_ms"]
                )
            }
        }
    }

    /// The tracks `source` said it does not know after `cutoff` (ISO 8601).
    func tracksNotFound(by source: FeatureSource, since cutoff: String) throws -> Set<Int64> {
        try read { db in
            Set(
                try Int64.fetchAll(
                    db,
                    sql: "SELECT track_id FROM feature_lookups WHERE source = ? AND checked_at > ?",
                    arguments: [source.key, cutoff]
                )
            )
        }
    }

    /// Writes one batch of a provider's answers in one transaction: the features it found, with
    /// `source` and `fetchedAt`, and a "not found" record for each track it did not know.
    func recordLookups(
        _ result: FeatureLookupResult,
        batch: ArraySlice<FeatureLookup>,
        source: FeatureSource,
        runID: Int64?,
        fetchedAt: String
    ) async throws {
        try await write { db in
            let writer = try LibraryWriter(db, runID: runID, fetchedAt: fetchedAt)
            for lookup in batch {
                if let features = result.found[lookup.trackID] {
                    try writer.write(features, trackID: lookup.trackID, source: source)
                    try db.execute(
                        sql: "DELETE FROM feature_lookups WHERE track_id = ? AND source = ?",
                        arguments: [lookup.trackID, source.key]
                    )
                } else if result.notFound.contains(lookup.trackID) {
                    try db.execute(
                        sql: """
                            INSERT INTO feature_lookups (track_id, source, outcome, checked_at) VALUES (?, ?, 'not_found', ?)
                            ON CONFLICT (track_id, source) DO UPDATE SET outcome = excluded.outcome, checked_at = excluded.checked_at
                            """,
                        arguments: [lookup.trackID, source.key, fetchedAt]
                    )
                }
            }
        }
    }
}
