import Features
import Foundation
import GRDB

/// Which tracks an analysis covers.
public enum TrackScope: Hashable, Sendable {
    /// Every track with features, the reference pool included.
    case all
    /// The user's library: saved, in a playlist, played, or imported without `--reference`.
    case library
    /// The tracks of one playlist, by name (case-insensitive) or Spotify ID.
    case playlist(String)
    /// The tracks of one playlist, by its row ID (as `GET /api/playlists` lists it): names may
    /// repeat, and playlists that were not on Spotify have no Spotify ID.
    case playlistRow(Int64)
}

/// A scope the store cannot resolve.
public enum TrackScopeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No playlist has this name or Spotify ID, nor one near it.
    case unknownPlaylist(name: String)
    /// No playlist has this name; `closest` is one a letter or two away.
    case misspelledPlaylist(name: String, closest: String)
    /// The name starts the names of several playlists (the first few of them).
    case ambiguousPlaylist(name: String, candidates: [String])

    public var description: String {
        switch self {
        case .unknownPlaylist(let name): "No playlist in the library is called '\(name)' or has that Spotify ID."
        case .misspelledPlaylist(let name, let closest):
            "No playlist in the library is called '\(name)'. Did you mean '\(closest)'?"
        case .ambiguousPlaylist(let name, let candidates):
            "'\(name)' starts the names of several playlists (\(candidates.map { "'\($0)'" }.joined(separator: ", "))); "
                + "please give more of the name."
        }
    }
}

extension LibraryStore {
    /// Adds what the feature-source chain needs: library membership, remembered misses, artist
    /// genre checks and settings; then re-ranks stored rows by the default precedence.
    static func addFeatureSourceSchema(_ db: Database) throws {
        try db.execute(
            sql: """
                -- 1 for the user's library, 0 for reference tracks (`import --reference`), a pool of candidates only.
                ALTER TABLE tracks ADD COLUMN in_library INTEGER NOT NULL DEFAULT 1;

                -- A provider that had nothing for a track, so later syncs do not ask again for a while.
                CREATE TABLE feature_lookups (
                    track_id INTEGER NOT NULL REFERENCES tracks(id) ON DELETE CASCADE,
                    source TEXT NOT NULL,
                    outcome TEXT NOT NULL CHECK (outcome IN ('not_found')),
                    checked_at TEXT NOT NULL,
                    PRIMARY KEY (track_id, source)
                ) WITHOUT ROWID;

                -- When the artist's genres were last asked for, and the genres (also tags of its tracks).
                ALTER TABLE artists ADD COLUMN genres_checked_at TEXT;
                CREATE TABLE artist_genres (
                    artist_id INTEGER NOT NULL REFERENCES artists(id) ON DELETE CASCADE,
                    genre TEXT NOT NULL,
                    source TEXT NOT NULL,
                    PRIMARY KEY (artist_id, genre)
                ) WITHOUT ROWID;

                CREATE TABLE settings (
                    key TEXT PRIMARY KEY NOT NULL,
                    value TEXT NOT NULL
                );
                """
        )
        // The rows' sources were text then (numbered from `v14-feature-source-ids` on).
        for key in try String.fetchAll(db, sql: "SELECT DISTINCT source FROM audio_features") {
            guard let source = FeatureSource(key: key) else { continue }
            try db.execute(
                sql: "UPDATE audio_features SET priority = ? WHERE source = ?",
                arguments: [FeatureSourcePrecedence.default.priority(of: source), key]
            )
        }
    }

    // MARK: - Artist genres

    /// Tags every track with the genres of its artists (`artist-genre` tags, the kind Exportify's
    /// `Genres` column gives), where it lacks them; returns the number of tags added.
    static func tagTracksWithArtistGenres(in db: Database) throws -> Int {
        try db.execute(
            sql: """
                INSERT INTO tags (kind, value) SELECT DISTINCT 'artist-genre', genre FROM artist_genres WHERE true
                ON CONFLICT (kind, value) DO NOTHING
                """
        )
        try db.execute(
            sql: """
                INSERT INTO sources (key) SELECT DISTINCT source FROM artist_genres WHERE true
                ON CONFLICT (key) DO NOTHING
                """
        )
        try db.execute(
            sql: """
                INSERT OR IGNORE INTO track_tags (track_id, tag_id, source_id)
                SELECT ta.track_id, tg.id, s.id
                FROM track_artists ta
                JOIN artist_genres ag ON ag.artist_id = ta.artist_id
                JOIN tags tg ON tg.kind = 'artist-genre' AND tg.value = ag.genre
                JOIN sources s ON s.key = ag.source
                """
        )
        return db.changesCount
    }

