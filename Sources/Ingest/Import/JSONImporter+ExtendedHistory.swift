import Features
import Foundation

extension JSONImporter {
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

    func importExtendedHistory(_ plays: [ExtendedPlay]) throws {
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
                    LibraryWriter.Play(
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
}
