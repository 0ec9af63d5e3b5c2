import Features
import Foundation

extension JSONImporter {
    struct YourLibrary: Decodable {
        struct Item: Decodable {
            var artist: String?
            var album: String?
            var track: String?
            var uri: String?
        }
        var tracks: [Item]
        var albums: [Item]?
        var artists: [Item]?
    }

    func importYourLibrary(_ library: YourLibrary) throws {
        for (index, item) in library.tracks.enumerated() {
            try context.row(bytesRead: 0) {
                let track = try accountTrack(
                    name: item.track,
                    artist: item.artist,
                    album: item.album,
                    uri: item.uri,
                    field: "tracks[\(index)]"
                )
                let written = try context.writer.write(track)
                try context.writer.save(trackID: written.id, addedAt: nil, source: format.source)
            }
        }
        let skipped = (library.albums?.count ?? 0) + (library.artists?.count ?? 0)
        if skipped > 0 {
            context.notes.append("\(skipped) saved albums and followed artists are not tracks and were skipped")
        }
    }

    struct AccountPlaylists: Decodable {
        struct Playlist: Decodable {
            var name: String
            var description: String?
            var items: [Item]
        }
        struct Item: Decodable {
            struct TrackRef: Decodable {
                var trackName: String?
                var artistName: String?
                var albumName: String?
                var trackUri: String?
            }
            struct LocalRef: Decodable {
                var uri: String?
            }
            var track: TrackRef?
            var localTrack: LocalRef?
        }
        var playlists: [Playlist]
    }

    func importAccountPlaylists(_ export: AccountPlaylists) throws {
        var episodes = 0
        for (playlistIndex, playlist) in export.playlists.enumerated() {
            var entries: [LibraryWriter.PlaylistEntry] = []
            for (index, item) in playlist.items.enumerated() {
                try context.row(bytesRead: 0) {
                    let field = "playlists[\(playlistIndex)].items[\(index)]"
                    if let ref = item.track {
                        let track = try accountTrack(
                            name: ref.trackName,
                            artist: ref.artistName,
                            album: ref.albumName,
                            uri: ref.trackUri,
                            field: field
                        )
                        entries.append(.init(trackID: try context.writer.write(track).id))
                    } else if let uri = item.localTrack?.uri, let local = LocalTrackURI(uri) {
                        let track = Track(
                            spotifyID: nil,
                            name: local.title,
                            artists: local.artists,
                            album: local.album,
                            durationMS: local.durationMS,
                            isLocal: true
                        )
                        entries.append(.init(trackID: try context.writer.write(track).id))
                    } else {
                        episodes += 1
                    }
                }
            }
            try context.writer.writePlaylist(
                originKey: "account-data:" + playlist.name,
                name: playlist.name,
                description: playlist.description.flatMap { $0.isEmpty ? nil : $0 },
                source: format.source,
                entries: entries
            )
        }
        if episodes > 0 { context.notes.append("\(episodes) playlist items are podcast episodes and were skipped") }
    }

    private func accountTrack(
        name: String?,
        artist: String?,
        album: String?,
        uri: String?,
        field: String
    ) throws -> Track {
        guard let name, !name.isEmpty else {
            throw context.error(field: field + ".track", "expected a track name")
        }
        var id: SpotifyID?
        if let uri, !uri.isEmpty {
            guard let parsed = SpotifyID(uri: uri, category: "track") else {
                throw context.error(field: field + ".uri", "expected a Spotify track URI, found \"\(uri)\"")
            }
            id = parsed
        }
        return Track(spotifyID: id, name: name, artists: artist.map { [$0] } ?? [], album: album)
    }
}
