import Features
import Foundation
import Ingest
import Logging
import SpotifyWebAPI
import SpotifyWebModel

/// Copies the user's Spotify library into the store: saved tracks, playlists, top items, recent
/// plays and artist genres, then fills in audio features through the feature-source chain.
///
/// The sync is incremental and resumable:
/// - Saved tracks arrive newest first; the sync stops at the first one older than the newest it
///   stored last time. Each page is written with its resume offset in one transaction, so an
///   interrupted sync continues at the page where it stopped.
/// - A playlist whose `snapshot_id` matches the stored one is not fetched again; a changed one is
///   written with its new snapshot in one transaction.
/// - Top lists are refreshed at most every ``topRefreshInterval``; recent plays continue from the
///   stored cursor; artist genres are asked for once per artist (again after 90 days).
/// - Audio features are filled by a ``FeatureChain``: the legacy `/audio-features` endpoint while
///   it has not answered 403 for this client ID, then the providers given at creation (such as
///   ``ReccoBeatsProvider``). Only library tracks without features from any source are asked for,
///   and a provider's failure is reported without failing the sync.
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
        public static let genres = Parts(rawValue: 1 << 5)
        public static let all: Parts = [.savedTracks, .playlists, .top, .recentlyPlayed, .genres, .audioFeatures]
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
        /// Tracks that got features from the legacy Spotify endpoint.
        public var audioFeaturesWritten = 0
        /// Whether this client ID cannot read audio features (Spotify's 403 for newer apps).
        public var audioFeaturesForbidden = false
        /// What the feature-source chain did, when the features part ran.
        public var features: FeatureFetchReport?
        /// Artists whose genres were fetched, and the tracks newly tagged with them.
        public var artistsWithGenres = 0
        public var genreTagsAdded = 0
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
        /// Parts that failed while the rest went on, with the reason.
        public var failedParts: [PartFailure] = []
        /// Whether the sync stopped at its request budget (`--max-requests`); what it fetched is
        /// saved, and the next sync resumes.
        public var budgetReached = false
        /// The request budget, when one was set.
        public var requestBudget: Int?
        /// The playlist recipes built again after the sync (`sync --refresh-recipes`).
        public var refreshedRecipes: [String]?

        /// What the sync saved, in a few words: "120 saved tracks, 2 playlists (300 items), 5 plays".
        public var savedSummary: String {
            var parts: [String] = []
            if savedTracksAdded > 0 { parts.append("\(savedTracksAdded) saved tracks") }
            if playlistsUpdated > 0 {
                parts.append(
                    "\(playlistsUpdated) playlist\(playlistsUpdated == 1 ? "" : "s") (\(playlistItemsWritten) items)"
                )
            }
            if topTracks + topArtists > 0 { parts.append("\(topTracks) top tracks and \(topArtists) top artists") }
            if playsAdded > 0 { parts.append("\(playsAdded) plays") }
            if artistsWithGenres > 0 { parts.append("genres of \(artistsWithGenres) artists") }
            if let fetched = features?.fetched, fetched > 0 { parts.append("features of \(fetched) tracks") }
            return parts.isEmpty ? "nothing new" : parts.joined(separator: ", ")
        }

        /// A part of the sync that failed alone.
        public struct PartFailure: Sendable, Hashable, Codable {
            /// `saved`, `playlists`, `top`, `recent`, `genres` or `features`.
            public var part: String
            public var reason: String
        }

        public init() {}

        enum CodingKeys: String, CodingKey {
            case savedTracksAdded = "saved_tracks_added"
            case playlistsUpdated = "playlists_updated"
            case playlistsUnchanged = "playlists_unchanged"
            case playlistsSkipped = "playlists_skipped"
            case playlistItemsWritten = "playlist_items_written"
            case topTracks = "top_tracks"
            case topArtists = "top_artists"
            case playsAdded = "plays_added"
            case tracksNew = "tracks_new"
            case audioFeaturesWritten = "audio_features_written"
            case audioFeaturesForbidden = "audio_features_forbidden"
            case localFiles = "local_files"
            case episodesSkipped = "episodes_skipped"
            case removedSkipped = "removed_skipped"
            case requests, notes, features
            case failedParts = "failed_parts"
            case budgetReached = "budget_reached"
            case requestBudget = "request_budget"
            case refreshedRecipes = "refreshed_recipes"
            case artistsWithGenres = "artists_with_genres"
            case genreTagsAdded = "genre_tags_added"
        }
    }

    let client: SpotifyClient
    let store: LibraryStore
    let featureProviders: [any FeatureProvider]
    let progress: @Sendable (String) -> Void
    let now: @Sendable () -> Date
    /// How long top lists stay fresh. Defaults to 12 hours.
    public var topRefreshInterval: TimeInterval = 12 * 3600
    /// How long an artist's genres stay fresh. Defaults to 90 days.
    public var genreRefreshInterval: TimeInterval = 90 * 24 * 3600
    /// Called after every batch of the features part (the CLI draws a progress bar).
    public var featureProgress: (@Sendable (FeatureChain.Progress) -> Void)?

    /// Creates a sync.
    ///
    /// - Parameters:
    ///   - client: A signed-in client.
    ///   - store: The library to write into.
    ///   - featureProviders: The feature sources asked after the legacy endpoint, in order.
    ///   - progress: Receives one line per page or playlist (the CLI prints them on stderr).
    ///   - now: The wall clock.
    public init(
        client: SpotifyClient,
        store: LibraryStore,
        featureProviders: [any FeatureProvider] = [],
        progress: @escaping @Sendable (String) -> Void = { _ in },
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.client = client
        self.store = store
        self.featureProviders = featureProviders
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
        report.requestBudget = client.budget?.limit
        let startRequests = client.requestCounter.value
        // Attempts the budget refused were counted but never sent.
        func sent() -> Int { client.requestCounter.value - startRequests - (client.budget?.refused ?? 0) }
        let runID = try await startRun()
        do {
            // Each part fails alone: Spotify refuses more endpoints to development-mode apps every
            // year, and one refusal must not keep the rest of the library (or its features) out.
            if parts.contains(.savedTracks) {
                try await isolating("saved", &report) { try await syncSavedTracks(&$0, runID: runID) }
            }
            if parts.contains(.playlists) {
                try await isolating("playlists", &report) { try await syncPlaylists(&$0, runID: runID) }
            }
            if parts.contains(.top) { try await isolating("top", &report) { try await syncTop(&$0, runID: runID) } }
            if parts.contains(.recentlyPlayed) {
                try await isolating("recent", &report) { try await syncRecentlyPlayed(&$0, runID: runID) }
            }
            if parts.contains(.genres) { try await isolating("genres", &report) { try await syncGenres(&$0) } }
            if parts.contains(.audioFeatures) {
                try await isolating("features", &report) {
                    try await syncAudioFeatures(&$0, runID: runID, recheck: recheckAudioFeatures)
                }
            }
        } catch SpotifyError.requestBudgetReached(let limit, _) {
            // A clean stop: every page written so far is saved with its resume point.
            report.requests = sent()
            report.budgetReached = true
            report.notes.append(
                "Stopped at the budget of \(limit) requests; saved: \(report.savedSummary). Run `vibes-analyze sync` "
                    + "again to continue where this one stopped."
            )
            try await finishRun(runID, report: report)
            return report
        } catch {
            report.requests = sent()
            try? await finishRun(runID, report: report)
            // Nothing was fetched (not signed in, no network): the error alone says it all.
            guard report.requests > 0 else { throw error }
            throw SpotifySyncInterruptedError(report: report, underlying: error)
        }
        report.requests = sent()
        if client.budget?.isSpent == true {
            report.budgetReached = true
            report.notes.append(
                "The budget of \(report.requestBudget ?? 0) requests ran out in the features part; run `vibes-analyze sync` again to continue."
            )
        }
        try await finishRun(runID, report: report)
        return report
    }

    /// Runs one part, recording a refusal or an unreadable answer as that part's failure.
    ///
    /// What stops the whole sync instead: no session or a revoked one, a rate limit past the retry
    /// budget and a network that does not answer (every other part would meet them too), a store
    /// error, and cancellation.
    private func isolating(
        _ part: String,
        _ report: inout Report,
        _ body: (inout Report) async throws -> Void
    ) async throws {
        do {
            try await body(&report)
        } catch let error as SpotifyError {
            switch error {
            case .http, .decoding:
                report.failedParts.append(Report.PartFailure(part: part, reason: error.description))
            default:
                throw error
            }
        }
    }

    /// The provenance of every row the sync writes.
    static let source = FeatureSource.spotifyAPI.key

    /// Runs `body` in one write transaction with an ``LibraryWriter``, the code path file imports use.
    private func write<T: Sendable>(
        runID: Int64,
        _ body: @escaping @Sendable (SpotifySyncBatch) throws -> T
    ) async throws -> (T, LibraryWriter.Counts) {
        try await store.writeSpotifySyncBatch(runID: runID, fetchedAt: now().formatted(.iso8601), body)
    }

    // MARK: - Saved tracks

    private func syncSavedTracks(_ report: inout Report, runID: Int64) async throws {
        let values = try await store.spotifySyncValues(
            forKeys: ["saved.newest_added_at", "saved.resume_offset", "saved.run_newest"]
        )
        let watermark = values["saved.newest_added_at"]
        let resumeOffset = values["saved.resume_offset"].flatMap { Int($0) }
        let runNewest = values["saved.run_newest"]
        let watermarkDate = watermark.flatMap(parseTimestamp)
        var offset = resumeOffset ?? 0
        var newest = runNewest
        if resumeOffset != nil { progress("Saved tracks: resuming at \(offset).") }
        while true {
            let page = try await client.savedTracks(offset: offset)
            var reachedKnown = false
            var rows: [(Track, String?)] = []
            var artists: [SpotifyArtistObject] = []
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
                artists += object.artists ?? []
            }
            let nextOffset = offset + page.items.count
            let isDone = reachedKnown || page.items.isEmpty || nextOffset >= (page.total ?? 0)
            let (local, counts) = try await write(runID: runID) { [rows, newest, artists] batch in
                var local = 0
                for (track, addedAt) in rows {
                    let written = try batch.writer.write(track)
                    try batch.writer.save(trackID: written.id, addedAt: addedAt, source: Self.source)
                    if track.isLocal { local += 1 }
                }
                try Self.writeArtistIDs(artists, in: batch)
                if isDone {
                    let latest = [watermark, newest].compactMap { $0 }.max {
                        (parseTimestamp($0) ?? .distantPast) < (parseTimestamp($1) ?? .distantPast)
                    }
                    try batch.setSyncValue(latest, forKey: "saved.newest_added_at")
                    try batch.setSyncValue(nil, forKey: "saved.resume_offset")
                    try batch.setSyncValue(nil, forKey: "saved.run_newest")
                } else {
                    try batch.setSyncValue(String(nextOffset), forKey: "saved.resume_offset")
                    try batch.setSyncValue(newest, forKey: "saved.run_newest")
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
            let stored = try store.spotifyPlaylistState(spotifyID: id.rawValue)
            if let stored, stored.source != Self.source {
                report.playlistsUnchanged += 1  // Pushed by `playlist push`: the store already holds its contents.
                continue
            }
            if let snapshot = playlist.snapshotID, stored?.snapshotID == snapshot {
                report.playlistsUnchanged += 1
                continue
            }
            progress("Playlist \(index + 1) of \(playlists.count): \(name) (\(playlist.itemCount ?? 0) items).")
            let items: [SpotifyTrackItemObject?]
            do {
                items = try await client.allPlaylistItems(of: id)
            } catch SpotifyError.http(let status, _, _) {
                // One playlist that Spotify will not serve fails alone.
                report.playlistsSkipped.append("\(name) (\(status))")
                continue
            } catch SpotifyError.decoding(_, let status, _, _) {
                report.playlistsSkipped.append("\(name) (unreadable answer, \(status))")
                continue
            }
            var skipped = (removed: 0, episodes: 0, local: 0)
            var rows: [(track: Track, addedAt: String?, addedBy: String?)] = []
            var artists: [SpotifyArtistObject] = []
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
                artists += object.artists ?? []
            }
            let (_, counts) = try await write(runID: runID) { [rows, artists] batch in
                let entries = try rows.map { row in
                    LibraryWriter.PlaylistEntry(
                        trackID: try batch.writer.write(row.track).id,
                        addedAt: row.addedAt,
                        addedBy: row.addedBy
                    )
                }
                try batch.writer.writePlaylist(
                    originKey: "spotify:playlist:\(id)",
                    name: name,
                    spotifyID: id.rawValue,
                    description: playlist.description.flatMap { $0.isEmpty ? nil : $0 },
                    owner: playlist.owner?.id,
                    snapshotID: playlist.snapshotID,
                    source: Self.source,
                    entries: entries
                )
                try Self.writeArtistIDs(artists, in: batch)
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
            let objects = try await client.topTracks(over: range).items.compactMap { $0 }
            let tracks = objects.compactMap(\.track)
            let artists = try await client.topArtists(over: range).items.compactMap { $0 }
            let fetchedAt = now().formatted(.iso8601)
            let (_, counts) = try await write(runID: runID) { batch in
                let entries = try tracks.map { LibraryWriter.PlaylistEntry(trackID: try batch.writer.write($0).id) }
                try Self.writeArtistIDs(objects.flatMap { $0.artists ?? [] }, in: batch)
                try batch.writer.writePlaylist(
                    originKey: "spotify-top-tracks:\(range.rawValue)",
                    name: "Top tracks (\(range.displayName))",
                    description: "Spotify's top tracks, \(range.displayName).",
                    source: Self.source,
                    entries: entries
                )
                for artist in artists {
                    if let name = artist.name, !name.isEmpty {
                        try batch.writeArtist(name: name, spotifyID: artist.id)
                    }
                }
                try batch.setSyncValue(fetchedAt, forKey: key)
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
            let (_, counts) = try await write(runID: runID) { batch in
                for play in plays {
                    guard let object = play.track, let track = object.track,
                        let playedAt = play.playedAt.flatMap(parseTimestamp)
                    else { continue }
                    let trackID = try batch.writer.write(track).id
                    try Self.writeArtistIDs(object.artists ?? [], in: batch)
                    // The API does not say how long the track played; the track's length stands in.
                    try batch.writer.write(
                        LibraryWriter.Play(
                            endedAt: playedAt.formatted(.iso8601),
                            msPlayed: track.durationMS ?? 0,
                            trackName: track.name,
                            artistName: track.artists.first ?? "",
                            albumName: track.album,
                            spotifyURI: object.uri
                        ),
                        trackID: trackID,
                        source: Self.source
                    )
                }
                try batch.setSyncValue(cursor.map(String.init), forKey: "recent.after")
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
        let legacy = SpotifyAudioFeaturesProvider(client: client, store: store, recheck: recheck, now: now)
        let progress =
            featureProgress ?? { [progress] step in
                progress("Audio features (\(step.provider)): \(step.done) of \(step.total) asked, \(step.found) found.")
            }
        let chain = FeatureChain(store: store, providers: [legacy] + featureProviders, now: now, progress: progress)
        let features = try await chain.run(FeatureChain.Options(scope: .library), runID: runID)
        report.features = features
        let legacyOutcome = features.providers.first
        report.audioFeaturesWritten = legacyOutcome?.found ?? 0
        if let reason = legacyOutcome?.skippedBecause {
            report.audioFeaturesForbidden = true
            if featureProviders.isEmpty {
                report.notes.append(
                    SpotifyError.audioFeaturesForbidden(clientID: client.clientID ?? "(unknown)").description
                )
            } else {
                report.notes.append("Spotify's /audio-features skipped: \(reason).")
            }
        }
    }

    // MARK: - Artist genres

    /// Fetches the genres of artists not checked within ``genreRefreshInterval`` (50 per request),
    /// keeps them per artist, and tags every track by those artists with `artist-genre` tags.
    private func syncGenres(_ report: inout Report) async throws {
        let cutoff = now().addingTimeInterval(-genreRefreshInterval).formatted(.iso8601)
        let due = try await store.spotifyArtistsDueForGenres(checkedBefore: cutoff)
        let ids = due.compactMap { SpotifyID($0) }
        for chunk in ids.chunked(into: 50) {
            let objects = try await client.artists(Array(chunk))
            let checkedAt = now().formatted(.iso8601)
            let genres = objects.compactMap { object -> (spotifyID: String, genres: [String])? in
                guard let object, let id = object.id, let genres = object.genres else { return nil }
                return (id, genres)
            }
            let (withGenres, tagged) = try await store.recordSpotifyArtistGenres(
                genres,
                checked: chunk.map(\.rawValue),
                checkedAt: checkedAt,
                source: Self.source
            )
            report.artistsWithGenres += withGenres
            report.genreTagsAdded += tagged
            progress("Artist genres: \(report.artistsWithGenres) artists with genres.")
        }
        if ids.isEmpty {
            // Tracks new since their artists were checked still get those artists' genres.
            report.genreTagsAdded += try await store.tagTracksWithArtistGenres()
        }
    }

    // MARK: - Run record and artists

    /// Records the sync in `import_runs` (format `spotify-api`), so rows carry its ID as provenance.
    private func startRun() async throws -> Int64 {
        try await store.startSpotifySyncRun(
            baseURL: client.baseURL.absoluteString,
            startedAt: now().formatted(.iso8601)
        )
    }

    private func finishRun(_ runID: Int64, report: Report) async throws {
        try await store.finishSpotifySyncRun(
            runID,
            requests: report.requests,
            rowsImported: report.savedTracksAdded + report.playlistItemsWritten + report.topTracks + report.playsAdded,
            tracksNew: report.tracksNew,
            featuresWritten: report.audioFeaturesWritten,
            playsNew: report.playsAdded,
            finishedAt: now().formatted(.iso8601)
        )
    }

    /// Records the Spotify IDs of a track object's artists, which the import writer (working from
    /// names) does not keep.
    static func writeArtistIDs(_ artists: [SpotifyArtistObject], in batch: SpotifySyncBatch) throws {
        var seen: Set<String> = []
        for artist in artists {
            guard let name = artist.name, !name.isEmpty, let id = artist.id, SpotifyID(id) != nil,
                seen.insert(id).inserted
            else { continue }
            try batch.writeArtist(name: name, spotifyID: id)
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
        "\(underlying) The sync made \(report.requests) requests before it stopped; what it fetched is saved "
            + "(\(report.savedSummary)), and the next sync resumes from there."
    }
}

/// Parses Spotify's ISO 8601 timestamps, with or without fractional seconds.
func parseTimestamp(_ text: String) -> Date? {
    if let date = try? Date(text, strategy: Date.ISO8601FormatStyle()) { return date }
    return try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
}
