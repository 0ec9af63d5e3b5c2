import Features
import Foundation
import GRDB

/// One playlist as `playlists` lists it: its size, how much of it has audio features, and the
/// vibes of a clustering run it holds.
public struct PlaylistOverview: Hashable, Sendable, Codable {
    /// The store's ID of the playlist.
    public var id: Int64
    /// The name as imported (a file name keeps its trailing space).
    public var name: String
    public var spotifyID: String?
    /// Where it came from: `exportify`, `spotify`, `vibes-analyze` for a built one, and so on.
    public var source: String
    /// The number of distinct tracks.
    public var trackCount: Int
    /// The number of those with audio features.
    public var tracksWithFeatures: Int
    /// The playlist's tracks per vibe of the run, most first; empty without a run.
    public var vibes: [VibeCount]

    enum CodingKeys: String, CodingKey {
        case id, name, source, vibes
        case spotifyID = "spotify_id"
        case trackCount = "track_count"
        case tracksWithFeatures = "tracks_with_features"
    }
}

/// How many of a set of tracks fall in one vibe of a clustering run.
public struct VibeCount: Hashable, Sendable, Codable {
    /// The vibe's number as `vibes` prints it: 1 for the run's largest vibe.
    public var number: Int
    /// The cluster index within the run, from 0.
    public var cluster: Int
    public var name: String
    public var tracks: Int
}

/// One playlist with its tracks in order, as `playlists show` prints it.
public struct PlaylistDetail: Sendable {
    /// One track of the playlist.
    public struct Entry: Hashable, Sendable {
        /// The place in the playlist, from 0.
        public var position: Int
        public var track: TrackSummary
        public var hasFeatures: Bool
        /// The number of the track's vibe in the run (1 for the largest), if it has one.
        public var vibe: Int?
    }

    public var overview: PlaylistOverview
    /// The run the vibes are of, if any.
    public var runID: Int64?
    public var entries: [Entry]
    /// The mean of each feature over the distinct tracks that have it, in original units.
    public var featureMeans: [AudioFeature: Double]
}

extension LibraryStore {
    /// The ID of the playlist `text` names: its Spotify ID, its name (case, accents and spaces
    /// aside), or the unique start of its name (``NameMatch``).
    ///
    /// - Throws: ``TrackScopeError`` naming the closest playlist, or those the text starts.
    public func playlistID(matching text: String) throws -> Int64 {
        try read { db in try playlistID(matching: text, in: db) }
    }

    /// The ID and stored name of the playlist `text` names, as ``playlistID(matching:)`` finds it.
    public func playlist(matching text: String) throws -> (id: Int64, name: String) {
        try read { db in
            let id = try playlistID(matching: text, in: db)
            return (
                id, try String.fetchOne(db, sql: "SELECT name FROM playlists WHERE id = ?", arguments: [id]) ?? text
            )
        }
    }

    /// The ID and stored name of the playlist `scope` names, or `nil` for a scope of no playlist.
    ///
    /// - Throws: ``TrackScopeError`` for a playlist the store does not hold.
    public func playlist(in scope: TrackScope) throws -> (id: Int64, name: String)? {
        switch scope {
        case .all, .library:
            return nil
        case .playlist(let text):
            return try playlist(matching: text)
        case .playlistRow(let id):
            let name = try read { db in
                try String.fetchOne(db, sql: "SELECT name FROM playlists WHERE id = ?", arguments: [id])
            }
            guard let name else { throw TrackScopeError.unknownPlaylist(name: "#\(id)") }
            return (id, name)
        }
    }

    func playlistID(matching text: String, in db: Database) throws -> Int64 {
        let rows = try Row.fetchAll(db, sql: "SELECT id, name, spotify_id FROM playlists ORDER BY id")
        if let row = rows.first(where: { ($0[2] as String?) == text }) { return row[0] }
        let names = rows.map { $0[1] as String }
        switch NameMatch(text, in: names) {
        case .found(let index):
            return rows[index][0]
        case .ambiguous(let indices):
            var seen = Set<String>()
            let candidates = indices.map { names[$0] }.filter { seen.insert(Track.normalizedName($0)).inserted }
            throw TrackScopeError.ambiguousPlaylist(
                name: text,
                candidates: Array(candidates.prefix(5)) + (candidates.count > 5 ? ["…"] : [])
            )
        case .missing(let closest?):
            throw TrackScopeError.misspelledPlaylist(name: text, closest: names[closest])
        case .missing(nil):
            throw TrackScopeError.unknownPlaylist(name: text)
        }
    }

