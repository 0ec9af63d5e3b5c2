import Analytics
import Features
import FlyingFox
import Foundation
import Ingest
import VibesEngine

// "Order this playlist": a preview (`GET /api/playlists/{id}/order`) and a save
// (`POST /api/playlists/{id}/order`), through the engine call of
// `playlist build --playlist NAME --order ORDER`.

extension VibesServer {
    /// `GET /api/playlists/{id}/order?order=flow|arc|key[&arc=peak]`: the playlist's tracks with
    /// features in the order asked for, as `playlist build --playlist NAME --order ORDER` orders
    /// them; nothing is saved.
    func orderPreview(playlist text: String, _ request: HTTPRequest) throws -> HTTPResponse {
        let (built, _) = try orderedPlaylist(
            id: text,
            order: request.query["order"],
            arc: request.query["arc"],
            name: nil
        )
        return try Self.json(OrderPreview(built: BuiltPlaylistBody(built), spotify: spotifyPush))
    }

    /// `POST /api/playlists/{id}/order` with `{"order": "arc", "arc": "peak", "name": "…",
    /// "to": "library"}`: saves the ordered playlist in the store as a built playlist (replacing
    /// an earlier built one of the same name) and answers 201 with its `id`, `name` and
    /// `track_count`. `"to": "spotify"` asks for the order on Spotify, which this server cannot
    /// write: it answers 409 `spotify_not_signed_in` and says which command does.
    func saveOrder(playlist text: String, body: Data) throws -> HTTPResponse {
        let request = try Self.decode(
            OrderRequest.self,
            from: body,
            shape: "{\"order\": \"flow\", \"arc\": \"peak\", \"name\": \"…\", \"to\": \"library\"}"
        )
        let destination = request.to ?? "library"
        guard ["library", "spotify"].contains(destination) else {
            throw APIError.badRequest("to must be library or spotify (got \"\(destination)\").")
        }
        let (built, original) = try orderedPlaylist(
            id: text,
            order: request.order,
            arc: request.arc,
            name: request.name
        )
        if destination == "spotify" {
            throw APIError(
                status: 409,
                code: "spotify_not_signed_in",
                message: spotifyPush.message
                    + " From a terminal: vibes-analyze playlist reorder \"\(original)\" --order "
                    + (request.order ?? "flow") + "."
            )
        }
        let id = try store.saveBuiltPlaylist(built.playlist, settings: "web app: order \(request.order ?? "flow")")
        return try Self.json(
            SavedPlaylist(id: id, name: built.playlist.name, trackCount: built.playlist.entries.count),
            status: .created
        )
    }

    /// Whether this server can push an order to Spotify, and what to do when it cannot.
    var spotifyPush: SpotifyPush {
        SpotifyPush(
            canPush: false,
            message: "Pushing to Spotify needs a Spotify sign-in, which vibes-analyze serve does not hold."
        )
    }

    /// Playlist `text` (a store ID) in `order`, named `name` (or "NAME (ORDER)"), with the
    /// playlist's own name.
    private func orderedPlaylist(
        id text: String,
        order: String?,
        arc: String?,
        name: String?
    ) throws -> (BuiltPlaylist, String) {
        guard let id = Int64(text) else {
            throw APIError.badRequest(
                "A playlist is named by its numeric id, as GET /api/playlists lists it (got \"\(text)\")."
            )
        }
        let overview: PlaylistOverview
        do {
            overview = try store.playlistDetail(id: id, vibesOf: nil).overview
        } catch StoreError.notFound {
            throw APIError.notFound("No playlist has id \(id).")
        }
        var request = PlaylistRequest()
        switch order ?? "flow" {
        case "flow": request.order = .flow
        case "arc": request.order = .arc
        case "key": request.order = .key
        case let other: throw APIError.badRequest("order must be flow, arc or key (got \"\(other)\").")
        }
        if let arc {
            guard let curve = PlaylistOrdering.Arc(parsing: arc) else {
                throw APIError.badRequest(
                    "arc must be flat, rising, peak, falling or energies such as 0.2,0.8,0.4 (got \"\(arc)\")."
                )
            }
            request.arc = curve
        }
        let how = request.order == .arc ? "arc \(request.arc)" : order ?? "flow"
        let trimmed = name?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let trimmed, trimmed.isEmpty || trimmed.count > 200 {
            throw APIError.badRequest("name must be 1 to 200 characters.")
        }
        request.name = trimmed ?? "\(overview.name) (\(how))"
        // The playlist by its row: names may repeat.
        request.recommendation.scope = .playlistRow(id)
        let built = try answeringEngineErrors { try store.buildPlaylist(request) }
        return (built, overview.name)
    }
}

// MARK: - Bodies

/// The body of `POST /api/playlists/{id}/order`.
struct OrderRequest: Decodable {
    var order: String?
    var arc: String?
    var name: String?
    var to: String?
}

/// Whether the server can push to Spotify.
struct SpotifyPush: Encodable {
    var canPush: Bool
    var message: String

    enum CodingKeys: String, CodingKey {
        case message
        case canPush = "can_push"
    }
}

/// `GET /api/playlists/{id}/order`.
struct OrderPreview: Encodable {
    var built: BuiltPlaylistBody
    var spotify: SpotifyPush

    enum CodingKeys: String, CodingKey {
        case spotify
    }

    func encode(to encoder: any Encoder) throws {
        try built.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(spotify, forKey: .spotify)
    }
}
