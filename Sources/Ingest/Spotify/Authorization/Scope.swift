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

    /// What `auth login` asks for: everything `sync` reads and `playlist push` writes.
    ///
    /// Playback control (`user-modify-playback-state`) is left out; ask for it with `--scope`.
    public static let vibesDefault: Set<Scope> = [
        .userReadPrivate, .userLibraryRead, .userTopRead, .userReadRecentlyPlayed,
        .userReadCurrentlyPlaying, .playlistReadPrivate, .playlistReadCollaborative,
        .playlistModifyPublic, .playlistModifyPrivate,
    ]

    public static func < (lhs: Scope, rhs: Scope) -> Bool { lhs.rawValue < rhs.rawValue }
}
