import Features
import GRDB

extension LibraryStore {
    /// The schema, as named migrations applied in order. Never edit a migration that has shipped;
    /// add a new one.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-library", migrate: createLibrarySchema)
        migrator.registerMigration("v2-clustering", migrate: createClusteringSchema)
        migrator.registerMigration("v3-spotify-sync", migrate: createSpotifySyncSchema)
        migrator.registerMigration("v4-built-playlists", migrate: addBuiltPlaylistColumns)
        migrator.registerMigration("v5-feature-sources", migrate: addFeatureSourceSchema)
        migrator.registerMigration("v6-local-files", migrate: addLocalFilesSchema)
        migrator.registerMigration("v7-packed-assignments", migrate: packClusterAssignments)
        migrator.registerMigration("v8-invalid-values", migrate: removeInvalidValues)
        migrator.registerMigration("v9-store-about") { db in
            try db.execute(sql: "CREATE TABLE store_about (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        }
        migrator.registerMigration("v10-playlist-reorders") { db in
            // The order a Spotify playlist had before `playlist reorder`, for `--undo`.
            try db.execute(
                sql: """
                    CREATE TABLE playlist_reorders (
                        id INTEGER PRIMARY KEY,
                        spotify_id TEXT NOT NULL,
                        original_uris TEXT NOT NULL, -- JSON array, in the original order
                        snapshot_before TEXT NOT NULL,
                        snapshot_after TEXT, -- set once the new order is written
                        created_at TEXT NOT NULL,
                        undone_at TEXT
                    );
                    CREATE INDEX playlist_reorders_playlist ON playlist_reorders(spotify_id, id);
                    """
            )
        }
        // Adds a table and triggers only: checking every foreign key afterwards (GRDB's default)
        // took 13 s on a million tracks.
        migrator.registerMigration("v11-snapshots", foreignKeyChecks: .immediate, migrate: addSnapshotSchema)
        // The reference tracks alone (usually none): the library is every track but these, and
        // listing them this way spares a scan of every track.
        migrator.registerMigration("v12-reference-index", foreignKeyChecks: .immediate) { db in
            try db.execute(sql: "CREATE INDEX tracks_reference ON tracks(id) WHERE in_library = 0")
        }
        migrator.registerMigration("v13-tag-sources", migrate: numberTagSources)
        migrator.registerMigration("v14-feature-source-ids", migrate: numberFeatureSources)
        migrator.registerMigration("v15-decimal-features", migrate: keepFeaturesAsDecimals)
        // The tracks of a tag are found by one scan of `track_tags` (report genres, `library`'s top
        // tags), so its index by tag is dropped: 32 MB of a million tracks' store, and 1.6 s of
        // their import. The snapshots are deleted with it: this version packs them anew (their
        // formats changed), and their pages freed here let the compaction after the upgrade run.
        migrator.registerMigration("v16-no-tag-index", foreignKeyChecks: .immediate) { db in
            try db.execute(sql: "DROP INDEX IF EXISTS track_tags_tag")
            try db.execute(sql: "DELETE FROM snapshots")
        }
        // Copies `tracks` row for row, IDs and all, so every link to a track still holds: checking
        // them all afterwards (GRDB's default) took 13 s on a million tracks. The migrations
        // registered from here on run without that check.
        migrator = migrator.disablingDeferredForeignKeyChecks()
        migrator.registerMigration("v17-spotify-id-index", migrate: nameTheSpotifyIDIndex)
        migrator.registerMigration("v18-run-scope", migrate: addClusteringRunScope)
        migrator.registerMigration("v19-playlist-recipes", migrate: createPlaylistRecipes)
        migrator.registerMigration("v20-block-snapshot") { db in try createSnapshotTriggers(.blocks, in: db) }
        migrator.registerMigration("v21-audio-embeddings", migrate: createAudioEmbeddings)
        return migrator
    }

    /// Migration `v17-spotify-id-index`: Spotify IDs are kept unique by the named index
    /// `tracks_spotify_id` rather than by the column's `UNIQUE`, whose index SQLite names itself
    /// and which cannot be dropped.
    ///
    /// An import of many new tracks drops the named index and builds it once after its rows,
    /// finding repeated IDs in memory meanwhile (``LibraryWriter/deferIndexBuilds(expectedTracks:)``).
    /// The table is copied as it is (same IDs, same columns in the same order), with its other
    /// indexes and its triggers created again; it must run with foreign keys off, or dropping the
    /// old table would delete every row that refers to a track.
    static func nameTheSpotifyIDIndex(_ db: Database) throws {
        let dependents = try String.fetchAll(
            db,
            sql:
                "SELECT sql FROM sqlite_master WHERE tbl_name = 'tracks' AND type IN ('index', 'trigger') AND sql IS NOT NULL"
        )
        try db.execute(
            sql: """
                CREATE TABLE new_tracks (
                    id INTEGER PRIMARY KEY,
                    spotify_id TEXT,
                    \(trackColumnsOfV1)
                    match_key TEXT NOT NULL,
                    in_library INTEGER NOT NULL DEFAULT 1,
                    local_id TEXT
                );
                INSERT INTO new_tracks (id, spotify_id, name, album, album_id, release_date, release_precision, duration_ms,
                                        isrc, explicit, popularity, is_local, match_key, in_library, local_id)
                    SELECT id, spotify_id, name, album, album_id, release_date, release_precision, duration_ms,
                           isrc, explicit, popularity, is_local, match_key, in_library, local_id
                    FROM tracks ORDER BY id;
                DROP TABLE tracks;
                ALTER TABLE new_tracks RENAME TO tracks;
                CREATE UNIQUE INDEX tracks_spotify_id ON tracks(spotify_id);
                """
        )
        for sql in dependents { try db.execute(sql: sql) }
    }

    /// Migration `v13-tag-sources`: a tag's source is a number into the new `sources` table
    /// instead of its text on every row of `track_tags`.
    ///
    /// A tidytuesday-shaped file tags each track three times (genre, subgenre, playlist), each
    /// row carrying `file:features-csv`: on a million tracks that text was 51 MB of the store.
    static func numberTagSources(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE sources (id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE);
                INSERT INTO sources (key) SELECT DISTINCT source FROM track_tags ORDER BY source;
                CREATE TABLE numbered_track_tags (
                    track_id INTEGER NOT NULL REFERENCES tracks(id) ON DELETE CASCADE,
                    tag_id INTEGER NOT NULL REFERENCES tags(id),
                    source_id INTEGER NOT NULL REFERENCES sources(id),
                    PRIMARY KEY (track_id, tag_id)
                ) WITHOUT ROWID;
                INSERT INTO numbered_track_tags (track_id, tag_id, source_id)
                    SELECT tt.track_id, tt.tag_id, s.id FROM track_tags tt JOIN sources s ON s.key = tt.source
                    ORDER BY tt.track_id, tt.tag_id;
                DROP TABLE track_tags;
                ALTER TABLE numbered_track_tags RENAME TO track_tags;
                CREATE INDEX track_tags_tag ON track_tags(tag_id);
                """
        )
    }

    /// The columns of `tracks` between its ID and its match key as `v1-library` made them, which
    /// `v17-spotify-id-index` copies as they are: one text for both, frozen with them.
    private static let trackColumnsOfV1 = """
        name TEXT NOT NULL,
        album TEXT,
        album_id TEXT,
        release_date TEXT,
        release_precision TEXT CHECK (release_precision IN ('year', 'month', 'day')),
        duration_ms INTEGER,
        isrc TEXT,
        explicit INTEGER,
        popularity INTEGER,
        is_local INTEGER NOT NULL DEFAULT 0,
        """

    /// The feature columns of `audio_features` as `v1-library` made them (and `out_of_range`),
    /// which `v14-feature-source-ids` copies as they are: one text for both, frozen with them
    /// (later migrations change the columns, never this).
    private static let featureColumnsOfV1 = """
        danceability REAL,
        energy REAL,
        key INTEGER,
        loudness REAL,
        mode INTEGER,
        speechiness REAL,
        acousticness REAL,
        instrumentalness REAL,
        liveness REAL,
        valence REAL,
        tempo REAL,
        time_signature INTEGER,
        out_of_range INTEGER NOT NULL DEFAULT 0,
        """

    /// Migration `v14-feature-source-ids`: a feature row's source is a number into `sources`, and
    /// its fetch time is Unix seconds, instead of their text on every row of `audio_features`.
    ///
    /// On a million tracks from one file, `file:features-csv` and an ISO 8601 time took 37 bytes of
    /// each row: `audio_features` went from 151 to 113 MB. The `current_features` view and the new
    /// `all_features` view show both as text, as `audio_features` did.
    static func numberFeatureSources(_ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO sources (key) SELECT DISTINCT source FROM audio_features ORDER BY source
                    ON CONFLICT (key) DO NOTHING;
                CREATE TABLE numbered_audio_features (
                    track_id INTEGER NOT NULL REFERENCES tracks(id) ON DELETE CASCADE,
                    source_id INTEGER NOT NULL REFERENCES sources(id),
                    priority INTEGER NOT NULL,
                    import_run_id INTEGER REFERENCES import_runs(id),
                    fetched_at INTEGER NOT NULL, -- Unix seconds, UTC
                    \(featureColumnsOfV1)
                    PRIMARY KEY (track_id, source_id)
                ) WITHOUT ROWID;
                INSERT INTO numbered_audio_features
                    SELECT f.track_id, s.id, f.priority, f.import_run_id, coalesce(unixepoch(f.fetched_at), 0),
                           f.danceability, f.energy, f.key, f.loudness, f.mode, f.speechiness, f.acousticness,
                           f.instrumentalness, f.liveness, f.valence, f.tempo, f.time_signature, f.out_of_range
                    FROM audio_features f JOIN sources s ON s.key = f.source
                    ORDER BY f.track_id, s.id;
                DROP VIEW current_features;
                DROP TABLE audio_features;
                ALTER TABLE numbered_audio_features RENAME TO audio_features;
                DELETE FROM snapshots WHERE name = 'features';
                """
        )
        try createFeatureViews(db)
        // Dropping the table dropped its snapshot triggers.
        try createSnapshotTriggers(.features, on: "audio_features", in: db)
    }

