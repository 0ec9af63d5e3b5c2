import Features
import FlyingFox
import Foundation
import Ingest
import VibesEngine

// `POST /api/playlists`: saves a list of tracks as a playlist of the store, as
// `vibes-analyze playlist build --save` does.

extension VibesServer {
    /// The most tracks one saved playlist may hold: as many as a Spotify playlist does.
    static let maximumSavedTracks = 10_000

    /// `POST /api/playlists` with `{"name": "…", "track_ids": [12, 7, …], "description": "…"}`:
    /// saves the tracks, in order, as a playlist of the store, replacing an earlier saved playlist
    /// of the same name; answers 201 with its `id`, `name` and `track_count`.
    ///
    /// - Throws: ``APIError`` 400 for a body that is not such JSON, an empty name, no tracks or too
    ///   many, or a track ID the store does not hold.
    func savePlaylist(body: Data) throws -> HTTPResponse {
        let request: SavePlaylistRequest
        do {
            request = try JSONDecoder().decode(SavePlaylistRequest.self, from: body)
        } catch {
            throw APIError.badRequest(
                "Send the playlist as JSON: {\"name\": \"…\", \"track_ids\": [store track IDs, in order]}."
            )
        }
        let name = request.name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty, name.count <= 200 else {
            throw APIError.badRequest("name must be 1 to 200 characters.")
        }
        _ = try summaries(ofListed: request.trackIDs)
        let playlist = Playlist(
            name: name,
            description: request.description ?? "Saved from the web app",
            entries: try store.playlistEntries(for: request.trackIDs)
        )
        let id = try store.saveBuiltPlaylist(playlist)
        return try Self.json(
            SavedPlaylist(id: id, name: name, trackCount: playlist.entries.count),
            status: .created
        )
    }
}

/// The body of `POST /api/playlists`.
struct SavePlaylistRequest: Decodable {
    var name: String
    var trackIDs: [Int64]
    var description: String?

    enum CodingKeys: String, CodingKey {
        case name, description
        case trackIDs = "track_ids"
    }
}

/// The answer to `POST /api/playlists`.
struct SavedPlaylist: Encodable {
    var id: Int64
    var name: String
    var trackCount: Int

    enum CodingKeys: String, CodingKey {
        case id, name
        case trackCount = "track_count"
    }
}
