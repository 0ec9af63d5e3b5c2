import Features
import Foundation
import SpotifyWebModel

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

    /// Checks the syntax, decodes the file and imports it.
    ///
    /// `JSONDecoder` refuses a number that does not fit an `Int` field (1e30, 9223372036854775808,
    /// 1.5) with no place at all; such a failure is followed by a search for the number, which is
    /// refused with its field and range, or with `--skip-invalid` kept as missing.
    func run() throws {
        do {
            try JSONSyntax.check(data)
        } catch {
            throw context.error(line: error.line, column: error.column, error.message)
        }
        do {
            try decodeAndImport()
        } catch let error as DecodingError {
            guard case .dataCorrupted(let corruption) = error, corruption.codingPath.isEmpty else {
                throw describe(error)
            }
            guard let repaired = try withUnreadableWholeNumbersRemoved() else {
                throw context.error(
                    "a number does not fit where \(format.summary) files have one; expected whole numbers in whole-number fields and numbers within ±1.8e308"
                )
            }
            do {
                try JSONImporter(format: format, context: context, data: repaired).decodeAndImport()
            } catch let error as DecodingError {
                throw describe(error)
            }
        }
    }

    private func decodeAndImport() throws {
        let decoder = JSONDecoder()
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
    }

    // MARK: - Account data: StreamingHistory*.json

    struct AccountPlay: Decodable {
        var endTime: String
        var artistName: String
        var trackName: String
        var msPlayed: Milliseconds
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
                guard let msPlayed = play.msPlayed.value else {
                    throw context.error(field: "[\(index)].msPlayed", play.msPlayed.problem)
                }
                try context.writer.write(
                    ImportWriter.Play(
                        endedAt: endedAt,
                        msPlayed: msPlayed,
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
        var msPlayed: Milliseconds
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
            msPlayed = try container.decode(Milliseconds.self, forKey: .msPlayed)
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
                guard let msPlayed = play.msPlayed.value else {
                    throw context.error(field: "[\(index)].ms_played", play.msPlayed.problem)
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
                        msPlayed: msPlayed,
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
                let features = try validFeatures(item.features, field: "content[\(index)].")
                try context.writer.write(features, trackID: written.id, source: .reccoBeats)
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
    ) throws -> [ImportWriter.PlaylistEntry] {
        var entries: [ImportWriter.PlaylistEntry] = []
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

    // MARK: - Invalid values

    /// A JSON number that should be whole milliseconds of a play, read whatever it is, so that a
    /// bad one (−5, 1.5, 1e30, 9223372036854775808) is refused with its field rather than failing
    /// the decoding of the whole file.
    struct Milliseconds: Decodable, Hashable {
        /// The number, when it is whole and within `Track.validDurationMS`.
        var value: Int?
        /// The number as read, for messages.
        var found: String

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let whole = try? container.decode(Int.self) {
                found = String(whole)
                value = Track.validDurationMS.contains(whole) ? whole : nil
            } else {
                let number = try container.decode(Double.self)
                found = JSONImporter.text(number)
                value = Int(exactly: number).flatMap { Track.validDurationMS.contains($0) ? $0 : nil }
            }
        }

        /// What was expected and what was found, for an error naming the field.
        var problem: String {
            JSONImporter.expectedMilliseconds + ", found \(found)"
        }
    }

    static let expectedMilliseconds =
        "expected a whole number of milliseconds from \(Track.validDurationMS.lowerBound) to \(Track.validDurationMS.upperBound) (100 hours)"

    /// `features` if every value is valid (see `AudioFeature.isValid(_:)`); otherwise an error
    /// naming the first invalid one and its valid range, or with `--skip-invalid` the features
    /// without the invalid values, which are counted as kept missing.
    ///
    /// - Parameter field: The path of the object holding the features, ending in `.`, or empty.
    private func validFeatures(_ features: AudioFeatures, field: String) throws -> AudioFeatures {
        guard let first = features.invalidFeatures.first else { return features }
        guard context.options.skipInvalid else {
            throw context.error(
                field: field + first.rawValue,
                "expected \(first.validRangeDescription), found \(JSONImporter.text(features[first] ?? .nan))"
            )
        }
        let (valid, dropped) = features.removingInvalidValues()
        for feature in dropped { context.invalidValueKeptAsMissing(field: feature.rawValue) }
        return valid
    }

    /// `durationMS` if it is missing or within `Track.validDurationMS`; otherwise an error naming
    /// `field`, or with `--skip-invalid` `nil`, counted as kept missing.
    private func validDuration(_ durationMS: Int?, field: String) throws -> Int? {
        guard let durationMS, !Track.validDurationMS.contains(durationMS) else { return durationMS }
        guard context.options.skipInvalid else {
            throw context.error(field: field, JSONImporter.expectedMilliseconds + ", found \(durationMS)")
        }
        context.invalidValueKeptAsMissing(field: "duration_ms")
        return nil
    }

    /// The keys whose values the decoded types read as `Int`, and what each expects.
    private static let wholeNumberKeys: [String: String] = {
        var keys = [
            "duration_ms": expectedMilliseconds,
            "popularity": "expected a whole number from 0 to 100",
            "limit": "expected a whole number",
            "offset": "expected a whole number",
            "total": "expected a whole number",
        ]
        for feature in AudioFeature.all where feature.isDiscrete {
            keys[feature.rawValue] = "expected \(feature.validRangeDescription)"
        }
        return keys
    }()

    /// The file with every number that `JSONDecoder` cannot read as an `Int` removed (made
    /// `null`) where an `Int` is read, each counted as kept missing; `nil` when there is none.
    ///
    /// - Throws: Without `--skip-invalid`, an ``ImportError`` naming the first such number's field
    ///   and what was expected there.
    private func withUnreadableWholeNumbersRemoved() throws -> Data? {
        guard let tree = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
            return nil
        }
        var found: [(field: String, key: String, value: String)] = []
        let repaired = JSONImporter.removingUnreadableWholeNumbers(from: tree, path: "", found: &found)
        guard let first = found.first else { return nil }
        guard context.options.skipInvalid else {
            throw context.error(
                field: first.field,
                (JSONImporter.wholeNumberKeys[first.key] ?? "expected a whole number") + ", found \(first.value)"
            )
        }
        for problem in found { context.invalidValueKeptAsMissing(field: problem.key) }
        return try? JSONSerialization.data(withJSONObject: repaired, options: [.fragmentsAllowed])
    }

    private static func removingUnreadableWholeNumbers(
        from value: Any,
        path: String,
        found: inout [(field: String, key: String, value: String)]
    ) -> Any {
        if let array = value as? [Any] {
            return array.enumerated().map { index, element in
                removingUnreadableWholeNumbers(from: element, path: path + "[\(index)]", found: &found)
            }
        }
        guard var object = value as? [String: Any] else { return value }
        for key in object.keys.sorted() {
            let field = path.isEmpty ? key : path + "." + key
            if wholeNumberKeys[key] != nil, let number = object[key] as? NSNumber, !(object[key] is Bool),
                !isReadableAsInt(number)
            {
                found.append((field, key, text(number.doubleValue)))
                object[key] = NSNull()
            } else if let child = object[key] {
                object[key] = removingUnreadableWholeNumbers(from: child, path: field, found: &found)
            }
        }
        return object
    }

    /// Whether `JSONDecoder` reads the number `JSONSerialization` made `number` as an `Int`:
    /// 64-bit integers, and whole floating-point values below 2⁵³ (`7.0`, `1e3`). A larger
    /// floating-point value may have been written as an integer just past `Int`'s range.
    private static func isReadableAsInt(_ number: NSNumber) -> Bool {
        switch String(cString: number.objCType) {
        case "c", "C", "s", "S", "i", "I", "l", "L", "q": return true
        case "Q": return number.uint64Value <= UInt64(Int.max)
        default:
            let value = number.doubleValue
            return value == value.rounded() && abs(value) < 0x1p53
        }
    }

    /// A number for a message: whole numbers without `.0`, others as Swift prints them (`1e+30`).
    static func text(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : "\(number)"
    }

    // MARK: - Errors

    private func describe(_ error: DecodingError) -> ImportError {
        func path(_ codingPath: [any CodingKey]) -> String? {
            codingPath.isEmpty
                ? nil
                : codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().trimmingPrefix(".")
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
            // Foundation's text ("The given data was not valid JSON.") says neither where nor what.
            return self.context.error(
                field: path(context.codingPath),
                "expected a value that \(format.summary) files have here"
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
        case is [Any].Type: "an array ([…])"
        case is [String: Any].Type: "an object ({…})"
        default: "\(type)"
        }
    }
}
