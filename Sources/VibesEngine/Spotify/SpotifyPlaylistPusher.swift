import Features
import Foundation
import Ingest
import SpotifyWebAPI

/// Writes a stored playlist to Spotify so that no failure or retry leaves a duplicate.
///
/// A push records its progress in the store as it goes: the Spotify playlist's ID right after
/// creating it, before any item is added, then the number of items written after every chunk of
/// 100. A push that failed (a 5xx, a dropped connection, a kill) is resumed by the next push of
/// the same playlist, with or without `createNew`:
/// - If the playlist holds exactly the items recorded, the push goes on from the next chunk.
/// - If it holds a different number (a chunk whose answer was lost did land), the push writes the
///   whole list again: the first 100 with `PUT` (which replaces), the rest with `POST`.
/// - If the playlist was deleted on Spotify meanwhile, a new one is created.
///
/// A push ends by reading the playlist's item count back; only an exact match completes it.
public struct SpotifyPlaylistPusher: Sendable {
    let client: SpotifyClient
    let store: LibraryStore

    public init(client: SpotifyClient, store: LibraryStore) {
        self.client = client
        self.store = store
    }

    /// Where an unfinished push stands, kept in the store between runs.
    struct Progress: Codable, Equatable {
        var spotifyID: String
        /// Items confirmed written, a prefix of the list.
        var written: Int
        /// A fingerprint of the URIs being written, so a changed playlist is written afresh.
        var fingerprint: String
        var created: Bool
    }

    /// Writes `playlist` to Spotify: resumes an unfinished push of it, replaces the items of the
    /// playlist an earlier push created, or creates a new one (when `createNew`, or when none exists).
    ///
    /// - Parameters:
    ///   - playlist: What to write.
    ///   - name: The Spotify playlist's name; defaults to the stored name.
    ///   - isPublic: Whether a new playlist is public. Defaults to `false`.
    ///   - createNew: Create a new playlist even if one was pushed before (an unfinished push is
    ///     finished instead).
    /// - Throws: ``PlaylistPushInterruptedError`` when a request fails after the playlist exists; it
    ///   says what the account holds, and the next push resumes. ``SpotifyError`` when it fails
    ///   before anything was written.
    public func push(
        _ playlist: PushablePlaylist,
        name: String? = nil,
        isPublic: Bool = false,
        createNew: Bool = false
    ) async throws -> PlaylistPushResult {
        let start = client.requestCounter.value
        let key = "push.\(playlist.rowID)"
        let fingerprint = Self.fingerprint(playlist.uris)
        func record(_ id: SpotifyID, written: Int, created: Bool) throws {
            try save(
                Progress(spotifyID: id.rawValue, written: written, fingerprint: fingerprint, created: created),
                key: key
            )
        }
        let pending = try store.spotifySyncValue(forKey: key).flatMap {
            try? JSONDecoder().decode(Progress.self, from: Data($0.utf8))
        }

        var target: SpotifyID?
        var created = false
        var written = -1  // -1: write the whole list from the start with PUT
        if let pending, let id = SpotifyID(pending.spotifyID) {
            let held = try await itemCount(of: id)
            if held == nil {
                target = nil  // deleted on Spotify since
            } else {
                target = id
                created = pending.created
                // Go on only from a count that matches the record; else write the list afresh.
                if pending.fingerprint == fingerprint && held == pending.written { written = pending.written }
            }
        } else if !createNew, let id = playlist.spotifyID {
            target = try await itemCount(of: id) == nil ? nil : id
        }
        if target == nil {
            let new = try await client.createPlaylist(
                name: name ?? playlist.name,
                description: playlist.description ?? "Made by vibes-analyze.",
                isPublic: isPublic
            )
            guard let id = SpotifyID(new.id) else {
                throw SpotifyError.decoding(
                    reason: "the new playlist's ID \"\(new.id)\" is not a Spotify ID",
                    status: 201,
                    body: "",
                    endpoint: "POST /v1/me/playlists"
                )
            }
            target = id
            created = true
            written = 0
            try record(id, written: 0, created: true)
        }
        let id = target!

        var snapshot: String?
        do {
            if written < 0 {
                let first = Array(playlist.uris.prefix(SpotifyClient.writeChunkSize))
                snapshot = try await client.replaceItems(of: id, with: first)
                written = first.count
                try record(id, written: written, created: created)
            }
            while written < playlist.uris.count {
                let chunk = Array(
                    playlist.uris[written..<min(written + SpotifyClient.writeChunkSize, playlist.uris.count)]
                )
                snapshot = try await client.addItems(chunk, to: id) ?? snapshot
                written += chunk.count
                try record(id, written: written, created: created)
            }
            let held = try await itemCount(of: id) ?? 0
            guard held == playlist.uris.count else {
                throw PlaylistPushCountMismatch(expected: playlist.uris.count, found: held)
            }
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw PlaylistPushInterruptedError(
                spotifyID: id.rawValue,
                written: max(written, 0),
                total: playlist.uris.count,
                underlying: error
            )
        }
        try store.setSpotifySyncValue(nil, forKey: key)
        try store.recordPush(of: playlist.rowID, spotifyID: id, snapshotID: snapshot)
        return PlaylistPushResult(
            spotifyID: id.rawValue,
            created: created,
            itemCount: playlist.uris.count,
            skippedWithoutID: playlist.tracksWithoutID.count,
            snapshotID: snapshot,
            requests: client.requestCounter.value - start
        )
    }

    /// The number of items the playlist holds, or `nil` when Spotify no longer has it (404).
    private func itemCount(of id: SpotifyID) async throws -> Int? {
        do {
            return try await client.playlistItems(of: id, offset: 0, limit: 1).total ?? 0
        } catch SpotifyError.http(status: 404, _, _) {
            return nil
        }
    }

    private func save(_ progress: Progress, key: String) throws {
        let text = String(decoding: try JSONEncoder().encode(progress), as: UTF8.self)
        try store.setSpotifySyncValue(text, forKey: key)
    }

    /// A stable fingerprint of the URI list (FNV-1a over the joined URIs, and the count).
    static func fingerprint(_ uris: [String]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in uris.joined(separator: "\n").utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return "\(uris.count)-\(String(hash, radix: 16))"
    }
}

/// A push stopped after the playlist existed on Spotify; running the same push again finishes it.
public struct PlaylistPushInterruptedError: Error, CustomStringConvertible {
    /// The Spotify playlist the push was writing.
    public var spotifyID: String
    /// Items confirmed written, and the whole list's length.
    public var written: Int
    public var total: Int
    /// What stopped it.
    public var underlying: any Error

    public var description: String {
        "\(underlying) The playlist https://open.spotify.com/playlist/\(spotifyID) on the account holds the first "
            + "\(written) of \(total) tracks (perhaps one chunk more, if the last answer was lost); the next push of it "
            + "finishes it without creating another."
    }
}

/// The playlist's item count after a push differs from the list written.
public struct PlaylistPushCountMismatch: Error, CustomStringConvertible {
    public var expected: Int
    public var found: Int

    public var description: String {
        "Spotify reports \(found) items in the playlist after the push, not the \(expected) written."
    }
}
