import Features
import Foundation
import GRDB

extension LibraryStore {
    /// Adds the record of analysed local files and of calibrations.
    static func addLocalFilesSchema(_ db: Database) throws {
        try db.execute(
            sql: """
                -- One row per analysed file path: what the analysis found, or why it failed.
                CREATE TABLE local_files (
                    path TEXT PRIMARY KEY NOT NULL,
                    size INTEGER NOT NULL,
                    modified_ns INTEGER NOT NULL,
                    content_hash TEXT,
                    analyzer TEXT NOT NULL,
                    analyzed_at TEXT NOT NULL,
                    track_id INTEGER REFERENCES tracks(id) ON DELETE SET NULL,
                    matched_by TEXT CHECK (matched_by IN ('isrc', 'spotify-id', 'artist-title', 'new-track')),
                    duration_ms INTEGER,
                    provenance TEXT,
                    confidence TEXT,
                    details TEXT,
                    error TEXT
                ) WITHOUT ROWID;
                CREATE INDEX local_files_content ON local_files(content_hash);
                CREATE INDEX local_files_track ON local_files(track_id);
                CREATE INDEX tracks_isrc ON tracks(isrc) WHERE isrc IS NOT NULL;
                -- The stable ID of a track made from a local file: `local:` and the start of its SHA-256.
                ALTER TABLE tracks ADD COLUMN local_id TEXT;
                CREATE UNIQUE INDEX tracks_local_id ON tracks(local_id) WHERE local_id IS NOT NULL;

                -- A monotone map from one source kind's values of a feature onto the reference scale.
                CREATE TABLE feature_calibrations (
                    source_kind TEXT NOT NULL,
                    feature TEXT NOT NULL,
                    knots TEXT NOT NULL,
                    shared_tracks INTEGER NOT NULL,
                    fitted_at TEXT NOT NULL,
                    PRIMARY KEY (source_kind, feature)
                ) WITHOUT ROWID;
                """
        )
    }

    // MARK: - Incremental analysis

