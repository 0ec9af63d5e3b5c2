import Features
import Foundation
import Ingest
import SpotifyWebAPI

/// A Spotify playlist as read for reordering: every item in order (tracks, local files, episodes,
/// removed tracks) and the snapshot they belong to.
public struct ReorderablePlaylist: Sendable, Hashable {
    /// What one position of the playlist holds.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// A catalogue track: it can be ordered by its features.
        case track
        /// A local file (`is_local`, a `spotify:local:…` URI): moved by position only.
        case local
        /// A podcast episode.
        case episode
        /// A track Spotify no longer serves (`"track": null`).
        case unavailable
    }

    public var spotifyID: SpotifyID
    public var name: String
    /// The snapshot the items were read at; the write is refused when the playlist moved on.
    public var snapshotID: String
    /// Each item's key, in the playlist's order: its URI (`spotify:track:…`, `spotify:episode:…`,
    /// `spotify:local:…`), or `unavailable` for a removed track. Repeats are kept.
    public var uris: [String]
    /// What each item is (parallel to `uris`).
    public var kinds: [Kind]
    /// The store's track for each item, when the library holds it (parallel to `uris`).
    public var trackIDs: [Int64?]

    /// The key of an item Spotify returns as `null`.
    public static let unavailableKey = "unavailable"

    /// The positions of the catalogue tracks, the items an order by features moves.
    public var trackPositions: [Int] { kinds.indices.filter { kinds[$0] == .track } }
}

/// What a reorder (or its undo) wrote.
public struct PlaylistReorderResult: Sendable, Hashable, Codable {
    /// How the order was written.
    public enum Method: String, Sendable, Hashable, Codable {
        /// Spotify's reorder operation, item by item: dates added and adders are kept.
        case moves
        /// Replace-then-append (`--rewrite`): every item is added anew.
        case rewrite
    }

    public var spotifyID: String
    public var itemCount: Int
    /// How many items changed position.
    public var moved: Int
    public var snapshotID: String
    public var method: Method
    /// The write requests sent: one per move, or one per 100 items for a rewrite.
    public var operations: Int
    /// Local files, episodes and removed tracks in the playlist (moved with the rest, never dropped).
    public var otherItems: Int
    /// Whether the order read back from Spotify after the write is the one intended.
    public var verified: Bool

    enum CodingKeys: String, CodingKey {
        case spotifyID = "spotify_id"
        case itemCount = "item_count"
        case moved
        case snapshotID = "snapshot_id"
        case method, operations
        case otherItems = "other_items"
        case verified
    }
}

/// Why a reorder was refused or did not end as intended.
public enum PlaylistReorderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The playlist changed on Spotify since it was read (or since it was reordered, for an undo).
    case changedSince(name: String, expected: String, found: String)
    /// A rewrite was asked for a playlist holding items the Web API cannot write back: local files
    /// or removed tracks.
    case unwritableItems(name: String, count: Int)
    /// There is no reorder of this playlist left to undo.
    case nothingToUndo(name: String)
    /// The order handed in is not a permutation of the playlist's items.
    case notAPermutation
    /// After the write, Spotify counts another number of items than were written.
    case countMismatch(name: String, written: Int, found: Int)
    /// After the moves, the order read back is not the one intended (someone changed the playlist
    /// meanwhile); the order before is kept in the library.
    case orderMismatch(name: String, differing: Int)
    /// For an undo: the playlist now holds other items than before the reorder.
    case itemsChanged(name: String)

    public var description: String {
        switch self {
        case .changedSince(let name, let expected, let found):
            "\(name) changed on Spotify since it was read (snapshot \(found), expected \(expected)); nothing was written."
        case .unwritableItems(let name, let count):
            "\(name) holds \(count) local \(count == 1 ? "file or removed track" : "files or removed tracks"), which a "
                + "rewrite cannot write back (reordering by moves keeps them); nothing was written."
        case .nothingToUndo(let name): "\(name) has no reorder to undo."
        case .notAPermutation: "The new order does not hold each item of the playlist exactly once."
        case .countMismatch(let name, let written, let found):
            "\(name) holds \(found) items on Spotify after \(written) were written; its earlier order is kept in the library."
        case .orderMismatch(let name, let differing):
            "\(name) does not read back in the order written (\(differing) positions differ): it changed on Spotify "
                + "meanwhile. Its earlier order is kept in the library."
        case .itemsChanged(let name):
            "\(name) holds other items on Spotify than when it was reordered, so its earlier order cannot be put back; "
                + "nothing was written."
        }
    }
}

