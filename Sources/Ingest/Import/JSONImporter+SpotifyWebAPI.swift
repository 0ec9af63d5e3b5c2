import Features
import Foundation
import SpotifyWebModel

extension JSONImporter {
    func importSpotifyJSON(_ decoder: JSONDecoder) throws {
        // The syntax was checked, so this cannot fail; if it did, Foundation's text stays out.
        guard let parsed = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
            throw context.error("cannot read the file as \(format.summary)")
        }
        let object = parsed as? [String: Any] ?? [:]
        let source = FeatureSource.file(format: format.rawValue)
        if object["audio_features"] != nil || object["danceability"] != nil {
            let list: [SpotifyAudioFeaturesObject?] =
                object["audio_features"] != nil
                ? try decoder.decode([String: [SpotifyAudioFeaturesObject?]].self, from: data)["audio_features"] ?? []
                : [try decoder.decode(SpotifyAudioFeaturesObject.self, from: data)]
            var nameless = 0
            for (index, item) in list.enumerated() {
                try context.row(bytesRead: 0) {
                    guard let item else { return }  // Spotify answers null for unknown IDs
                    let field = object["audio_features"] != nil ? "audio_features[\(index)]." : ""
                    guard let id = (item.id ?? item.uri).flatMap({ SpotifyID(uri: $0, category: "track") }) else {
                        throw context.error(field: field + "id", "expected a Spotify track ID")
                    }
                    let features = try validFeatures(item.features, field: field)
                    let durationMS = try validDuration(item.durationMS, field: field + "duration_ms")
                    let written = try context.writer.write(
                        Track(spotifyID: id, name: "", artists: [], durationMS: durationMS)
                    )
                    if written.isNew { nameless += 1 }
                    try context.writer.write(features, trackID: written.id, source: source)
                }
            }
            if nameless > 0 {
                context.notes.append(
                    "\(nameless) tracks are known only by ID; import their metadata (saved tracks, playlists) to name them"
                )
            }
            return
        }
        if object["snapshot_id"] != nil || (object["tracks"] is [String: Any]) {
            let playlist = try decoder.decode(SpotifyPlaylistObject.self, from: data)
            let entries = try writeItems(
                playlist.items?.items ?? playlist.tracks?.items ?? [],
                save: false,
                field: playlist.items != nil ? "items.items" : "tracks.items"
            )
            let name = playlist.name ?? "Spotify playlist"
            try context.writer.writePlaylist(
                originKey: "spotify:playlist:" + (playlist.id ?? name),
                name: name,
                spotifyID: playlist.id,
                description: playlist.description.flatMap { $0.isEmpty ? nil : $0 },
                owner: playlist.owner?.id,
                snapshotID: playlist.snapshotID,
                source: format.source,
                entries: entries
            )
            return
        }
        if object["tracks"] is [Any] {
            let tracks = try decoder.decode([String: [SpotifyTrackObject?]].self, from: data)["tracks"] ?? []
            for (index, item) in tracks.enumerated() {
                try context.row(bytesRead: 0) { try writeTrackObject(item, field: "tracks[\(index)].") }
            }
            return
        }
        if object["type"] as? String == "track" {
            try context.row(bytesRead: 0) {
                try writeTrackObject(try decoder.decode(SpotifyTrackObject.self, from: data), field: "")
            }
            return
        }
        let items = object["items"] as? [Any] ?? []
        let first = items.first { $0 is [String: Any] } as? [String: Any] ?? [:]
        if first["played_at"] != nil {
            let page = try decoder.decode(SpotifyPagingObject<SpotifyPlayHistoryObject>.self, from: data)
            for (index, item) in page.items.enumerated() {
                try context.row(bytesRead: 0) {
                    guard let item, let object = item.track, var track = object.track, let playedAt = item.playedAt
                    else { return }
                    track.durationMS = try validDuration(track.durationMS, field: "items[\(index)].track.duration_ms")
                    let written = try context.writer.write(track)
                    try context.writer.write(
                        LibraryWriter.Play(
                            endedAt: playedAt,
                            msPlayed: track.durationMS ?? 0,
                            trackName: track.name,
                            artistName: track.artists.first ?? "",
                            albumName: track.album,
                            spotifyURI: track.spotifyID?.trackURI
                        ),
                        trackID: written.id,
                        source: format.source
                    )
                }
            }
        } else if first["track"] != nil || first["item"] != nil {
            let page = try decoder.decode(SpotifyPagingObject<SpotifyTrackItemObject>.self, from: data)
            let isSaved = page.href?.contains("/me/tracks") ?? (first["added_by"] == nil)
            _ = try writeItems(page.items, save: isSaved, field: "items")
            if !isSaved {
                context.notes.append(
                    "a playlist-items page names no playlist: its tracks were imported, not the playlist"
                )
            }
        } else {
            let page = try decoder.decode(SpotifyPagingObject<SpotifyTrackObject>.self, from: data)
            for (index, item) in page.items.enumerated() {
                try context.row(bytesRead: 0) { try writeTrackObject(item, field: "items[\(index)].") }
            }
        }
    }

    private func writeTrackObject(_ object: SpotifyTrackObject?, field: String) throws {
        guard let object, var track = object.track else { return }
        track.durationMS = try validDuration(track.durationMS, field: field + "duration_ms")
        let written = try context.writer.write(track)
        for artist in object.artists ?? [] {
            for genre in artist.genres ?? [] {
                try context.writer.tag(trackID: written.id, kind: "artist-genre", value: genre, source: format.source)
            }
        }
    }

    /// Writes saved-track or playlist items; removed tracks (`null`) and episodes are counted in notes.
    ///
    /// - Parameter field: The path of the items array, for messages, such as `items` or `tracks.items`.
    private func writeItems(
        _ items: [SpotifyTrackItemObject?],
        save: Bool,
        field: String
    ) throws -> [LibraryWriter.PlaylistEntry] {
        var entries: [LibraryWriter.PlaylistEntry] = []
        var skipped = 0
        for (index, item) in items.enumerated() {
            guard let item else { continue }
            try context.row(bytesRead: 0) {
                guard var track = item.object?.track else {
                    skipped += 1
                    return
                }
                let objectField = "\(field)[\(index)].\(item.track != nil ? "track" : "item")"
                track.durationMS = try validDuration(track.durationMS, field: objectField + ".duration_ms")
                let written = try context.writer.write(track)
                if save { try context.writer.save(trackID: written.id, addedAt: item.addedAt, source: format.source) }
                entries.append(.init(trackID: written.id, addedAt: item.addedAt, addedBy: item.addedBy?.id))
            }
        }
        if skipped > 0 {
            context.notes.append("\(skipped) items are removed tracks or podcast episodes and were skipped")
        }
        return entries
    }
}
