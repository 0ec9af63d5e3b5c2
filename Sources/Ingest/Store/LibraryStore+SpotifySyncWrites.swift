import Features
import Foundation
import GRDB

/// One write transaction of a Spotify sync: the ``LibraryWriter`` that file imports use, plus what
/// the sync keeps beside the library (artists' Spotify IDs, checkpoints).
///
/// Valid only inside ``LibraryStore/writeSpotifySyncBatch(runID:fetchedAt:_:)``.
package struct SpotifySyncBatch {
    /// Writes tracks, saved tracks, playlists and plays.
    package let writer: LibraryWriter
    let db: Database

    /// Records an artist with its Spotify ID (the import writer creates artists only through their
    /// tracks, and from names).
    package func writeArtist(name: String, spotifyID: String?) throws {
        let key = Track.normalizedName(name)
        try db.execute(
            sql: "INSERT OR IGNORE INTO artists (name, name_key, spotify_id) VALUES (?, ?, ?)",
            arguments: [name, key, spotifyID]
        )
        if let spotifyID {
            try db.execute(
                sql: "UPDATE OR IGNORE artists SET spotify_id = ? WHERE name_key = ? AND spotify_id IS NULL",
                arguments: [spotifyID, key]
            )
        }
    }

    /// Sets a sync checkpoint in this transaction, or removes it when `value` is `nil`.
    package func setSyncValue(_ value: String?, forKey key: String) throws {
        try LibraryStore.setSyncValue(value, forKey: key, in: db)
    }
}

extension LibraryStore {
    /// Runs `body` in one write transaction with a ``SpotifySyncBatch``, the code path file imports use.
    ///
    /// - Returns: What `body` returned, and what the import writer counted.
    package func writeSpotifySyncBatch<T: Sendable>(
        runID: Int64,
        fetchedAt: String,
        _ body: @escaping @Sendable (SpotifySyncBatch) throws -> T
    ) async throws -> (T, LibraryWriter.Counts) {
        try await write { db in
            let writer = try LibraryWriter(db, runID: runID, fetchedAt: fetchedAt)
            let result = try body(SpotifySyncBatch(writer: writer, db: db))
            return (result, writer.counts)
        }
    }

    // MARK: - Playlists

    /// The snapshot and provenance stored for the playlist with Spotify ID `spotifyID`, or `nil`
    /// when the store has none.
    package func spotifyPlaylistState(spotifyID: String) throws -> (snapshotID: String?, source: String?)? {
        try read { db in
            try Row.fetchOne(
                db,
                sql: "SELECT snapshot_id, source FROM playlists WHERE spotify_id = ?",
                arguments: [spotifyID]
            ).map { row in (row["snapshot_id"], row["source"]) }
        }
    }

    /// The snapshot and provenance of every stored playlist with a Spotify ID, by that ID.
    package func spotifyPlaylistStates() async throws -> [String: (snapshotID: String?, source: String?)] {
        try await read { db in
            var result: [String: (String?, String?)] = [:]
            for row in try Row.fetchAll(
                db,
                sql: "SELECT spotify_id, snapshot_id, source FROM playlists WHERE spotify_id IS NOT NULL"
            ) {
                result[row[0]] = (row[1], row[2])
            }
            return result
        }
    }

    // MARK: - Artist genres

    /// The condition of an artist whose genres are due: it has a Spotify ID, was not checked since
    /// the cutoff, and is credited on a track.
    private static let genresDueCondition = """
        a.spotify_id IS NOT NULL AND (a.genres_checked_at IS NULL OR a.genres_checked_at < ?)
          AND EXISTS (SELECT 1 FROM track_artists ta WHERE ta.artist_id = a.id)
        """

    /// The Spotify IDs of the credited artists whose genres were not checked since `cutoff`
    /// (an ISO 8601 timestamp), in the order they were stored.
    package func spotifyArtistsDueForGenres(checkedBefore cutoff: String) async throws -> [String] {
        try await read { db in
            try String.fetchAll(
                db,
                sql: "SELECT a.spotify_id FROM artists a WHERE \(Self.genresDueCondition) ORDER BY a.id",
                arguments: [cutoff]
            )
        }
    }

    /// How many credited artists' genres were not checked since `cutoff` (an ISO 8601 timestamp).
    package func countSpotifyArtistsDueForGenres(checkedBefore cutoff: String) async throws -> Int {
        try await read { db in
            try Int.fetchOne(
                db,
                sql: "SELECT count(*) FROM artists a WHERE \(Self.genresDueCondition)",
                arguments: [cutoff]
            ) ?? 0
        }
    }

    /// Replaces the genres of each artist in `genres` (by Spotify ID; unknown artists are skipped),
    /// marks every artist in `checked` as checked at `checkedAt`, and tags the tracks by those
    /// artists with `artist-genre` tags.
    ///
    /// - Returns: The artists given at least one genre, and the tags added to tracks.
    package func recordSpotifyArtistGenres(
        _ genres: [(spotifyID: String, genres: [String])],
        checked: [String],
        checkedAt: String,
        source: String
    ) async throws -> (withGenres: Int, tagged: Int) {
        try await write { db -> (Int, Int) in
            var withGenres = 0
            for (id, genres) in genres {
                guard
                    let artistID = try Int64.fetchOne(
                        db,
                        sql: "SELECT id FROM artists WHERE spotify_id = ?",
                        arguments: [id]
                    )
                else { continue }
                try db.execute(sql: "DELETE FROM artist_genres WHERE artist_id = ?", arguments: [artistID])
                for genre in genres where !genre.isEmpty {
                    try db.execute(
                        sql: "INSERT OR IGNORE INTO artist_genres (artist_id, genre, source) VALUES (?, ?, ?)",
                        arguments: [artistID, genre, source]
                    )
                }
                if !genres.isEmpty { withGenres += 1 }
            }
            for id in checked {
                try db.execute(
                    sql: "UPDATE artists SET genres_checked_at = ? WHERE spotify_id = ?",
                    arguments: [checkedAt, id]
                )
            }
            return (withGenres, try LibraryStore.tagTracksWithArtistGenres(in: db))
        }
    }

    /// Tags every track with the genres of its artists (`artist-genre` tags).
    ///
    /// - Returns: The tags added.
    package func tagTracksWithArtistGenres() async throws -> Int {
        try await write { db in try LibraryStore.tagTracksWithArtistGenres(in: db) }
    }

    // MARK: - Run record

    /// Records a sync from `baseURL` in `import_runs` (format `spotify-api`), so rows carry its ID
    /// as provenance.
    ///
    /// - Returns: The run's ID.
    package func startSpotifySyncRun(baseURL: String, startedAt: String) async throws -> Int64 {
        try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO import_runs (path, format, sha256, started_at, finished_at)
                    VALUES (?, 'spotify-api', '-', ?, ?)
                    """,
                arguments: [baseURL, startedAt, startedAt]
            )
            return db.lastInsertedRowID
        }
    }

    /// Completes the run record of a sync with its counts.
    package func finishSpotifySyncRun(
        _ runID: Int64,
        requests: Int,
        rowsImported: Int,
        tracksNew: Int,
        featuresWritten: Int,
        playsNew: Int,
        finishedAt: String
    ) async throws {
        try await write { db in
            try db.execute(
                sql: """
                    UPDATE import_runs SET rows_read = ?, rows_imported = ?, tracks_new = ?, features_written = ?,
                        plays_new = ?, finished_at = ?
                    WHERE id = ?
                    """,
                arguments: [requests, rowsImported, tracksNew, featuresWritten, playsNew, finishedAt, runID]
            )
        }
    }
}
