/// A Spotify authorization scope: a permission the user grants at sign-in.
public enum Scope: String, Sendable, Hashable, CaseIterable, Codable, Comparable {
    case userReadPrivate = "user-read-private"
    case userReadEmail = "user-read-email"
    case userLibraryRead = "user-library-read"
    case userTopRead = "user-top-read"
    case userReadRecentlyPlayed = "user-read-recently-played"
    case userReadCurrentlyPlaying = "user-read-currently-playing"
    case userReadPlaybackState = "user-read-playback-state"
    case userModifyPlaybackState = "user-modify-playback-state"
    case playlistReadPrivate = "playlist-read-private"
    case playlistReadCollaborative = "playlist-read-collaborative"
    case playlistModifyPublic = "playlist-modify-public"
    case playlistModifyPrivate = "playlist-modify-private"

    /// What `auth login` asks for: everything `sync` reads, `playlist push` writes, and the player
    /// commands (`devices`, `play`, `pause`, …) need.
    ///
    /// The playback scopes are asked for too: Spotify names no scope in its 403, and a new
    /// development-mode app has no other way to control playback.
    public static let vibesDefault: Set<Scope> = [
        .userReadPrivate, .userLibraryRead, .userTopRead, .userReadRecentlyPlayed,
        .userReadCurrentlyPlaying, .userReadPlaybackState, .userModifyPlaybackState,
        .playlistReadPrivate, .playlistReadCollaborative, .playlistModifyPublic, .playlistModifyPrivate,
    ]

    public static func < (lhs: Scope, rhs: Scope) -> Bool { lhs.rawValue < rhs.rawValue }
}
