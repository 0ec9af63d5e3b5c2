import Analytics
import Features
import FlyingFox
import Foundation
import Ingest
import SpotifyWebAPI
import Synchronization
import VibesEngine

// "Order this playlist": a preview (`GET /api/playlists/{id}/order`), a save in the store, and
// a push of the order to the playlist's own Spotify playlist (`POST /api/playlists/{id}/order`),
// through the engine calls of `playlist build --playlist NAME --order ORDER` and
// `playlist reorder NAME`.

extension VibesServer {
    /// `GET /api/playlists/{id}/order?order=flow|arc|key[&arc=peak]`: the playlist's tracks with
    /// features in the order asked for, as `playlist build --playlist NAME --order ORDER` orders
    /// them, and whether the order can be pushed to Spotify; nothing is saved.
    func orderPreview(playlist text: String, _ request: HTTPRequest) async throws -> HTTPResponse {
        let (built, _, spotifyID) = try await reads.run {
            try orderedPlaylist(id: text, order: request.query["order"], arc: request.query["arc"], name: nil)
        }
        let push = await spotifyPush(for: spotifyID)
        return try Self.json(OrderPreview(built: BuiltPlaylistBody(built), spotify: push))
    }

    /// `POST /api/playlists/{id}/order` with `{"order": "arc", "arc": "peak", "name": "…",
    /// "to": "library"}`: saves the ordered playlist in the store as a built playlist (replacing
    /// an earlier built one of the same name) and answers 201 with its `id`, `name` and
    /// `track_count`. With `"to": "spotify"` the order is written to the playlist's own Spotify
    /// playlist instead (``pushOrder(_:to:)``) and the answer is 200.
    ///
    /// - Throws: ``APIError`` 400 for a bad body, 404 for an unknown playlist, and for Spotify the
    ///   errors of ``pushOrder(_:to:)``.
    func saveOrder(playlist text: String, body: Data) async throws -> HTTPResponse {
        let request = try Self.decode(
            OrderRequest.self,
            from: body,
            shape: "{\"order\": \"flow\", \"arc\": \"peak\", \"name\": \"…\", \"to\": \"library\"}"
        )
        let destination = request.to ?? "library"
        guard ["library", "spotify"].contains(destination) else {
            throw APIError.badRequest("to must be library or spotify (got \"\(destination)\").")
        }
        let (built, name, spotifyID) = try await reads.run {
            try orderedPlaylist(id: text, order: request.order, arc: request.arc, name: request.name)
        }
        if destination == "spotify" {
            guard let spotifyID else {
                throw APIError(
                    status: 409,
                    code: "playlist_not_on_spotify",
                    message: "“\(name)” has no Spotify playlist: sync it from Spotify, or push it from the "
                        + "explorer, then order it again. It can still be saved in the library."
                )
            }
            return try Self.json(try await pushOrder(built, to: spotifyID))
        }
        let how = request.order ?? "flow"
        let id = try await reads.run { [store] in
            try store.saveBuiltPlaylist(built.playlist, settings: "web app: order \(how)")
        }
        return try Self.json(
            SavedPlaylist(id: id, name: built.playlist.name, trackCount: built.playlist.entries.count),
            status: .created
        )
    }

    /// Writes the order of `built` to the Spotify playlist `spotifyID` by moves, as `playlist
    /// reorder` does: every item keeps its date added and its adder, and nothing is removed or
    /// added.
    ///
    /// The playlist is read from Spotify first; its tracks take the places of its tracks in the
    /// order of `built` (items the order does not hold, such as tracks without features, local
    /// files and episodes, follow or keep their places). A playlist already in that order is left
    /// alone, so a request sent twice moves nothing the second time. The moves name the snapshot
    /// they were planned on, one write of a playlist runs at a time, and the order is read back
    /// at the end.
    ///
    /// - Throws: ``APIError`` 409 `spotify_not_signed_in` without a sign-in, 409
    ///   `spotify_busy` while another write of the playlist runs, and the Spotify errors of
    ///   ``spotifyFailure(_:action:)``.
    func pushOrder(_ built: BuiltPlaylist, to spotifyID: SpotifyID) async throws -> ReorderedPlaylist {
        let client = try await requireSpotifyClient()
        guard spotifyWrites.start(spotifyID.rawValue) else {
            throw APIError(
                status: 409,
                code: "spotify_busy",
                message: "The playlist is being written to Spotify already; try again when that is done."
            )
        }
        defer { spotifyWrites.finish(spotifyID.rawValue) }
        do {
            let playlist = try await store.readForReorder(spotifyID, using: client)
            let target = Self.target(of: playlist, following: built.playlist.entries.map(\.trackID))
            guard target != Array(playlist.uris.indices) else {
                return ReorderedPlaylist(
                    name: built.playlist.name,
                    spotifyID: spotifyID.rawValue,
                    itemCount: playlist.uris.count,
                    moved: 0,
                    operations: 0,
                    otherItems: playlist.kinds.count { $0 != .track },
                    snapshotID: playlist.snapshotID
                )
            }
            let result = try await store.writeReorder(playlist, order: target, using: client)
            return ReorderedPlaylist(
                name: built.playlist.name,
                spotifyID: result.spotifyID,
                itemCount: result.itemCount,
                moved: result.moved,
                operations: result.operations,
                otherItems: result.otherItems,
                snapshotID: result.snapshotID
            )
        } catch {
            logger.info("Writing an order to Spotify playlist \(spotifyID.rawValue) failed: \(error)")
            throw Self.spotifyFailure(error, action: "take the order")
        }
    }

