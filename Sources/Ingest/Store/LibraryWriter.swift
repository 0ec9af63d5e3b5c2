import Features
import Foundation
import GRDB

/// The store's writer: what importers read, what the Spotify sync and the feature providers
/// fetch, and what `analyze` finds in local files go into the store through it, inside one write
/// transaction of the store (``LibraryStore/withImportRun(path:format:sha256:fetchedAt:_:)``).
///
/// Every write is an upsert that changes nothing when the data is already there, so importing
/// the same content twice leaves the store as it was, and the counters say so. API data and file
/// data share one code path.
public final class LibraryWriter {
    /// Counters of what the writes did, as an import's summary reports them
    /// (``ImportSummary/counts``).
    public struct Counts: Codable, Sendable {
        public var tracksNew = 0
        public var tracksUpdated = 0
        public var featuresWritten = 0
        public var tracksWithoutFeatures = 0
        public var playsNew = 0
        public var playlists = 0
        public var savedTracks = 0
        /// How many stored feature rows lie outside their documented range, per feature (its
        /// ``AudioFeature`` raw value).
        public var outOfRange: [String: Int] = [:]
        /// Values dropped because they were not valid (see ``AudioFeature/isValid(_:)``), per
        /// feature; not part of the summary's JSON.
        public var invalidDropped: [AudioFeature: Int] = [:]
        /// Plays dropped because their duration was outside ``Track/validDurationMS``; not part
        /// of the summary's JSON.
        public var invalidPlaysDropped = 0

        public init() {}

        enum CodingKeys: String, CodingKey {
            case tracksNew = "tracks_new"
            case tracksUpdated = "tracks_updated"
            case featuresWritten = "features_written"
            case tracksWithoutFeatures = "tracks_without_features"
            case playsNew = "plays_new"
            case playlists
            case savedTracks = "saved_tracks"
            case outOfRange = "out_of_range"
        }
    }

    /// A track as written: its store ID and whether the write created it.
    public struct WrittenTrack: Sendable {
        public var id: Int64
        public var isNew: Bool
    }

    public private(set) var counts = Counts()
    let db: Database
    let runID: Int64?
    let fetchedAt: String
    /// `fetchedAt` as Unix seconds, as `audio_features` keeps it.
    let fetchedAtSeconds: Int64
    /// Whether new tracks are reference tracks (a pool of candidates) rather than the user's
    /// library. A reference write never demotes a library track; a library write promotes a
    /// reference track.
    let isReference: Bool
    /// The store's precedence, which sets the priority of every feature row written.
    let precedence: FeatureSourcePrecedence

    /// The tracks written by Spotify ID so far: a later row with the same ID changes nothing.
    ///
    /// A set of store IDs (bits) rather than a dictionary from Spotify ID: on a million-row CSV the
    /// dictionary held about 110 MB; the bits hold 125 KB, and a repeated ID is looked up in the
    /// unique index instead.
    private var tracksWrittenBySpotifyID = TrackIDSet()
    /// Tracks without a Spotify ID, by match key. Rows without IDs are local files and small
    /// exports; a file of a million such rows would hold about 100 MB here.
    private var trackIDsByMatchKey: [String: Int64] = [:]
    private var artistIDs: [String: Int64] = [:]
    private var artistIDsByName: [String: Int64] = [:]
    private var tagIDs: [String: [String: Int64]] = [:]
    /// The numbers of the tag and feature sources (`sources`), by key.
    private var sourceIDs: [String: Int64] = [:]
    /// The last source looked up: a file's rows all name the same one.
    private var lastSource: (key: String, id: Int64)?
    /// The last feature source written, its number and its priority.
    private var lastFeatureSource: (source: FeatureSource, id: Int64, priority: Int)?
    /// Multi-row inserts by row count: `track_artists` and `track_tags`.
    private var artistLinkStatements: [Int: PreparedStatement] = [:]
    private var tagLinkStatements: [Int: PreparedStatement] = [:]
    private var tracksWithFeatures = TrackIDSet()
    /// Indexes dropped by ``deferIndexBuilds(expectedTracks:)``, with the SQL that creates them
    /// again.
    private var deferredIndexes: [(name: String, sql: String)] = []
    /// The tracks by Spotify ID while the `tracks_spotify_id` index is deferred; `nil` otherwise.
    private var trackIDsBySpotifyID: SpotifyIDTable?
    /// The most slots of ``trackIDsBySpotifyID`` (tests set fewer, to see the index take over).
    var spotifyIDTableSlotLimit = SpotifyIDTable.defaultMaximumSlotCount
    /// Whether tracks are found by Spotify ID in memory rather than by the deferred index.
    var findsSpotifyIDsInMemory: Bool { trackIDsBySpotifyID != nil }
    /// The rows of tracks this import creates, waiting to be inserted many to a statement
    /// (``PendingRows``); used while Spotify IDs are found in memory.
    var pending = PendingRows()
    /// Multi-row inserts of pending rows, by table and row count.
    var pendingStatements: [PendingRows.Table: [Int: PreparedStatement]] = [:]

