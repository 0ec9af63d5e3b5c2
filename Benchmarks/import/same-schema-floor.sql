-- The floor for our schema: the same rows loaded by set-based SQL inside sqlite3 itself (no Swift,
-- no per-row statements, simplified normalisation). compare_import.sh runs it on a fresh store.
PRAGMA cache_size = -262144;
BEGIN;
CREATE TEMP TABLE staging(track_id, track_name, track_artist, track_popularity, track_album_id, track_album_name,
    track_album_release_date, playlist_name, playlist_id, playlist_genre, playlist_subgenre, danceability, energy,
    key, loudness, mode, speechiness, acousticness, instrumentalness, liveness, valence, tempo, duration_ms);
.mode csv
.import --skip 1 :CSV: staging
INSERT OR IGNORE INTO artists (name, name_key) SELECT DISTINCT track_artist, lower(track_artist) FROM staging;
INSERT OR IGNORE INTO tracks (spotify_id, name, album, album_id, release_date, duration_ms, popularity, match_key)
    SELECT track_id, track_name, track_album_name, track_album_id, track_album_release_date, duration_ms,
           track_popularity, lower(track_artist) || char(31) || lower(track_name)
    FROM staging ORDER BY track_id;
INSERT OR IGNORE INTO track_artists (track_id, position, artist_id)
    SELECT t.id, 0, a.id FROM staging s JOIN tracks t ON t.spotify_id = s.track_id JOIN artists a ON a.name_key = lower(s.track_artist);
INSERT OR IGNORE INTO sources (key) VALUES ('file:features-csv');
-- The values go in as REAL, which the code columns also keep (SQL has no decimal coder).
INSERT OR IGNORE INTO audio_features (track_id, source_id, priority, fetched_at, danceability_code, energy_code, key,
    loudness_code, mode, speechiness_code, acousticness_code, instrumentalness_code, liveness_code, valence_code, tempo_code)
    SELECT t.id, (SELECT id FROM sources WHERE key = 'file:features-csv'), 40, unixepoch(), danceability, energy, key, loudness, mode, speechiness, acousticness,
           instrumentalness, liveness, valence, tempo
    FROM staging s JOIN tracks t ON t.spotify_id = s.track_id;
INSERT OR IGNORE INTO tags (kind, value)
    SELECT DISTINCT 'genre', playlist_genre FROM staging UNION SELECT DISTINCT 'subgenre', playlist_subgenre FROM staging
    UNION SELECT DISTINCT 'playlist', playlist_name FROM staging;
INSERT OR IGNORE INTO track_tags (track_id, tag_id, source_id)
    SELECT t.id, g.id, (SELECT id FROM sources WHERE key = 'file:features-csv')
    FROM staging s JOIN tracks t ON t.spotify_id = s.track_id
    JOIN tags g ON (g.kind = 'genre' AND g.value = s.playlist_genre) OR (g.kind = 'subgenre' AND g.value = s.playlist_subgenre)
                OR (g.kind = 'playlist' AND g.value = s.playlist_name);
COMMIT;
