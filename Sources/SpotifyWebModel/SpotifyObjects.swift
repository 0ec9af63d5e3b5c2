import Features
import Foundation

// The response objects only the client reads; those the JSON importers read from saved answers
// too (`SpotifyTrackObject`, `SpotifyTrackItemObject`, `SpotifyPagingObject`, …) are in
// `SpotifyWebObjects.swift`. Fields are optional where real responses leave them out.

/// A page of a cursor-paged list (`/me/player/recently-played`).
public struct SpotifyCursorPagingObject<Item: Codable & Hashable & Sendable>: Codable, Hashable, Sendable {
    public struct Cursors: Codable, Hashable, Sendable {
        /// The cursor to fetch newer items with (`after=`), milliseconds since 1970 as text.
        public var after: String?
        /// The cursor to fetch older items with (`before=`).
        public var before: String?
    }

    public var items: [Item?]
    public var next: String?
    public var cursors: Cursors?
    public var limit: Int?
}

/// The signed-in user (`/v1/me`).
public struct SpotifyUserObject: Codable, Hashable, Sendable {
    public var id: String
    public var displayName: String?
    /// `premium`, `free`, …; deprecated by Spotify and often absent.
    public var product: String?

    enum CodingKeys: String, CodingKey {
        case id
        case displayName = "display_name"
        case product
    }
}

/// A full artist object (`/artists/{id}`, `/me/top/artists`), with genres and popularity.
public struct SpotifyFullArtistObject: Codable, Hashable, Sendable {
    public var id: String?
    public var name: String?
    public var genres: [String]?
    public var popularity: Int?
}

/// A playlist as `/me/playlists` lists it: the item count, not the items.
public struct SpotifySimplifiedPlaylistObject: Codable, Hashable, Sendable {
    public typealias Owner = SpotifyPlaylistOwnerObject

    /// `{"href": …, "total": …}`.
    public struct ItemsReference: Codable, Hashable, Sendable {
        public var total: Int?
    }

    public var id: String
    public var name: String?
    public var description: String?
    public var owner: Owner?
    /// The version of the playlist's contents; unchanged means no need to fetch its items again.
    public var snapshotID: String?
    public var collaborative: Bool?
    /// The item count in the current API.
    public var items: ItemsReference?
    /// The item count in older responses.
    public var tracks: ItemsReference?

    /// The number of items, from `items.total` or the older `tracks.total`.
    public var itemCount: Int? { items?.total ?? tracks?.total }

    enum CodingKeys: String, CodingKey {
        case id, name, description, owner
        case snapshotID = "snapshot_id"
        case collaborative, items, tracks
    }
}

/// What is playing now (`/me/player/currently-playing`).
public struct SpotifyCurrentlyPlayingObject: Codable, Hashable, Sendable {
    public var item: SpotifyTrackObject?
    public var isPlaying: Bool?
    public var progressMS: Int?

    enum CodingKeys: String, CodingKey {
        case item
        case isPlaying = "is_playing"
        case progressMS = "progress_ms"
    }
}

/// The result of `/search?type=track`.
public struct SpotifySearchResults: Codable, Hashable, Sendable {
    public var tracks: SpotifyPagingObject<SpotifyTrackObject>?
    public var artists: SpotifyPagingObject<SpotifyFullArtistObject>?
    public var albums: SpotifyPagingObject<SpotifyAlbumObject>?
    public var playlists: SpotifyPagingObject<SpotifySimplifiedPlaylistObject>?

    /// No results of any kind.
    package init() {}
}

extension SpotifySearchResults {
    /// The items on this page and the total, for the kind searched.
    package func count(of type: SpotifySearchType) -> (items: Int, total: Int?) {
        switch type {
        case .track: (tracks?.items.count ?? 0, tracks?.total)
        case .artist: (artists?.items.count ?? 0, artists?.total)
        case .album: (albums?.items.count ?? 0, albums?.total)
        case .playlist: (playlists?.items.count ?? 0, playlists?.total)
        }
    }

    /// Appends a later page's items of the kind searched.
    package mutating func append(_ page: SpotifySearchResults, of type: SpotifySearchType) {
        switch type {
        case .track: tracks?.items += page.tracks?.items ?? []
        case .artist: artists?.items += page.artists?.items ?? []
        case .album: albums?.items += page.albums?.items ?? []
        case .playlist: playlists?.items += page.playlists?.items ?? []
        }
    }
}

/// What `/search` looks for.
public enum SpotifySearchType: String, Sendable, Hashable, CaseIterable, Codable {
    case track, artist, album, playlist
}

/// The answer to a playlist write: the new snapshot.
package struct SpotifySnapshotObject: Codable, Hashable, Sendable {
    package var snapshotID: String

    enum CodingKeys: String, CodingKey {
        case snapshotID = "snapshot_id"
    }
}

/// `{"error": {"status": 403, "message": "…"}}`; `message` may be missing.
package struct SpotifyErrorEnvelope: Decodable {
    package struct Body: Decodable {
        package var status: Int?
        package var message: String?
        /// The player endpoints' reason, such as `NO_ACTIVE_DEVICE` or `PREMIUM_REQUIRED`.
        package var reason: String?
    }

    package var error: Body
}
