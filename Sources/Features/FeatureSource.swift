/// Where a row of audio features came from.
///
/// Spotify closed `/v1/audio-features` to new apps on 2024-11-27, so features arrive from a chain
/// of sources: files people export or download, the legacy endpoint for apps that still have it,
/// and other providers later. The store keeps one current row per track and source, each with the
/// source's ``key`` and the time it was fetched; analyses prefer the source of highest
/// ``priority`` a track has.
public enum FeatureSource: Hashable, Sendable, CustomStringConvertible {
    /// A file import, named by the importer's format key (`features-csv`, `exportify`, …).
    case file(format: String)
    /// The Spotify Web API's `/v1/audio-features` endpoint, called by this tool.
    case spotifyAPI
    /// Another provider, by name.
    case provider(String)

    /// The stable text stored in the database, such as `file:exportify` or `spotify-api`.
    public var key: String {
        switch self {
        case .file(let format): "file:\(format)"
        case .spotifyAPI: "spotify-api"
        case .provider(let name): "provider:\(name)"
        }
    }

    /// Parses a ``key``; returns `nil` for text that no source writes.
    public init?(key: String) {
        if key == "spotify-api" {
            self = .spotifyAPI
        } else if key.hasPrefix("file:"), key.count > 5 {
            self = .file(format: String(key.dropFirst(5)))
        } else if key.hasPrefix("provider:"), key.count > 9 {
            self = .provider(String(key.dropFirst(9)))
        } else {
            return nil
        }
    }

    /// The preference when a track has features from several sources; higher wins.
    ///
    /// Values fetched live from Spotify come first, then exports made through the API for this
    /// user (Exportify, saved API JSON), then third-party datasets, whose values may be years old.
    public var priority: Int {
        switch self {
        case .spotifyAPI: 100
        case .file(let format) where format == "exportify" || format == "spotify-json": 80
        case .provider: 60
        case .file: 40
        }
    }

    public var description: String { key }
}