    /// The order of `playlist`'s items (indexes into its items) that puts its catalogue tracks, in
    /// the places tracks hold, in the order `trackIDs` gives them; tracks it does not name follow in
    /// their own order, and every other item keeps its place.
    static func target(of playlist: ReorderablePlaylist, following trackIDs: [Int64]) -> [Int] {
        var rank: [Int64: Int] = [:]
        for (position, id) in trackIDs.enumerated() where rank[id] == nil { rank[id] = position }
        let slots = playlist.trackPositions
        let ordered = slots.enumerated().sorted { first, second in
            let a = playlist.trackIDs[first.element].flatMap { rank[$0] } ?? Int.max
            let b = playlist.trackIDs[second.element].flatMap { rank[$0] } ?? Int.max
            return a != b ? a < b : first.offset < second.offset
        }
        var target = Array(playlist.uris.indices)
        for (slot, item) in zip(slots, ordered.map(\.element)) { target[slot] = item }
        return target
    }

    /// Whether the order of a playlist with Spotify ID `spotifyID` can be pushed, and what to do
    /// when it cannot.
    func spotifyPush(for spotifyID: SpotifyID?) async -> SpotifyPush {
        guard spotifyID != nil else {
            return SpotifyPush(
                canPush: false,
                message: "This playlist is not on Spotify: sync it from Spotify, or push it from the explorer first."
            )
        }
        guard await signedInSpotifyClient() != nil else {
            return SpotifyPush(canPush: false, message: Self.notSignedIn.message)
        }
        return SpotifyPush(
            canPush: true,
            message: "Pushing moves the tracks of the Spotify playlist into this order; each keeps its date added."
        )
    }

    /// Playlist `text` (a store ID) in `order`, named `name` (or "NAME (ORDER)"), with the
    /// playlist's own name and the Spotify playlist it came from or was pushed to.
    private func orderedPlaylist(
        id text: String,
        order: String?,
        arc: String?,
        name: String?
    ) throws -> (BuiltPlaylist, String, SpotifyID?) {
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
        // The playlist's own Spotify ID, from the row read above: never another row's by its
        // origin key or name.
        return (built, overview.name, overview.spotifyID.flatMap { SpotifyID($0) })
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

/// The answer to `POST /api/playlists/{id}/order` with `"to": "spotify"`: what the reorder did.
/// The order is always written by moves and read back, so `method` is `moves` and `verified` is
/// `true`.
struct ReorderedPlaylist: Encodable {
    var name: String
    var spotifyID: String
    var itemCount: Int
    /// Items that changed place; 0 when the playlist was in this order already.
    var moved: Int
    /// Move requests sent.
    var operations: Int
    /// Local files, episodes and removed tracks, moved with the rest.
    var otherItems: Int
    var snapshotID: String
    let method = "moves"
    let verified = true

    var url: String { "https://open.spotify.com/playlist/\(spotifyID)" }

    enum CodingKeys: String, CodingKey {
        case name, url, moved, operations, method, verified
        case spotifyID = "spotify_id"
        case itemCount = "item_count"
        case otherItems = "other_items"
        case snapshotID = "snapshot_id"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(spotifyID, forKey: .spotifyID)
        try container.encode(url, forKey: .url)
        try container.encode(itemCount, forKey: .itemCount)
        try container.encode(moved, forKey: .moved)
        try container.encode(operations, forKey: .operations)
        try container.encode(otherItems, forKey: .otherItems)
        try container.encode(snapshotID, forKey: .snapshotID)
        try container.encode(method, forKey: .method)
        try container.encode(verified, forKey: .verified)
    }
}

/// The Spotify playlists being written, so that one is written by one request at a time.
final class SpotifyWrites: Sendable {
    private let running = Mutex<Set<String>>([])

    /// Marks `spotifyID` as being written; `false` when it is already.
    func start(_ spotifyID: String) -> Bool {
        running.withLock { $0.insert(spotifyID).inserted }
    }

    func finish(_ spotifyID: String) {
        _ = running.withLock { $0.remove(spotifyID) }
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
