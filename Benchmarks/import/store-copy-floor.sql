-- The floor of any importer of our schema: the rows `vibes-analyze import` wrote (already parsed,
-- normalised, interned and in key order) copied by sqlite3 into an empty store of the same schema.
-- Set up as the import is: the writer's 16 MB page cache, temporary storage in files, the snapshot
-- triggers off, the three indexes the import defers (by match key, by artist, the unique index of
-- Spotify IDs) built after the rows, foreign-key checks off (the sqlite3 shell's default). No CSV
-- parsing, no lookups, no snapshots. compare_import.sh runs it on a fresh store.
PRAGMA cache_size = -16384;
PRAGMA temp_store = FILE;
ATTACH ':OURS:' AS ours;
BEGIN;
DROP TRIGGER snapshot_facts_0; DROP TRIGGER snapshot_facts_1; DROP TRIGGER snapshot_facts_2;
DROP TRIGGER snapshot_facts_3; DROP TRIGGER snapshot_facts_4; DROP TRIGGER snapshot_facts_5;
DROP TRIGGER snapshot_facts_6; DROP TRIGGER snapshot_facts_7;
DROP TRIGGER snapshot_features_0; DROP TRIGGER snapshot_features_1; DROP TRIGGER snapshot_features_2;
DROP INDEX tracks_match_key; DROP INDEX track_artists_artist; DROP INDEX tracks_spotify_id;
INSERT INTO main.sources SELECT * FROM ours.sources;
INSERT INTO main.import_runs SELECT * FROM ours.import_runs;
INSERT INTO main.artists SELECT * FROM ours.artists ORDER BY id;
INSERT INTO main.tags SELECT * FROM ours.tags ORDER BY id;
INSERT INTO main.tracks SELECT * FROM ours.tracks ORDER BY id;
INSERT INTO main.track_artists SELECT * FROM ours.track_artists ORDER BY track_id, position;
-- The stored columns (the feature columns themselves are generated from the codes).
INSERT INTO main.audio_features (track_id, source_id, priority, import_run_id, fetched_at, danceability_code, energy_code, key, loudness_code, mode, speechiness_code, acousticness_code, instrumentalness_code, liveness_code, valence_code, tempo_code, time_signature, out_of_range)
    SELECT track_id, source_id, priority, import_run_id, fetched_at, danceability_code, energy_code, key, loudness_code, mode, speechiness_code, acousticness_code, instrumentalness_code, liveness_code, valence_code, tempo_code, time_signature, out_of_range FROM ours.audio_features ORDER BY track_id, source_id;
INSERT INTO main.track_tags SELECT * FROM ours.track_tags ORDER BY track_id, tag_id;
CREATE UNIQUE INDEX tracks_spotify_id ON tracks(spotify_id);
CREATE INDEX tracks_match_key ON tracks(match_key);
CREATE INDEX track_artists_artist ON track_artists(artist_id);
COMMIT;