extension LibraryStore {
    /// Reads a Spotify playlist for reordering: its snapshot, every item, and the store's tracks.
    ///
    /// Local files, episodes and removed tracks are read too: reordering by moves keeps them.
    ///
    /// - Throws: ``SpotifyError`` from the reads.
    public func readForReorder(_ playlistID: SpotifyID, using client: SpotifyClient) async throws -> ReorderablePlaylist
    {
        let details = try await client.playlist(playlistID)
        let (uris, kinds) = try await Self.readItems(of: playlistID, using: client)
        let ids = zip(uris, kinds).compactMap { uri, kind in
            kind == .track ? String(uri.dropFirst("spotify:track:".count)) : nil
        }
        let known = try await trackIDs(forSpotifyIDs: Set(ids))
        return ReorderablePlaylist(
            spotifyID: playlistID,
            name: details.name ?? playlistID.rawValue,
            snapshotID: details.snapshotID ?? "",
            uris: uris,
            kinds: kinds,
            trackIDs: zip(uris, kinds).map { uri, kind in
                kind == .track ? known[String(uri.dropFirst("spotify:track:".count))] : nil
            }
        )
    }

    /// Every item of a playlist as a key (see ``ReorderablePlaylist/uris``) and a kind.
    static func readItems(
        of playlistID: SpotifyID,
        using client: SpotifyClient
    ) async throws -> (uris: [String], kinds: [ReorderablePlaylist.Kind]) {
        var uris: [String] = []
        var kinds: [ReorderablePlaylist.Kind] = []
        for item in try await client.allPlaylistItems(of: playlistID) {
            let object = item?.object
            let uri = object?.uri
            if item?.isLocal == true || object?.isLocal == true || uri?.hasPrefix("spotify:local:") == true {
                uris.append(uri ?? "spotify:local:\(object?.name ?? "")")
                kinds.append(.local)
            } else if object?.type == "episode" || uri?.hasPrefix("spotify:episode:") == true {
                uris.append(uri ?? "spotify:episode:\(object?.id ?? "")")
                kinds.append(.episode)
            } else if let id = object?.id.flatMap({ SpotifyID($0) }) {
                uris.append(id.trackURI)
                kinds.append(.track)
            } else {
                uris.append(ReorderablePlaylist.unavailableKey)
                kinds.append(.unavailable)
            }
        }
        return (uris, kinds)
    }

    /// Writes `playlist`'s items in the order `order` (indexes into `playlist.uris`), keeping the
    /// original order in the store for ``undoReorder(of:name:using:rewrite:progress:)``.
    ///
    /// The playlist's snapshot is read again first: a playlist changed since
    /// ``readForReorder(_:using:)`` is refused. The original order is stored before anything is
    /// written, so even a write that fails part-way can be undone.
    ///
    /// By default the order is written with Spotify's reorder operation: the items of a longest
    /// increasing subsequence stay, each other item is moved once (``PlaylistMoves``), each move
    /// naming the snapshot the previous one returned. Every item keeps its date added and its adder,
    /// and local files, episodes and removed tracks move like the rest. The playlist is then read
    /// back and compared with the order intended.
    ///
    /// With `rewrite`, the items are replaced (the first 100) and appended instead: fewer requests
    /// for a large reshuffle, but every item is added anew (today's date, the signed-in user), and a
    /// playlist with local files or removed tracks is refused.
    ///
    /// - Parameter progress: Called after each move with the moves done and their total.
    public func writeReorder(
        _ playlist: ReorderablePlaylist,
        order: [Int],
        using client: SpotifyClient,
        rewrite: Bool = false,
        progress: (@Sendable (Int, Int) -> Void)? = nil
    ) async throws -> PlaylistReorderResult {
        guard order.count == playlist.uris.count, Set(order) == Set(playlist.uris.indices) else {
            throw PlaylistReorderError.notAPermutation
        }
        if rewrite {
            let unwritable = playlist.kinds.count { $0 == .local || $0 == .unavailable }
            if unwritable > 0 { throw PlaylistReorderError.unwritableItems(name: playlist.name, count: unwritable) }
        }
        let current = try await client.playlist(playlist.spotifyID).snapshotID ?? ""
        guard current == playlist.snapshotID else {
            throw PlaylistReorderError.changedSince(name: playlist.name, expected: playlist.snapshotID, found: current)
        }
        let recordID = try await recordReorder(
            of: playlist.spotifyID.rawValue,
            originalURIs: playlist.uris,
            snapshotBefore: playlist.snapshotID
        )
        let wanted = order.map { playlist.uris[$0] }
        var result = try await Self.write(
            wanted,
            target: order,
            to: playlist.spotifyID,
            name: playlist.name,
            snapshotID: playlist.snapshotID,
            rewrite: rewrite,
            using: client,
            progress: progress
        )
        result.otherItems = playlist.kinds.count { $0 != .track }
        try await recordReorderSnapshot(result.snapshotID, of: recordID)
        return result
    }