    /// The secondary indexes a bulk import builds once at its end instead of row by row.
    ///
    /// Measured in sqlite3 on a million tracks and their artist links: with a 64 MB page cache,
    /// keeping `tracks_match_key` and `track_artists_artist` up to date row by row took 17.1 s,
    /// building them afterwards 13.5 s, the same as with a 256 MB cache either way. Deferred, the
    /// import keeps its page cache (and its memory) small at no cost in time.
    static let deferrableIndexes = ["tracks_match_key", "track_artists_artist"]

    /// The unique index of Spotify IDs, deferred too when the store's tracks and the file's fit in
    /// a ``SpotifyIDTable``, which finds repeated IDs meanwhile.
    static let spotifyIDIndex = "tracks_spotify_id"

    private let insertTrack: PreparedStatement
    private let selectTrackBySpotifyID: PreparedStatement
    private let selectTrackByID: PreparedStatement
    private let selectTrackByMatchKey: PreparedStatement
    private let updateTrack: PreparedStatement
    private let insertArtist: PreparedStatement
    private let selectArtist: PreparedStatement
    private let countTrackArtists: PreparedStatement
    private let deleteTrackArtists: PreparedStatement
    private let insertFeatures: PreparedStatement
    private let updateFeatures: PreparedStatement
    private let insertTag: PreparedStatement
    private let selectTag: PreparedStatement
    private let insertSource: PreparedStatement
    private let selectSource: PreparedStatement
    private let insertSaved: PreparedStatement
    private let insertPlay: PreparedStatement
    private let promoteTrack: PreparedStatement

    /// Prepares a writer on `db`, which must be inside a write transaction.
    ///
    /// - Parameters:
    ///   - runID: The import run the writes belong to, recorded as provenance.
    ///   - fetchedAt: When the data was fetched, ISO 8601 UTC.
    ///   - isReference: Whether new tracks join the reference pool instead of the library.
    init(_ db: Database, runID: Int64?, fetchedAt: String, isReference: Bool = false) throws {
        self.db = db
        self.runID = runID
        self.fetchedAt = fetchedAt
        guard let date = try? Date(fetchedAt, strategy: .iso8601) else {
            throw DatabaseError(message: "fetchedAt is not an ISO 8601 time: \(fetchedAt)")
        }
        fetchedAtSeconds = Int64(date.timeIntervalSince1970.rounded(.down))
        self.isReference = isReference
        self.precedence = try LibraryStore.precedence(in: db)
        insertTrack = try PreparedStatement(
            db,
            sql: """
                INSERT OR IGNORE INTO tracks (spotify_id, name, album, album_id, release_date, release_precision,
                                              duration_ms, isrc, explicit, popularity, is_local, match_key, in_library)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
                """
        )
        promoteTrack = try PreparedStatement(
            db,
            sql: "UPDATE tracks SET in_library = 1 WHERE id = ?1 AND in_library = 0"
        )
        selectTrackBySpotifyID = try PreparedStatement(
            db,
            sql: """
                SELECT id, name, album, album_id, release_date, duration_ms, isrc, explicit, popularity
                FROM tracks WHERE spotify_id = ?1
                """
        )
        // The columns of `selectTrackBySpotifyID`, then the Spotify ID (``SpotifyIDTable``).
        selectTrackByID = try PreparedStatement(
            db,
            sql: """
                SELECT id, name, album, album_id, release_date, duration_ms, isrc, explicit, popularity, spotify_id
                FROM tracks WHERE id = ?1
                """
        )
        selectTrackByMatchKey = try PreparedStatement(
            db,
            sql: """
                SELECT id, name, album, album_id, release_date, duration_ms, isrc, explicit, popularity
                FROM tracks WHERE match_key = ?1 ORDER BY spotify_id IS NULL, id LIMIT 1
                """
        )
        updateTrack = try PreparedStatement(
            db,
            sql: """
                UPDATE tracks SET name = ?2, album = coalesce(?3, album), album_id = coalesce(?4, album_id),
                    release_date = coalesce(?5, release_date), release_precision = coalesce(?6, release_precision),
                    duration_ms = coalesce(?7, duration_ms), isrc = coalesce(?8, isrc),
                    explicit = coalesce(?9, explicit), popularity = coalesce(?10, popularity), match_key = ?11
                WHERE id = ?1
                """
        )
        insertArtist = try PreparedStatement(
            db,
            sql: "INSERT INTO artists (name, name_key) VALUES (?1, ?2) ON CONFLICT (name_key) DO NOTHING"
        )
        // `?2`: the key, numbered as the insert numbers it (``numberOf(insert:select:bind:)``).
        selectArtist = try PreparedStatement(db, sql: "SELECT id FROM artists WHERE name_key = ?2")
        countTrackArtists = try PreparedStatement(db, sql: "SELECT count(*) FROM track_artists WHERE track_id = ?1")
        deleteTrackArtists = try PreparedStatement(db, sql: "DELETE FROM track_artists WHERE track_id = ?1")
        let featureColumns = Self.featureColumns
        insertFeatures = try PreparedStatement(
            db,
            sql: """
                INSERT OR IGNORE INTO audio_features (\(Self.featureRowColumns))
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)
                """
        )
        let comparisons = featureColumns.split(separator: ", ").enumerated().map { "\($1) IS NOT ?\($0 + 6)" }
        let updates = featureColumns.split(separator: ", ").enumerated().map { "\($1) = ?\($0 + 6)" }
        updateFeatures = try PreparedStatement(
            db,
            sql: """
                UPDATE audio_features SET priority = ?3, import_run_id = ?4, fetched_at = ?5, \(updates.joined(separator: ", ")),
                    out_of_range = ?18
                WHERE track_id = ?1 AND source_id = ?2 AND (\(comparisons.joined(separator: " OR ")))
                """
        )
        insertTag = try PreparedStatement(
            db,
            sql: "INSERT INTO tags (kind, value) VALUES (?1, ?2) ON CONFLICT (kind, value) DO NOTHING"
        )
        selectTag = try PreparedStatement(db, sql: "SELECT id FROM tags WHERE kind = ?1 AND value = ?2")
        insertSource = try PreparedStatement(
            db,
            sql: "INSERT INTO sources (key) VALUES (?1) ON CONFLICT (key) DO NOTHING"
        )
        selectSource = try PreparedStatement(db, sql: "SELECT id FROM sources WHERE key = ?1")
        insertSaved = try PreparedStatement(
            db,
            sql: """
                INSERT INTO saved_tracks (track_id, added_at, source) VALUES (?1, ?2, ?3)
                ON CONFLICT (track_id) DO UPDATE SET added_at = excluded.added_at
                WHERE excluded.added_at IS NOT NULL AND added_at IS NOT excluded.added_at
                """
        )
        insertPlay = try PreparedStatement(
            db,
            sql: """
                INSERT OR IGNORE INTO plays (played_at, ms_played, track_id, track_name, artist_name, album_name,
                    spotify_uri, platform, reason_start, reason_end, shuffle, skipped, match_key, source, import_run_id)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)
                """
        )
    }

