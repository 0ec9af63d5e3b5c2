import Features
import FlyingFox
import Foundation
import Ingest

// Spotify's `GET /v1/audio-features` and `GET /v1/audio-features/{id}`, answered from the store:
// the values in force under the feature-source precedence, in the shape of Spotify's OpenAPI
// `AudioFeaturesObject`.

extension VibesServer {
    /// The most IDs one request may ask for, as Spotify allows.
    static let maximumAudioFeatureIDs = 100

    /// `GET /v1/audio-features?ids=A,B,…`: one object per ID in order, `null` for an ID the
    /// library has no features for.
    func audioFeatures(_ request: HTTPRequest) throws -> HTTPResponse {
        let text = request.query["ids"] ?? ""
        let ids = text.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard !text.isEmpty else { throw APIError.badRequest("Give up to 100 Spotify track IDs as ?ids=ID,ID.") }
        guard ids.count <= Self.maximumAudioFeatureIDs else {
            throw APIError.badRequest("Ask for at most \(Self.maximumAudioFeatureIDs) IDs at once (got \(ids.count)).")
        }
        let parsed = try ids.map { id in
            guard let spotifyID = SpotifyID(id) else {
                throw APIError.badRequest("Invalid Spotify track ID: \"\(id)\".")
            }
            return spotifyID
        }
        return try Self.json(AudioFeaturesList(audioFeatures: try parsed.map(audioFeaturesObject(for:))))
    }

    /// `GET /v1/audio-features/{id}`: one object, or 404 when the library has no features for it.
    func audioFeatures(id text: String) throws -> HTTPResponse {
        guard let id = SpotifyID(text) else { throw APIError.badRequest("Invalid Spotify track ID: \"\(text)\".") }
        guard let object = try audioFeaturesObject(for: id) else {
            throw APIError.notFound("The library has no audio features for track \(id).")
        }
        return try Self.json(object)
    }

    /// The features in force for the track with Spotify ID `id`, or `nil` when the library has
    /// no such track or no features for it.
    func audioFeaturesObject(for id: SpotifyID) throws -> AudioFeaturesObject? {
        guard let trackID = try store.trackID(spotifyID: id), let values = library.features(ofTrack: trackID) else {
            return nil
        }
        let duration = try store.trackSummaries(for: [trackID])[trackID]?.durationMS
        return AudioFeaturesObject(id: id, values: values, durationMS: duration)
    }
}

/// `{"audio_features": [...]}`.
struct AudioFeaturesList: Encodable {
    var audioFeatures: [AudioFeaturesObject?]

    enum CodingKeys: String, CodingKey {
        case audioFeatures = "audio_features"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        var list = container.nestedUnkeyedContainer(forKey: .audioFeatures)
        for object in audioFeatures {
            if let object { try list.encode(object) } else { try list.encodeNil() }
        }
    }
}

/// Spotify's `AudioFeaturesObject`: every feature, `null` when the store has no value for it.
struct AudioFeaturesObject: Encodable {
    var id: SpotifyID
    var values: [AudioFeature: Float]
    var durationMS: Int?

    enum CodingKeys: String, CodingKey {
        case id, type, uri
        case trackHref = "track_href"
        case analysisURL = "analysis_url"
        case durationMS = "duration_ms"
    }

    struct FeatureKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// The features Spotify sends as integers.
    static let integerFeatures: Set<AudioFeature> = [.key, .mode, .timeSignature]

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id.rawValue, forKey: .id)
        try container.encode("audio_features", forKey: .type)
        try container.encode(id.trackURI, forKey: .uri)
        try container.encode("https://api.spotify.com/v1/tracks/\(id.rawValue)", forKey: .trackHref)
        try container.encode("https://api.spotify.com/v1/audio-analysis/\(id.rawValue)", forKey: .analysisURL)
        try container.encode(durationMS, forKey: .durationMS)
        var features = encoder.container(keyedBy: FeatureKey.self)
        for feature in AudioFeature.allCases {
            let key = FeatureKey(stringValue: feature.rawValue)
            guard let value = values[feature] else {
                try features.encodeNil(forKey: key)
                continue
            }
            if Self.integerFeatures.contains(feature) {
                try features.encode(Int(value.rounded()), forKey: key)
            } else {
                // The shortest decimal that reads back as the stored Float: 0.8, not 0.800000011920929.
                try features.encode(Double("\(value)") ?? Double(value), forKey: key)
            }
        }
    }
}
