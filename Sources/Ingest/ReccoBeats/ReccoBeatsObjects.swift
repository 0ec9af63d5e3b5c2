import Features
import Foundation

/// One item of ReccoBeats' `/v1/audio-features` answer.
///
/// `id` is ReccoBeats' own UUID, not the Spotify ID: the Spotify ID is the last path segment of
/// `href` (`https://open.spotify.com/track/<id>`), the only way back to the track asked for. The
/// features are Spotify's own values; ReccoBeats carries no `time_signature` and no
/// `duration_ms`, so those stay missing. A `key` of −1 means no key was detected.
public struct ReccoBeatsAudioFeaturesObject: Codable, Hashable, Sendable {
    /// The ReccoBeats UUID of the track.
    public var id: String?
    /// `https://open.spotify.com/track/<spotify id>`.
    public var href: String?
    public var isrc: String?
    public var features: AudioFeatures

    enum CodingKeys: String, CodingKey {
        case id, href, isrc
    }

    public init(id: String?, href: String?, isrc: String?, features: AudioFeatures) {
        self.id = id
        self.href = href
        self.isrc = isrc
        self.features = features
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeIfPresent(String.self, forKey: .id)
        href = try container.decodeIfPresent(String.self, forKey: .href)
        isrc = try container.decodeIfPresent(String.self, forKey: .isrc)
        features = try AudioFeatures(from: decoder)
        // ReccoBeats has no meter: never keep one, even if a body carried it.
        features.timeSignature = nil
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(id, forKey: .id)
        try container.encodeIfPresent(href, forKey: .href)
        try container.encodeIfPresent(isrc, forKey: .isrc)
        try features.encode(to: encoder)
    }

    /// The Spotify track ID in ``href``, when it holds one: the `open.spotify.com/track/…` link
    /// the service documents, or any URL whose last path segment is a Spotify ID.
    public var spotifyID: SpotifyID? {
        guard let href else { return nil }
        if let id = SpotifyID(uri: href, category: "track") { return id }
        let path = href.split(separator: "?", maxSplits: 1).first ?? ""
        return path.split(separator: "/").last.flatMap { SpotifyID($0) }
    }
}

/// A track of ReccoBeats' `/v1/track` answer: what disambiguates records that share an ISRC.
public struct ReccoBeatsTrackObject: Codable, Hashable, Sendable {
    public struct Artist: Codable, Hashable, Sendable {
        public var id: String?
        public var name: String?
        public var href: String?
    }

    public var id: String?
    public var trackTitle: String?
    public var artists: [Artist]?
    public var durationMs: Int?
    public var isrc: String?
    public var href: String?
    public var popularity: Int?

    public init(
        id: String?,
        trackTitle: String?,
        artists: [Artist]?,
        durationMs: Int?,
        isrc: String?,
        href: String?,
        popularity: Int? = nil
    ) {
        self.id = id
        self.trackTitle = trackTitle
        self.artists = artists
        self.durationMs = durationMs
        self.isrc = isrc
        self.href = href
        self.popularity = popularity
    }
}

/// `{"content": [ … ]}`, the envelope of every ReccoBeats list.
struct ReccoBeatsContent<Item: Decodable>: Decodable {
    var content: [Item]
}

/// An error body: ReccoBeats puts a numeric `code` (4001 … 4291) and a `message` beside the status.
struct ReccoBeatsErrorBody: Decodable {
    var code: Int?
    var message: String?
    var error: String?

    enum CodingKeys: String, CodingKey {
        case code, message, error, errorCode
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        code =
            (try? container.decodeIfPresent(Int.self, forKey: .code))
            ?? (try? container.decodeIfPresent(Int.self, forKey: .errorCode))
            ?? (try? container.decodeIfPresent(String.self, forKey: .code)).flatMap { $0.flatMap { Int($0) } }
        message = try? container.decodeIfPresent(String.self, forKey: .message)
        error = try? container.decodeIfPresent(String.self, forKey: .error)
    }
}
