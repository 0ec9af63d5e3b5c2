/// A playlist too broad to be a label: a "Liked Songs" export, or one that holds a large share of
/// the library.
///
/// Such a playlist says little about which tracks belong together, and as a label it makes almost
/// every neighbour a hit. `eval --label playlist` leaves them out unless asked to keep them.
public struct CatchAllPlaylist: Hashable, Sendable, Codable {
    /// Why a playlist counts as a catch-all.
    public enum Reason: String, Hashable, Sendable, Codable {
        /// It is named "Liked Songs" (in any case), the saved-tracks export.
        case likedSongs = "liked_songs"
        /// It holds more than ``CatchAllPlaylist/maximumShare`` of the library's tracks.
        case largeShare = "large_share"
    }

    /// The playlist's name, as it appears among the labels.
    public var name: String
    /// How many of the library's tracks it holds.
    public var trackCount: Int
    /// Its share of the library's tracks, 0…1.
    public var share: Double
    /// Why it counts as a catch-all.
    public var reason: Reason

    enum CodingKeys: String, CodingKey {
        case name
        case trackCount = "track_count"
        case share, reason
    }

    /// The share of the library above which a playlist is a catch-all: 0.3.
    public static let maximumShare = 0.3

    /// The catch-all playlists among playlist labels.
    ///
    /// - Parameters:
    ///   - labels: The playlists of each track, by track ID; only tracks of the library should be
    ///     present.
    ///   - libraryTrackCount: The number of tracks in the library the shares are taken of.
    ///   - maximumShare: The largest share a playlist may hold and still be a label.
    /// - Returns: The catch-alls, largest first, ties by name.
    public static func find(
        in labels: [Int64: Set<String>],
        libraryTrackCount: Int,
        maximumShare: Double = CatchAllPlaylist.maximumShare
    ) -> [CatchAllPlaylist] {
        var sizes: [String: Int] = [:]
        for set in labels.values { for name in set { sizes[name, default: 0] += 1 } }
        let total = Double(Swift.max(1, libraryTrackCount))
        var found: [CatchAllPlaylist] = []
        for (name, count) in sizes {
            let share = Double(count) / total
            if name.lowercased() == "liked songs" {
                found.append(CatchAllPlaylist(name: name, trackCount: count, share: share, reason: .likedSongs))
            } else if share > maximumShare {
                found.append(CatchAllPlaylist(name: name, trackCount: count, share: share, reason: .largeShare))
            }
        }
        return found.sorted { ($0.trackCount, $1.name) > ($1.trackCount, $0.name) }
    }

    /// `labels` without the playlists named in `catchAlls`; a track left with none is dropped.
    public static func removing(
        _ catchAlls: [CatchAllPlaylist],
        from labels: [Int64: Set<String>]
    ) -> [Int64: Set<String>] {
        let names = Set(catchAlls.map(\.name))
        guard !names.isEmpty else { return labels }
        var kept: [Int64: Set<String>] = [:]
        for (trackID, set) in labels {
            let remaining = set.subtracting(names)
            if !remaining.isEmpty { kept[trackID] = remaining }
        }
        return kept
    }
}