    /// Migration `v15-decimal-features`: each continuous feature of `audio_features` is kept as a
    /// ``DecimalCode`` in a `…_code` column, and the feature's own column is generated from it
    /// (`VIRTUAL`: it takes no space), so every reader of `audio_features` and its views still sees
    /// `REAL` values. The `facts` snapshot's track names, which nothing reads any more, are deleted.
    ///
    /// On a million tracks, `audio_features` went from 113 to 57 MB, and the names were 21 MB.
    /// The codes are made by the same Swift function the importer uses (a SQL function for the
    /// length of the migration), and every value reads back as the same double, so the `features`
    /// snapshot, built from those values, stays valid.
    static func keepFeaturesAsDecimals(_ db: Database) throws {
        let encode = DatabaseFunction("vibes_decimal_code", argumentCount: 1, pure: true) { values in
            guard let value = Double.fromDatabaseValue(values[0]) else { return nil }
            switch DecimalCode.stored(value) {
            case .code(let code): return code
            case .real(let value): return value
            }
        }
        db.add(function: encode)
        defer { db.remove(function: encode) }
        let discrete = ["key", "mode", "time_signature"]
        let features = [
            "danceability", "energy", "key", "loudness", "mode", "speechiness", "acousticness", "instrumentalness",
            "liveness", "valence", "tempo", "time_signature",
        ]
        let stored = features.map { discrete.contains($0) ? $0 : $0 + "_code" }
        let definitions = features.map { discrete.contains($0) ? "\($0) INTEGER," : "\($0)_code," }
        let generated = features.filter { !discrete.contains($0) }.map {
            "\($0) REAL GENERATED ALWAYS AS (\(DecimalCode.sqlDecoding($0 + "_code"))) VIRTUAL,"
        }
        let encoded = features.map { discrete.contains($0) ? $0 : "vibes_decimal_code(\($0))" }
        try db.execute(
            sql: """
                CREATE TABLE decimal_audio_features (
                    track_id INTEGER NOT NULL REFERENCES tracks(id) ON DELETE CASCADE,
                    source_id INTEGER NOT NULL REFERENCES sources(id),
                    priority INTEGER NOT NULL,
                    import_run_id INTEGER REFERENCES import_runs(id),
                    fetched_at INTEGER NOT NULL, -- Unix seconds, UTC
                    -- A continuous feature's code (DecimalCode: digits × 16 + decimal places), or its REAL value.
                    \(definitions.joined(separator: "\n    "))
                    out_of_range INTEGER NOT NULL DEFAULT 0,
                    -- The values, generated from the codes when read.
                    \(generated.joined(separator: "\n    "))
                    PRIMARY KEY (track_id, source_id)
                ) WITHOUT ROWID;
                INSERT INTO decimal_audio_features
                    (track_id, source_id, priority, import_run_id, fetched_at, \(stored.joined(separator: ", ")), out_of_range)
                    SELECT track_id, source_id, priority, import_run_id, fetched_at, \(encoded.joined(separator: ", ")),
                           out_of_range
                    FROM audio_features ORDER BY track_id, source_id;
                DROP VIEW current_features;
                DROP VIEW all_features;
                DROP TABLE audio_features;
                ALTER TABLE decimal_audio_features RENAME TO audio_features;
                DELETE FROM snapshots WHERE name = 'facts' AND part IN ('names', 'name_ends');
                """
        )
        try createFeatureViews(db)
        // Dropping the table dropped its snapshot triggers.
        try createSnapshotTriggers(.features, on: "audio_features", in: db)
    }

