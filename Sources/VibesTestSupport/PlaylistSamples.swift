import Features
import Foundation

/// Real playlists as ``Features/Playlist/Entry`` lists, for ordering tests: a tidytuesday-style CSV
/// grouped by `playlist_id`, or one Exportify export.
///
/// Entries keep the file's order; track IDs are row numbers, so a track listed twice stays two
/// entries.
public enum PlaylistSamples {
    /// A named playlist read from a file.
    public struct Sample: Sendable {
        public var name: String
        public var entries: [Playlist.Entry]
    }

    /// The playlists of a tidytuesday-style CSV (`playlist_id`, `track_artist`, `energy`, `key`,
    /// `mode`, `tempo` columns) with at least `minimumCount` tracks, by playlist ID.
    public static func tidyTuesday(path: String, minimumCount: Int = 10) throws -> [Sample] {
        let records = TidyTuesdaySongs.parseCSV(try String(contentsOfFile: path, encoding: .utf8))
        let header = records[0]
        func column(_ name: String) -> Int { header.firstIndex(of: name)! }
        let (playlist, name, artist) = (column("playlist_id"), column("track_name"), column("track_artist"))
        var byID: [String: [Playlist.Entry]] = [:]
        for (row, record) in records.dropFirst().enumerated() where record.count == header.count {
            byID[record[playlist], default: []].append(
                entry(row: row, name: record[name], artist: record[artist]) {
                    header.firstIndex(of: $0).map { record[$0] }
                }
            )
        }
        return byID.filter { $0.value.count >= minimumCount }.sorted { $0.key < $1.key }.map {
            Sample(name: $0.key, entries: $0.value)
        }
    }

    /// The tracks of an Exportify export (`Track Name`, `Artist Name(s)`, `Energy`, `Key`, `Mode`,
    /// `Tempo` columns).
    public static func exportify(path: String) throws -> Sample {
        var text = try String(contentsOfFile: path, encoding: .utf8)
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        let records = TidyTuesdaySongs.parseCSV(text)
        let header = records[0]
        let entries = records.dropFirst().enumerated().compactMap { row, record -> Playlist.Entry? in
            guard record.count == header.count else { return nil }
            func value(_ column: String) -> String? { header.firstIndex(of: column).map { record[$0] } }
            let artist = value("Artist Name(s)")?.split(separator: ",").first.map(String.init) ?? ""
            return entry(row: row, name: value("Track Name") ?? "", artist: artist) { column in
                value(column.prefix(1).uppercased() + column.dropFirst())
            }
        }
        return Sample(name: (path as NSString).lastPathComponent, entries: entries)
    }

    /// The Exportify CSV files under `directory`, sorted by path; empty when it is missing.
    public static func exportifyFiles(under directory: String) -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: directory) else { return [] }
        return enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".csv") }.sorted().map {
            directory + "/" + $0
        }
    }

    static func entry(row: Int, name: String, artist: String, value: (String) -> String?) -> Playlist.Entry {
        Playlist.Entry(
            trackID: Int64(row + 1),
            spotifyID: nil,
            name: name,
            artists: artist.isEmpty ? [] : [artist],
            features: AudioFeatures(
                energy: value("energy").flatMap(Double.init),
                key: value("key").flatMap { Double($0) }.map { Int($0) },
                mode: value("mode").flatMap { Double($0) }.map { Int($0) },
                tempo: value("tempo").flatMap(Double.init)
            )
        )
    }
}
