import Analytics
import Features
import Ingest
import SpotifyWebAPI

/// Where `extendPlaylist(named:count:diversity:maximumPerArtist:writing:makeClient:)` writes the
/// tracks it finds.
public enum PlaylistExtensionTarget: Sendable, Hashable {
    /// Nowhere: a dry run.
    case none
    /// Appended to the playlist in the library, and on Spotify too when `push`.
    case playlist(push: Bool)
    /// A new playlist `name` in the library, pushed to Spotify when `push`; `settings` records
    /// how it was made.
    case newPlaylist(name: String, settings: String, push: Bool)
}

/// A playlist extended: the tracks found and where they were written.
public struct ExtendedPlaylist: Sendable {
    /// The extended playlist's name in the library.
    public var name: String
    /// The tracks found.
    public var found: PlaylistExtension
    /// The new playlist written, if any.
    public var newPlaylist: String?
    /// The Spotify playlist written to, and its snapshot after the write, if pushed.
    public var spotifyID: String?
    public var snapshotID: String?
    /// Tracks left out on Spotify for want of a Spotify ID.
    public var skippedWithoutID = 0
}

extension LibraryStore {
    /// Finds tracks like those of the stored playlist `name` (as
    /// ``extendPlaylist(rowID:name:count:diversity:maximumPerArtist:)`` does) and writes them to
    /// `target`.
    ///
    /// - Parameters:
    ///   - name: The playlist, as ``pushablePlaylist(named:)`` finds it.
    ///   - count: How many tracks to find.
    ///   - diversity: Variety against similarity, 0…1.
    ///   - maximumPerArtist: At most this many tracks by one artist.
    ///   - target: Where to write them.
    ///   - makeClient: Makes the Spotify client, when a push needs it.
    /// - Throws: ``EngineError/playlistNotOnSpotify(name:action:)`` when appending on Spotify to
    ///   a playlist that is not there, the errors of the search, `SpotifyError` and
    ///   ``PlaylistPushInterruptedError`` from a push.
    public func extendPlaylist(
        named name: String,
        count: Int,
        diversity: Double,
        maximumPerArtist: Int,
        writing target: PlaylistExtensionTarget,
        makeClient: () throws -> SpotifyClient
    ) async throws -> ExtendedPlaylist {
        let stored = try pushablePlaylist(named: name)
        if case .playlist(push: true) = target, stored.spotifyID == nil {
            throw EngineError.playlistNotOnSpotify(name: stored.name, action: .extend)
        }
        let found = try extendPlaylist(
            rowID: stored.rowID,
            name: stored.name,
            count: count,
            diversity: diversity,
            maximumPerArtist: maximumPerArtist
        )
        var extended = ExtendedPlaylist(name: stored.name, found: found)
        let ids = found.recommendations.map(\.trackID)
        guard !ids.isEmpty else { return extended }
        switch target {
        case .none:
            break
        case .newPlaylist(let newName, let settings, let push):
            let entries = try playlistEntries(for: ids)
            let playlist = Features.Playlist(
                name: newName,
                description: "More like \(stored.name) (vibes-analyze playlist extend)",
                entries: entries,
                transitionScore: PlaylistOrdering.transitionScore(of: entries)
            )
            try saveBuiltPlaylist(playlist, settings: settings)
            extended.newPlaylist = newName
            if push {
                let client = try makeClient()
                let pushable = try pushablePlaylist(matching: newName)
                let result = try await SpotifyPlaylistPusher(client: client, store: self).push(pushable)
                extended.spotifyID = result.spotifyID
                extended.snapshotID = result.snapshotID
                extended.skippedWithoutID = result.skippedWithoutID
            }
        case .playlist(let push):
            var snapshot: String?
            if push, let spotifyID = stored.spotifyID {
                let summaries = try trackSummaries(for: ids)
                let uris = ids.compactMap { summaries[$0]?.spotifyID.flatMap { SpotifyID($0) }?.trackURI }
                extended.skippedWithoutID = ids.count - uris.count
                snapshot = try await makeClient().addItems(uris, to: spotifyID)
                extended.spotifyID = spotifyID.rawValue
                extended.snapshotID = snapshot
            }
            try appendToPlaylist(rowID: stored.rowID, trackIDs: ids, snapshotID: snapshot)
        }
        return extended
    }
}