    /// Whether `fingerprint` was analysed by `analyzer` already and has not changed since.
    public func localFileState(of fingerprint: LocalFileFingerprint, analyzer: String) throws -> LocalFileState {
        try read { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT l.track_id, l.content_hash, coalesce(t.spotify_id, t.local_id) FROM local_files l
                        LEFT JOIN tracks t ON t.id = l.track_id
                        WHERE l.path = ? AND l.size = ? AND l.modified_ns = ? AND l.analyzer = ? AND l.error IS NULL
                        """,
                    arguments: [fingerprint.path, fingerprint.size, fingerprint.modifiedNS, analyzer]
                )
            else { return .new }
            let hash: String? = row[1]
            return .unchanged(trackID: row[0], stableID: row[2] ?? hash.map(LocalFileFingerprint.localTrackID))
        }
    }

    /// Records `fingerprint` as a copy of an already analysed file with the same content, when there
    /// is one, and returns the track it belongs to; `nil` when no file with that content was analysed
    /// by `analyzer`.
    public func recordLocalCopy(
        of fingerprint: LocalFileFingerprint,
        contentHash: String,
        analyzer: String,
        at date: Date = Date()
    ) throws -> LocalFileOutcome? {
        try write { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT l.track_id, l.matched_by, l.duration_ms, l.provenance, l.confidence, l.details,
                               coalesce(t.spotify_id, t.local_id)
                        FROM local_files l JOIN tracks t ON t.id = l.track_id
                        WHERE l.content_hash = ? AND l.analyzer = ? AND l.error IS NULL LIMIT 1
                        """,
                    arguments: [contentHash, analyzer]
                )
            else { return nil }
            let trackID: Int64 = row[0]
            try upsertLocalFile(
                db,
                fingerprint: fingerprint,
                contentHash: contentHash,
                analyzer: analyzer,
                date: date,
                trackID: trackID,
                match: row[1],
                durationMS: row[2],
                provenance: row[3],
                confidence: row[4],
                details: row[5],
                error: nil
            )
            return LocalFileOutcome(
                trackID: trackID,
                stableID: row[6] ?? LocalFileFingerprint.localTrackID(contentHash: contentHash),
                match: LocalFileMatch(rawValue: row[1]) ?? .newTrack
            )
        }
    }

    // MARK: - Recording

    /// Records one analysed file in one transaction: matches it to a track (or makes one), stores
    /// its features under the source `local:<analyzer>`, and remembers the file.
    ///
    /// The tags a music tagger heard (``AudioFileAnalysis/audioTags``) become the track's
    /// `audio-tag` tags under the same source, replacing those of an earlier analysis; all their
    /// probabilities are kept with the file's details.
    ///
    /// A file is matched, in this order, by its ISRC tag, by a Spotify link in its tags, and by
    /// normalised artist and title with a duration within 2 seconds. A file that matches nothing
    /// becomes a track of its own in the library, named by its tags or its file name; analysing the
    /// same path again updates that track rather than adding another.
    ///
    /// - Parameters:
    ///   - analysis: What the analysis found in the file.
    ///   - fingerprint: The file's path, size and modification time.
    ///   - contentHash: The hex SHA-256 of the file's bytes.
    /// - Returns: The track and how it was matched.
    /// - Throws: ``StoreError/busy(path:holder:)`` when another program held the store's write
    ///   lock past the wait (nothing was written), or the database's error.
    @discardableResult
    public func recordLocalAnalysis(
        _ analysis: AudioFileAnalysis,
        of fingerprint: LocalFileFingerprint,
        contentHash: String,
        at date: Date = Date()
    ) throws -> LocalFileOutcome {
        try write { db in
            let writer = try LibraryWriter(db, runID: nil, fetchedAt: date.formatted(.iso8601))
            let (trackID, match) = try track(
                for: analysis,
                fingerprint: fingerprint,
                contentHash: contentHash,
                writer: writer,
                in: db
            )
            let source = FeatureSource.localAnalysis(analyzer: analysis.analyzer)
            try db.execute(
                sql:
                    "DELETE FROM audio_features WHERE track_id = ? AND source_id = (SELECT id FROM sources WHERE key = ?)",
                arguments: [trackID, source.key]
            )
            try writer.write(analysis.features, trackID: trackID, source: source)
            // The tags heard replace those of any earlier analysis of the track.
            try db.execute(
                sql: """
                    DELETE FROM track_tags WHERE track_id = ? AND tag_id IN (SELECT id FROM tags WHERE kind = ?)
                    """,
                arguments: [trackID, AudioTagProbabilities.tagKind]
            )
            if let heard = analysis.audioTags {
                let tags = heard.topTags.map { (kind: AudioTagProbabilities.tagKind, value: $0) }
                try writer.tag(trackID: trackID, with: tags, source: source.key)
            }
            try Self.replaceAudioEmbedding(analysis.embedding, model: analysis.audioTags?.model, of: trackID, in: db)
            try upsertLocalFile(
                db,
                fingerprint: fingerprint,
                contentHash: contentHash,
                analyzer: analysis.analyzer,
                date: date,
                trackID: trackID,
                match: match.rawValue,
                durationMS: analysis.durationMS,
                provenance: Self.json(
                    Dictionary(uniqueKeysWithValues: analysis.provenance.map { ($0.key.rawValue, $0.value.rawValue) })
                ),
                confidence: Self.json(
                    Dictionary(uniqueKeysWithValues: analysis.confidence.map { ($0.key.rawValue, $0.value) })
                ),
                details: Self.json(analysis.details),
                error: nil
            )
            let spotifyID = try String.fetchOne(
                db,
                sql: "SELECT spotify_id FROM tracks WHERE id = ?",
                arguments: [trackID]
            )
            return LocalFileOutcome(
                trackID: trackID,
                stableID: spotifyID ?? LocalFileFingerprint.localTrackID(contentHash: contentHash),
                match: match
            )
        }
    }

    /// Records that `fingerprint` could not be analysed, and why; it is tried again next time.
    public func recordLocalFailure(
        of fingerprint: LocalFileFingerprint,
        analyzer: String,
        reason: String,
        at date: Date = Date()
    ) throws {
        try write { db in
            try upsertLocalFile(
                db,
                fingerprint: fingerprint,
                contentHash: nil,
                analyzer: analyzer,
                date: date,
                trackID: nil,
                match: nil,
                durationMS: nil,
                provenance: nil,
                confidence: nil,
                details: nil,
                error: reason
            )
        }
    }

    private func track(
        for analysis: AudioFileAnalysis,
        fingerprint: LocalFileFingerprint,
        contentHash: String,
        writer: LibraryWriter,
        in db: Database
    ) throws -> (Int64, LocalFileMatch) {
        if let isrc = analysis.tags.isrc,
            let id = try Int64.fetchOne(
                db,
                sql: "SELECT id FROM tracks WHERE isrc = ? ORDER BY in_library DESC, id LIMIT 1",
                arguments: [isrc]
            )
        {
            return (id, .isrc)
        }
        if let spotifyID = analysis.tags.spotifyID,
            let id = try Int64.fetchOne(
                db,
                sql: "SELECT id FROM tracks WHERE spotify_id = ?",
                arguments: [spotifyID.rawValue]
            )
        {
            return (id, .spotifyID)
        }
        if let artist = analysis.tags.artist, let title = analysis.tags.title {
            let key = Track.matchKey(artist: artist, title: title)
            let candidates = try Row.fetchAll(
                db,
                sql: "SELECT id, duration_ms FROM tracks WHERE match_key = ? AND duration_ms IS NOT NULL",
                arguments: [key]
            )
            let best = candidates.map { (id: $0[0] as Int64, gap: abs(($0[1] as Int) - analysis.durationMS)) }
                .filter { $0.gap <= 2000 }
                .min { ($0.gap, $0.id) < ($1.gap, $1.id) }
            if let best { return (best.id, .artistTitle) }
        }
        let fileName = URL(fileURLWithPath: fingerprint.path).deletingPathExtension().lastPathComponent
        let track = Track(
            spotifyID: nil,
            name: analysis.tags.title ?? fileName,
            artists: analysis.tags.artist.map { [$0] } ?? [],
            album: analysis.tags.album,
            durationMS: analysis.durationMS,
            isrc: analysis.tags.isrc,
            isLocal: true
        )
        // The same bytes made a track before (analysed again with --force, or a copy).
        let localID = LocalFileFingerprint.localTrackID(contentHash: contentHash)
        if let existing = try Int64.fetchOne(db, sql: "SELECT id FROM tracks WHERE local_id = ?", arguments: [localID])
        {
            return (existing, .newTrack)
        }
        // The same path analysed before (the file was edited): keep its track, with the new tags.
        if let previous = try Int64.fetchOne(
            db,
            sql: """
                SELECT l.track_id FROM local_files l JOIN tracks t ON t.id = l.track_id
                WHERE l.path = ? AND l.matched_by = 'new-track'
                """,
            arguments: [fingerprint.path]
        ) {
            try db.execute(
                sql: "UPDATE tracks SET name = ?, album = ?, duration_ms = ?, isrc = ?, match_key = ? WHERE id = ?",
                arguments: [track.name, track.album, track.durationMS, track.isrc, track.matchKey, previous]
            )
            return (previous, .newTrack)
        }
        let id = try writer.insertDistinctTrack(track)
        try db.execute(
            sql: "UPDATE tracks SET local_id = ? WHERE id = ?",
            arguments: [localID, id]
        )
        return (id, .newTrack)
    }

    private func upsertLocalFile(
        _ db: Database,
        fingerprint: LocalFileFingerprint,
        contentHash: String?,
        analyzer: String,
        date: Date,
        trackID: Int64?,
        match: String?,
        durationMS: Int?,
        provenance: String?,
        confidence: String?,
        details: String?,
        error: String?
    ) throws {
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO local_files (path, size, modified_ns, content_hash, analyzer, analyzed_at,
                    track_id, matched_by, duration_ms, provenance, confidence, details, error)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                fingerprint.path, fingerprint.size, fingerprint.modifiedNS, contentHash, analyzer,
                date.formatted(.iso8601), trackID, match, durationMS, provenance, confidence, details, error,
            ]
        )
    }

    private static func json(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    // MARK: - Reading

    /// The path of a local file for each of `trackIDs` that has one (the most recently analysed).
    public func localFilePaths(for trackIDs: some Collection<Int64>) throws -> [Int64: String] {
        guard !trackIDs.isEmpty else { return [:] }
        return try read { db in
            var paths: [Int64: String] = [:]
            for chunk in Array(trackIDs).chunked(into: 500) {
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                let rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT track_id, path FROM local_files
                        WHERE track_id IN (\(marks)) AND error IS NULL ORDER BY analyzed_at
                        """,
                    arguments: StatementArguments(Array(chunk))
                )
                for row in rows { paths[row[0]] = row[1] }
            }
            return paths
        }
    }
}

/// A file's analysis as the store holds it.
public struct StoredLocalFile: Sendable, Hashable {
    public var path: String
    /// The track's row ID, when the analysis succeeded.
    public var trackID: Int64?
    /// The track's Spotify ID, or `local:` and the start of the file's content hash.
    public var stableID: String?
    public var match: LocalFileMatch?
    public var durationMS: Int?
    /// The values stored under the analyser's source (before any calibration).
    public var features: AudioFeatures
    public var provenance: [String: String]
    public var confidence: [String: Double]
    public var analyzer: String
    /// Why the analysis failed, or `nil`.
    public var error: String?
    /// What the analysis kept beside the features (descriptors, stream format), as JSON.
    public var detailsJSON: String?
}

extension LibraryStore {
    /// What the store holds for the file at `path`, or `nil` when it was never analysed.
    public func storedLocalFile(path: String) throws -> StoredLocalFile? {
        try read { db in
            let columns = AudioFeature.allCases.map { "f.\($0.rawValue)" }.joined(separator: ", ")
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT l.path, l.track_id, coalesce(t.spotify_id, t.local_id), l.content_hash, l.matched_by, l.duration_ms,
                               l.provenance, l.confidence, l.analyzer, l.error, \(columns), l.details
                        FROM local_files l
                        LEFT JOIN tracks t ON t.id = l.track_id
                        LEFT JOIN all_features f ON f.track_id = l.track_id AND f.source = 'local:' || l.analyzer
                        WHERE l.path = ?
                        """,
                    arguments: [path]
                )
            else { return nil }
            var features = AudioFeatures()
            for (offset, feature) in AudioFeature.allCases.enumerated() {
                features[feature] = row[10 + offset] as Double?
            }
            let decoder = JSONDecoder()
            let hash: String? = row[3]
            return StoredLocalFile(
                path: row[0],
                trackID: row[1],
                stableID: row[1] == nil ? nil : (row[2] ?? hash.map(LocalFileFingerprint.localTrackID)),
                match: (row[4] as String?).flatMap(LocalFileMatch.init(rawValue:)),
                durationMS: row[5],
                features: features,
                provenance: (row[6] as String?).flatMap {
                    try? decoder.decode([String: String].self, from: Data($0.utf8))
                }
                    ?? [:],
                confidence: (row[7] as String?).flatMap {
                    try? decoder.decode([String: Double].self, from: Data($0.utf8))
                } ?? [:],
                analyzer: row[8],
                error: row[9],
                detailsJSON: row["details"]
            )
        }
    }
}
