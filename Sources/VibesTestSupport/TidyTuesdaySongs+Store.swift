import Features
import Ingest

extension LibraryStore {
    /// Writes `songs` through the importers' own ``LibraryWriter``, as importing a feature CSV would:
    /// tracks, artists, features (source `file:features-csv`) and genre tags, in order.
    public func insert(_ songs: [TidyTuesdaySongs.Song]) throws {
        let time = "2026-01-01T00:00:00Z"
        try withImportRun(path: "songs", format: .featuresCSV, sha256: "songs", fetchedAt: time) { writer in
            for song in songs {
                let track = Track(
                    spotifyID: SpotifyID(song.spotifyID),
                    name: song.name,
                    artists: [song.artist],
                    album: song.album.isEmpty ? nil : song.album,
                    durationMS: song.durationMS,
                    popularity: song.popularity
                )
                let written = try writer.write(track)
                try writer.write(song.features, trackID: written.id, source: .file(format: "features-csv"))
                let tags = song.genres.sorted().map { (kind: "genre", value: $0) }
                try writer.tag(trackID: written.id, with: tags, source: "file:features-csv")
            }
        }
    }
}
