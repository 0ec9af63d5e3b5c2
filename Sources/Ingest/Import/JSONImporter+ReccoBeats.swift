import Features
import Foundation

extension JSONImporter {
    /// A saved `/v1/audio-features` answer: each item names its track by `href` (the Spotify link)
    /// and `isrc`. Values are stored with the source `reccobeats`, as a live fetch stores them.
    func importReccoBeats(_ answer: ReccoBeatsContent<ReccoBeatsAudioFeaturesObject>) throws {
        var nameless = 0
        for (index, item) in answer.content.enumerated() {
            try context.row(bytesRead: 0) {
                guard let id = item.spotifyID else {
                    throw context.error(
                        field: "content[\(index)].href",
                        "expected an open.spotify.com track link, found \(item.href.map { "\"\($0)\"" } ?? "none")"
                    )
                }
                let written = try context.writer.write(
                    Track(spotifyID: id, name: "", artists: [], isrc: ReccoBeatsProvider.normalizedISRC(item.isrc))
                )
                if written.isNew { nameless += 1 }
                let features = try validFeatures(item.features, field: "content[\(index)].")
                try context.writer.write(features, trackID: written.id, source: .reccoBeats)
            }
        }
        if nameless > 0 {
            context.notes.append(
                "\(nameless) tracks are known only by ID; import their metadata (saved tracks, playlists) to name them"
            )
        }
    }
}
