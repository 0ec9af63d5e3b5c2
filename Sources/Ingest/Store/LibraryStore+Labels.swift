import GRDB

extension LibraryStore {
    /// The kinds of label `trackLabels(kind:)` understands.
    public static let labelKinds = ["genre", "subgenre", "playlist"]

    /// The labels of every labelled track: its tags of `kind`, and for `playlist` also the names of
    /// the imported playlists it is in (built playlists are left out, so an evaluation does not
    /// grade itself).
    ///
    /// - Parameter kind: `genre`, `subgenre` or `playlist`; `playlist_genre` and `playlist_subgenre`
    ///   (the tidytuesday column names) are accepted too.
    /// - Returns: The labels by track ID; tracks without one are absent.
    public func trackLabels(kind: String) throws -> [Int64: Set<String>] {
        let kind = kind.hasPrefix("playlist_") ? String(kind.dropFirst("playlist_".count)) : kind
        return try read { db in
            var labels: [Int64: Set<String>] = [:]
            let tags = try Row.fetchCursor(
                db,
                sql: "SELECT tt.track_id, t.value FROM track_tags tt JOIN tags t ON t.id = tt.tag_id WHERE t.kind = ?",
                arguments: [kind]
            )
            while let row = try tags.next() { labels[row[0], default: []].insert(row[1]) }
            if kind == "playlist" {
                let items = try Row.fetchCursor(
                    db,
                    sql: """
                        SELECT DISTINCT pi.track_id, p.name FROM playlist_items pi JOIN playlists p ON p.id = pi.playlist_id
                        WHERE p.origin_key NOT LIKE 'built:%'
                        """
                )
                while let row = try items.next() { labels[row[0], default: []].insert(row[1]) }
            }
            return labels
        }
    }
}