    /// Puts back the order a playlist had before its latest reorder, by moves (or, with `rewrite`,
    /// by replacing its items).
    ///
    /// The current items are read and matched with the stored order item by item, so an undo
    /// after a reorder that stopped part-way puts the original order back too.
    ///
    /// - Throws: ``PlaylistReorderError/nothingToUndo(name:)``;
    ///   ``PlaylistReorderError/changedSince(name:expected:found:)`` when the playlist changed on
    ///   Spotify after the reorder (someone else's edit would be lost);
    ///   ``PlaylistReorderError/itemsChanged(name:)`` when it holds other items.
    public func undoReorder(
        of playlistID: SpotifyID,
        name: String,
        using client: SpotifyClient,
        rewrite: Bool = false,
        progress: (@Sendable (Int, Int) -> Void)? = nil
    ) async throws
        -> PlaylistReorderResult
    {
        guard let record = try await latestReorder(of: playlistID.rawValue) else {
            throw PlaylistReorderError.nothingToUndo(name: name)
        }
        let snapshot = try await client.playlist(playlistID).snapshotID ?? ""
        // A reorder that failed part-way has no snapshot after it: its undo puts the original back.
        if let after = record.snapshotAfter, after != snapshot {
            throw PlaylistReorderError.changedSince(name: name, expected: after, found: snapshot)
        }
        let (current, kinds) = try await Self.readItems(of: playlistID, using: client)
        guard let target = PlaylistMoves.target(from: current, to: record.originalURIs) else {
            throw PlaylistReorderError.itemsChanged(name: name)
        }
        if rewrite {
            let unwritable = kinds.count { $0 == .local || $0 == .unavailable }
            if unwritable > 0 { throw PlaylistReorderError.unwritableItems(name: name, count: unwritable) }
        }
        var result = try await Self.write(
            record.originalURIs,
            target: target,
            to: playlistID,
            name: name,
            snapshotID: snapshot,
            rewrite: rewrite,
            using: client,
            progress: progress
        )
        result.otherItems = kinds.count { $0 != .track }
        try await markReorderUndone(record.id)
        return result
    }

    /// Writes the order `wanted` (item keys), reached from the current order by `target`, and
    /// reads it back.
    /// Sends `moves` one after the other, each on the snapshot the previous one returned, and
    /// returns the last snapshot; `done` hears how many have been sent.
    private static func apply(
        _ moves: [PlaylistMove],
        to playlistID: SpotifyID,
        at snapshot: String?,
        using client: SpotifyClient,
        done: (Int) -> Void
    ) async throws -> String? {
        var snapshot = snapshot
        for (index, move) in moves.enumerated() {
            snapshot = try await client.reorderItems(
                of: playlistID,
                rangeStart: move.rangeStart,
                insertBefore: move.insertBefore,
                rangeLength: move.rangeLength,
                snapshotID: snapshot
            )
            done(index + 1)
        }
        return snapshot
    }

    private static func write(
        _ wanted: [String],
        target: [Int],
        to playlistID: SpotifyID,
        name: String,
        snapshotID: String,
        rewrite: Bool,
        using client: SpotifyClient,
        progress: (@Sendable (Int, Int) -> Void)?
    ) async throws -> PlaylistReorderResult {
        let moved = zip(target, target.indices).count { $0 != $1 }
        var snapshot = snapshotID
        let operations: Int
        if rewrite {
            snapshot = try await client.replaceItems(of: playlistID, with: wanted)
            operations = max(1, (wanted.count + SpotifyClient.writeChunkSize - 1) / SpotifyClient.writeChunkSize)
        } else {
            let moves = PlaylistMoves.moves(toReach: target)
            snapshot =
                try await Self.apply(moves, to: playlistID, at: snapshot, using: client) { done in
                    progress?(done, moves.count)
                } ?? snapshot
            operations = moves.count
        }
        // Read back: the order on Spotify must be the one intended.
        let (found, _) = try await readItems(of: playlistID, using: client)
        guard found.count == wanted.count else {
            throw PlaylistReorderError.countMismatch(name: name, written: wanted.count, found: found.count)
        }
        let differing = zip(found, wanted).count { $0 != $1 }
        if differing > 0 { throw PlaylistReorderError.orderMismatch(name: name, differing: differing) }
        return PlaylistReorderResult(
            spotifyID: playlistID.rawValue,
            itemCount: wanted.count,
            moved: moved,
            snapshotID: snapshot,
            method: rewrite ? .rewrite : .moves,
            operations: operations,
            otherItems: 0,
            verified: true
        )
    }
}