    // MARK: - Precedence

    /// The settings key of the feature-source precedence.
    static let precedenceKey = "feature_source_precedence"

    /// The precedence the store ranks sources by.
    public func featureSourcePrecedence() throws -> FeatureSourcePrecedence {
        try read { db in try Self.precedence(in: db) }
    }

    /// Changes the precedence and re-ranks every stored row by it, in one transaction.
    public func setFeatureSourcePrecedence(_ precedence: FeatureSourcePrecedence) throws {
        try write { db in
            try db.execute(
                sql:
                    "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                arguments: [Self.precedenceKey, precedence.description]
            )
            try Self.applyPrecedence(precedence, in: db)
        }
    }

    static func precedence(in db: Database) throws -> FeatureSourcePrecedence {
        guard
            let text = try String.fetchOne(
                db,
                sql: "SELECT value FROM settings WHERE key = ?",
                arguments: [precedenceKey]
            )
        else { return .default }
        return (try? FeatureSourcePrecedence(parsing: text)) ?? .default
    }

    /// Rewrites the `priority` of every stored feature row from its source key.
    static func applyPrecedence(_ precedence: FeatureSourcePrecedence, in db: Database) throws {
        let sources = try Row.fetchAll(db, sql: "SELECT id, key FROM sources")
        for row in sources {
            guard let source = FeatureSource(key: row["key"]) else { continue }
            try db.execute(
                sql: "UPDATE audio_features SET priority = ? WHERE source_id = ? AND priority != ?",
                arguments: [precedence.priority(of: source), row["id"] as Int64, precedence.priority(of: source)]
            )
        }
    }

    // MARK: - Scoped reading