    /// The stored feature columns, in ``Features/AudioFeature/all`` order: a continuous feature is
    /// written to its code column (``DecimalCode``).
    static let featureColumns = AudioFeature.all.map { $0.isDiscrete ? $0.rawValue : DecimalCode.column(of: $0) }
        .joined(separator: ", ")

    /// The columns of a feature row as the writer inserts it: `?1` to `?18`.
    static let featureRowColumns =
        "track_id, source_id, priority, import_run_id, fetched_at, \(featureColumns), out_of_range"

    // MARK: - Deferred indexes

    /// Drops the ``deferrableIndexes`` until ``buildDeferredIndexes()`` (or the first write that
    /// needs one) creates them again, inside the same transaction: worth it when a file adds many
    /// rows to few, since creating an index sorts every row of its table once.
    ///
    /// The unique index of Spotify IDs (``spotifyIDIndex``) is dropped too when the store's tracks
    /// with Spotify IDs and the `expectedTracks` of the file fit in a ``SpotifyIDTable``, which is
    /// filled with the store's tracks first.
    func deferIndexBuilds(expectedTracks: Int) throws {
        var names = Self.deferrableIndexes
        let stored = try Int.fetchOne(db, sql: "SELECT count(*) FROM tracks WHERE spotify_id IS NOT NULL") ?? 0
        if var table = SpotifyIDTable(
            expectedCount: stored + expectedTracks,
            maximumSlotCount: spotifyIDTableSlotLimit
        ) {
            var fits = true
            let rows = try Row.fetchCursor(db, sql: "SELECT id, spotify_id FROM tracks WHERE spotify_id IS NOT NULL")
            while fits, let row = try rows.next() { fits = table.insert(row[1], storeID: row[0]) }
            if fits {
                trackIDsBySpotifyID = table
                names.append(Self.spotifyIDIndex)
            }
        }
        for name in names {
            guard
                let sql = try String.fetchOne(
                    db,
                    sql: "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?",
                    arguments: [name]
                )
            else {
                if name == Self.spotifyIDIndex { trackIDsBySpotifyID = nil }
                continue
            }
            try db.execute(sql: "DROP INDEX \(name)")
            deferredIndexes.append((name, sql))
        }
        if trackIDsBySpotifyID != nil { try holdBackNewRows() }
    }

    /// Creates the indexes ``deferIndexBuilds()`` dropped; does nothing when there are none.
    ///
    /// The builds sort with a small page cache, spilling to a temporary file rather than to
    /// memory (an import of a file runs with temporary storage in files:
    /// ``LibraryStore/withTemporaryStorageInFiles(_:)``). Measured in sqlite3 on a million
    /// tracks, the three builds took 2.9 s and 215 MB with the import's 64 MB cache and in-memory
    /// temporary storage (the sort's runs outgrew the cache into memory), 2.2 s and 38 MB with a
    /// 16 MB cache and a file, which the kernel's page cache holds anyway.
    ///
    /// A sort with a helper thread (`PRAGMA threads = 2`) was slower: measured in sqlite3 on a
    /// million tracks on the shared 2-core host, the builds took 8.6–10.1 s and 70 MB with it,
    /// 6.8–7.0 s and 38 MB without.
    func buildDeferredIndexes() throws {
        try flushPendingRows()
        pending.nextTrackID = nil
        guard !deferredIndexes.isEmpty else { return }
        try LibraryStore.withCacheSize(16384, in: db) {
            for index in deferredIndexes { try db.execute(sql: index.sql) }
        }
        deferredIndexes.removeAll()
        // The index finds tracks by Spotify ID again.
        trackIDsBySpotifyID = nil
    }

