import Features
import Foundation
import GRDB

/// Writes what the Spotify API returns into the library store, with provenance `spotify-api`.
///
/// Every function runs inside the caller's `write { db in … }`, so one page or one playlist lands
/// in one transaction together with its checkpoint.
///
/// When the shared `ImportWriter` lands, these upserts move there and this type forwards to it;
/// the sync code calls only the functions below.
enum SpotifyLibraryWriter {
    /// The provenance recorded on every row the sync writes.
    static let source = FeatureSource.spotifyAPI.key

    /// Inserts `track` or updates the row with the same Spotify ID (or, for a track without one,
    /// the same match key); returns its row ID and whether it is new.
    ///
    /// A catalogue track also adopts a row a file import created without an ID (same match key),
    /// so plays imported from a streaming history attach to it.
    static func upsertTrack(_ track: Track, in db: Database) throws -> (id: Int64, isNew: Bool) {
        let matchKey = track.matchKey
        var id: Int64?
        if let spotifyID = track.spotifyID {
            id = try Int64.fetchOne(
                db, sql: "SELECT id FROM tracks WHERE spotify_id = ?", arguments: [spotifyID.rawValue])
            if id == nil {
                id = try Int64.fetchOne(
                    db,
                    sql: "SELECT id FROM tracks WHERE spotify_id IS NULL AND is_local = 0 AND match_key = ? LIMIT 1",
                    arguments: [matchKey])
            }
        } else {
            id = try Int64.fetchOne(
                db, sql: "SELECT id FROM tracks WHERE spotify_id IS NULL AND match_key = ? LIMIT 1",
                arguments: [matchKey])
        }
        let values: StatementArguments = [
            track.spotifyID?.rawValue, track.name, track.album, track.albumID?.rawValue,
            track.releaseDate?.description, track.releaseDate?.precision.rawValue, track.durationMS, track.isrc,
            track.isExplicit, track.popularity, track.isLocal, matchKey,
        ]
        let isNew = id == nil
        if let existing = id {
            try db.execute(
                sql: """
                    UPDATE tracks SET spotify_id = COALESCE(?, spotify_id), name = ?, album = COALESCE(?, album),
                        album_id = COALESCE(?, album_id), release_date = COALESCE(?, release_date),
                        release_precision = COALESCE(?, release_precision), duration_ms = COALESCE(?, duration_ms),
                        isrc = COALESCE(?, isrc), explicit = COALESCE(?, explicit), popularity = COALESCE(?, popularity),
                        is_local = ?, match_key = ?
                    WHERE id = ?
                    """,
                arguments: values + [existing])
        } else {
            try db.execute(
                sql: """
                    INSERT INTO tracks (spotify_id, name, album, album_id, release_date, release_precision, duration_ms,
                                        isrc, explicit, popularity, is_local, match_key)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: values)
            id = db.lastInsertedRowID
        }
        let trackID = id!
        if !track.artists.isEmpty {
            try db.execute(sql: "DELETE FROM track_artists WHERE track_id = ?", arguments: [trackID])
            for (position, name) in track.artists.enumerated() {
                let artistID = try upsertArtist(name: name, spotifyID: nil, in: db)
                try db.execute(
                    sql: "INSERT OR IGNORE INTO track_artists (track_id, position, artist_id) VALUES (?, ?, ?)",
                    arguments: [trackID, position, artistID])
            }
        }
        return (trackID, isNew)
    }

    /// Returns the row of the artist named `name`, creating it, and records `spotifyID` when known.
    static func upsertArtist(name: String, spotifyID: String?, in db: Database) throws -> Int64 {
        if let spotifyID,
            let id = try Int64.fetchOne(db, sql: "SELECT id FROM artists WHERE spotify_id = ?", arguments: [spotifyID])
        {
            return id
        }
        let key = Track.normalizedName(name)
        if let id = try Int64.fetchOne(db, sql: "SELECT id FROM artists WHERE name_key = ?", arguments: [key]) {
            if let spotifyID {
                try db.execute(
                    sql: "UPDATE OR IGNORE artists SET spotify_id = ? WHERE id = ? AND spotify_id IS NULL",
                    arguments: [spotifyID, id])
            }
            return id
        }
        try db.execute(
            sql: "INSERT INTO artists (spotify_id, name, name_key) VALUES (?, ?, ?)", arguments: [spotifyID, name, key])
        return db.lastInsertedRowID
    }

    /// Marks a track as saved in the user's library.
    static func saveTrack(_ trackID: Int64, addedAt: String?, in db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO saved_tracks (track_id, added_at, source) VALUES (?, ?, ?)
                ON CONFLICT (track_id) DO UPDATE SET added_at = COALESCE(excluded.added_at, added_at), source = excluded.source
                """,
            arguments: [trackID, addedAt, source])
    }

    /// Inserts or updates a playlist by `originKey` and returns its row ID.
    static func upsertPlaylist(
        originKey: String, spotifyID: String?, name: String, description: String?, owner: String?,
        snapshotID: String?, in db: Database
    ) throws -> Int64 {
        try db.execute(
            sql: """
                INSERT INTO playlists (origin_key, spotify_id, name, description, owner, snapshot_id, source, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (origin_key) DO UPDATE SET spotify_id = excluded.spotify_id, name = excluded.name,
                    description = excluded.description, owner = excluded.owner, snapshot_id = excluded.snapshot_id,
                    source = excluded.source, updated_at = excluded.updated_at
                """,
            arguments: [originKey, spotifyID, name, description, owner, snapshotID, source, Date().formatted(.iso8601)])
        return try Int64.fetchOne(db, sql: "SELECT id FROM playlists WHERE origin_key = ?", arguments: [originKey])!
    }

    /// Replaces a playlist's items.
    static func replacePlaylistItems(
        _ playlistID: Int64, with items: [(position: Int, trackID: Int64, addedAt: String?, addedBy: String?)],
        in db: Database
    ) throws {
        try db.execute(sql: "DELETE FROM playlist_items WHERE playlist_id = ?", arguments: [playlistID])
        for item in items {
            try db.execute(
                sql:
                    "INSERT INTO playlist_items (playlist_id, position, track_id, added_at, added_by) VALUES (?, ?, ?, ?, ?)",
                arguments: [playlistID, item.position, item.trackID, item.addedAt, item.addedBy])
        }
    }

    /// Records a play unless the same play is already stored; returns whether it was new.
    static func insertPlay(
        playedAt: String, msPlayed: Int, trackID: Int64, track: Track, uri: String?, in db: Database
    ) throws -> Bool {
        try db.execute(
            sql: """
                INSERT OR IGNORE INTO plays (played_at, ms_played, track_id, track_name, artist_name, album_name,
                                             spotify_uri, source)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [playedAt, msPlayed, trackID, track.name, track.artists.first ?? "", track.album, uri, source])
        return db.changesCount > 0
    }

    /// Writes the API's audio features for a track (source `spotify-api`, the highest priority).
    static func upsertFeatures(_ features: AudioFeatures, trackID: Int64, fetchedAt: Date, in db: Database) throws {
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO audio_features (track_id, source, priority, fetched_at, danceability, energy, key,
                    loudness, mode, speechiness, acousticness, instrumentalness, liveness, valence, tempo, time_signature,
                    out_of_range)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                trackID, source, FeatureSource.spotifyAPI.priority, fetchedAt.formatted(.iso8601),
                features.danceability,
                features.energy, features.key, features.loudness, features.mode, features.speechiness,
                features.acousticness, features.instrumentalness, features.liveness, features.valence, features.tempo,
                features.timeSignature, !features.outOfRangeFeatures.isEmpty,
            ])
    }
}
