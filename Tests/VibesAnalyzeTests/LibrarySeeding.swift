import Features
import Foundation
import GRDB  // Reached through Ingest; only this helper writes rows directly.
import Ingest
import VibesTestSupport

/// Writes tracks with audio features straight into a store, for the commands to cluster.
///
/// This stands in for the CSV importer in tests that need a library without depending on how
/// imports parse files.
enum LibrarySeeding {
    /// One track to write.
    struct SeedTrack {
        var spotifyID: String
        var name: String
        var artist: String
        var features: AudioFeatures
    }

    /// Inserts the tracks, their artists and their features (source `csv`).
    static func insert(_ tracks: [SeedTrack], into store: LibraryStore) throws {
        try store.database.write { db in
            for (index, track) in tracks.enumerated() {
                try db.execute(
                    sql: "INSERT INTO tracks (spotify_id, name, match_key) VALUES (?, ?, ?)",
                    arguments: [track.spotifyID, track.name, "\(track.artist)|\(track.name)|\(index)"])
                let trackID = db.lastInsertedRowID
                try db.execute(
                    sql: "INSERT OR IGNORE INTO artists (name, name_key) VALUES (?, ?)",
                    arguments: [track.artist, track.artist.lowercased()])
                let artistID = try Int64.fetchOne(
                    db, sql: "SELECT id FROM artists WHERE name_key = ?", arguments: [track.artist.lowercased()])!
                try db.execute(
                    sql: "INSERT INTO track_artists (track_id, position, artist_id) VALUES (?, 0, ?)",
                    arguments: [trackID, artistID])
                let f = track.features
                try db.execute(
                    sql: """
                        INSERT INTO audio_features (track_id, source, priority, fetched_at, danceability, energy, key,
                            loudness, mode, speechiness, acousticness, instrumentalness, liveness, valence, tempo,
                            time_signature)
                        VALUES (?, 'csv', 1, '2020-01-21T00:00:00Z', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        trackID, f.danceability, f.energy, f.key, f.loudness, f.mode, f.speechiness, f.acousticness,
                        f.instrumentalness, f.liveness, f.valence, f.tempo, f.timeSignature,
                    ])
            }
        }
    }

    /// The first `count` distinct tracks of the tidytuesday CSV in `shared/data`.
    static func tidyTuesdayTracks(count: Int) throws -> [SeedTrack] {
        let path = SharedData.path("tidytuesday-2020-01-21/spotify_songs.csv")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var records = CSVRecords(text: text)
        guard let header = records.next() else { return [] }
        let column = Dictionary(uniqueKeysWithValues: header.enumerated().map { ($1, $0) })
        var seen: Set<String> = []
        var tracks: [SeedTrack] = []
        while tracks.count < count, let record = records.next() {
            guard record.count == header.count else { continue }
            let id = record[column["track_id"]!]
            guard seen.insert(id).inserted else { continue }
            func number(_ name: String) -> Double? { Double(record[column[name]!]) }
            let features = AudioFeatures(
                danceability: number("danceability"), energy: number("energy"), key: number("key").map { Int($0) },
                loudness: number("loudness"), mode: number("mode").map { Int($0) }, speechiness: number("speechiness"),
                acousticness: number("acousticness"), instrumentalness: number("instrumentalness"),
                liveness: number("liveness"), valence: number("valence"), tempo: number("tempo"))
            tracks.append(
                SeedTrack(
                    spotifyID: id, name: record[column["track_name"]!], artist: record[column["track_artist"]!],
                    features: features))
        }
        return tracks
    }

    /// `perGroup` tracks in each of three well-separated groups: calm acoustic, euphoric dance and
    /// tense loud, with small seeded noise.
    static func syntheticTracks(perGroup: Int, seed: UInt64 = 1) -> [SeedTrack] {
        var rng = SplitMix64(seed: seed)
        func noise(_ scale: Double) -> Double { (rng.nextUnitInterval() - 0.5) * scale }
        var tracks: [SeedTrack] = []
        let groups: [(name: String, features: AudioFeatures)] = [
            ("calm", AudioFeatures(danceability: 0.35, energy: 0.2, loudness: -18, mode: 1, speechiness: 0.04,
                acousticness: 0.9, instrumentalness: 0.3, liveness: 0.1, valence: 0.55, tempo: 80)),
            ("dance", AudioFeatures(danceability: 0.85, energy: 0.85, loudness: -5, mode: 1, speechiness: 0.06,
                acousticness: 0.05, instrumentalness: 0.02, liveness: 0.12, valence: 0.85, tempo: 124)),
            ("tense", AudioFeatures(danceability: 0.4, energy: 0.95, loudness: -3, mode: 0, speechiness: 0.1,
                acousticness: 0.01, instrumentalness: 0.05, liveness: 0.3, valence: 0.15, tempo: 165)),
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
                        spotifyID: String(format: "%022d", groupIndex * 100_000 + index), name: "\(group.name) \(index)",
                        artist: "Artist \(group.name)", features: f))
            }
        }
        return tracks
    }
}

/// A minimal RFC 4180 reader: comma-separated, fields optionally quoted with doubled quotes inside.
struct CSVRecords: IteratorProtocol {
    private var scalars: String.UnicodeScalarView.Iterator
    private var pending: Unicode.Scalar?
    private var isFinished = false

    init(text: String) {
        scalars = text.unicodeScalars.makeIterator()
    }

    private mutating func nextScalar() -> Unicode.Scalar? {
        if let scalar = pending {
            pending = nil
            return scalar
        }
        return scalars.next()
    }

    mutating func next() -> [String]? {
        guard !isFinished else { return nil }
        var fields: [String] = []
        var field = String.UnicodeScalarView()
        var isQuoted = false
        while true {
            guard let scalar = nextScalar() else {
                isFinished = true
                if fields.isEmpty && field.isEmpty { return nil }
                break
            }
            if isQuoted {
                if scalar == "\"" {
                    let following = nextScalar()
                    if following == "\"" {
                        field.append("\"")
                    } else {
                        isQuoted = false
                        pending = following
                    }
                } else {
                    field.append(scalar)
                }
            } else if scalar == "\"" {
                isQuoted = true
            } else if scalar == "," {
                fields.append(String(field))
                field = String.UnicodeScalarView()
            } else if scalar == "\n" {
                break
            } else if scalar != "\r" {
                field.append(scalar)
            }
        }
        fields.append(String(field))
        return fields
    }
}
