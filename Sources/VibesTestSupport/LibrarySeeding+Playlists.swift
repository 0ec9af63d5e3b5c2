import Features
import Foundation
import Ingest

extension LibrarySeeding {
    /// The header of a real Exportify export (the one in `shared/data`).
    public static let exportifyHeader =
        "Track URI,Track Name,Album Name,Artist Name(s),Release Date,Duration (ms),Popularity,Explicit,Added By,Added At,Genres,Record Label,Danceability,Energy,Key,Loudness,Mode,Speechiness,Acousticness,Instrumentalness,Liveness,Valence,Tempo,Time Signature"

    /// Writes `tracks` as an Exportify export called `fileName` in `folder`; a track given with
    /// `withoutFeatures` has empty feature columns.
    ///
    /// - Returns: The path of the file.
    public static func writeExportify(
        _ tracks: [SeedTrack],
        fileName: String,
        in folder: String,
        withoutFeatures: [String] = []
    ) throws -> String {
        var lines = [exportifyHeader]
        for track in tracks {
            let f = track.features
            let values = [
                f.danceability, f.energy, f.key.map(Double.init), f.loudness, f.mode.map(Double.init), f.speechiness,
                f.acousticness, f.instrumentalness, f.liveness, f.valence, f.tempo, 4,
            ].map { $0.map { "\($0)" } ?? "" }
            lines.append(
                ["spotify:track:\(track.spotifyID)", track.name, "Album", track.artist, "2020-01-01", "200000", "50"]
                    .joined(separator: ",") + ",false,,2024-01-01T00:00:00Z,\"pop\",\"Label\","
                    + values.joined(separator: ",")
            )
        }
        for name in withoutFeatures {
            lines.append(
                "spotify:track:\(String(repeating: "9", count: 21))1,\(name),Album,Nobody,2020-01-01,200000,50,false,,"
                    + "2024-01-01T00:00:00Z,\"pop\",\"Label\"," + String(repeating: ",", count: 11)
            )
        }
        let path = folder + "/" + fileName
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Fills `store` with three separated groups of 20 tracks (calm, dance, tense) and three
    /// playlists imported from Exportify exports written in `folder`: "bath time " (10 calm,
    /// 2 dance), "Bass Music" (10 dance) and "Road Trip" (15 tense and one track without features).
    ///
    /// The store has no clustering run; clustering it with k = 3 finds the three groups.
    public static func insertPlaylistLibrary(into store: LibraryStore, folder: String) throws {
        let tracks = syntheticTracks(perGroup: 20)
        try insert(tracks, into: store, folder: folder)
        let calm = tracks.filter { $0.name.hasPrefix("calm") }
        let dance = tracks.filter { $0.name.hasPrefix("dance") }
        let tense = tracks.filter { $0.name.hasPrefix("tense") }
        for file in [
            try writeExportify(Array(calm.prefix(10) + dance.prefix(2)), fileName: "bath_time_.csv", in: folder),
            try writeExportify(Array(dance.prefix(10)), fileName: "Bass_Music.csv", in: folder),
            try writeExportify(
                Array(tense.prefix(15)),
                fileName: "Road_Trip.csv",
                in: folder,
                withoutFeatures: ["Unmeasured"]
            ),
        ] {
            _ = try store.importFile(at: file)
        }
    }
}
