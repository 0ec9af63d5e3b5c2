/// A validated Spotify base-62 identifier of a track, artist, album or playlist.
///
/// Accepts the bare 22-character ID, a `spotify:track:…` URI, or an `open.spotify.com` link.
public struct SpotifyID: Hashable, Sendable, Comparable, Codable, CustomStringConvertible {
    /// The 22-character base-62 identifier.
    public let rawValue: String

    /// Creates an identifier from a bare 22-character base-62 string.
    public init?(_ string: some StringProtocol) {
        guard string.utf8.count == 22, string.utf8.allSatisfy(SpotifyID.isBase62) else { return nil }
        rawValue = String(string)
    }

    /// Creates an identifier from a bare 22-character base-62 string.
    ///
    /// The same as the generic initializer; this one is what other modules call with a `String`
    /// (an import does, twice a row): the generic one runs unspecialised there, and took 4 % of a
    /// million-row import.
    public init?(_ string: String) {
        guard string.utf8.count == 22, string.utf8.allSatisfy(SpotifyID.isBase62) else { return nil }
        rawValue = string
    }

    /// Creates an identifier from a URI, link or bare ID held in a `String`, as the generic
    /// initializer does; this overload skips unspecialised generic code for the common bare ID.
    public init?(uri: String, category: String? = nil) {
        if uri.utf8.count == 22, let id = SpotifyID(uri) {
            self = id
            return
        }
        self.init(uri: Substring(uri), category: category)
    }

    /// Creates an identifier from a URI such as `spotify:track:6f807x0ima9a1j3VPbc7VN`, an
    /// `https://open.spotify.com/track/…` link, or a bare ID.
    ///
    /// - Parameter category: When given, the URI's category must match (`track`, `artist`, …).
    public init?(uri: some StringProtocol, category: String? = nil) {
        if uri.utf8.count == 22, let id = SpotifyID(uri) {
            self = id
            return
        }
        let text = uri.trimmingWhitespace()
        if let id = SpotifyID(text) {
            self = id
            return
        }
        let parts: [Substring]
        if text.hasPrefix("spotify:") {
            parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 3 else { return nil }
            if let category, parts[1] != category { return nil }
            guard let id = SpotifyID(parts[2]) else { return nil }
            self = id
        } else if let range = text.range(of: "open.spotify.com/") {
            let path = text[range.upperBound...].split(separator: "?", maxSplits: 1)[0]
            parts = path.split(separator: "/")
            guard parts.count >= 2 else { return nil }
            if let category, parts[parts.count - 2] != category { return nil }
            guard let id = SpotifyID(parts[parts.count - 1]) else { return nil }
            self = id
        } else {
            return nil
        }
    }

    /// The track URI, `spotify:track:<id>`.
    public var trackURI: String { "spotify:track:\(rawValue)" }

    public var description: String { rawValue }

    public static func < (lhs: SpotifyID, rhs: SpotifyID) -> Bool { lhs.rawValue < rhs.rawValue }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let string = try container.decode(String.self)
        guard let id = SpotifyID(uri: string) else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "Expected a 22-character Spotify ID, got \"\(string)\"."
            )
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    private static func isBase62(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces, tabs and line breaks.
    public func trimmingWhitespace() -> Substring {
        let utf8 = self.utf8
        if let first = utf8.first, first > 0x20, first < 0x80, let last = utf8.reversed().first, last > 0x20,
            last < 0x80
        {
            return Substring(self)  // the common case: nothing to trim
        }
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
        return Substring(self[first...last])
    }
}
