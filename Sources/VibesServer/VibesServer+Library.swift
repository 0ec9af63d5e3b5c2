import FlyingFox
import Foundation
import Ingest

// The library endpoints under /api: what `library`, `playlists` and `vibes` show, as JSON.

extension VibesServer {
    /// `GET /api/playlists`: every playlist with its vibe breakdown in the current run.
    func playlists() throws -> HTTPResponse {
        let runID = try store.currentClusteringRunID()
        return try Self.json(PlaylistList(runID: runID, playlists: try store.playlistOverviews(vibesOf: runID)))
    }

    /// `GET /api/playlists/{id}`: one playlist, by its store ID, with its tracks in order.
    func playlist(id text: String) throws -> HTTPResponse {
        guard let id = Int64(text) else {
            throw APIError.badRequest(
                "A playlist is named by its numeric id, as GET /api/playlists lists it (got \"\(text)\")."
            )
        }
        let detail: PlaylistDetail
        do {
            detail = try store.playlistDetail(id: id, vibesOf: try store.currentClusteringRunID())
        } catch StoreError.notFound {
            throw APIError.notFound("No playlist has id \(id).")
        }
        return try Self.json(PlaylistBody(detail))
    }

    /// `GET /api/vibes`: the vibes of the current clustering run, largest first.
    func vibes() throws -> HTTPResponse {
        guard let runID = try store.currentClusteringRunID(), let record = try store.clusteringRun(id: runID) else {
            return try Self.json(VibeList(runID: nil, clusterCount: nil, trackCount: nil, createdAt: nil, vibes: []))
        }
        let ranked = try store.clusters(ofRun: runID).sorted {
            $0.size != $1.size ? $0.size > $1.size : $0.cluster < $1.cluster
        }
        return try Self.json(
            VibeList(
                runID: runID,
                clusterCount: record.run.clusterCount,
                trackCount: record.run.trackCount,
                createdAt: record.createdAt.formatted(.iso8601),
                vibes: ranked.enumerated().map { VibeList.Vibe(number: $0.offset + 1, record: $0.element) }
            )
        )
    }

    /// `GET /api/tracks?q=TEXT[&limit=N]`: tracks whose artist and title resemble `q`, best first.
    func tracks(_ request: HTTPRequest) throws -> HTTPResponse {
        let query = request.query["q"]?.trimmingCharacters(in: .whitespaces) ?? ""
        guard !query.isEmpty else { throw APIError.badRequest("Give the text to search for as ?q=TEXT.") }
        let limit = try Self.integer(request.query["limit"], name: "limit", in: 1...100) ?? 20
        let matches = try store.searchTracks(matching: query, limit: limit)
        return try Self.json(TrackList(tracks: matches.map { TrackList.Match(track: $0.track, score: $0.score) }))
    }

    /// The integer parameter `text` within `range`, or `nil` when absent.
    static func integer(_ text: String?, name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw APIError.badRequest(
                "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound) (got \"\(text)\")."
            )
        }
        return value
    }
}

// MARK: - Bodies

/// `GET /api/playlists`.
struct PlaylistList: Encodable {
    var runID: Int64?
    var playlists: [PlaylistOverview]

    enum CodingKeys: String, CodingKey {
        case runID = "run_id"
        case playlists
    }
}

/// `GET /api/playlists/{id}`: the overview, the mean of each feature, and each entry's track.
struct PlaylistBody: Encodable {
    /// An entry: its place, its track as lists show it, and its vibe number.
    struct Entry: Encodable {
        var entry: PlaylistDetail.Entry

        enum CodingKeys: String, CodingKey {
            case position, track, vibe
            case hasFeatures = "has_features"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(entry.position, forKey: .position)
            try container.encode(entry.track, forKey: .track)
            try container.encode(entry.hasFeatures, forKey: .hasFeatures)
            try container.encode(entry.vibe, forKey: .vibe)
        }
    }

    var detail: PlaylistDetail

    init(_ detail: PlaylistDetail) {
        self.detail = detail
    }

    enum CodingKeys: String, CodingKey {
        case playlist, entries
        case runID = "run_id"
        case featureMeans = "feature_means"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(detail.overview, forKey: .playlist)
        try container.encode(detail.runID, forKey: .runID)
        let means = detail.featureMeans.map { ($0.key.rawValue, $0.value) }
        try container.encode(Dictionary(uniqueKeysWithValues: means), forKey: .featureMeans)
        try container.encode(detail.entries.map(Entry.init), forKey: .entries)
    }
}

/// `GET /api/vibes`.
struct VibeList: Encodable {
    struct Vibe: Encodable {
        var number: Int
        var record: ClusterRecord

        enum CodingKeys: String, CodingKey {
            case number, cluster, name, mood, size, share, means
            case distinguishingFeatures = "distinguishing_features"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(number, forKey: .number)
            try container.encode(record.cluster, forKey: .cluster)
            try container.encode(record.name, forKey: .name)
            try container.encode(record.mood, forKey: .mood)
            try container.encode(record.size, forKey: .size)
            try container.encode(record.share, forKey: .share)
            try container.encode(record.means, forKey: .means)
            try container.encode(record.distinguishingFeatures, forKey: .distinguishingFeatures)
        }
    }

    var runID: Int64?
    var clusterCount: Int?
    var trackCount: Int?
    var createdAt: String?
    var vibes: [Vibe]

    enum CodingKeys: String, CodingKey {
        case vibes
        case runID = "run_id"
        case clusterCount = "cluster_count"
        case trackCount = "track_count"
        case createdAt = "created_at"
    }
}

/// `GET /api/tracks`.
struct TrackList: Encodable {
    struct Match: Encodable {
        var track: TrackSummary
        var score: Double
    }

    var tracks: [Match]
}
