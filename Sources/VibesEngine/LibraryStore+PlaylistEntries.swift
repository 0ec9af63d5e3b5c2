import Analytics
import Features
import Ingest

extension LibraryStore {
    /// The playlist entries of `trackIDs`, in their order (repeats kept): name, artists, album,
    /// duration, popularity, Spotify ID and audio file path as the store holds them, and whether
    /// each is in the user's library (not only in the reference pool).
    ///
    /// - Parameters:
    ///   - trackIDs: The tracks, in play order.
    ///   - features: The audio features of a track; none by default.
    /// - Returns: One entry per ID; a track the store does not hold is named "track ID".
    public func playlistEntries(
        for trackIDs: [Int64],
        features: (Int64) -> AudioFeatures = { _ in AudioFeatures() }
    ) throws -> [Playlist.Entry] {
        let summaries = try trackSummaries(for: trackIDs)
        let paths = try localFilePaths(for: trackIDs)
        let reference = try referenceTracks(among: trackIDs)
        return trackIDs.map { id in
            let summary = summaries[id]
            var entry = Playlist.Entry(
                trackID: id,
                spotifyID: summary?.spotifyID.flatMap { SpotifyID($0) },
                name: summary?.name ?? "track \(id)",
                artists: summary?.artists ?? [],
                album: summary?.album,
                durationMS: summary?.durationMS,
                popularity: summary?.popularity,
                features: features(id)
            )
            entry.filePath = paths[id]
            entry.isInLibrary = !reference.contains(id)
            return entry
        }
    }

    /// One entry per catalogue track of a playlist read from Spotify, with the features of the
    /// whole library; its `trackID` is the item's position in the playlist, so repeats stay
    /// apart. Local files, episodes and removed tracks have none: they keep their places.
    ///
    /// - Parameters:
    ///   - uris: Every item's URI, in playlist order.
    ///   - trackIDs: Every item's store ID, `nil` for an item the store does not hold.
    ///   - positions: The positions of the catalogue tracks.
    public func positionedEntries(uris: [String], trackIDs: [Int64?], positions: [Int]) throws -> [Playlist.Entry] {
        let known = Array(Set(positions.compactMap { trackIDs[$0] })).sorted()
        let table = try featureTable(scope: .all)
        var rows: [Int64: Int] = [:]
        for (row, id) in table.trackIDs.enumerated() { rows[id] = row }
        let entries = try playlistEntries(for: known) { id in
            var features = AudioFeatures()
            guard let row = rows[id] else { return features }
            for feature in AudioFeature.all {
                features[feature] = table.value(row: row, feature: feature).map(Double.init)
            }
            return features
        }
        let byID = Dictionary(uniqueKeysWithValues: zip(known, entries))
        return positions.map { index in
            let uri = uris[index]
            var entry =
                trackIDs[index].flatMap { byID[$0] }
                ?? Playlist.Entry(trackID: 0, spotifyID: nil, name: uri, artists: [], features: AudioFeatures())
            entry.trackID = Int64(index)
            entry.spotifyID = SpotifyID(uri: uri, category: "track")
            entry.filePath = nil
            return entry
        }
    }
}
