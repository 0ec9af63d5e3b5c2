import Analytics
import Features
import FlyingFox
import Foundation
import Ingest
import VibesEngine

// The mood path builder (`GET /api/mood-path`) and the moods it starts and ends at
// (`GET /api/moods`), through the engine call of `playlist build --from-mood --to-mood`.

extension VibesServer {
    /// `GET /api/moods`: the mood words a path can start or end at, with their points.
    func moods() throws -> HTTPResponse {
        try Self.json(
            MoodList(
                moods: MoodWord.allCases.map {
                    .init(name: $0.rawValue, valence: $0.point.valence, energy: $0.point.energy)
                }
            )
        )
    }

    /// `GET /api/mood-path?from=mood:calm&to=track:12&count=20&order=flow`: a preview of a path
    /// from a mood or a track of the library to a mood or a track, `count` tracks long (or
    /// `minutes` long), ordered `flow` (within each step of three) or `none` (the path's own
    /// order). Nothing is saved: `POST /api/playlists` saves the previewed track IDs.
    func moodPath(_ request: HTTPRequest) throws -> HTTPResponse {
        var built = PlaylistRequest()
        let from = try Self.pathEnd(request.query["from"], name: "from")
        let to = try Self.pathEnd(request.query["to"], name: "to")
        built.path = (from, to)
        built.recommendation.scope = .library
        let count = try Self.integer(request.query["count"], name: "count", in: 1...PlaylistBuilder.maximumTrackCount)
        let minutes = try Self.integer(request.query["minutes"], name: "minutes", in: 1...1_440)
        switch (count, minutes) {
        case (_?, _?): throw APIError.badRequest("Give either count or minutes, not both.")
        case (nil, let minutes?): built.length = .duration(milliseconds: minutes * 60_000)
        case (let count, nil): built.length = .trackCount(count ?? 20)
        }
        switch request.query["order"] ?? "flow" {
        case "flow": built.order = .flow
        case "none": built.order = PlaylistRequest.Order.none
        case let other:
            throw APIError.badRequest(
                "order must be flow or none for a mood path, which sets its own energy ramp (got \"\(other)\")."
            )
        }
        let playlist = try answeringEngineErrors { try store.buildPlaylist(built) }
        return try Self.json(BuiltPlaylistBody(playlist))
    }

    /// A path's end: `mood:NAME` or `track:ID` (a store track ID).
    static func pathEnd(_ text: String?, name: String) throws -> PlaylistBuilder.PathEnd {
        let moods = MoodWord.allCases.map(\.rawValue).joined(separator: ", ")
        guard let text, !text.isEmpty else {
            throw APIError.badRequest("Give \(name)=mood:NAME (one of \(moods)) or \(name)=track:ID.")
        }
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        if parts.count == 2, parts[0] == "mood", let mood = MoodWord(rawValue: parts[1].lowercased()) {
            return .mood(mood)
        }
        if parts.count == 2, parts[0] == "track", let id = Int64(parts[1]) {
            return .track(id)
        }
        throw APIError.badRequest(
            "\(name) must be mood:NAME (one of \(moods)) or track:ID, a track ID as /api/tracks gives it (got \"\(text)\")."
        )
    }
}

// MARK: - Bodies

/// `GET /api/moods`.
struct MoodList: Encodable {
    struct Mood: Encodable {
        var name: String
        var valence: Double
        var energy: Double
    }

    var moods: [Mood]
}

/// A built playlist as a preview: its name and description as it would be saved, its tracks in
/// order with the features the ordering used, and the engine's notes.
///
/// Keys a track has no value for are left out, as in the rest of the API.
struct BuiltPlaylistBody: Encodable {
    struct Entry: Encodable {
        var entry: Playlist.Entry

        enum CodingKeys: String, CodingKey {
            case name, artists, album, energy, valence, tempo, key, mode
            case trackID = "track_id"
            case spotifyID = "spotify_id"
            case durationMS = "duration_ms"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(entry.trackID, forKey: .trackID)
            try container.encodeIfPresent(entry.spotifyID?.rawValue, forKey: .spotifyID)
            try container.encode(entry.name, forKey: .name)
            try container.encode(entry.artists, forKey: .artists)
            try container.encodeIfPresent(entry.album, forKey: .album)
            try container.encodeIfPresent(entry.durationMS, forKey: .durationMS)
            // The table holds 32-bit floats: three decimals give the stored value without float noise.
            let rounded = { (value: Double?) in value.map { ($0 * 1000).rounded() / 1000 } }
            try container.encodeIfPresent(rounded(entry.features.energy), forKey: .energy)
            try container.encodeIfPresent(rounded(entry.features.valence), forKey: .valence)
            try container.encodeIfPresent(rounded(entry.features.tempo), forKey: .tempo)
            try container.encodeIfPresent(entry.features.key, forKey: .key)
            try container.encodeIfPresent(entry.features.mode, forKey: .mode)
        }
    }

    var built: BuiltPlaylist

    init(_ built: BuiltPlaylist) {
        self.built = built
    }

    enum CodingKeys: String, CodingKey {
        case name, description, notes, tracks
        case transitionScore = "transition_score"
        case durationMS = "duration_ms"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(built.playlist.name, forKey: .name)
        try container.encode(built.playlist.description, forKey: .description)
        try container.encodeIfPresent(built.playlist.transitionScore, forKey: .transitionScore)
        try container.encode(built.playlist.totalDurationMS, forKey: .durationMS)
        try container.encode(built.notes, forKey: .notes)
        try container.encode(built.playlist.entries.map(Entry.init), forKey: .tracks)
    }
}