    // MARK: - Tracks

    /// Finds or creates `track`, filling in metadata the store lacks.
    ///
    /// A track with a Spotify ID is found by ID. One without (a local file, a row without IDs) is
    /// matched on its normalised artist and title, preferring a track that has an ID.
    @discardableResult
    public func write(_ track: Track) throws -> WrittenTrack {
        try write(track, matchKey: track.matchKey)
    }

    /// ``write(_:)`` with the track's ``Features/Track/matchKey`` already folded (by an importer's
    /// parsing thread).
    func write(_ track: Track, matchKey: String) throws -> WrittenTrack {
        var track = track
        if track.durationMS != nil && track.validDurationMS == nil { track.durationMS = nil }
        if let spotifyID = track.spotifyID?.rawValue, trackIDsBySpotifyID != nil {
            return try write(track, spotifyID: spotifyID, matchKey: matchKey)
        }
        try flushPendingRows()
        if let spotifyID = track.spotifyID?.rawValue {
            bindTrack(track, matchKey: matchKey)
            let written: WrittenTrack
            if try insertTrack.execute() == 1 {
                written = WrittenTrack(id: insertTrack.lastInsertedRowID, isNew: true)
                tracksWrittenBySpotifyID.insert(written.id)
            } else {
                selectTrackBySpotifyID.bind(1, spotifyID)
                let existing = try selectTrackBySpotifyID.firstRow()!
                written = WrittenTrack(id: Int64.fromDatabaseValue(existing[0])!, isNew: false)
                // Written by an earlier row of this import: the first row of an ID wins.
                guard tracksWrittenBySpotifyID.insert(written.id) else { return written }
                try updateIfNeeded(written.id, existing: existing, with: track)
                try promoteIfNeeded(written.id)
            }
            try writeArtists(track.artists, trackID: written.id, isNew: written.isNew)
            if written.isNew { counts.tracksNew += 1 }
            return written
        }
        if let id = trackIDsByMatchKey[matchKey] { return WrittenTrack(id: id, isNew: false) }
        // A lookup by match key without its index would scan every track.
        if !deferredIndexes.isEmpty { try buildDeferredIndexes() }
        selectTrackByMatchKey.bind(1, matchKey)
        let written: WrittenTrack
        if let existing = try selectTrackByMatchKey.firstRow() {
            written = WrittenTrack(id: Int64.fromDatabaseValue(existing[0])!, isNew: false)
            try updateIfNeeded(written.id, existing: existing, with: track)
            try promoteIfNeeded(written.id)
        } else {
            bindTrack(track, matchKey: matchKey)
            try insertTrack.execute()
            written = WrittenTrack(id: insertTrack.lastInsertedRowID, isNew: true)
            counts.tracksNew += 1
        }
        trackIDsByMatchKey[matchKey] = written.id
        try writeArtists(track.artists, trackID: written.id, isNew: written.isNew)
        return written
    }

    /// ``write(_:matchKey:)`` of a track with a Spotify ID while the index of Spotify IDs is
    /// deferred: the track is found in ``trackIDsBySpotifyID`` instead.
    private func write(_ track: Track, spotifyID: String, matchKey: String) throws -> WrittenTrack {
        var existing: [DatabaseValue] = []
        let found = try trackIDsBySpotifyID!.find(spotifyID) { storeID in
            try flushPendingRows()
            selectTrackByID.bind(1, storeID)
            existing = try selectTrackByID.firstRow() ?? []
            return existing.count == 10 && String.fromDatabaseValue(existing[9]) == spotifyID
        }
        if let found {
            let written = WrittenTrack(id: found, isNew: false)
            // Written by an earlier row of this import: the first row of an ID wins.
            guard tracksWrittenBySpotifyID.insert(found) else { return written }
            try flushPendingRows()
            try updateIfNeeded(found, existing: existing, with: track)
            try promoteIfNeeded(found)
            try writeArtists(track.artists, trackID: found, isNew: false)
            return written
        }
        // The track and its artists' links wait to be inserted with others; the insert cannot be
        // ignored (``PendingRows``).
        let written = WrittenTrack(id: try holdBack(track, matchKey: matchKey), isNew: true)
        tracksWrittenBySpotifyID.insert(written.id)
        counts.tracksNew += 1
        // Past what the table holds, the index takes over, built from the rows so far.
        if !trackIDsBySpotifyID!.insert(spotifyID, storeID: written.id) { try buildDeferredIndexes() }
        return written
    }

