import Features
import Foundation

/// The tidytuesday 2020-01-21 songs (`shared/data/tidytuesday-2020-01-21/spotify_songs.csv`), read
/// with a small RFC 4180 reader, for tests that need real features and genre labels without the
/// importer.
///
/// A track listed in several playlists appears once, with the features of its first row and the
/// genres of all its rows.
public struct TidyTuesdaySongs: Sendable {
    public struct Song: Sendable {
        public var spotifyID: String
        public var name: String
        public var artist: String
        public var album: String
        public var popularity: Int?
        public var durationMS: Int?
        public var genres: Set<String>
        public var features: AudioFeatures

        public init(
            spotifyID: String,
            name: String,
            artist: String,
            album: String = "",
            popularity: Int? = nil,
            durationMS: Int? = nil,
            genres: Set<String> = [],
            features: AudioFeatures
        ) {
            self.spotifyID = spotifyID
            self.name = name
            self.artist = artist
            self.album = album
            self.popularity = popularity
            self.durationMS = durationMS
            self.genres = genres
            self.features = features
        }

        /// `count` songs with features drawn by `SplitMix64(seed:)`, by six artists, in two genres
        /// ("loud" when energy > 0.5, else "soft"), with valid made-up Spotify IDs.
        public static func synthetic(count: Int, seed: UInt64 = 42) -> [Song] {
            var generator = SplitMix64(seed: seed)
            let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
            return (1...count).map { number in
                let energy = generator.nextUnitInterval()
                let features = AudioFeatures(
                    danceability: generator.nextUnitInterval(),
                    energy: energy,
                    key: generator.next(below: 12),
                    loudness: -20 + 18 * energy,
                    mode: generator.next(below: 2),
                    speechiness: generator.nextUnitInterval() * 0.3,
                    acousticness: 1 - energy,
                    instrumentalness: generator.nextUnitInterval() * 0.5,
                    liveness: generator.nextUnitInterval() * 0.4,
                    valence: generator.nextUnitInterval(),
                    tempo: 80 + 80 * generator.nextUnitInterval(),
                    timeSignature: 4
                )
                let id = String((0..<22).map { _ in alphabet[generator.next(below: alphabet.count)] })
                return Song(
                    spotifyID: id,
                    name: "Song \(number)",
                    artist: "Artist \(number % 6)",
                    album: "Album \(number % 10)",
                    popularity: generator.next(below: 100),
                    durationMS: 150_000 + generator.next(below: 120_000),
                    genres: [energy > 0.5 ? "loud" : "soft"],
                    features: features
                )
            }
        }
    }

    /// The distinct tracks, in file order of their first row.
    public var songs: [Song]

    /// The whole tidytuesday file when `../shared/data` is present, else the bundled sample
    /// (`samples/tidytuesday-sample.csv`, 3,000 rows of the same file), so that tests over real
    /// features also run on a fresh clone.
    public static func realOrBundledSample() throws -> TidyTuesdaySongs {
        try TidyTuesdaySongs(
            path: SharedData.isAvailable
                ? SharedData.path("tidytuesday-2020-01-21/spotify_songs.csv") : SampleLibrary.path
        )
    }

    /// Reads the file at `path`.
    public init(path: String = SharedData.path("tidytuesday-2020-01-21/spotify_songs.csv")) throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let records = TidyTuesdaySongs.parseCSV(text)
        let header = records[0]
        func column(_ name: String) -> Int { header.firstIndex(of: name)! }
        let id = column("track_id")
        let name = column("track_name")
        let artist = column("track_artist")
        let album = column("track_album_name")
        let popularity = column("track_popularity")
        let duration = column("duration_ms")
        let genre = column("playlist_genre")
        var songs: [Song] = []
        var positions: [String: Int] = [:]
        for record in records.dropFirst() where record.count == header.count {
            if let position = positions[record[id]] {
                songs[position].genres.insert(record[genre])
                continue
            }
            var features = AudioFeatures()
            for feature in AudioFeature.allCases {
                if let index = header.firstIndex(of: feature.rawValue) { features[feature] = Double(record[index]) }
            }
            positions[record[id]] = songs.count
            songs.append(
                Song(
                    spotifyID: record[id],
                    name: record[name],
                    artist: record[artist],
                    album: record[album],
                    popularity: Int(record[popularity]),
                    durationMS: Int(record[duration]),
                    genres: [record[genre]],
                    features: features
                )
            )
        }
        self.songs = songs
    }

    /// The songs as a feature table, with track IDs 1, 2, 3, … in song order.
    public func featureTable() -> FeatureTable {
        var table = FeatureTable()
        for (offset, song) in songs.enumerated() { table.append(trackID: Int64(offset + 1), features: song.features) }
        return table
    }

    /// The genres of each song, keyed like ``featureTable()``.
    public func genreLabels() -> [Int64: Set<String>] {
        Dictionary(uniqueKeysWithValues: songs.enumerated().map { (Int64($0.offset + 1), $0.element.genres) })
    }

    /// Splits RFC 4180 text into records of fields (quoted fields may hold commas, quotes and newlines).
    public static func parseCSV(_ text: String) -> [[String]] {
        var records: [[String]] = []
        var record: [String] = []
        var field = [UInt8]()
        var inQuotes = false
        var bytes = Array(text.utf8).makeIterator()
        var pending: UInt8? = nil
        func next() -> UInt8? {
            if let byte = pending {
                pending = nil
                return byte
            }
            return bytes.next()
        }
        while let byte = next() {
            if inQuotes {
                if byte == UInt8(ascii: "\"") {
                    if let following = next() {
                        if following == UInt8(ascii: "\"") {
                            field.append(following)
                        } else {
                            inQuotes = false
                            pending = following
                        }
                    } else {
                        inQuotes = false
                    }
                } else {
                    field.append(byte)
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inQuotes = true
            case UInt8(ascii: ","):
                record.append(String(decoding: field, as: UTF8.self))
                field.removeAll(keepingCapacity: true)
            case UInt8(ascii: "\n"):
                record.append(String(decoding: field, as: UTF8.self))
                field.removeAll(keepingCapacity: true)
                records.append(record)
                record = []
            case UInt8(ascii: "\r"): break
            default: field.append(byte)
            }
        }
        if !field.isEmpty || !record.isEmpty {
            record.append(String(decoding: field, as: UTF8.self))
            records.append(record)
        }
        return records
    }
}
