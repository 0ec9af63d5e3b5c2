import ArgumentParser
import Features
import Foundation
import Ingest
import SpotifyWebAPI
import SpotifyWebModel
import VibesCommandSupport

/// A track, artist, album or playlist as the browsing commands print it.
struct BrowseItem: Codable, Hashable {
    var kind: String
    var name: String
    var artists: [String]?
    var spotifyID: String?
    var uri: String?
    /// When it was played (`recent`), ISO 8601.
    var playedAt: String?
    var genres: [String]?
    var owner: String?

    enum CodingKeys: String, CodingKey {
        case kind, name, artists, uri, genres, owner
        case spotifyID = "spotify_id"
        case playedAt = "played_at"
    }

    init(track object: SpotifyTrackObject, playedAt: String? = nil) {
        kind = object.type ?? "track"
        name = object.name ?? "?"
        artists = (object.artists ?? []).compactMap(\.name)
        spotifyID = object.id
        uri = object.uri
        self.playedAt = playedAt
    }

    init(artist: SpotifyFullArtistObject) {
        kind = "artist"
        name = artist.name ?? "?"
        spotifyID = artist.id
        uri = artist.id.map { "spotify:artist:\($0)" }
        genres = artist.genres
    }

    init(album: SpotifyAlbumObject) {
        kind = "album"
        name = album.name ?? "?"
        spotifyID = album.id
        uri = album.id.map { "spotify:album:\($0)" }
    }

    init(playlist: SpotifySimplifiedPlaylistObject) {
        kind = "playlist"
        name = playlist.name ?? "?"
        spotifyID = playlist.id
        uri = "spotify:playlist:\(playlist.id)"
        owner = playlist.owner?.displayName ?? playlist.owner?.id
    }

    /// One line: "Artist – Title", "Name (genres)", "Name by owner".
    var line: String {
        var text = name
        if let artists, !artists.isEmpty { text = artists.joined(separator: ", ") + " – " + name }
        if let genres, !genres.isEmpty { text += " (\(genres.prefix(3).joined(separator: ", ")))" }
        if let owner { text += " by \(owner)" }
        if let playedAt { text = playedAt.prefix(16).replacingOccurrences(of: "T", with: " ") + "  " + text }
        return text
    }
}

/// Prints items as lines or as `{"items": [...]}`.
private func printItems(_ items: [BrowseItem], json: Bool, empty: String) throws {
    if json {
        try Console.printJSON(["items": items])
    } else if items.isEmpty {
        print(empty)
    } else {
        for (index, item) in items.enumerated() {
            print("\(String(index + 1).leftPadded(3))  \(TerminalText.singleLine(item.line))")
        }
    }
}