    /// Inserts `track` as a new track even when another has its artist and title (a local file
    /// that matched no track by duration, say), and returns its ID.
    func insertDistinctTrack(_ track: Track) throws -> Int64 {
        try flushPendingRows()
        bindTrack(track, matchKey: track.matchKey)
        try insertTrack.execute()
        let id = insertTrack.lastInsertedRowID
        // The tracks held back later take the IDs after it.
        if pending.nextTrackID != nil { pending.nextTrackID = id + 1 }
        counts.tracksNew += 1
        try writeArtists(track.artists, trackID: id, isNew: true)
        return id
    }

    private func bindTrack(_ track: Track, matchKey: String) {
        bindTrack(track, matchKey: matchKey, to: insertTrack, offset: 0)
    }

    /// Binds a new track's columns to `?1`…`?13` after `offset`: the Spotify ID, the name, the
    /// metadata (``bindMetadata(of:to:offset:)``), whether it is a local file, its match key and
    /// whether it is in the library.
    func bindTrack(_ track: Track, matchKey: String, to statement: PreparedStatement, offset: Int32) {
        statement.bind(offset + 1, track.spotifyID?.rawValue)
        statement.bind(offset + 2, track.name)
        bindMetadata(of: track, to: statement, offset: offset)
        statement.bind(offset + 11, track.isLocal)
        statement.bind(offset + 12, matchKey)
        statement.bind(offset + 13, !isReference)
    }

    /// Moves a reference track into the library when a library write meets it.
    private func promoteIfNeeded(_ id: Int64) throws {
        guard !isReference else { return }
        promoteTrack.bind(1, id)
        try promoteTrack.execute()
    }

    /// Binds album, release date, duration, ISRC, explicit and popularity to `?3`…`?10`, the
    /// positions both the insert and the update statement use for them.
    private func bindMetadata(of track: Track, to statement: PreparedStatement, offset: Int32 = 0) {
        statement.bind(offset + 3, track.album)
        statement.bind(offset + 4, track.albumID?.rawValue)
        statement.bind(offset + 5, track.releaseDate?.description)
        statement.bind(offset + 6, track.releaseDate?.precision.rawValue)
        statement.bind(offset + 7, track.durationMS)
        statement.bind(offset + 8, track.isrc)
        statement.bind(offset + 9, track.isExplicit)
        statement.bind(offset + 10, track.popularity)
    }

    /// Updates the stored track where the new data adds or changes something.
    private func updateIfNeeded(_ id: Int64, existing: [DatabaseValue], with track: Track) throws {
        let storedName = String.fromDatabaseValue(existing[1]) ?? ""
        let name = track.name.isEmpty ? storedName : track.name
        func differs<T: DatabaseValueConvertible & Equatable>(_ new: T?, _ column: Int) -> Bool {
            guard let new else { return false }
            return T.fromDatabaseValue(existing[column]) != new
        }
        let changed =
            name != storedName || differs(track.album, 2) || differs(track.albumID?.rawValue, 3)
            || differs(track.releaseDate?.description, 4) || differs(track.durationMS.map(Int64.init), 5)
            || differs(track.isrc, 6) || differs(track.isExplicit.map { Int64($0 ? 1 : 0) }, 7)
            || differs(track.popularity.map(Int64.init), 8)
        guard changed else { return }
        updateTrack.bind(1, id)
        updateTrack.bind(2, name)
        bindMetadata(of: track, to: updateTrack)
        updateTrack.bind(11, Track.matchKey(artist: track.artists.first ?? "", title: name))
        try updateTrack.execute()
        counts.tracksUpdated += 1
    }

    /// Links a track to its artists; an existing track's links are replaced only by a longer list.
    private func writeArtists(_ artists: [String], trackID: Int64, isNew: Bool) throws {
        guard !artists.isEmpty else { return }
        if !isNew {
            countTrackArtists.bind(1, trackID)
            let stored = try countTrackArtists.firstRowInt64()?[0] ?? 0
            guard artists.count > stored else { return }
            deleteTrackArtists.bind(1, trackID)
            try deleteTrackArtists.execute()
        }
        let insert = try multiRow(
            "INSERT OR REPLACE INTO track_artists (track_id, position, artist_id) VALUES ",
            columns: 3,
            rows: artists.count,
            cache: &artistLinkStatements
        )
        for (position, name) in artists.enumerated() {
            let base = Int32(position * 3)
            insert.bind(base + 1, trackID)
            insert.bind(base + 2, position)
            insert.bind(base + 3, try artistID(named: name))
        }
        try insert.execute()
    }

    func artistID(named name: String) throws -> Int64 {
        if let id = artistIDsByName[name] { return id }
        let normalized = Track.normalizedName(name)
        let key = normalized.isEmpty ? name : normalized
        if let id = artistIDs[key] {
            artistIDsByName[name] = id
            return id
        }
        let id = try numberOf(insert: insertArtist, select: selectArtist) { statement in
            statement.bind(1, name)
            statement.bind(2, key)
        }
        artistIDs[key] = id
        artistIDsByName[name] = id
        return id
    }

