import Features
import Foundation

/// One analysed local file, as the store records it: the features with their provenance and
/// confidence, and the tags that match the file to a track.
///
/// The store does not know how the analysis was made; `vibes-analyze analyze` fills this from the
/// AudioAnalysis library's result.
public struct LocalFileAnalysis: Sendable, Hashable {
    public var fingerprint: LocalFileFingerprint
    /// The hex SHA-256 of the file's bytes.
    public var contentHash: String
    /// The analyser's version; the features are stored under the source `local:<analyzer>`.
    public var analyzer: String
    public var durationMS: Int
    public var features: AudioFeatures
    /// `measured` or `estimated`, by feature key.
    public var provenance: [String: String]
    /// 0 to 1, by feature key.
    public var confidence: [String: Double]
    public var title: String?
    public var artist: String?
    public var album: String?
    public var isrc: String?
    public var spotifyID: SpotifyID?
    /// Everything else worth keeping (descriptors, stream format), as a JSON object.
    public var detailsJSON: String

    public init(
        fingerprint: LocalFileFingerprint,
        contentHash: String,
        analyzer: String,
        durationMS: Int,
        features: AudioFeatures,
        provenance: [String: String],
        confidence: [String: Double],
        title: String?,
        artist: String?,
        album: String?,
        isrc: String?,
        spotifyID: SpotifyID?,
        detailsJSON: String
    ) {
        self.fingerprint = fingerprint
        self.contentHash = contentHash
        self.analyzer = analyzer
        self.durationMS = durationMS
        self.features = features
        self.provenance = provenance
        self.confidence = confidence
        self.title = title
        self.artist = artist
        self.album = album
        self.isrc = isrc
        self.spotifyID = spotifyID
        self.detailsJSON = detailsJSON
    }

    /// The stable identifier of a file's recording when no Spotify ID is known: `local:` and the
    /// first 22 hex digits of its content hash.
    public static func localTrackID(contentHash: String) -> String { "local:" + contentHash.prefix(22) }
}

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
    /// The Spotify ID of the track, or ``LocalFileAnalysis/localTrackID(contentHash:)``.
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
