import Features
import Foundation

/// A device that can play Spotify: a phone, a computer, a speaker (`/me/player/devices`).
public struct SpotifyDevice: Decodable, Sendable, Hashable {
    /// The device's ID; Spotify may leave it out for restricted devices.
    public var id: String?
    public var name: String
    /// Such as `Computer`, `Smartphone`, `Speaker`.
    public var type: String
    public var isActive: Bool
    /// Whether the Web API may not control it.
    public var isRestricted: Bool
    public var volumePercent: Int?

    public init(
        id: String?,
        name: String,
        type: String,
        isActive: Bool,
        isRestricted: Bool = false,
        volumePercent: Int? = nil
    ) {
        self.id = id
        self.name = name
        self.type = type
        self.isActive = isActive
        self.isRestricted = isRestricted
        self.volumePercent = volumePercent
    }

    enum CodingKeys: String, CodingKey {
        case id, name, type
        case isActive = "is_active"
        case isRestricted = "is_restricted"
        case volumePercent = "volume_percent"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeIfPresent(String.self, forKey: .id)
        name = try container.decodeIfPresent(String.self, forKey: .name) ?? "?"
        type = try container.decodeIfPresent(String.self, forKey: .type) ?? "Unknown"
        isActive = try container.decodeIfPresent(Bool.self, forKey: .isActive) ?? false
        isRestricted = try container.decodeIfPresent(Bool.self, forKey: .isRestricted) ?? false
        volumePercent = try container.decodeIfPresent(Int.self, forKey: .volumePercent)
    }
}

/// What to start playing.
public enum PlaybackTarget: Sendable, Hashable {
    /// Resume what was playing.
    case resume
    /// A playlist, album or artist by its `spotify:…` URI.
    case context(uri: String)
    /// Tracks by their `spotify:track:…` URIs, in order.
    case tracks(uris: [String])
}

/// Playback control on the user's devices (Web API player endpoints; Premium only, and the
/// `user-modify-playback-state` scope).
///
/// Spotify refuses with ``SpotifyError/playerRefused(reason:message:endpoint:)`` when no device is
/// active (`NO_ACTIVE_DEVICE`) or the account is not Premium (`PREMIUM_REQUIRED`).
extension SpotifyClient {
    /// The user's available devices (`GET /me/player/devices`).
    public func devices() async throws -> [SpotifyDevice] {
        struct Devices: Decodable { var devices: [SpotifyDevice] }
        return try await decode(Devices.self, "me/player/devices").devices
    }

    /// Starts or resumes playback (`PUT /me/player/play`), on `deviceID` or the active device.
    public func play(_ target: PlaybackTarget, deviceID: String? = nil) async throws {
        struct Body: Encodable {
            var contextURI: String?
            var uris: [String]?
            enum CodingKeys: String, CodingKey {
                case contextURI = "context_uri"
                case uris
            }
        }
        let body: Data?
        switch target {
        case .resume: body = nil
        case .context(let uri): body = Self.jsonBody(Body(contextURI: uri))
        case .tracks(let uris): body = Self.jsonBody(Body(uris: uris))
        }
        _ = try await perform(.put, "me/player/play", query: Self.device(deviceID), json: body)
    }

    /// Starts playing a playlist on the user's active device (`PUT /me/player/play`; Premium only).
    public func startPlayback(ofPlaylist playlistID: SpotifyID) async throws {
        try await play(.context(uri: "spotify:playlist:\(playlistID)"))
    }

    /// Turns shuffle on or off (`PUT /me/player/shuffle`).
    public func setShuffle(_ isOn: Bool, deviceID: String? = nil) async throws {
        _ = try await perform(
            .put,
            "me/player/shuffle",
            query: [("state", isOn ? "true" : "false")] + Self.device(deviceID)
        )
    }

    /// Pauses playback (`PUT /me/player/pause`).
    public func pause(deviceID: String? = nil) async throws {
        _ = try await perform(.put, "me/player/pause", query: Self.device(deviceID))
    }

    /// Skips to the next track (`POST /me/player/next`).
    public func skipToNext(deviceID: String? = nil) async throws {
        _ = try await perform(.post, "me/player/next", query: Self.device(deviceID))
    }

    /// Skips to the previous track (`POST /me/player/previous`).
    public func skipToPrevious(deviceID: String? = nil) async throws {
        _ = try await perform(.post, "me/player/previous", query: Self.device(deviceID))
    }

    /// Seeks to `milliseconds` into the current track (`PUT /me/player/seek`).
    public func seek(toMilliseconds milliseconds: Int, deviceID: String? = nil) async throws {
        _ = try await perform(
            .put,
            "me/player/seek",
            query: [("position_ms", "\(max(0, milliseconds))")] + Self.device(deviceID)
        )
    }

    private static func device(_ id: String?) -> [(String, String)] {
        id.map { [("device_id", $0)] } ?? []
    }
}