    /// Every playlist, by name, with its vibes in run `runID` (none when `nil`).
    public func playlistOverviews(vibesOf runID: Int64?) throws -> [PlaylistOverview] {
        let (playlists, members) = try read { db in
            let playlists = try Row.fetchAll(
                db,
                sql: "SELECT id, name, spotify_id, source FROM playlists ORDER BY name COLLATE NOCASE, id"
            )
            var members: [Int64: Set<Int64>] = [:]
            try PreparedStatement(db, sql: "SELECT playlist_id, track_id FROM playlist_items").forEachRow {
                members[$0.int64(0), default: []].insert($0.int64(1))
            }
            return (playlists, members)
        }
        let featured = try featureTable(scope: .all).trackIDs
        let vibes = try VibeLookup(store: self, runID: runID)
        return playlists.map { row in
            let tracks = members[row[0] as Int64] ?? []
            return PlaylistOverview(
                id: row[0],
                name: row[1],
                spotifyID: row[2],
                source: row[3],
                trackCount: tracks.count,
                tracksWithFeatures: tracks.count { Self.contains($0, sortedIDs: featured) },
                vibes: vibes.counts(of: tracks)
            )
        }
    }

    /// Playlist `id` with its tracks in order and their vibes in run `runID` (none when `nil`).
    ///
    /// - Throws: `StoreError.notFound` when there is no such playlist.
    public func playlistDetail(id: Int64, vibesOf runID: Int64?) throws -> PlaylistDetail {
        let (row, items) = try read { db in
            let row = try Row.fetchOne(
                db,
                sql: "SELECT id, name, spotify_id, source FROM playlists WHERE id = ?",
                arguments: [id]
            )
            let items = try Int64.fetchAll(
                db,
                sql: "SELECT track_id FROM playlist_items WHERE playlist_id = ? ORDER BY position",
                arguments: [id]
            )
            return (row, items)
        }
        guard let row else { throw StoreError.notFound(what: "Playlist \(id)") }
        let distinct = Set(items)
        let table = try featureTable(scope: .all)
        let vibes = try VibeLookup(store: self, runID: runID)
        let summaries = try trackSummaries(for: distinct)
        var sums: [AudioFeature: (total: Double, count: Int)] = [:]
        var featured = 0
        for (index, trackID) in table.trackIDs.enumerated() where distinct.contains(trackID) {
            featured += 1
            for feature in AudioFeature.all {
                guard let value = table.value(row: index, feature: feature) else { continue }
                sums[feature, default: (0, 0)].total += Double(value)
                sums[feature, default: (0, 0)].count += 1
            }
        }
        let overview = PlaylistOverview(
            id: row[0],
            name: row[1],
            spotifyID: row[2],
            source: row[3],
            trackCount: distinct.count,
            tracksWithFeatures: featured,
            vibes: vibes.counts(of: distinct)
        )
        let entries = items.enumerated().compactMap { position, trackID -> PlaylistDetail.Entry? in
            guard let summary = summaries[trackID] else { return nil }
            return PlaylistDetail.Entry(
                position: position,
                track: summary,
                hasFeatures: Self.contains(trackID, sortedIDs: table.trackIDs),
                vibe: vibes.number(of: trackID)
            )
        }
        return PlaylistDetail(
            overview: overview,
            runID: runID,
            entries: entries,
            featureMeans: sums.mapValues { $0.total / Double($0.count) }
        )
    }

    /// Whether `id` is in `sortedIDs` (ascending), by binary search.
    static func contains(_ id: Int64, sortedIDs: [Int64]) -> Bool {
        index(of: id, sortedIDs: sortedIDs) != nil
    }

    static func index(of id: Int64, sortedIDs: [Int64]) -> Int? {
        var low = 0
        var high = sortedIDs.count
        while low < high {
            let middle = (low + high) / 2
            if sortedIDs[middle] < id { low = middle + 1 } else { high = middle }
        }
        return low < sortedIDs.count && sortedIDs[low] == id ? low : nil
    }
}

/// The vibe of each track in one clustering run, numbered as `vibes` prints them.
private struct VibeLookup {
    var trackIDs: [Int64] = []
    var clusters: [Int32] = []
    /// Number and name by cluster index.
    var vibes: [Int: (number: Int, name: String)] = [:]

    init(store: LibraryStore, runID: Int64?) throws {
        guard let runID else { return }
        let ranked = try store.clusters(ofRun: runID).sorted {
            $0.size != $1.size ? $0.size > $1.size : $0.cluster < $1.cluster
        }
        for (index, cluster) in ranked.enumerated() { vibes[cluster.cluster] = (index + 1, cluster.name) }
        (trackIDs, clusters, _) = try store.packedAssignments(ofRun: runID)
    }

    func number(of trackID: Int64) -> Int? {
        guard let index = LibraryStore.index(of: trackID, sortedIDs: trackIDs), clusters[index] >= 0 else {
            return nil
        }
        return vibes[Int(clusters[index])]?.number
    }

    /// The vibes of `tracks`, most tracks first, ties by vibe number.
    func counts(of tracks: some Collection<Int64>) -> [VibeCount] {
        guard !vibes.isEmpty else { return [] }
        var counts: [Int: Int] = [:]
        for trackID in tracks {
            guard let index = LibraryStore.index(of: trackID, sortedIDs: trackIDs), clusters[index] >= 0 else {
                continue
            }
            counts[Int(clusters[index]), default: 0] += 1
        }
        return counts.compactMap { cluster, count in
            vibes[cluster].map { VibeCount(number: $0.number, cluster: cluster, name: $0.name, tracks: count) }
        }
        .sorted { ($0.tracks, -$0.number) > ($1.tracks, -$1.number) }
    }
}
