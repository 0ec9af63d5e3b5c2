import Foundation
import SpotifyWebModel

extension SpotifyClient {
    /// The largest page `/me/tracks`, `/me/playlists` and top items serve.
    public static let pageLimit = 50

    /// The signed-in user's profile (`GET /me`).
    public func currentUser() async throws -> SpotifyUserObject {
        try await decode(SpotifyUserObject.self, "me")
    }

    /// One page of the user's saved tracks, newest first (`GET /me/tracks`).
    ///
    /// - Parameters:
    ///   - offset: The index of the first item.
    ///   - limit: 1 to 50. Defaults to 50.
    public func savedTracks(
        offset: Int,
        limit: Int = pageLimit
    ) async throws -> SpotifyPagingObject<
        SpotifyTrackItemObject
    > {
        try await decode(
            SpotifyPagingObject<SpotifyTrackItemObject>.self,
            "me/tracks",
            query: [("limit", "\(limit)"), ("offset", "\(offset)")]
        )
    }
}
