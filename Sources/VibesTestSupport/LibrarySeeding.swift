import Features
import Foundation
import Ingest
import VibesTestSupport

/// Builds libraries for the command and engine tests through the real CSV importer.
public enum LibrarySeeding {
    /// One track to write.
    public struct SeedTrack {
        public var spotifyID: String
        public var name: String
        public var artist: String
        public var features: AudioFeatures

        public init(spotifyID: String, name: String, artist: String, features: AudioFeatures) {
            self.spotifyID = spotifyID
            self.name = name
            self.artist = artist
            self.features = features
        }
    }

    public static let header = [
        "track_id", "track_name", "track_artist", "danceability", "energy", "key", "loudness", "mode", "speechiness",
        "acousticness", "instrumentalness", "liveness", "valence", "tempo",
    ]

    /// Writes the tracks as a tidytuesday-shaped CSV in `folder` and imports it into the store.
    public static func insert(_ tracks: [SeedTrack], into store: LibraryStore, folder: String) throws {
        func number(_ value: Double?) -> String { value.map { "\($0)" } ?? "" }
        func integer(_ value: Int?) -> String { value.map { "\($0)" } ?? "" }
        var lines = [header.joined(separator: ",")]
        for track in tracks {
            let f = track.features
            lines.append(
                [
                    track.spotifyID, track.name, track.artist, number(f.danceability), number(f.energy), integer(f.key),
                    number(f.loudness), integer(f.mode), number(f.speechiness), number(f.acousticness),
                    number(f.instrumentalness), number(f.liveness), number(f.valence), number(f.tempo),
                ].joined(separator: ",")
            )
        }
        let path = folder + "/seed-\(UUID().uuidString).csv"
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        _ = try store.importFile(at: path)
    }

    /// Copies the header and the first `count` records of the tidytuesday CSV in `shared/data` to
    /// `folder` and imports them.
    public static func importTidyTuesday(firstRecords count: Int, into store: LibraryStore, folder: String) throws {
        let source = SharedData.path("tidytuesday-2020-01-21/spotify_songs.csv")
        let text = try String(contentsOfFile: source, encoding: .utf8)
        let lines = text.split(separator: "\n", maxSplits: count + 1, omittingEmptySubsequences: false).prefix(
            count + 1
        )
        let path = folder + "/tidytuesday-first-\(count).csv"
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        _ = try store.importFile(at: path)
    }

    /// `perGroup` tracks in each of three well-separated groups: calm acoustic, euphoric dance and
    /// tense loud, with small seeded noise.
    public static func syntheticTracks(perGroup: Int, seed: UInt64 = 1) -> [SeedTrack] {
        var rng = SplitMix64(seed: seed)
        func noise(_ scale: Double) -> Double { (rng.nextUnitInterval() - 0.5) * scale }
        var tracks: [SeedTrack] = []
        let groups: [(name: String, features: AudioFeatures)] = [
            (
                "calm",
                AudioFeatures(
                    danceability: 0.35,
                    energy: 0.2,
                    loudness: -18,
                    mode: 1,
                    speechiness: 0.04,
                    acousticness: 0.9,
                    instrumentalness: 0.3,
                    liveness: 0.1,
                    valence: 0.55,
                    tempo: 80
                )
            ),
            (
                "dance",
                AudioFeatures(
                    danceability: 0.85,
                    energy: 0.85,
                    loudness: -5,
                    mode: 1,
                    speechiness: 0.06,
                    acousticness: 0.05,
                    instrumentalness: 0.02,
                    liveness: 0.12,
                    valence: 0.85,
                    tempo: 124
                )
            ),
            (
                "tense",
                AudioFeatures(
                    danceability: 0.4,
                    energy: 0.95,
                    loudness: -3,
                    mode: 0,
                    speechiness: 0.1,
                    acousticness: 0.01,
                    instrumentalness: 0.05,
                    liveness: 0.3,
                    valence: 0.15,
                    tempo: 165
                )
            ),
        ]
        for (groupIndex, group) in groups.enumerated() {
            for index in 0..<perGroup {
                var f = group.features
                f.danceability = f.danceability! + noise(0.1)
                f.energy = f.energy! + noise(0.1)
                f.valence = f.valence! + noise(0.1)
                f.acousticness = max(0, f.acousticness! + noise(0.05))
                f.loudness = f.loudness! + noise(2)
                f.tempo = f.tempo! + noise(8)
                f.key = (index * 5 + groupIndex) % 12
                tracks.append(
                    SeedTrack(
                        spotifyID: String(format: "%022d", groupIndex * 100_000 + index),
                        name: "\(group.name) \(index)",
                        artist: "Artist \(group.name)",
                        features: f
                    )
                )
            }
        }
        return tracks
    }
}

/// A store in `folder` holding `songs`, written the way an importer would.
public func makeStore(in folder: String, songs: [TidyTuesdaySongs.Song]) throws -> LibraryStore {
    let store = try LibraryStore(path: folder + "/library.sqlite")
    try store.insert(songs)
    return store
}
