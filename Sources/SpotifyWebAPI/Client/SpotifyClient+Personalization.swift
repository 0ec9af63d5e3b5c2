import Foundation
import SpotifyWebModel

/// The period Spotify computes top items over.
public enum TimeRange: String, Sendable, Hashable, CaseIterable, Codable {
    /// About the last 4 weeks.
    case shortTerm = "short_term"
    /// About the last 6 months.
    case mediumTerm = "medium_term"
    /// About the last year.
    case longTerm = "long_term"

    /// "last 4 weeks", "last 6 months", "last year".
    public var displayName: String {
        switch self {
        case .shortTerm: "last 4 weeks"
        case .mediumTerm: "last 6 months"
        case .longTerm: "last year"
        }
    }
}

extension SpotifyClient {
    /// One page of the user's top tracks over `range` (`GET /me/top/tracks`).
    public func topTracks(
        over range: TimeRange,
        offset: Int = 0,
        limit: Int = pageLimit
    ) async throws
        -> SpotifyPagingObject<SpotifyTrackObject>
    {
        try await decode(
            SpotifyPagingObject<SpotifyTrackObject>.self,
            "me/top/tracks",
            query: [("time_range", range.rawValue), ("limit", "\(limit)"), ("offset", "\(offset)")]
        )
    }

    /// One page of the user's top artists over `range` (`GET /me/top/artists`).
    public func topArtists(
        over range: TimeRange,
        offset: Int = 0,
        limit: Int = pageLimit
    ) async throws
        -> SpotifyPagingObject<SpotifyFullArtistObject>
    {
        try await decode(
            SpotifyPagingObject<SpotifyFullArtistObject>.self,
            "me/top/artists",
            query: [("time_range", range.rawValue), ("limit", "\(limit)"), ("offset", "\(offset)")]
        )
    }

    /// The user's recently played tracks, at most 50, newest first (`GET /me/player/recently-played`).
    ///
    /// - Parameter after: Only plays after this cursor (milliseconds since 1970), for incremental sync.
    public func recentlyPlayed(
        after: Int64? = nil,
        limit: Int = pageLimit
    ) async throws -> SpotifyCursorPagingObject<
        SpotifyPlayHistoryObject
    > {
        var query = [("limit", "\(limit)")]
        if let after { query.append(("after", "\(after)")) }
        return try await decode(
            SpotifyCursorPagingObject<SpotifyPlayHistoryObject>.self,
            "me/player/recently-played",
            query: query
        )
    }

    /// What the user is playing now, or `nil` when nothing is (Spotify answers 204).
    public func currentlyPlaying() async throws -> SpotifyCurrentlyPlayingObject? {
        let (status, data, endpoint) = try await perform(
            .get,
            "me/player/currently-playing",
            query: [("additional_types", "track,episode")]
        )
        if status == 204 || data.isEmpty { return nil }
        return try decode(SpotifyCurrentlyPlayingObject.self, from: data, status: status, endpoint: endpoint)
    }
}
