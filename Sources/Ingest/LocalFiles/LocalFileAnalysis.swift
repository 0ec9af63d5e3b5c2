import Features
import Foundation

/// How an analysed file was tied to a track.
public enum LocalFileMatch: String, Sendable, Hashable, Codable {
    /// The file's ISRC tag equals a track's ISRC.
    case isrc
    /// A tag holds the track's Spotify link or URI.
    case spotifyID = "spotify-id"
    /// Normalised artist and title equal, durations within 2 seconds.
    case artistTitle = "artist-title"
    /// No track matched: the file became a track of its own.
    case newTrack = "new-track"
}

/// What the store did with one analysed file.
public struct LocalFileOutcome: Sendable, Hashable {
    /// The track's row ID in the store.
    public var trackID: Int64
    /// The Spotify ID of the track, or ``LocalFileFingerprint/localTrackID(contentHash:)``.
    public var stableID: String
    public var match: LocalFileMatch
}

/// What the store already knows about a file, for incremental analysis.
public enum LocalFileState: Sendable, Hashable {
    /// Never analysed by this analyser version (or its last analysis failed).
    case new
    /// Same path, size and modification time, analysed by this version.
    case unchanged(trackID: Int64?, stableID: String?)
}