    // MARK: - Features and tags

    /// Stores `features` as the current row of `source` for the track; returns whether it changed.
    @discardableResult
    public func write(_ features: AudioFeatures, trackID: Int64, source: FeatureSource) throws -> Bool {
        try write(features, coded: nil, trackID: trackID, source: source)
    }

    /// ``write(_:trackID:source:)`` with the features' columns already coded (`coded`, made from
    /// `features` by an importer's parsing thread), or coded here when `nil`.
    @discardableResult
    func write(
        _ features: AudioFeatures,
        coded: DecimalCode.Row?,
        trackID: Int64,
        source: FeatureSource
    ) throws -> Bool {
        guard tracksWithFeatures.insert(trackID) else { return false }
        // The last door: importers refuse invalid values with their place in the file, but a
        // network source (ReccoBeats, Spotify) or a caller may hand one in; it is never stored.
        var features = features
        var coded = coded
        for feature in AudioFeature.all {
            if let value = features[feature], !feature.isValid(value) {
                features[feature] = nil
                counts.invalidDropped[feature, default: 0] += 1
                coded = nil
            }
        }
        let flags = features.outOfRangeFlags
        if lastFeatureSource?.source != source {
            lastFeatureSource = (source, try sourceID(source.key), precedence.priority(of: source))
        }
        let row = PendingRows.FeatureRow(
            trackID: trackID,
            sourceID: lastFeatureSource!.id,
            priority: lastFeatureSource!.priority,
            features: features,
            coded: coded ?? DecimalCode.Row(features),
            outOfRangeFlags: flags
        )
        var changed: Bool
        if pending.isCreated(trackID) {
            // The only feature row of a track this import created (``tracksWithFeatures``).
            try holdBack(row)
            changed = true
        } else {
            try flushPendingRows()
            // Statements with OR IGNORE need no statement journal; an upsert would copy every page
            // it touches into one, per row. The update is bound only when the insert found a row.
            bindFeatures(row, to: insertFeatures, offset: 0)
            changed = try insertFeatures.execute() == 1
            if !changed {
                bindFeatures(row, to: updateFeatures, offset: 0)
                changed = try updateFeatures.execute() == 1
            }
        }
        if changed {
            counts.featuresWritten += 1
            if flags != 0 {
                for feature in AudioFeatures.features(inFlags: flags) {
                    counts.outOfRange[feature.rawValue, default: 0] += 1
                }
            }
        }
        return changed
    }

    /// Binds a feature row to `?1`…`?18` after `offset` (``featureRowColumns``).
    func bindFeatures(_ row: PendingRows.FeatureRow, to statement: PreparedStatement, offset: Int32) {
        statement.bind(offset + 1, row.trackID)
        statement.bind(offset + 2, row.sourceID)
        statement.bind(offset + 3, row.priority)
        statement.bind(offset + 4, runID)
        statement.bind(offset + 5, fetchedAtSeconds)
        for (column, feature) in AudioFeature.all.enumerated() {
            let index = offset + Int32(6 + column)
            // A discrete feature (key, mode, time signature) goes to its INTEGER column as it is.
            switch row.features[feature].map({ feature.isDiscrete ? .real($0) : row.coded.stored(column: column) }) {
            case nil: statement.bind(index, nil as Double?)
            case .code(let code): statement.bind(index, code)
            case .real(let value): statement.bind(index, value)
            }
        }
        statement.bind(offset + 18, row.outOfRangeFlags)
    }

    /// Notes that a track arrived without features (counted for the summary).
    public func noteMissingFeatures() {
        counts.tracksWithoutFeatures += 1
    }

    /// Tags a track, e.g. `genre: pop` or `playlist: Pop Remix`.
    public func tag(trackID: Int64, kind: String, value: String, source: String) throws {
        try tag(trackID: trackID, with: [(kind, value)], source: source)
    }

    /// Tags a track with several `(kind, value)` pairs in one statement.
    public func tag(trackID: Int64, with tags: [(kind: String, value: String)], source: String) throws {
        var tagIDs: [Int64] = []
        tagIDs.reserveCapacity(tags.count)
        for (kind, value) in tags {
            // Most values have no white space to trim: keep them rather than copy them.
            let value = Self.mayNeedTrimming(value) ? String(value.trimmingWhitespace()) : value
            guard !value.isEmpty else { continue }
            tagIDs.append(try tagID(kind: kind, value: value))
        }
        guard !tagIDs.isEmpty else { return }
        let sourceID = try self.sourceID(source)
        if pending.isCreated(trackID) {
            try holdBack(tagIDs: tagIDs, trackID: trackID, sourceID: sourceID)
            return
        }
        try flushPendingRows()
        let insert = try multiRow(
            "INSERT OR IGNORE INTO track_tags (track_id, tag_id, source_id) VALUES ",
            columns: 3,
            rows: tagIDs.count,
            cache: &tagLinkStatements
        )
        for (row, tagID) in tagIDs.enumerated() {
            let base = Int32(row * 3)
            insert.bind(base + 1, trackID)
            insert.bind(base + 2, tagID)
            insert.bind(base + 3, sourceID)
        }
        try insert.execute()
    }