extension VibesAnalyze {
    /// `vibes-analyze now`.
    struct Now: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "now",
            abstract: "Show what you are playing on Spotify now.",
            discussion: "Example: vibes-analyze now --json"
        )

        @OptionGroup var global: OutputOptions
        @OptionGroup var spotify: SpotifyOptions

        func run() async throws {
            try await reportingSpotifyErrors {
                let (client, _) = try spotify.makeClient(quiet: global.quiet)
                let playing = try await client.currentlyPlaying()
                let items = playing?.item.map { [BrowseItem(track: $0)] } ?? []
                try printItems(items, json: global.json, empty: "Nothing playing.")
            }
        }
    }

    /// `vibes-analyze recent`.
    struct Recent: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "recent",
            abstract: "Show the tracks you played most recently on Spotify (at most 50).",
            discussion: "Example: vibes-analyze recent --limit 10"
        )

        @OptionGroup var global: OutputOptions
        @OptionGroup var spotify: SpotifyOptions

        @OptionGroup var count: LimitOption

        func run() async throws {
            try await reportingSpotifyErrors {
                let (client, _) = try spotify.makeClient(quiet: global.quiet)
                let plays = try await client.recentlyPlayed(limit: count.limit).items.compactMap { $0 }
                let items = plays.compactMap { play in play.track.map { BrowseItem(track: $0, playedAt: play.playedAt) }
                }
                try printItems(items, json: global.json, empty: "No recent plays.")
            }
        }
    }

    /// `vibes-analyze top`.
    struct Top: AsyncParsableCommand {
        enum Range: String, ExpressibleByArgument, CaseIterable {
            case short, medium, long
            var timeRange: TimeRange {
                switch self {
                case .short: .shortTerm
                case .medium: .mediumTerm
                case .long: .longTerm
                }
            }
        }

        enum Kind: String, ExpressibleByArgument, CaseIterable {
            case tracks, artists
        }

        static let configuration = CommandConfiguration(
            commandName: "top",
            abstract: "Show your top tracks or artists on Spotify.",
            discussion: "Example: vibes-analyze top --type artists --range short"
        )

        @OptionGroup var global: OutputOptions
        @OptionGroup var spotify: SpotifyOptions

        @Option(help: "Over the last 4 weeks (short), 6 months (medium) or year (long).")
        var range: Range = .medium

        @Option(name: .customLong("type"), help: "Tracks or artists.")
        var kind: Kind = .tracks

        @OptionGroup var count: LimitOption

        func run() async throws {
            try await reportingSpotifyErrors {
                let (client, _) = try spotify.makeClient(quiet: global.quiet)
                let items: [BrowseItem]
                switch kind {
                case .tracks:
                    items = try await client.topTracks(over: range.timeRange, limit: count.limit).items.compactMap {
                        $0
                    }
                    .map { BrowseItem(track: $0) }
                case .artists:
                    items = try await client.topArtists(over: range.timeRange, limit: count.limit).items.compactMap {
                        $0
                    }
                    .map { BrowseItem(artist: $0) }
                }
                try printItems(items, json: global.json, empty: "Spotify has no top \(kind.rawValue) for you yet.")
            }
        }
    }

    /// `vibes-analyze search`.
    struct Search: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "search",
            abstract: "Search Spotify's catalogue for tracks, artists, albums or playlists.",
            discussion: """
                Spotify serves a development-mode app at most 10 results a request since February \
                2026 (a larger limit is answered `400 Invalid limit`), so a --limit above 10 is \
                fetched in pages of 10, one request each.

                Example: vibes-analyze search "daft punk one more time" --limit 5
                """
        )

        @OptionGroup var global: OutputOptions
        @OptionGroup var spotify: SpotifyOptions

        @Argument(help: "What to look for, in Spotify's search syntax (artist:…, track:…, year:…).")
        var query: String

        @Option(name: .customLong("type"), help: "What to find.")
        var type: SpotifySearchType = .track

        @OptionGroup var count: LimitOption

        func validate() throws {
            guard !query.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw ValidationError("Please give something to search for.")
            }
        }

        func run() async throws {
            try await reportingSpotifyErrors {
                let (client, _) = try spotify.makeClient(quiet: global.quiet)
                let results = try await client.search(query, type: type, limit: count.limit)
                let items: [BrowseItem] =
                    switch type {
                    case .track: (results.tracks?.items ?? []).compactMap { $0 }.map { BrowseItem(track: $0) }
                    case .artist: (results.artists?.items ?? []).compactMap { $0 }.map { BrowseItem(artist: $0) }
                    case .album: (results.albums?.items ?? []).compactMap { $0 }.map { BrowseItem(album: $0) }
                    case .playlist: (results.playlists?.items ?? []).compactMap { $0 }.map { BrowseItem(playlist: $0) }
                    }
                try printItems(items, json: global.json, empty: "Nothing found for \"\(query)\".")
            }
        }
    }
}

extension SpotifySearchType: ExpressibleByArgument {}

/// `--limit`: how many items a browsing command prints, 1 to 50 (Spotify's page size).
struct LimitOption: ParsableArguments {
    @Option(help: "How many items, 1 to 50.")
    var limit = 20

    func validate() throws {
        guard (1...50).contains(limit) else {
            throw ValidationError("Please choose --limit from 1 to 50 (got \(limit)).")
        }
    }
}
