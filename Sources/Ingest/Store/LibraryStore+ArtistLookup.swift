import Features
import GRDB

extension LibraryStore {
    /// The artist a Spotify sync recorded with Spotify ID `id`, and their tracks.
    ///
    /// - Returns: The artist with a score of 1, or `nil` when no stored artist has that ID.
    public func artist(spotifyID id: SpotifyID) throws -> ArtistMatch? {
        try read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT a.name, ta.track_id FROM artists a LEFT JOIN track_artists ta ON ta.artist_id = a.id
                    WHERE a.spotify_id = ? ORDER BY ta.track_id
                    """,
                arguments: [id.rawValue]
            )
            guard let first = rows.first else { return nil }
            var trackIDs: [Int64] = []
            for row in rows {
                guard let trackID = row[1] as Int64?, trackIDs.last != trackID else { continue }
                trackIDs.append(trackID)
            }
            return ArtistMatch(name: first[0], score: 1, trackIDs: trackIDs)
        }
    }
}