    /// Whether `value` may start or end with white space: the test `trimmingWhitespace()` makes first.
    private static func mayNeedTrimming(_ value: String) -> Bool {
        guard let first = value.utf8.first, let last = value.utf8.last else { return true }
        return !(0x21..<0x80).contains(first) || !(0x21..<0x80).contains(last)
    }

    private func tagID(kind: String, value: String) throws -> Int64 {
        if let cached = tagIDs[kind]?[value] { return cached }
        let tagID = try numberOf(insert: insertTag, select: selectTag) { statement in
            statement.bind(1, kind)
            statement.bind(2, value)
        }
        tagIDs[kind, default: [:]][value] = tagID
        return tagID
    }

    func sourceID(_ key: String) throws -> Int64 {
        if let lastSource, lastSource.key == key { return lastSource.id }
        if let cached = sourceIDs[key] {
            lastSource = (key, cached)
            return cached
        }
        let sourceID = try numberOf(insert: insertSource, select: selectSource) { $0.bind(1, key) }
        sourceIDs[key] = sourceID
        lastSource = (key, sourceID)
        return sourceID
    }

    /// The ID of the row `insert` adds, or that `select` finds when it was there: both take the
    /// same arguments, which `bind` sets.
    private func numberOf(
        insert: PreparedStatement,
        select: PreparedStatement,
        bind: (PreparedStatement) -> Void
    ) throws -> Int64 {
        bind(insert)
        if try insert.execute() == 1 { return insert.lastInsertedRowID }
        bind(select)
        return try select.firstRowInt64()![0]!
    }

    /// A prepared `prefix (?, …), (?, …)` statement for `rows` rows of `columns` values, cached:
    /// one statement per track instead of one per tag or artist.
    func multiRow(
        _ prefix: String,
        columns: Int,
        rows: Int,
        cache: inout [Int: PreparedStatement]
    ) throws -> PreparedStatement {
        if let statement = cache[rows] { return statement }
        let tuple = "(" + Array(repeating: "?", count: columns).joined(separator: ", ") + ")"
        let statement = try PreparedStatement(
            db,
            sql: prefix + Array(repeating: tuple, count: rows).joined(separator: ", ")
        )
        cache[rows] = statement
        return statement
    }

    // MARK: - Library, playlists and plays

    /// Marks a track as saved in the user's library ("Liked Songs").
    public func save(trackID: Int64, addedAt: String?, source: String) throws {
        try flushPendingRows()
        insertSaved.bind(1, trackID)
        insertSaved.bind(2, addedAt)
        insertSaved.bind(3, source)
        if try insertSaved.execute() == 1 { counts.savedTracks += 1 }
    }

    /// One entry of a playlist, in order.
    public struct PlaylistEntry: Hashable, Sendable {
        public var trackID: Int64
        public var addedAt: String?
        public var addedBy: String?

        public init(trackID: Int64, addedAt: String? = nil, addedBy: String? = nil) {
            self.trackID = trackID
            self.addedAt = addedAt
            self.addedBy = addedBy
        }
    }

