import Features
import Foundation

/// Writes a ``Playlist`` as M3U, as CSV with Exportify's columns, or as JSON.
public enum PlaylistExport {
    /// A file format for a playlist.
    public enum Format: String, CaseIterable, Sendable, Codable {
        /// Extended M3U: `#EXTINF:<seconds>,<artist> - <title>` then the file's path for tracks
        /// analysed from local files, else the `spotify:track:` URI.
        case m3u
        /// CSV with the columns of an Exportify export, so tools that read Exportify read it.
        case csv
        /// The ``Playlist`` as JSON, with snake_case keys.
        case json
    }

    /// Exportify's header row (as in its 2024–25 exports), in order.
    public static let exportifyColumns = [
        "Track URI", "Track Name", "Album Name", "Artist Name(s)", "Release Date", "Duration (ms)", "Popularity",
        "Explicit", "Added By", "Added At", "Genres", "Record Label", "Danceability", "Energy", "Key", "Loudness",
        "Mode", "Speechiness", "Acousticness", "Instrumentalness", "Liveness", "Valence", "Tempo", "Time Signature",
    ]

    /// Returns the text of `playlist` in `format`.
    ///
    /// - Throws: An `EncodingError` for JSON (not expected for valid playlists).
    public static func text(of playlist: Playlist, as format: Format) throws -> String {
        switch format {
        case .m3u: m3u(playlist)
        case .csv: csv(playlist)
        case .json: try json(playlist)
        }
    }

    /// Extended M3U with one `#EXTINF` line per track, then where to play it: the audio file's path
    /// when the track was analysed from one (any local player plays the list), else its Spotify
    /// URI; a track with neither is written as a comment, since a player cannot resolve it.
    static func m3u(_ playlist: Playlist) -> String {
        var lines = ["#EXTM3U", "#PLAYLIST:\(singleLine(playlist.name))"]
        if !playlist.description.isEmpty { lines.append("#EXTALB:\(singleLine(playlist.description))") }
        for entry in playlist.entries {
            let seconds =
                entry.durationMS.flatMap { Track.validDurationMS.contains($0) ? ($0 + 500) / 1000 : nil } ?? -1
            let title = (entry.artists.isEmpty ? "" : entry.artists.joined(separator: ", ") + " - ") + entry.name
            lines.append("#EXTINF:\(seconds),\(singleLine(title))")
            lines.append(
                entry.filePath.map(singleLine) ?? entry.spotifyID?.trackURI
                    ?? "# local track \(entry.trackID): not on Spotify"
            )
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// CSV with ``exportifyColumns``: text fields quoted, artists separated by `;` and genres by
    /// `,` as Exportify does. Release date, explicit, added by/at, genres and label come from each
    /// entry's ``Playlist/Entry/exportDetails``; cells are empty for what is not known.
    static func csv(_ playlist: Playlist) -> String {
        var lines = [exportifyColumns.joined(separator: ",")]
        for entry in playlist.entries {
            let f = entry.features
            let details = entry.exportDetails
            let cells: [String] = [
                entry.spotifyID?.trackURI ?? "", quoted(entry.name), quoted(entry.album ?? ""),
                quoted(entry.artists.joined(separator: ";")), quoted(details?.releaseDate ?? ""),
                entry.durationMS.map(String.init) ?? "", entry.popularity.map(String.init) ?? "",
                details?.isExplicit.map { $0 ? "true" : "false" } ?? "", quoted(details?.addedBy ?? ""),
                quoted(details?.addedAt ?? ""), quoted((details?.genres ?? []).joined(separator: ",")),
                quoted(details?.recordLabel ?? ""),
                number(f.danceability), number(f.energy), f.key.map(String.init) ?? "", number(f.loudness),
                f.mode.map(String.init) ?? "", number(f.speechiness), number(f.acousticness),
                number(f.instrumentalness),
                number(f.liveness), number(f.valence), number(f.tempo), f.timeSignature.map(String.init) ?? "",
            ]
            lines.append(cells.joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func json(_ playlist: Playlist) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(playlist), as: UTF8.self) + "\n"
    }

    private static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// Features are measured in single precision; print the shortest text that reads back the same
    /// `Float` (0.542, not 0.5419999957084656).
    private static func number(_ value: Double?) -> String {
        value.map { Float($0).description } ?? ""
    }

    private static func singleLine(_ text: String) -> String {
        String(text.map { $0 == "\n" || $0 == "\r" ? " " : $0 })
    }
}