    /// The SQL condition on `t` (an alias of `tracks`) that selects `scope`, and its arguments.
    ///
    /// - Throws: ``TrackScopeError/unknownPlaylist(name:)`` for a playlist the store does not hold.
    func condition(for scope: TrackScope, in db: Database) throws -> (sql: String, arguments: StatementArguments) {
        switch scope {
        case .all:
            return ("1", [])
        case .library:
            return ("t.in_library = 1", [])
        case .playlist(let name):
            let id = try playlistID(matching: name, in: db)
            return ("t.id IN (SELECT track_id FROM playlist_items WHERE playlist_id = ?)", [id])
        case .playlistRow(let id):
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM playlists WHERE id = ?", arguments: [id]) == true else {
                throw TrackScopeError.unknownPlaylist(name: "#\(id)")
            }
            return ("t.id IN (SELECT track_id FROM playlist_items WHERE playlist_id = ?)", [id])
        }
    }

    /// Reads the current audio features of the tracks in `scope` that have any, in track-ID order.
    ///
    /// "Current" is the row of the source that ranks highest in the store's
    /// ``FeatureSourcePrecedence``, the latest fetched among equals. Values from local analysis
    /// pass through the stored calibration (``calibrateLocalFeatures(at:)``) where there is one.
    ///
    /// The whole table is kept as the `features` snapshot (see ``withSnapshot(_:decode:build:)``)
    /// and a scope is cut from it: on a million tracks the scan below takes about 2.5 s, the
    /// snapshot about 0.1 s.
    public func featureTable(scope: TrackScope) throws -> FeatureTable {
        // The IDs and values only: the per-track counts are a fifth of the snapshot's bytes.
        let all = try featureSnapshot(only: FeatureSnapshot.tableParts).table
        guard let selection = try selection(of: scope) else { return all }
        return Self.rows(of: all, keeping: selection.mask(of: all.trackIDs))
    }

    /// Which tracks a scope holds, as the store lists them most cheaply: the library as every
    /// track but the reference ones (a partial index lists those), a playlist as its tracks.
    struct ScopeSelection {
        /// The IDs, ascending: those kept, or those left out when `excludes` is set.
        var ids: [Int64]
        var excludes: Bool

        /// Which of `trackIDs` (ascending) the scope holds.
        func mask(of trackIDs: [Int64]) -> [Bool] {
            let listed = LibraryStore.rowMask(of: trackIDs, in: ids)
            return excludes ? listed.map { !$0 } : listed
        }
    }

    /// How to cut `scope` from a table of every track; `nil` for `.all`.
    ///
    /// Listing the library's million track IDs scans the whole `tracks` table (about 0.4 s);
    /// listing its reference tracks reads the partial index `tracks_reference`, which holds only
    /// them.
    func selection(of scope: TrackScope) throws -> ScopeSelection? {
        switch scope {
        case .all: return nil
        case .library: return ScopeSelection(ids: try referenceTrackIDs(), excludes: true)
        case .playlist, .playlistRow: return ScopeSelection(ids: try trackIDs(in: scope), excludes: false)
        }
    }

    /// How many tracks `scope` holds, with features or not.
    func trackCount(in selection: ScopeSelection?) throws -> Int {
        if let selection, !selection.excludes { return selection.ids.count }
        let all = try read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM tracks") ?? 0 }
        return all - (selection?.ids.count ?? 0)
    }

    /// The IDs of the reference tracks (imported with `--reference`), ascending.
    func referenceTrackIDs() throws -> [Int64] {
        try read { db in
            var ids: [Int64] = []
            try PreparedStatement(db, sql: "SELECT id FROM tracks WHERE in_library = 0 ORDER BY id").forEachRow {
                ids.append($0.int64(0))
            }
            return ids
        }
    }

    /// The `features` snapshot: the whole feature table and what `library` and `features status`
    /// count of it.
    ///
    /// - Parameter only: The parts to read, such as ``FeatureSnapshot/countParts``; all of its own
    ///   by default.
    func featureSnapshot(only: Set<String> = FeatureSnapshot.allParts) throws -> FeatureSnapshot {
        try withSnapshot(.features, only: only, decode: FeatureSnapshot.init(parts:)) { db in
            let snapshot = try FeatureSnapshot(db)
            return (snapshot, snapshot.parts)
        }
    }

    /// The IDs of the tracks in `scope`, ascending.
    func trackIDs(in scope: TrackScope) throws -> [Int64] {
        try read { db in
            let condition = try condition(for: scope, in: db)
            let statement = try PreparedStatement(
                db,
                sql: "SELECT t.id FROM tracks t WHERE \(condition.sql) ORDER BY t.id"
            )
            try statement.bind(condition.arguments)
            var ids: [Int64] = []
            try statement.forEachRow { ids.append($0.int64(0)) }
            return ids
        }
    }

    /// Which of `trackIDs` (ascending) are in `sortedIDs`.
    static func rowMask(of trackIDs: [Int64], in sortedIDs: [Int64]) -> [Bool] {
        var keep = [Bool](repeating: false, count: trackIDs.count)
        var next = 0
        for (row, id) in trackIDs.enumerated() {
            while next < sortedIDs.count, sortedIDs[next] < id { next += 1 }
            guard next < sortedIDs.count else { break }
            keep[row] = sortedIDs[next] == id
        }
        return keep
    }

    /// The rows of `table` whose track IDs are in `sortedIDs`, in order; `table` itself when that
    /// is every row (a library without reference tracks), so nothing is copied.
    static func rows(of table: FeatureTable, in sortedIDs: [Int64]) -> FeatureTable {
        rows(of: table, keeping: rowMask(of: table.trackIDs, in: sortedIDs))
    }

    /// The rows of `table` whose `keep` entry is set, in order; `table` itself when that is every
    /// row, so nothing is copied.
    static func rows(of table: FeatureTable, keeping keep: [Bool]) -> FeatureTable {
        let kept = keep.count { $0 }
        if kept == table.rowCount { return table }
        let width = FeatureTable.columnCount
        var ids: [Int64] = []
        var values: [Float] = []
        ids.reserveCapacity(kept)
        values.reserveCapacity(kept * width)
        table.values.withUnsafeBufferPointer { source in
            for row in keep.indices where keep[row] {
                ids.append(table.trackIDs[row])
                values.append(contentsOf: source[(row * width)..<((row + 1) * width)])
            }
        }
        return FeatureTable(trackIDs: ids, values: values)
    }

    static let localSourcePrefix = Array("local:".utf8)

    /// A track's current feature row, as ``scanCurrentFeatures(in:condition:_:)`` hands it out.
    struct CurrentFeatureRow {
        var trackID: Int64 = -1
        /// The source key's UTF-8 bytes.
        var source: [UInt8] = []
        var outOfRangeFlags = 0
        /// The sources that have a row for the track, as bits of their number in the scan's
        /// ``SourceNumbering``; sources numbered 64 and above are not in it.
        var sourceMask: UInt64 = 0
        /// One value per `AudioFeature.allCases`, in order.
        var values = [Double?](repeating: nil, count: AudioFeature.allCases.count)
    }

    /// Calls `body` with each track's current feature row (the highest priority, then the latest
    /// fetch), in track ID order, for the tracks that meet `condition` (on `t`, the tracks).
    ///
    /// One pass over `audio_features` in its primary-key order (track, then source), choosing here
    /// rather than through the `current_features` view, whose window function sorts every row: on
    /// a million tracks the feature table took 10–12 s through the view and `Row`, about 2.5 s
    /// this way, and `library`'s three counts through the view 19 s.
    static func scanCurrentFeatures(
        in db: Database,
        condition: (sql: String, arguments: StatementArguments)?,
        numbering: SourceNumbering? = nil,
        _ body: (CurrentFeatureRow) throws -> Void
    ) throws {
        // The continuous features' codes, decoded here rather than by the generated columns.
        let columns = AudioFeature.allCases.map { "f." + ($0.isDiscrete ? $0.rawValue : DecimalCode.column(of: $0)) }
            .joined(separator: ", ")
        let isDiscrete = AudioFeature.allCases.map(\.isDiscrete)
        let join = condition.map { "JOIN tracks t ON t.id = f.track_id WHERE \($0.sql)" } ?? ""
        // The sources are few: their keys (and numbers in `numbering`) are looked up by ID here.
        var keys: [Int64: [UInt8]] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT id, key FROM sources") {
            keys[row["id"]] = Array((row["key"] as String).utf8)
        }
        var bits: [Int64: UInt64] = [:]
        let statement = try PreparedStatement(
            db,
            sql: """
                SELECT f.track_id, f.priority, f.fetched_at, f.source_id, f.out_of_range, \(columns)
                FROM audio_features f \(join) ORDER BY f.track_id
                """
        )
        if let condition { try statement.bind(condition.arguments) }
        var best = CurrentFeatureRow()
        var bestPriority: Int64 = .min
        var bestFetched: Int64 = .min
        try statement.forEachRow { row in
            let track = row.int64(0)
            let priority = row.int64(1)
            let fetched = row.int64(2)
            let sourceID = row.int64(3)
            var bit: UInt64 = 0
            if let numbering {
                if let known = bits[sourceID] {
                    bit = known
                } else {
                    let number = numbering.number(of: keys[sourceID] ?? [])
                    bit = number < 64 ? 1 << UInt64(number) : 0
                    bits[sourceID] = bit
                }
            }
            if track == best.trackID {
                best.sourceMask |= bit
                guard priority > bestPriority || (priority == bestPriority && fetched > bestFetched) else { return }
            } else {
                if best.trackID >= 0 { try body(best) }
                best.trackID = track
                best.sourceMask = bit
            }
            bestPriority = priority
            bestFetched = fetched
            best.source = keys[sourceID] ?? []
            best.outOfRangeFlags = Int(row.int64(4))
            for index in best.values.indices {
                let column = Int32(5 + index)
                best.values[index] = isDiscrete[index] ? row.optionalDouble(column) : row.decimal(column)
            }
        }
        if best.trackID >= 0 { try body(best) }
    }

    /// The number of tracks in `scope`, with features or not.
    public func trackCount(scope: TrackScope) throws -> Int {
        try read { db in
            let (condition, arguments) = try condition(for: scope, in: db)
            return try Int.fetchOne(db, sql: "SELECT count(*) FROM tracks t WHERE \(condition)", arguments: arguments)
                ?? 0
        }
    }
}
