import Features
import Foundation

extension JSONImporter {
    /// Detects which JSON format `data` is, from its top-level keys.
    static func detectFormat(_ data: Data) -> ImportFormat? {
        guard let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
            return nil
        }
        if let array = object as? [Any] {
            guard let first = array.first(where: { $0 is [String: Any] }) as? [String: Any] else {
                return array.isEmpty ? .streamingHistory : nil
            }
            if first["endTime"] != nil && first["msPlayed"] != nil { return .streamingHistory }
            if first["ts"] != nil && first["ms_played"] != nil { return .extendedHistory }
            return nil
        }
        guard let dictionary = object as? [String: Any] else { return nil }
        if let content = dictionary["content"] as? [Any] {
            let first = content.first { $0 is [String: Any] } as? [String: Any]
            if first == nil || first?["href"] != nil || first?["isrc"] != nil { return .reccoBeatsJSON }
        }
        if dictionary["playlists"] is [Any] { return .accountPlaylists }
        if dictionary["tracks"] is [Any],
            dictionary["bannedTracks"] != nil || dictionary["albums"] != nil
                || dictionary["shows"] != nil
        {
            if let tracks = dictionary["tracks"] as? [[String: Any]], let first = tracks.first, first["type"] != nil {
                return .spotifyJSON
            }
            return .yourLibrary
        }
        if dictionary["audio_features"] != nil || dictionary["danceability"] != nil || dictionary["items"] != nil
            || dictionary["tracks"] != nil || dictionary["type"] as? String == "track"
        {
            return .spotifyJSON
        }
        return nil
    }

    /// Names Spotify objects that parse but carry nothing to import (profiles, artists, players).
    static func unimportableKind(_ data: Data) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        switch object["type"] as? String {
        case "user": return "a Spotify user profile (/v1/me)"
        case "artist": return "a Spotify artist object"
        default: break
        }
        if object["artists"] is [Any] { return "a list of Spotify artists" }
        if object["is_playing"] != nil || object["device"] != nil { return "the Spotify player state (/v1/me/player)" }
        return nil
    }
}