/// What updating a Spotify playlist in place did (`playlist recipe run`).
public struct PlaylistUpdateResult: Sendable, Hashable, Codable {
    public var spotifyID: String
    /// Items removed because they no longer belong.
    public var removed: Int
    /// Items appended because they are new.
    public var added: Int
    /// Moves sent to put the items in order.
    public var moves: Int
    /// Items kept (with their dates added).
    public var kept: Int
    public var snapshotID: String?

    public init(spotifyID: String, removed: Int, added: Int, moves: Int, kept: Int, snapshotID: String?) {
        self.spotifyID = spotifyID
        self.removed = removed
        self.added = added
        self.moves = moves
        self.kept = kept
        self.snapshotID = snapshotID
    }

    enum CodingKeys: String, CodingKey {
        case spotifyID = "spotify_id"
        case removed, added, moves, kept
        case snapshotID = "snapshot_id"
    }
}

extension LibraryStore {
    /// Makes a Spotify playlist hold `uris` in that order, changing as little as it can: items that
    /// stay keep their dates added, the others are removed, the new ones appended, and then every
    /// item is moved into place (``PlaylistMoves``). Local files and episodes someone added stay,
    /// after the tracks. The playlist is read back at the end.
    public func updateInPlace(
        _ playlistID: SpotifyID,
        name: String,
        to uris: [String],
        using client: SpotifyClient
    ) async throws -> PlaylistUpdateResult {
        var snapshot = try await client.playlist(playlistID).snapshotID
        let (current, kinds) = try await Self.readItems(of: playlistID, using: client)
        var wanted: [String: Int] = [:]
        for uri in uris { wanted[uri, default: 0] += 1 }
        var have: [String: Int] = [:]
        for (uri, kind) in zip(current, kinds) where kind == .track { have[uri, default: 0] += 1 }
        // A track held more often than wanted goes, every copy (the API removes by URI), and comes
        // back as often as wanted.
        let removed = have.keys.filter { (have[$0] ?? 0) > (wanted[$0] ?? 0) }.sorted()
        let removedSet = Set(removed)
        var remaining: [String] = []
        var others: [String] = []
        for (uri, kind) in zip(current, kinds) {
            if kind != .track {
                others.append(uri)
            } else if !removedSet.contains(uri) {
                remaining.append(uri)
            }
        }
        snapshot = try await client.removeItems(removed, from: playlistID, snapshotID: snapshot)
        var left: [String: Int] = [:]
        for uri in remaining { left[uri, default: 0] += 1 }
        var additions: [String] = []
        for uri in uris {
            if (left[uri] ?? 0) > 0 { left[uri]! -= 1 } else { additions.append(uri) }
        }
        if let added = try await client.addItems(additions, to: playlistID) { snapshot = added }
        let (now, _) = try await Self.readItems(of: playlistID, using: client)
        let goal = uris + others
        guard let target = PlaylistMoves.target(from: now, to: goal) else {
            throw PlaylistReorderError.itemsChanged(name: name)
        }
        let moves = PlaylistMoves.moves(toReach: target)
        snapshot = try await Self.apply(moves, to: playlistID, at: snapshot, using: client) { _ in }
        let (found, _) = try await Self.readItems(of: playlistID, using: client)
        let differing = zip(found, goal).count { $0 != $1 } + abs(found.count - goal.count)
        if differing > 0 { throw PlaylistReorderError.orderMismatch(name: name, differing: differing) }
        return PlaylistUpdateResult(
            spotifyID: playlistID.rawValue,
            removed: current.count - others.count - remaining.count,
            added: additions.count,
            moves: moves.count,
            kept: remaining.count,
            snapshotID: snapshot
        )
    }
}