    /// The views that show `audio_features` with its source and fetch time as text:
    /// `all_features`, every source's row, and `current_features`, each track's row of highest
    /// priority (then the latest fetch), as analyses use it.
    static func createFeatureViews(_ db: Database) throws {
        let columns = """
            f.track_id, s.key AS source, f.priority, f.import_run_id,
            strftime('%Y-%m-%dT%H:%M:%SZ', f.fetched_at, 'unixepoch') AS fetched_at,
            f.danceability, f.energy, f.key, f.loudness, f.mode, f.speechiness, f.acousticness,
            f.instrumentalness, f.liveness, f.valence, f.tempo, f.time_signature, f.out_of_range
            """
        try db.execute(
            sql: """
                CREATE VIEW all_features AS
                SELECT \(columns) FROM audio_features f JOIN sources s ON s.id = f.source_id;

                CREATE VIEW current_features AS
                SELECT \(columns), f.rank FROM (
                    SELECT audio_features.*,
                           row_number() OVER (PARTITION BY track_id ORDER BY priority DESC, fetched_at DESC) AS rank
                    FROM audio_features) f
                JOIN sources s ON s.id = f.source_id
                WHERE f.rank = 1;
                """
        )
    }

    private static func createLibrarySchema(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE import_runs (
                    id INTEGER PRIMARY KEY,
                    path TEXT NOT NULL,
                    format TEXT NOT NULL,
                    sha256 TEXT NOT NULL,
                    scale TEXT,
                    rows_read INTEGER NOT NULL DEFAULT 0,
                    rows_imported INTEGER NOT NULL DEFAULT 0,
                    rows_rejected INTEGER NOT NULL DEFAULT 0,
                    tracks_new INTEGER NOT NULL DEFAULT 0,
                    tracks_updated INTEGER NOT NULL DEFAULT 0,
                    features_written INTEGER NOT NULL DEFAULT 0,
                    plays_new INTEGER NOT NULL DEFAULT 0,
                    rejections TEXT NOT NULL DEFAULT '[]',
                    started_at TEXT NOT NULL,
                    finished_at TEXT NOT NULL
                );
                CREATE INDEX import_runs_sha256 ON import_runs(sha256);

                CREATE TABLE artists (
                    id INTEGER PRIMARY KEY,
                    spotify_id TEXT UNIQUE,
                    name TEXT NOT NULL,
                    name_key TEXT NOT NULL UNIQUE
                );

                CREATE TABLE tracks (
                    id INTEGER PRIMARY KEY,
                    spotify_id TEXT UNIQUE,
                    \(trackColumnsOfV1)
                    match_key TEXT NOT NULL
                );
                CREATE INDEX tracks_match_key ON tracks(match_key);

                CREATE TABLE track_artists (
                    track_id INTEGER NOT NULL REFERENCES tracks(id) ON DELETE CASCADE,
                    position INTEGER NOT NULL,
                    artist_id INTEGER NOT NULL REFERENCES artists(id),
                    PRIMARY KEY (track_id, position)
                ) WITHOUT ROWID;
                CREATE INDEX track_artists_artist ON track_artists(artist_id);

                CREATE TABLE audio_features (
                    track_id INTEGER NOT NULL REFERENCES tracks(id) ON DELETE CASCADE,
                    source TEXT NOT NULL,
                    priority INTEGER NOT NULL,
                    import_run_id INTEGER REFERENCES import_runs(id),
                    fetched_at TEXT NOT NULL,
                    \(featureColumnsOfV1)
                    PRIMARY KEY (track_id, source)
                ) WITHOUT ROWID;

                -- The row analyses use: for each track, the source of highest priority.
                CREATE VIEW current_features AS
                SELECT * FROM (
                    SELECT audio_features.*,
                           row_number() OVER (PARTITION BY track_id ORDER BY priority DESC, fetched_at DESC) AS rank
                    FROM audio_features)
                WHERE rank = 1;

                CREATE TABLE tags (
                    id INTEGER PRIMARY KEY,
                    kind TEXT NOT NULL,
                    value TEXT NOT NULL,
                    UNIQUE (kind, value)
                );
                CREATE TABLE track_tags (
                    track_id INTEGER NOT NULL REFERENCES tracks(id) ON DELETE CASCADE,
                    tag_id INTEGER NOT NULL REFERENCES tags(id),
                    source TEXT NOT NULL,
                    PRIMARY KEY (track_id, tag_id)
                ) WITHOUT ROWID;
                CREATE INDEX track_tags_tag ON track_tags(tag_id);

                CREATE TABLE playlists (
                    id INTEGER PRIMARY KEY,
                    origin_key TEXT NOT NULL UNIQUE,
                    spotify_id TEXT UNIQUE,
                    name TEXT NOT NULL,
                    description TEXT,
                    owner TEXT,
                    snapshot_id TEXT,
                    source TEXT NOT NULL,
                    import_run_id INTEGER REFERENCES import_runs(id),
                    updated_at TEXT NOT NULL
                );
                CREATE TABLE playlist_items (
                    playlist_id INTEGER NOT NULL REFERENCES playlists(id) ON DELETE CASCADE,
                    position INTEGER NOT NULL,
                    track_id INTEGER NOT NULL REFERENCES tracks(id) ON DELETE CASCADE,
                    added_at TEXT,
                    added_by TEXT,
                    PRIMARY KEY (playlist_id, position)
                ) WITHOUT ROWID;
                CREATE INDEX playlist_items_track ON playlist_items(track_id);

                CREATE TABLE saved_tracks (
                    track_id INTEGER PRIMARY KEY REFERENCES tracks(id) ON DELETE CASCADE,
                    added_at TEXT,
                    source TEXT NOT NULL
                );

                CREATE TABLE plays (
                    id INTEGER PRIMARY KEY,
                    played_at TEXT NOT NULL, -- when playback ended, ISO 8601 UTC (Spotify's endTime / ts)
                    ms_played INTEGER NOT NULL,
                    track_id INTEGER REFERENCES tracks(id) ON DELETE SET NULL,
                    track_name TEXT NOT NULL,
                    artist_name TEXT NOT NULL,
                    album_name TEXT,
                    spotify_uri TEXT,
                    platform TEXT,
                    reason_start TEXT,
                    reason_end TEXT,
                    shuffle INTEGER,
                    skipped INTEGER,
                    match_key TEXT NOT NULL,
                    source TEXT NOT NULL,
                    import_run_id INTEGER REFERENCES import_runs(id),
                    UNIQUE (played_at, artist_name, track_name, ms_played)
                );
                CREATE INDEX plays_track ON plays(track_id);
                CREATE INDEX plays_unmatched ON plays(match_key) WHERE track_id IS NULL;
                """
        )
    }

    /// Turns values that are not valid (``AudioFeature/isValid(_:)``, ``Track/validDurationMS``)
    /// into missing ones. Versions before this one stored whatever a file held, such as a tempo of
    /// 1e300 or a duration of 1e30 ms, and one such value made reports hang. Plays keep their rows:
    /// readers skip a play whose duration is not valid.
    static func removeInvalidValues(_ db: Database) throws {
        for (bit, feature) in AudioFeature.all.enumerated() {
            let column = feature.rawValue
            let range = feature.validRange
            let whole = feature.isDiscrete ? " AND \(column) = round(\(column))" : ""
            try db.execute(
                sql: """
                    UPDATE audio_features SET \(column) = NULL, out_of_range = out_of_range & ~\(1 << bit)
                    WHERE \(column) IS NOT NULL AND NOT (typeof(\(column)) IN ('integer', 'real')
                        AND \(column) BETWEEN \(range.lowerBound) AND \(range.upperBound)\(whole))
                    """
            )
        }
        try db.execute(
            sql: """
                UPDATE tracks SET duration_ms = NULL
                WHERE duration_ms IS NOT NULL AND NOT (typeof(duration_ms) = 'integer'
                    AND duration_ms BETWEEN \(Track.validDurationMS.lowerBound) AND \(Track.validDurationMS.upperBound))
                """
        )
    }
}