    /// Creates or updates the playlist identified by `originKey` and replaces its items when
    /// they differ; returns the playlist's ID.
    ///
    /// - Parameter originKey: A stable identity, such as `spotify:playlist:<id>` or
    ///   `exportify:Liked_Songs.csv`.
    @discardableResult
    public func writePlaylist(
        originKey: String,
        name: String,
        spotifyID: String? = nil,
        description: String? = nil,
        owner: String? = nil,
        snapshotID: String? = nil,
        source: String,
        entries: [PlaylistEntry]
    ) throws -> Int64 {
        try flushPendingRows()
        let existing = try Row.fetchOne(
            db,
            sql: "SELECT id, name, description, owner, snapshot_id FROM playlists WHERE origin_key = ?",
            arguments: [originKey]
        )
        let playlistID: Int64
        var changed = false
        if let existing {
            playlistID = existing["id"]
            if existing["name"] as String != name || existing["description"] as String? != description
                || existing["owner"] as String? != owner || existing["snapshot_id"] as String? != snapshotID
            {
                try db.execute(
                    sql: """
                        UPDATE playlists SET name = ?, description = ?, owner = ?, snapshot_id = ?, spotify_id = ?,
                            import_run_id = ?, updated_at = ? WHERE id = ?
                        """,
                    arguments: [name, description, owner, snapshotID, spotifyID, runID, fetchedAt, playlistID]
                )
                changed = true
            }
        } else {
            try db.execute(
                sql: """
                    INSERT INTO playlists (origin_key, spotify_id, name, description, owner, snapshot_id, source,
                                           import_run_id, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [originKey, spotifyID, name, description, owner, snapshotID, source, runID, fetchedAt]
            )
            playlistID = db.lastInsertedRowID
            changed = true
        }
        let stored = try Row.fetchAll(
            db,
            sql: "SELECT track_id, added_at, added_by FROM playlist_items WHERE playlist_id = ? ORDER BY position",
            arguments: [playlistID]
        ).map { PlaylistEntry(trackID: $0["track_id"], addedAt: $0["added_at"], addedBy: $0["added_by"]) }
        if stored != entries {
            try db.execute(sql: "DELETE FROM playlist_items WHERE playlist_id = ?", arguments: [playlistID])
            let insert = try PreparedStatement(
                db,
                sql:
                    "INSERT INTO playlist_items (playlist_id, position, track_id, added_at, added_by) VALUES (?1, ?2, ?3, ?4, ?5)"
            )
            for (position, entry) in entries.enumerated() {
                insert.bind(1, playlistID)
                insert.bind(2, position)
                insert.bind(3, entry.trackID)
                insert.bind(4, entry.addedAt)
                insert.bind(5, entry.addedBy)
                try insert.execute()
            }
            changed = true
        }
        if changed { counts.playlists += 1 }
        return playlistID
    }

    /// A play of a track, from listening history.
    public struct Play: Sendable {
        /// When playback ended, ISO 8601 UTC.
        public var endedAt: String
        public var msPlayed: Int
        public var trackName: String
        public var artistName: String
        public var albumName: String?
        public var spotifyURI: String?
        public var platform: String?
        public var reasonStart: String?
        public var reasonEnd: String?
        public var shuffle: Bool?
        public var skipped: Bool?

        public init(
            endedAt: String,
            msPlayed: Int,
            trackName: String,
            artistName: String,
            albumName: String? = nil,
            spotifyURI: String? = nil,
            platform: String? = nil,
            reasonStart: String? = nil,
            reasonEnd: String? = nil,
            shuffle: Bool? = nil,
            skipped: Bool? = nil
        ) {
            self.endedAt = endedAt
            self.msPlayed = msPlayed
            self.trackName = trackName
            self.artistName = artistName
            self.albumName = albumName
            self.spotifyURI = spotifyURI
            self.platform = platform
            self.reasonStart = reasonStart
            self.reasonEnd = reasonEnd
            self.shuffle = shuffle
            self.skipped = skipped
        }
    }

    /// Records a play, linked to `trackID` when known (else matched later by artist and title).
    public func write(_ play: Play, trackID: Int64?, source: String) throws {
        // Importers refuse such plays with their place in the file; this is the last door.
        guard Track.validDurationMS.contains(play.msPlayed) else {
            counts.invalidPlaysDropped += 1
            return
        }
        try flushPendingRows()
        insertPlay.bind(1, play.endedAt)
        insertPlay.bind(2, play.msPlayed)
        insertPlay.bind(3, trackID)
        insertPlay.bind(4, play.trackName)
        insertPlay.bind(5, play.artistName)
        insertPlay.bind(6, play.albumName)
        insertPlay.bind(7, play.spotifyURI)
        insertPlay.bind(8, play.platform)
        insertPlay.bind(9, play.reasonStart)
        insertPlay.bind(10, play.reasonEnd)
        insertPlay.bind(11, play.shuffle)
        insertPlay.bind(12, play.skipped)
        insertPlay.bind(13, Track.matchKey(artist: play.artistName, title: play.trackName))
        insertPlay.bind(14, source)
        insertPlay.bind(15, runID)
        if try insertPlay.execute() == 1 { counts.playsNew += 1 }
    }

    /// Links plays that arrived without a known track to tracks with the same artist and title;
    /// returns how many were linked.
    @discardableResult
    public func matchUnlinkedPlays() throws -> Int {
        try buildDeferredIndexes()
        try db.execute(
            sql: """
                UPDATE plays SET track_id = (
                    SELECT t.id FROM tracks t WHERE t.match_key = plays.match_key ORDER BY t.spotify_id IS NULL, t.id LIMIT 1)
                WHERE track_id IS NULL AND match_key IN (SELECT match_key FROM tracks)
                """
        )
        return db.changesCount
    }
}

/// A set of track IDs, which are the store's rowids: small, dense integers kept as bits.
///
/// A million IDs take 125 KB, where a `Set<Int64>` took 16 MB. An ID beyond 2²⁷ (none unless
/// rows were inserted with chosen IDs) goes to a plain set.
struct TrackIDSet {
    private var words: [UInt64] = []
    private var others: Set<Int64> = []
    private static let denseLimit: Int64 = 1 << 27

    /// Inserts `id`; returns whether it was not there yet.
    @discardableResult
    mutating func insert(_ id: Int64) -> Bool {
        guard id >= 0 && id < Self.denseLimit else { return others.insert(id).inserted }
        let word = Int(id >> 6)
        if word >= words.count {
            words.append(contentsOf: repeatElement(0, count: max(word + 1 - words.count, words.count)))
        }
        let bit = UInt64(1) << UInt64(id & 63)
        guard words[word] & bit == 0 else { return false }
        words[word] |= bit
        return true
    }

    func contains(_ id: Int64) -> Bool {
        guard id >= 0 && id < Self.denseLimit else { return others.contains(id) }
        let word = Int(id >> 6)
        return word < words.count && words[word] & (UInt64(1) << UInt64(id & 63)) != 0
    }
}
