import Foundation

/// What a push did.
public struct PlaylistPushResult: Sendable, Hashable, Codable {
    public var spotifyID: String
    /// Whether a new Spotify playlist was created (otherwise an earlier one was replaced).
    public var created: Bool
    public var itemCount: Int
    public var skippedWithoutID: Int
    public var snapshotID: String?
    public var requests: Int

    enum CodingKeys: String, CodingKey {
        case spotifyID = "spotify_id"
        case created
        case itemCount = "item_count"
        case skippedWithoutID = "skipped_without_id"
        case snapshotID = "snapshot_id"
        case requests
    }

    /// `https://open.spotify.com/playlist/…`.
    public var url: String { "https://open.spotify.com/playlist/\(spotifyID)" }
}
