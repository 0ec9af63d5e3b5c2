import Features

// The Spotify Web API's JSON objects, as far as the library needs them. Every field is optional:
// real responses leave fields null or out (local files have no `id`, removed tracks are `null`,
// playlists hold podcast episodes, and re-encoded captures drop null keys altogether).
// Wire names are mapped in `CodingKeys` (style rule 8).

/// A simplified artist object.
public struct SpotifyArtistObject: Codable, Hashable, Sendable {
    public var id: String?
    public var name: String?
    public var genres: [String]?
}

/// A simplified album object.
public struct SpotifyAlbumObject: Codable, Hashable, Sendable {
    public var id: String?
    public var name: String?
    public var releaseDate: String?
    public var releaseDatePrecision: String?

    enum CodingKeys: String, CodingKey {
        case id, name
        case releaseDate = "release_date"
        case releaseDatePrecision = "release_date_precision"
    }
}

/// A track object (or, in playlists, an episode object, told apart by ``type``).
public struct SpotifyTrackObject: Codable, Hashable, Sendable {
    public var id: String?
    public var uri: String?
    public var name: String?
    public var type: String?
    public var artists: [SpotifyArtistObject]?
    public var album: SpotifyAlbumObject?
    public var durationMS: Int?
    public var explicit: Bool?
    public var popularity: Int?
    public var isLocal: Bool?
    public var externalIDs: [String: String]?

    enum CodingKeys: String, CodingKey {
        case id, uri, name, type, artists, album, explicit, popularity
        case durationMS = "duration_ms"
        case isLocal = "is_local"
        case externalIDs = "external_ids"
    }

    /// The library's view of this object, or `nil` for episodes and objects without a name.
    public var track: Track? {
        guard type == nil || type == "track", let name else { return nil }
        let local = isLocal == true || (uri?.hasPrefix("spotify:local:") ?? false)
        let album = album
        return Track(
            spotifyID: local
                ? nil : id.flatMap { SpotifyID($0) } ?? uri.flatMap { SpotifyID(uri: $0, category: "track") },
            name: name,
            artists: (artists ?? []).compactMap { $0.name.flatMap { $0.isEmpty ? nil : $0 } },
            album: album?.name.flatMap { $0.isEmpty ? nil : $0 },
            albumID: album?.id.flatMap { SpotifyID($0) },
            releaseDate: album?.releaseDate.flatMap { ReleaseDate($0) },
            durationMS: durationMS,
            isrc: externalIDs?["isrc"],
            isExplicit: explicit,
            popularity: local ? nil : popularity,
            isLocal: local
        )
    }
}

/// An item of a saved-tracks page (`/me/tracks`) or of a playlist page (`/playlists/{id}/items`).
public struct SpotifyTrackItemObject: Codable, Hashable, Sendable {
    public var addedAt: String?
    public var addedBy: AddedBy?
    public var isLocal: Bool?
    /// `null` for tracks removed from the catalogue; an episode in podcast-bearing playlists.
    public var track: SpotifyTrackObject?
    /// The newer playlist-items shape names the object `item`.
    public var item: SpotifyTrackObject?

    public struct AddedBy: Codable, Hashable, Sendable {
        public var id: String?
    }

    enum CodingKeys: String, CodingKey {
        case addedAt = "added_at"
        case addedBy = "added_by"
        case isLocal = "is_local"
        case track, item
    }

    /// The track or episode this item holds.
    public var object: SpotifyTrackObject? { track ?? item }
}

/// A paging object: one page of items plus the links to its neighbours.
public struct SpotifyPagingObject<Item: Codable & Hashable & Sendable>: Codable, Hashable, Sendable {
    public var href: String?
    public var items: [Item?]
    public var limit: Int?
    public var offset: Int?
    public var total: Int?
    public var next: String?
    public var previous: String?
}

/// A play from `/me/player/recently-played`.
public struct SpotifyPlayHistoryObject: Codable, Hashable, Sendable {
    public var track: SpotifyTrackObject?
    public var playedAt: String?

    enum CodingKeys: String, CodingKey {
        case track
        case playedAt = "played_at"
    }
}

/// The owner of a playlist: a user's ID and name.
public struct SpotifyPlaylistOwnerObject: Codable, Hashable, Sendable {
    public var id: String?
    public var displayName: String?

    enum CodingKeys: String, CodingKey {
        case id
        case displayName = "display_name"
    }
}

/// A playlist object, with its first page of items embedded.
public struct SpotifyPlaylistObject: Codable, Hashable, Sendable {
    public var id: String?
    public var name: String?
    public var description: String?
    public var snapshotID: String?
    public var owner: Owner?
    public var tracks: SpotifyPagingObject<SpotifyTrackItemObject>?
    public var items: SpotifyPagingObject<SpotifyTrackItemObject>?

    public typealias Owner = SpotifyPlaylistOwnerObject

    enum CodingKeys: String, CodingKey {
        case id, name, description, owner, tracks, items
        case snapshotID = "snapshot_id"
    }
}

/// An audio-features object from `/v1/audio-features`.
///
/// The twelve features decode into ``Features/AudioFeatures``, whose coding keys are the wire names,
/// from the same JSON object; this type adds only the identity fields around them.
public struct SpotifyAudioFeaturesObject: Codable, Hashable, Sendable {
    public var id: String?
    public var uri: String?
    public var durationMS: Int?
    /// The library's view of the features.
    public var features: AudioFeatures

    enum CodingKeys: String, CodingKey {
        case id, uri
        case durationMS = "duration_ms"
    }

    public init(id: String?, uri: String? = nil, durationMS: Int? = nil, features: AudioFeatures) {
        self.id = id
        self.uri = uri
        self.durationMS = durationMS
        self.features = features
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeIfPresent(String.self, forKey: .id)
        uri = try container.decodeIfPresent(String.self, forKey: .uri)
        durationMS = try container.decodeIfPresent(Int.self, forKey: .durationMS)
        features = try AudioFeatures(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(id, forKey: .id)
        try container.encodeIfPresent(uri, forKey: .uri)
        try container.encodeIfPresent(durationMS, forKey: .durationMS)
        try features.encode(to: encoder)
    }
}
