import Analytics
import Features
import Ingest
import SpotifyWebAPI

/// How `reorderPlaylist(named:order:rewrite:makeClient:events:progress:)` orders a playlist.
public enum PlaylistReorderOrder: Sendable, Hashable {
    /// The lowest transition cost over key, tempo, energy and artist.
    case flow
    /// An energy curve.
    case arc(PlaylistOrdering.Arc)
    /// Round the Camelot wheel.
    case key
    /// First and last track stay; the rest walk the straight line between their moods.
    case path

    /// `entries` in this order.
    func ordered(_ entries: [Features.Playlist.Entry]) -> [Features.Playlist.Entry] {
        switch self {
        case .flow: PlaylistOrdering(arc: nil).ordered(entries)
        case .arc(let arc): PlaylistOrdering(arc: arc).ordered(entries)
        case .key: PlaylistOrdering.harmonicOrder(entries)
        case .path: PlaylistOrdering.path(entries)
        }
    }
}

/// What a reorder of a stored playlist on Spotify (or its undo) did.
public struct PlaylistReordering: Sendable {
    /// The playlist's name in the library.
    public var name: String
    /// What was written.
    public var result: PlaylistReorderResult
    /// The transition score of the tracks before and after a reorder; `nil` for an undo.
    public var transitionScores: (before: Double, after: Double)?
}

/// A step of a reorder, reported as it happens.
public enum PlaylistReorderEvent: Sendable {
    /// The Spotify client is ready; nothing was read or written yet.
    case connected
    /// The new order is known: it takes `moves` moves, or `rewriteRequests` requests with a
    /// rewrite. Reported only when reordering by moves, before any is sent.
    case planned(moves: Int, rewriteRequests: Int)
}

extension LibraryStore {
    /// The playlist `key` names, for `playlist extend`, `reorder` and `push`: its row number or
    /// origin key, its exact name, or else a name matched as `--playlist` matches one (case,
    /// spaces and a unique start), with "did you mean" on a miss.
    ///
    /// - Throws: `StoreError.notFound` or `TrackScopeError` when no playlist matches.
    public func pushablePlaylist(named key: String) throws -> PushablePlaylist {
        do {
            return try pushablePlaylist(matching: key)
        } catch StoreError.notFound {
            return try pushablePlaylist(matching: String(try playlist(matching: key).id))
        }
    }

    /// Reorders the stored playlist `name` on Spotify by its tracks' audio features, or with
    /// `undo` puts back the order it had before its last reorder.
    ///
    /// - Parameters:
    ///   - name: The playlist, as ``pushablePlaylist(named:)`` finds it.
    ///   - order: The order to write (ignored by an undo).
    ///   - undo: Put the earlier order back instead.
    ///   - rewrite: Replace the items instead of moving them.
    ///   - makeClient: Makes the Spotify client, once the playlist is known to be on Spotify.
    ///   - events: Told of each step before it runs.
    ///   - progress: Told of the moves done and their total.
    /// - Throws: ``EngineError/playlistNotOnSpotify(name:action:)`` when the playlist is not on
    ///   Spotify, ``EngineError/reorderFailed(playlist:cause:)`` when the write or undo is refused
    ///   or not confirmed, `SpotifyError` from the requests.
    public func reorderPlaylist(
        named name: String,
        order: PlaylistReorderOrder,
        undo: Bool = false,
        rewrite: Bool = false,
        makeClient: () throws -> SpotifyClient,
        events: (PlaylistReorderEvent) -> Void = { _ in },
        progress: (@Sendable (Int, Int) -> Void)? = nil
    ) async throws -> PlaylistReordering {
        let stored = try pushablePlaylist(named: name)
        guard let spotifyID = stored.spotifyID else {
            throw EngineError.playlistNotOnSpotify(name: stored.name, action: .reorder)
        }
        let client = try makeClient()
        events(.connected)
        func reporting(_ body: () async throws -> PlaylistReorderResult) async throws -> PlaylistReorderResult {
            do {
                return try await body()
            } catch let error as PlaylistReorderError {
                throw EngineError.reorderFailed(playlist: stored.name, cause: error)
            }
        }
        if undo {
            let result = try await reporting {
                try await undoReorder(
                    of: spotifyID,
                    name: stored.name,
                    using: client,
                    rewrite: rewrite,
                    progress: progress
                )
            }
            return PlaylistReordering(name: stored.name, result: result)
        }
        let playlist = try await readForReorder(spotifyID, using: client)
        let entries = try positionedEntries(
            uris: playlist.uris,
            trackIDs: playlist.trackIDs,
            positions: playlist.trackPositions
        )
        let ordered = order.ordered(entries)
        var full = Array(playlist.uris.indices)
        for (slot, item) in zip(playlist.trackPositions, ordered.map { Int($0.trackID) }) { full[slot] = item }
        if !rewrite {
            let requests = (full.count + SpotifyClient.writeChunkSize - 1) / SpotifyClient.writeChunkSize
            events(.planned(moves: PlaylistMoves.moves(toReach: full).count, rewriteRequests: requests))
        }
        let result = try await reporting {
            try await writeReorder(playlist, order: full, using: client, rewrite: rewrite, progress: progress)
        }
        return PlaylistReordering(
            name: stored.name,
            result: result,
            transitionScores: (
                PlaylistOrdering.transitionScore(of: entries), PlaylistOrdering.transitionScore(of: ordered)
            )
        )
    }
}
