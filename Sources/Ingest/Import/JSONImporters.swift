import Features
import Foundation

/// Imports the JSON files people download from Spotify ("Download your data") and JSON saved
/// from the Spotify Web API.
struct JSONImporter {
    let format: ImportFormat
    let context: ImportContext
    let data: Data

    /// Detects which JSON format `data` is, from its top-level keys.
    static func detectFormat(_ data: Data) -> ImportFormat? {
        guard let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
            return nil
        }
        if let array = object as? [Any] {
            guard let first = array.first(where: { $0 is [String: Any] }) as? [String: Any] else {
                return array.isEmpty ? .streamingHistory : nil
            }
            if first["endTime"] != nil && first["msPlayed"] != nil { return .streamingHistory }
            if first["ts"] != nil && first["ms_played"] != nil { return .extendedHistory }
            return nil
        }
        guard let dictionary = object as? [String: Any] else { return nil }
        if let content = dictionary["content"] as? [Any] {
            let first = content.first { $0 is [String: Any] } as? [String: Any]
            if first == nil || first?["href"] != nil || first?["isrc"] != nil { return .reccoBeatsJSON }
        }
        if dictionary["playlists"] is [Any] { return .accountPlaylists }
        if dictionary["tracks"] is [Any],
            dictionary["bannedTracks"] != nil || dictionary["albums"] != nil
                || dictionary["shows"] != nil
        {
            if let tracks = dictionary["tracks"] as? [[String: Any]], let first = tracks.first, first["type"] != nil {
                return .spotifyJSON
            }
            return .yourLibrary
        }
        if dictionary["audio_features"] != nil || dictionary["danceability"] != nil || dictionary["items"] != nil
            || dictionary["tracks"] != nil || dictionary["type"] as? String == "track"
        {
            return .spotifyJSON
        }
        return nil
    }

    /// Names Spotify objects that parse but carry nothing to import (profiles, artists, players).
    static func unimportableKind(_ data: Data) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        switch object["type"] as? String {
        case "user": return "a Spotify user profile (/v1/me)"
        case "artist": return "a Spotify artist object"
        default: break
        }
        if object["artists"] is [Any] { return "a list of Spotify artists" }
        if object["is_playing"] != nil || object["device"] != nil { return "the Spotify player state (/v1/me/player)" }
        return nil
    }

    func run() throws {
        let decoder = JSONDecoder()
        do {
            switch format {
            case .streamingHistory: try importStreamingHistory(decoder.decode([AccountPlay].self, from: data))
            case .extendedHistory: try importExtendedHistory(decoder.decode([ExtendedPlay].self, from: data))
            case .yourLibrary: try importYourLibrary(decoder.decode(YourLibrary.self, from: data))
            case .accountPlaylists: try importAccountPlaylists(decoder.decode(AccountPlaylists.self, from: data))
            case .spotifyJSON: try importSpotifyJSON(decoder)
            case .reccoBeatsJSON:
                try importReccoBeats(decoder.decode(ReccoBeatsContent<ReccoBeatsAudioFeaturesObject>.self, from: data))
            case .featuresCSV, .exportify: preconditionFailure("CSV formats are not JSON")
            }
        } catch let error as DecodingError {
            throw describe(error)
        }
    }

    // MARK: - Account data: StreamingHistory*.json

    struct AccountPlay: Decodable {
        var endTime: String
        var artistName: String
        var trackName: String
        var msPlayed: Int
    }

    private func importStreamingHistory(_ plays: [AccountPlay]) throws {
        for (index, play) in plays.enumerated() {
            try context.row(bytesRead: 0) {
                guard let endedAt = JSONImporter.isoMinute(play.endTime) else {
                    throw context.error(
                        field: "[\(index)].endTime",
                        "expected a time as \"YYYY-MM-DD HH:MM\" (UTC), found \"\(play.endTime)\""
                    )
                }
                guard play.msPlayed >= 0 else {
                    throw context.error(
                        field: "[\(index)].msPlayed",
                        "expected a non-negative duration, found \(play.msPlayed)"
                    )
                }
                try context.writer.write(
                    ImportWriter.Play(
                        endedAt: endedAt,
                        msPlayed: play.msPlayed,
                        trackName: play.trackName,
                        artistName: play.artistName
                    ),
                    trackID: nil,
                    source: format.source
                )
            }
        }
    }

    /// `2021-04-22 05:41` → `2021-04-22T05:41:00Z`.
    static func isoMinute(_ text: String) -> String? {
        let utf8 = Array(text.utf8)
        guard utf8.count == 16, utf8[4] == 0x2D, utf8[7] == 0x2D, utf8[10] == 0x20, utf8[13] == 0x3A else { return nil }
        let digits = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15]
        guard digits.allSatisfy({ utf8[$0] >= 0x30 && utf8[$0] <= 0x39 }) else { return nil }
        return String(text.prefix(10)) + "T" + String(text.suffix(5)) + ":00Z"
    }

    // MARK: - Extended streaming history

    struct ExtendedPlay: Decodable {
        var ts: String
        var msPlayed: Int
        var platform: String?
        var trackName: String?
        var artistName: String?
        var albumName: String?
        var trackURI: String?
        var episodeName: String?
        var audiobookTitle: String?
        var reasonStart: String?
        var reasonEnd: String?
        var shuffle: Bool?
        var skipped: Bool?

        enum CodingKeys: String, CodingKey {
            case ts, platform, shuffle, skipped
            case msPlayed = "ms_played"
            case trackName = "master_metadata_track_name"
            case artistName = "master_metadata_album_artist_name"
            case albumName = "master_metadata_album_album_name"
            case trackURI = "spotify_track_uri"
            case episodeName = "episode_name"
            case audiobookTitle = "audiobook_title"
            case reasonStart = "reason_start"
            case reasonEnd = "reason_end"
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            ts = try container.decode(String.self, forKey: .ts)
            msPlayed = try container.decode(Int.self, forKey: .msPlayed)
            platform = try container.decodeIfPresent(String.self, forKey: .platform)
            trackName = try container.decodeIfPresent(String.self, forKey: .trackName)
            artistName = try container.decodeIfPresent(String.self, forKey: .artistName)
            albumName = try container.decodeIfPresent(String.self, forKey: .albumName)
            trackURI = try container.decodeIfPresent(String.self, forKey: .trackURI)
            episodeName = try container.decodeIfPresent(String.self, forKey: .episodeName)
            audiobookTitle = try container.decodeIfPresent(String.self, forKey: .audiobookTitle)
            reasonStart = try container.decodeIfPresent(String.self, forKey: .reasonStart)
            reasonEnd = try container.decodeIfPresent(String.self, forKey: .reasonEnd)
            shuffle = try container.decodeIfPresent(Bool.self, forKey: .shuffle)
            // `skipped` is a Boolean in newer exports and null or 0/1 in older ones.
            if let flag = try? container.decodeIfPresent(Bool.self, forKey: .skipped) {
                skipped = flag
            } else {
                skipped = (try? container.decodeIfPresent(Int.self, forKey: .skipped)).flatMap { $0.map { $0 != 0 } }
            }
        }
    }

    private func importExtendedHistory(_ plays: [ExtendedPlay]) throws {
        var notTracks = 0
        for (index, play) in plays.enumerated() {
            try context.row(bytesRead: 0) {
                guard let trackName = play.trackName, let artistName = play.artistName else {
                    notTracks += 1  // podcast episodes, audiobooks, and plays Spotify left unnamed
                    return
                }
                guard JSONImporter.isISOTimestamp(play.ts) else {
                    throw context.error(
                        field: "[\(index)].ts",
                        "expected an ISO 8601 UTC time such as 2023-08-07T21:07:25Z, found \"\(play.ts)\""
                    )
                }
                guard play.msPlayed >= 0 else {
                    throw context.error(
                        field: "[\(index)].ms_played",
                        "expected a non-negative duration, found \(play.msPlayed)"
                    )
                }
                var trackID: Int64?
                if let uri = play.trackURI, let id = SpotifyID(uri: uri, category: "track") {
                    trackID = try context.writer.write(
                        Track(spotifyID: id, name: trackName, artists: [artistName], album: play.albumName)
                    ).id
                }
                try context.writer.write(
                    ImportWriter.Play(
                        endedAt: play.ts,
                        msPlayed: play.msPlayed,
                        trackName: trackName,
                        artistName: artistName,
                        albumName: play.albumName,
                        spotifyURI: play.trackURI,
                        platform: play.platform,
                        reasonStart: play.reasonStart,
                        reasonEnd: play.reasonEnd,
                        shuffle: play.shuffle,
                        skipped: play.skipped
                    ),
                    trackID: trackID,
                    source: format.source
                )
            }
        }
        if notTracks > 0 {
            context.notes.append(
                "\(notTracks) plays of podcast episodes, audiobooks or unnamed items were not imported as music plays"
            )
        }
    }

    static func isISOTimestamp(_ text: String) -> Bool {
        let utf8 = Array(text.utf8)
        return utf8.count >= 20 && utf8[4] == 0x2D && utf8[7] == 0x2D && utf8[10] == 0x54 && utf8.last == 0x5A
    }

    // MARK: - Account data: YourLibrary.json and Playlist*.json

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

    private func importYourLibrary(_ library: YourLibrary) throws {
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

    private func importAccountPlaylists(_ export: AccountPlaylists) throws {
        var episodes = 0
        for (playlistIndex, playlist) in export.playlists.enumerated() {
            var entries: [ImportWriter.PlaylistEntry] = []
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

    // MARK: - ReccoBeats

    /// A saved `/v1/audio-features` answer: each item names its track by `href` (the Spotify link)
    /// and `isrc`. Values are stored with the source `reccobeats`, as a live fetch stores them.
    private func importReccoBeats(_ answer: ReccoBeatsContent<ReccoBeatsAudioFeaturesObject>) throws {
        var nameless = 0
        for (index, item) in answer.content.enumerated() {
            try context.row(bytesRead: 0) {
                guard let id = item.spotifyID else {
                    throw context.error(
                        field: "content[\(index)].href",
                        "expected an open.spotify.com track link, found \(item.href.map { "\"\($0)\"" } ?? "none")"
                    )
                }
                let written = try context.writer.write(
                    Track(spotifyID: id, name: "", artists: [], isrc: ReccoBeatsProvider.normalizedISRC(item.isrc))
                )
                if written.isNew { nameless += 1 }
                try context.writer.write(item.features, trackID: written.id, source: .reccoBeats)
            }
        }
        if nameless > 0 {
            context.notes.append(
                "\(nameless) tracks are known only by ID; import their metadata (saved tracks, playlists) to name them"
            )
        }
    }

    // MARK: - Spotify Web API JSON

    private func importSpotifyJSON(_ decoder: JSONDecoder) throws {
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
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
                    guard let id = (item.id ?? item.uri).flatMap({ SpotifyID(uri: $0, category: "track") }) else {
                        throw context.error(field: "audio_features[\(index)].id", "expected a Spotify track ID")
                    }
                    let written = try context.writer.write(
                        Track(spotifyID: id, name: "", artists: [], durationMS: item.durationMS)
                    )
                    if written.isNew { nameless += 1 }
                    try context.writer.write(item.features, trackID: written.id, source: source)
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
                (playlist.items?.items ?? playlist.tracks?.items ?? []).compactMap { $0 },
                save: false
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
            for item in tracks { try context.row(bytesRead: 0) { try writeTrackObject(item) } }
            return
        }
        if object["type"] as? String == "track" {
            try context.row(bytesRead: 0) {
                try writeTrackObject(try decoder.decode(SpotifyTrackObject.self, from: data))
            }
            return
        }
        let items = object["items"] as? [Any] ?? []
        let first = items.first { $0 is [String: Any] } as? [String: Any] ?? [:]
        if first["played_at"] != nil {
            let page = try decoder.decode(SpotifyPagingObject<SpotifyPlayHistoryObject>.self, from: data)
            for item in page.items {
                try context.row(bytesRead: 0) {
                    guard let item, let object = item.track, let track = object.track, let playedAt = item.playedAt
                    else { return }
                    let written = try context.writer.write(track)
                    try context.writer.write(
                        ImportWriter.Play(
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
            _ = try writeItems(page.items.compactMap { $0 }, save: isSaved)
            if !isSaved {
                context.notes.append(
                    "a playlist-items page names no playlist: its tracks were imported, not the playlist"
                )
            }
        } else {
            let page = try decoder.decode(SpotifyPagingObject<SpotifyTrackObject>.self, from: data)
            for item in page.items { try context.row(bytesRead: 0) { try writeTrackObject(item) } }
        }
    }

    private func writeTrackObject(_ object: SpotifyTrackObject?) throws {
        guard let object, let track = object.track else { return }
        let written = try context.writer.write(track)
        for artist in object.artists ?? [] {
            for genre in artist.genres ?? [] {
                try context.writer.tag(trackID: written.id, kind: "artist-genre", value: genre, source: format.source)
            }
        }
    }

    /// Writes saved-track or playlist items; removed tracks (`null`) and episodes are counted in notes.
    private func writeItems(_ items: [SpotifyTrackItemObject], save: Bool) throws -> [ImportWriter.PlaylistEntry] {
        var entries: [ImportWriter.PlaylistEntry] = []
        var skipped = 0
        for item in items {
            try context.row(bytesRead: 0) {
                guard let track = item.object?.track else {
                    skipped += 1
                    return
                }
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

    // MARK: - Errors

    private func describe(_ error: DecodingError) -> ImportError {
        func path(_ codingPath: [any CodingKey]) -> String {
            codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().trimmingPrefix(".")
                .description
        }
        switch error {
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            return self.context.error(
                field: path(context.codingPath),
                "expected \(JSONImporter.describe(type)) (\(format.summary))"
            )
        case .keyNotFound(let key, let context):
            return self.context.error(
                field: path(context.codingPath + [key]),
                "expected this key, which \(format.summary) files have"
            )
        case .dataCorrupted(let context):
            return self.context.error(
                field: context.codingPath.isEmpty ? nil : path(context.codingPath),
                "the file is not valid JSON: \(context.underlyingError.map { "\($0)" } ?? context.debugDescription)"
            )
        @unknown default:
            return context.error("cannot read the file as \(format.summary)")
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "text"
        case is Int.Type, is Double.Type: "a number"
        case is Bool.Type: "true or false"
        default: "\(type)"
        }
    }
}
