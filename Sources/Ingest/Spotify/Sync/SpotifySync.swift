import Features
import Foundation
import GRDB
import Logging

/// Copies the user's Spotify library into the store: saved tracks, playlists, top items, recent
/// plays, and audio features where the API still serves them.
///
/// The sync is incremental and resumable:
/// - Saved tracks arrive newest first; the sync stops at the first one older than the newest it
///   stored last time. Each page is written with its resume offset in one transaction, so an
///   interrupted sync continues at the page where it stopped.
/// - A playlist whose `snapshot_id` matches the stored one is not fetched again; a changed one is
///   written with its new snapshot in one transaction.
/// - Top lists are refreshed at most every ``topRefreshInterval``; recent plays continue from the
///   stored cursor; audio features are asked for only for catalogue tracks that have none from any
///   source (a file import's stay), and never again for a client ID that got 403.
///
/// Every row carries the provenance `spotify-api`. Requests go out one at a time, in pages of the
/// largest size each endpoint allows, which stays well inside Spotify's rate limit.
public struct SpotifySync: Sendable {
    /// The parts of the library to sync.
    public struct Parts: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        public static let savedTracks = Parts(rawValue: 1 << 0)
        public static let playlists = Parts(rawValue: 1 << 1)
        public static let top = Parts(rawValue: 1 << 2)
        public static let recentlyPlayed = Parts(rawValue: 1 << 3)
        public static let audioFeatures = Parts(rawValue: 1 << 4)
        public static let all: Parts = [.savedTracks, .playlists, .top, .recentlyPlayed, .audioFeatures]
    }

    /// What a sync did.
    public struct Report: Sendable, Hashable, Codable {
        public var savedTracksAdded = 0
        public var playlistsUpdated = 0
        public var playlistsUnchanged = 0
        /// Playlists the API would not serve, with the reason (`Name (403)`).
        public var playlistsSkipped: [String] = []
        public var playlistItemsWritten = 0
        public var topTracks = 0
        public var topArtists = 0
        public var playsAdded = 0
        public var tracksNew = 0
        public var audioFeaturesWritten = 0
        /// Whether this client ID cannot read audio features (Spotify's 403 for newer apps).
        public var audioFeaturesForbidden = false
        /// Local files kept by name only (no Spotify ID).
        public var localFiles = 0
        /// Podcast episodes in playlists, skipped.
        public var episodesSkipped = 0
        /// Entries Spotify returned as `null` (removed from the catalogue), skipped.
        public var removedSkipped = 0
        /// HTTP requests made, retries included.
        public var requests = 0
        /// Things the user should know, in order.
        public var notes: [String] = []

        public init() {}

        enum CodingKeys: String, CodingKey {
            case savedTracksAdded = "saved_tracks_added", playlistsUpdated = "playlists_updated"
            case playlistsUnchanged = "playlists_unchanged", playlistsSkipped = "playlists_skipped"
            case playlistItemsWritten = "playlist_items_written", topTracks = "top_tracks", topArtists = "top_artists"
            case playsAdded = "plays_added", tracksNew = "tracks_new", audioFeaturesWritten = "audio_features_written"
            case audioFeaturesForbidden = "audio_features_forbidden", localFiles = "local_files"
            case episodesSkipped = "episodes_skipped", removedSkipped = "removed_skipped", requests, notes
        }
    }

    /// The capability key recorded for `/audio-features`.
    public static let audioFeaturesCapability = "audio-features"

    let client: SpotifyClient
    let store: LibraryStore
    let progress: @Sendable (String) -> Void
    let now: @Sendable () -> Date
    /// How long top lists stay fresh. Defaults to 12 hours.
    public var topRefreshInterval: TimeInterval = 12 * 3600

    /// Creates a sync.
    ///
    /// - Parameters:
    ///   - client: A signed-in client.
    ///   - store: The library to write into.
    ///   - progress: Receives one line per page or playlist (the CLI prints them on stderr).
    ///   - now: The wall clock.
    public init(
        client: SpotifyClient, store: LibraryStore, progress: @escaping @Sendable (String) -> Void = { _ in },
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.client = client
        self.store = store
        self.progress = progress
        self.now = now
    }

    /// Runs the sync.
    ///
    /// - Parameters:
    ///   - parts: What to sync.
    ///   - recheckAudioFeatures: Ask `/audio-features` even if this client ID got 403 before.
    /// - Returns: What was done.
    /// - Throws: ``SpotifySyncInterruptedError``, with the report so far, when a request fails for
    ///   good; what was written stays written, and the next sync resumes. The error itself (such as
    ///   ``SpotifyError/notSignedIn``) when no request was made.
    public func run(_ parts: Parts, recheckAudioFeatures: Bool = false) async throws -> Report {
        var report = Report()
        let startRequests = client.requestCounter.value
        let runID = try await startRun()
        do {
            if parts.contains(.savedTracks) { try await syncSavedTracks(&report, runID: runID) }
            if parts.contains(.playlists) { try await syncPlaylists(&report, runID: runID) }
            if parts.contains(.top) { try await syncTop(&report, runID: runID) }
            if parts.contains(.recentlyPlayed) { try await syncRecentlyPlayed(&report, runID: runID) }
            if parts.contains(.audioFeatures) {
                try await syncAudioFeatures(&report, runID: runID, recheck: recheckAudioFeatures)
            }
        } catch {
            report.requests = client.requestCounter.value - startRequests
            try? await finishRun(runID, report: report)
            // Nothing was fetched (not signed in, no network): the error alone says it all.
            guard report.requests > 0 else { throw error }
            throw SpotifySyncInterruptedError(report: report, underlying: error)
        }
        report.requests = client.requestCounter.value - startRequests
        try await finishRun(runID, report: report)
        return report
    }

    /// The provenance of every row the sync writes.
    static let source = FeatureSource.spotifyAPI.key

    /// Runs `body` in one write transaction with an ``ImportWriter``, the code path file imports use.
    private func write<T: Sendable>(
        runID: Int64, _ body: @escaping @Sendable (ImportWriter, Database) throws -> T
    ) async throws -> (T, ImportWriter.Counts) {
        let fetchedAt = now().formatted(.iso8601)
        return try await store.database.write { db in
            let writer = try ImportWriter(db, runID: runID, fetchedAt: fetchedAt)
            let result = try body(writer, db)
            return (result, writer.counts)
        }
    }

    // MARK: - Saved tracks

    private func syncSavedTracks(_ report: inout Report, runID: Int64) async throws {
        let (watermark, resumeOffset, runNewest) = try await store.database.read { db in
            (
                try LibraryStore.syncValue(forKey: "saved.newest_added_at", in: db),
                try LibraryStore.syncValue(forKey: "saved.resume_offset", in: db).flatMap { Int($0) },
                try LibraryStore.syncValue(forKey: "saved.run_newest", in: db)
            )
        }
        let watermarkDate = watermark.flatMap(parseTimestamp)
        var offset = resumeOffset ?? 0
        var newest = runNewest
        if resumeOffset != nil { progress("Saved tracks: resuming at \(offset).") }
        while true {
            let page = try await client.savedTracks(offset: offset)
            var reachedKnown = false
            var rows: [(Track, String?)] = []
            for item in page.items {
                guard let item, let object = item.object else {
                    report.removedSkipped += 1
                    continue
                }
                if let watermarkDate, let added = item.addedAt.flatMap(parseTimestamp), added < watermarkDate {
                    reachedKnown = true
                    break
                }
                if newest == nil { newest = item.addedAt }
                guard let track = object.track else {
                    report.episodesSkipped += 1
                    continue
                }
                rows.append((track, item.addedAt))
            }
            let nextOffset = offset + page.items.count
            let isDone = reachedKnown || page.items.isEmpty || nextOffset >= (page.total ?? 0)
            let (local, counts) = try await write(runID: runID) { [rows, newest] writer, db in
                var local = 0
                for (track, addedAt) in rows {
                    let written = try writer.write(track)
                    try writer.save(trackID: written.id, addedAt: addedAt, source: Self.source)
                    if track.isLocal { local += 1 }
                }
                if isDone {
                    let latest = [watermark, newest].compactMap { $0 }.max {
                        (parseTimestamp($0) ?? .distantPast) < (parseTimestamp($1) ?? .distantPast)
                    }
                    try LibraryStore.setSyncValue(latest, forKey: "saved.newest_added_at", in: db)
                    try LibraryStore.setSyncValue(nil, forKey: "saved.resume_offset", in: db)
                    try LibraryStore.setSyncValue(nil, forKey: "saved.run_newest", in: db)
                } else {
                    try LibraryStore.setSyncValue(String(nextOffset), forKey: "saved.resume_offset", in: db)
                    try LibraryStore.setSyncValue(newest, forKey: "saved.run_newest", in: db)
                }
                return local
            }
            report.savedTracksAdded += counts.savedTracks
            report.tracksNew += counts.tracksNew
            report.localFiles += local
            progress(
                "Saved tracks: \(min(nextOffset, page.total ?? nextOffset)) of \(page.total ?? nextOffset) checked, \(report.savedTracksAdded) new."
            )
            if isDone { return }
            offset = nextOffset
        }
    }

    // MARK: - Playlists

    private func syncPlaylists(_ report: inout Report, runID: Int64) async throws {
        var playlists: [SpotifySimplifiedPlaylistObject] = []
        while true {
            let page = try await client.currentUserPlaylists(offset: playlists.count)
            playlists += page.items.compactMap { $0 }
            if page.items.isEmpty || playlists.count >= (page.total ?? 0) { break }
        }
        progress("Playlists: \(playlists.count) found.")
        for (index, playlist) in playlists.enumerated() {
            let name = playlist.name ?? playlist.id
            guard let id = SpotifyID(playlist.id) else {
                report.playlistsSkipped.append("\(name) (invalid ID)")
                continue
            }
            let stored = try store.database.read { db in
                try Row.fetchOne(
                    db, sql: "SELECT snapshot_id, source FROM playlists WHERE spotify_id = ?", arguments: [id.rawValue])
            }
            if let stored, stored["source"] as String? != Self.source {
                report.playlistsUnchanged += 1  // Pushed by `playlist push`: the store already holds its contents.
                continue
            }
            if let snapshot = playlist.snapshotID, stored?["snapshot_id"] == snapshot {
                report.playlistsUnchanged += 1
                continue
            }
            progress("Playlist \(index + 1) of \(playlists.count): \(name) (\(playlist.itemCount ?? 0) items).")
            let items: [SpotifyTrackItemObject?]
            do {
                items = try await client.allPlaylistItems(of: id)
            } catch SpotifyError.http(let status, _, _) where status == 403 || status == 404 {
                report.playlistsSkipped.append("\(name) (\(status))")
                continue
            }
            var skipped = (removed: 0, episodes: 0, local: 0)
            var rows: [(track: Track, addedAt: String?, addedBy: String?)] = []
            for item in items {
                guard let item, let object = item.object else {
                    skipped.removed += 1
                    continue
                }
                guard let track = object.track else {
                    skipped.episodes += 1
                    continue
                }
                if track.isLocal { skipped.local += 1 }
                rows.append((track, item.addedAt, item.addedBy?.id))
            }
            let (_, counts) = try await write(runID: runID) { [rows] writer, _ in
                let entries = try rows.map { row in
                    ImportWriter.PlaylistEntry(
                        trackID: try writer.write(row.track).id, addedAt: row.addedAt, addedBy: row.addedBy)
                }
                try writer.writePlaylist(
                    originKey: "spotify:playlist:\(id)", name: name, spotifyID: id.rawValue,
                    description: playlist.description.flatMap { $0.isEmpty ? nil : $0 }, owner: playlist.owner?.id,
                    snapshotID: playlist.snapshotID, source: Self.source, entries: entries)
            }
            report.playlistsUpdated += 1
            report.playlistItemsWritten += rows.count
            report.tracksNew += counts.tracksNew
            report.removedSkipped += skipped.removed
            report.episodesSkipped += skipped.episodes
            report.localFiles += skipped.local
        }
        if !report.playlistsSkipped.isEmpty {
            report.notes.append(
                "Spotify would not list the items of \(report.playlistsSkipped.count) playlist(s) (it serves items only "
                    + "for playlists the user owns or collaborates on): \(report.playlistsSkipped.joined(separator: ", "))."
            )
        }
    }

    // MARK: - Top items

    private func syncTop(_ report: inout Report, runID: Int64) async throws {
        for range in TimeRange.allCases {
            let key = "top.\(range.rawValue).fetched_at"
            if let fetched = try store.spotifySyncValue(forKey: key).flatMap(parseTimestamp),
                now().timeIntervalSince(fetched) < topRefreshInterval
            {
                continue
            }
            let tracks = try await client.topTracks(over: range).items.compactMap { $0?.track }
            let artists = try await client.topArtists(over: range).items.compactMap { $0 }
            let fetchedAt = now().formatted(.iso8601)
            let (_, counts) = try await write(runID: runID) { writer, db in
                let entries = try tracks.map { ImportWriter.PlaylistEntry(trackID: try writer.write($0).id) }
                try writer.writePlaylist(
                    originKey: "spotify-top-tracks:\(range.rawValue)", name: "Top tracks (\(range.displayName))",
                    description: "Spotify's top tracks, \(range.displayName).", source: Self.source, entries: entries)
                for artist in artists {
                    if let name = artist.name, !name.isEmpty {
                        try Self.writeArtist(name: name, spotifyID: artist.id, in: db)
                    }
                }
                try LibraryStore.setSyncValue(fetchedAt, forKey: key, in: db)
            }
            report.topTracks += tracks.count
            report.topArtists += artists.count
            report.tracksNew += counts.tracksNew
            progress("Top items (\(range.displayName)): \(tracks.count) tracks, \(artists.count) artists.")
        }
    }

    // MARK: - Recently played

    private func syncRecentlyPlayed(_ report: inout Report, runID: Int64) async throws {
        var after = try store.spotifySyncValue(forKey: "recent.after").flatMap { Int64($0) }
        for _ in 0..<20 {
            let page = try await client.recentlyPlayed(after: after)
            let plays = page.items.compactMap { $0 }
            if plays.isEmpty { break }
            let newest = plays.compactMap { $0.playedAt.flatMap(parseTimestamp) }.max()
            let cursor =
                page.cursors?.after.flatMap { Int64($0) } ?? newest.map { Int64($0.timeIntervalSince1970 * 1000) }
            let (_, counts) = try await write(runID: runID) { writer, db in
                for play in plays {
                    guard let object = play.track, let track = object.track,
                        let playedAt = play.playedAt.flatMap(parseTimestamp)
                    else { continue }
                    let trackID = try writer.write(track).id
                    // The API does not say how long the track played; the track's length stands in.
                    try writer.write(
                        ImportWriter.Play(
                            endedAt: playedAt.formatted(.iso8601), msPlayed: track.durationMS ?? 0,
                            trackName: track.name, artistName: track.artists.first ?? "", albumName: track.album,
                            spotifyURI: object.uri),
                        trackID: trackID, source: Self.source)
                }
                try LibraryStore.setSyncValue(cursor.map(String.init), forKey: "recent.after", in: db)
            }
            report.playsAdded += counts.playsNew
            report.tracksNew += counts.tracksNew
            progress("Recently played: \(report.playsAdded) new plays.")
            guard plays.count >= SpotifyClient.pageLimit, let cursor, cursor != after else { break }
            after = cursor
        }
    }

    // MARK: - Audio features

    private func syncAudioFeatures(_ report: inout Report, runID: Int64, recheck: Bool) async throws {
        let clientID = client.clientID ?? "(unknown)"
        if !recheck,
            try store.spotifyCapability(Self.audioFeaturesCapability, clientID: clientID) == "forbidden"
        {
            report.audioFeaturesForbidden = true
            report.notes.append(
                "Audio features skipped: client ID \(clientID) got 403 from /audio-features before (Spotify closed it to "
                    + "apps created after 2024-11-27). Import features from a file with `vibes-analyze import` "
                    + "(Exportify CSV, Kaggle or tidytuesday datasets), or pass --recheck-audio-features.")
            return
        }
        let missing: [(Int64, SpotifyID)] = try await store.database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT id, spotify_id FROM tracks t
                    WHERE spotify_id IS NOT NULL AND is_local = 0
                      AND NOT EXISTS (SELECT 1 FROM audio_features f WHERE f.track_id = t.id)
                    ORDER BY id
                    """
            ).compactMap { row in SpotifyID(row[1] as String).map { (row[0], $0) } }
        }
        guard !missing.isEmpty else { return }
        for (index, batch) in missing.chunked(into: SpotifyClient.audioFeaturesBatchSize).enumerated() {
            let features: [SpotifyID: AudioFeatures]
            do {
                features = try await client.audioFeatures(for: batch.map(\.1))
            } catch let error as SpotifyError {
                guard case .audioFeaturesForbidden = error else { throw error }
                try store.recordSpotifyCapability(
                    Self.audioFeaturesCapability, clientID: clientID, isAllowed: false, at: now())
                report.audioFeaturesForbidden = true
                report.notes.append(error.description)
                return
            }
            if index == 0 {
                try store.recordSpotifyCapability(
                    Self.audioFeaturesCapability, clientID: clientID, isAllowed: true, at: now())
            }
            let (_, counts) = try await write(runID: runID) { [batch] writer, _ in
                for (trackID, spotifyID) in batch {
                    if let values = features[spotifyID] {
                        try writer.write(values, trackID: trackID, source: .spotifyAPI)
                    } else {
                        writer.noteMissingFeatures()
                    }
                }
            }
            report.audioFeaturesWritten += counts.featuresWritten
            progress("Audio features: \(report.audioFeaturesWritten) of \(missing.count) tracks.")
        }
    }

    // MARK: - Run record and artists

    /// Records the sync in `import_runs` (format `spotify-api`), so rows carry its ID as provenance.
    private func startRun() async throws -> Int64 {
        let started = now().formatted(.iso8601)
        return try await store.database.write { [client] db in
            try db.execute(
                sql: """
                    INSERT INTO import_runs (path, format, sha256, started_at, finished_at)
                    VALUES (?, 'spotify-api', '-', ?, ?)
                    """,
                arguments: [client.baseURL.absoluteString, started, started])
            return db.lastInsertedRowID
        }
    }

    private func finishRun(_ runID: Int64, report: Report) async throws {
        let finished = now().formatted(.iso8601)
        try await store.database.write { db in
            try db.execute(
                sql: """
                    UPDATE import_runs SET rows_read = ?, rows_imported = ?, tracks_new = ?, features_written = ?,
                        plays_new = ?, finished_at = ?
                    WHERE id = ?
                    """,
                arguments: [
                    report.requests,
                    report.savedTracksAdded + report.playlistItemsWritten + report.topTracks + report.playsAdded,
                    report.tracksNew, report.audioFeaturesWritten, report.playsAdded, finished, runID,
                ])
        }
    }

    /// Records an artist from the top-artists list with its Spotify ID (the import writer creates
    /// artists only through their tracks).
    static func writeArtist(name: String, spotifyID: String?, in db: Database) throws {
        let key = Track.normalizedName(name)
        try db.execute(
            sql: "INSERT OR IGNORE INTO artists (name, name_key, spotify_id) VALUES (?, ?, ?)",
            arguments: [name, key, spotifyID])
        if let spotifyID {
            try db.execute(
                sql: "UPDATE OR IGNORE artists SET spotify_id = ? WHERE name_key = ? AND spotify_id IS NULL",
                arguments: [spotifyID, key])
        }
    }
}

/// A sync stopped by an error; what it wrote stays, and running it again resumes.
public struct SpotifySyncInterruptedError: Error, CustomStringConvertible {
    /// What the sync did before it stopped.
    public var report: SpotifySync.Report
    /// The error that stopped it (usually a ``SpotifyError``).
    public var underlying: any Error

    public var description: String {
        "\(underlying) The sync made \(report.requests) requests before it stopped; what it fetched is saved, "
            + "and the next `vibes-analyze sync` resumes from there."
    }
}

/// Parses Spotify's ISO 8601 timestamps, with or without fractional seconds.
func parseTimestamp(_ text: String) -> Date? {
    if let date = try? Date(text, strategy: Date.ISO8601FormatStyle()) { return date }
    return try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
}
