import Features

extension AudioFileTags {
    /// Reads the identifying tags from a file's tag dictionary (keys lower-cased), whatever the
    /// container: ID3 (`TSRC`), Vorbis comments and MP4 (`ISRC`) alike. A Spotify track link or
    /// URI in any tag (a comment, a URL or a purchase field) gives ``spotifyID``.
    init(tags: [String: String]) {
        func first(_ keys: String...) -> String? {
            for key in keys {
                if let value = tags[key]?.trimmingWhitespace(), !value.isEmpty { return String(value) }
            }
            return nil
        }
        self.init(
            title: first("title"),
            artist: first("artist", "album_artist", "albumartist"),
            album: first("album"),
            isrc: first("isrc", "tsrc").flatMap(Self.normalizedISRC)
        )
        for key in tags.keys.sorted() {
            guard let value = tags[key] else { continue }
            for marker in ["open.spotify.com/track/", "spotify:track:"] {
                guard let range = value.range(of: marker) else { continue }
                let id = value[range.upperBound...].prefix(22)
                if let spotifyID = SpotifyID(id) {
                    self.spotifyID = spotifyID
                    return
                }
            }
        }
    }

    /// An ISRC (`CC-XXX-YY-NNNNN`, hyphens optional) upper-cased without hyphens, or `nil`.
    static func normalizedISRC(_ text: String) -> String? {
        let compact = text.uppercased().filter { $0 != "-" && $0 != " " }
        guard compact.count == 12 else { return nil }
        let characters = Array(compact.unicodeScalars)
        let isLetter = { (c: Unicode.Scalar) in c.value >= 65 && c.value <= 90 }
        let isDigit = { (c: Unicode.Scalar) in c.value >= 48 && c.value <= 57 }
        guard isLetter(characters[0]), isLetter(characters[1]),
            characters[2...4].allSatisfy({ isLetter($0) || isDigit($0) }),
            characters[5...].allSatisfy(isDigit)
        else { return nil }
        return compact
    }
}
