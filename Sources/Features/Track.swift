import Foundation

/// A recording in a person's library: its identity and the metadata shown next to it.
///
/// A track from a local file has no Spotify ID; such tracks, and plays that arrive without a URI,
/// are matched on ``matchKey``, the normalised first artist and title.
public struct Track: Hashable, Sendable, Codable {
    /// The Spotify track ID, or `nil` for local files and sources without IDs.
    public var spotifyID: SpotifyID?
    public var name: String
    /// The credited artists, main artist first.
    public var artists: [String]
    public var album: String?
    public var albumID: SpotifyID?
    public var releaseDate: ReleaseDate?
    /// The duration in milliseconds; importers keep it within ``validDurationMS``.
    public var durationMS: Int?
    /// The International Standard Recording Code, when the source provides it.
    public var isrc: String?
    public var isExplicit: Bool?
    /// Spotify's popularity, 0 (least) to 100 (most popular), at the time the source was made.
    public var popularity: Int?
    /// Whether the track is a local file (`spotify:local:` URI) rather than a catalogue track.
    public var isLocal: Bool

    public init(
        spotifyID: SpotifyID?,
        name: String,
        artists: [String],
        album: String? = nil,
        albumID: SpotifyID? = nil,
        releaseDate: ReleaseDate? = nil,
        durationMS: Int? = nil,
        isrc: String? = nil,
        isExplicit: Bool? = nil,
        popularity: Int? = nil,
        isLocal: Bool = false
    ) {
        self.spotifyID = spotifyID
        self.name = name
        self.artists = artists
        self.album = album
        self.albumID = albumID
        self.releaseDate = releaseDate
        self.durationMS = durationMS
        self.isrc = isrc
        self.isExplicit = isExplicit
        self.popularity = popularity
        self.isLocal = isLocal
    }

    enum CodingKeys: String, CodingKey {
        case spotifyID = "spotify_id"
        case name, artists, album
        case albumID = "album_id"
        case releaseDate = "release_date"
        case durationMS = "duration_ms"
        case isrc
        case isExplicit = "explicit"
        case popularity
        case isLocal = "is_local"
    }

    /// The key that matches this track to plays and exports that carry only names.
    public var matchKey: String {
        Track.matchKey(artist: artists.first ?? "", title: name)
    }

    /// The normalised `artist␟title` key: case-folded, diacritics removed, punctuation and
    /// spacing collapsed, so that "Tiësto – Red Lights" matches "TIESTO - red lights".
    public static func matchKey(artist: some StringProtocol, title: some StringProtocol) -> String {
        normalizedName(artist) + "\u{1F}" + normalizedName(title)
    }

    /// A key equal for every version of one song by one artist: album and single releases,
    /// remasters, remixes, edits, live and acoustic takes, features.
    ///
    /// It is the ``matchKey(artist:title:)`` of the title without what follows the first " - "
    /// and without parts in brackets, so "Travesuras - Remix", "Travesuras (feat. Ozuna)" and
    /// "Travesuras [Remastered 2019]" all give the key of "Travesuras". A title that is nothing
    /// but such parts keeps its full text.
    public static func songKey(artist: some StringProtocol, title: some StringProtocol) -> String {
        // Concrete `String`s from here: a generic body runs unspecialised for callers in other modules.
        if let key = asciiSongKey(artist: String(artist), title: String(title)) { return key }
        var core = ""
        var depth = 0
        for character in title {
            switch character {
            case "(", "[", "{": depth += 1
            case ")", "]", "}": depth = Swift.max(0, depth - 1)
            default: if depth == 0 { core.append(character) }
            }
        }
        if let dash = core.range(of: " - ") { core = String(core[..<dash.lowerBound]) }
        let folded = normalizedName(core)
        return normalizedName(artist) + "\u{1F}" + (folded.isEmpty ? normalizedName(title) : folded)
    }

    /// ``songKey(artist:title:)`` for an ASCII title, on bytes: a million keys took 3 s through
    /// `Character`s, most of a `recommend` on a million tracks. `nil` for other titles.
    private static func asciiSongKey(artist: String, title: String) -> String? {
        var title = title
        var core: [UInt8] = []
        let isASCII = title.withUTF8 { bytes -> Bool in
            core.reserveCapacity(bytes.count)
            var depth = 0
            for byte in bytes {
                guard byte < 0x80 else { return false }
                switch byte {
                case UInt8(ascii: "("), UInt8(ascii: "["), UInt8(ascii: "{"): depth += 1
                case UInt8(ascii: ")"), UInt8(ascii: "]"), UInt8(ascii: "}"): depth = Swift.max(0, depth - 1)
                default: if depth == 0 { core.append(byte) }
                }
            }
            return true
        }
        guard isASCII else { return nil }
        if core.count >= 3 {
            for index in 0...(core.count - 3)
            where core[index] == 0x20 && core[index + 1] == UInt8(ascii: "-") && core[index + 2] == 0x20 {
                core.removeSubrange(index...)
                break
            }
        }
        let folded = normalizedName(String(decoding: core, as: UTF8.self))
        return normalizedName(artist) + "\u{1F}" + (folded.isEmpty ? normalizedName(title) : folded)
    }

    /// A name folded for matching: lower case, no diacritics, alphanumerics separated by one space.
    ///
    /// ASCII names, the large majority, are folded without Foundation; others go through
    /// `folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive])` first.
    public static func normalizedName(_ name: some StringProtocol) -> String {
        if let ascii = normalizedASCIIName(name) { return ascii }
        let source: String =
            name.utf8.allSatisfy { $0 < 0x80 }
            ? String(name)
            : String(name).folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
        var result = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in source.unicodeScalars {
            let isWordCharacter =
                scalar.isASCII
                ? (scalar.value >= 0x30 && scalar.value <= 0x39)
                    || (scalar.value | 0x20 >= 0x61 && scalar.value | 0x20 <= 0x7A)
                : scalar.properties.isAlphabetic || scalar.properties.numericType != nil
            if isWordCharacter {
                if pendingSpace && !result.isEmpty { result.append(" ") }
                pendingSpace = false
                let value = scalar.value
                result.append(value >= 0x41 && value <= 0x5A ? Unicode.Scalar(value + 32)! : scalar)
            } else if scalar.properties.generalCategory != .nonspacingMark {
                pendingSpace = true
            }
        }
        return String(result)
    }

    /// The fast path of ``normalizedName(_:)`` for ASCII text, or `nil` for other text.
    private static func normalizedASCIIName(_ name: some StringProtocol) -> String? {
        var output: [UInt8] = []
        output.reserveCapacity(name.utf8.count)
        var pendingSpace = false
        for byte in name.utf8 {
            guard byte < 0x80 else { return nil }
            let lower = byte >= 0x41 && byte <= 0x5A ? byte + 32 : byte
            if (lower >= 0x30 && lower <= 0x39) || (lower >= 0x61 && lower <= 0x7A) {
                if pendingSpace && !output.isEmpty { output.append(0x20) }
                pendingSpace = false
                output.append(lower)
            } else {
                pendingSpace = true
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}

// MARK: - Valid durations

extension Track {
    /// The durations, in milliseconds, that a track or a play may have: 0 to 100 hours. Importers
    /// refuse anything else (or keep it as missing with `--skip-invalid`), and analyses ignore it,
    /// so sums of durations cannot overflow.
    public static let validDurationMS: ClosedRange<Int> = 0...360_000_000

    /// `durationMS` when it is within ``validDurationMS``, else `nil`.
    public var validDurationMS: Int? {
        durationMS.flatMap { Track.validDurationMS.contains($0) ? $0 : nil }
    }
}
