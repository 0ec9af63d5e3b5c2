import Features
import Foundation
import SpotifyWebModel

extension SpotifyClient {
    /// The most IDs one `/audio-features` request takes.
    public static let audioFeaturesBatchSize = 100

    /// One track by ID (`GET /tracks/{id}`).
    public func track(_ id: SpotifyID) async throws -> SpotifyTrackObject {
        try await decode(SpotifyTrackObject.self, "tracks/\(id)")
    }

    /// Tracks by ID, in the order given; `nil` where Spotify knows no such track.
    ///
    /// Asks in batches of 50 (`GET /tracks?ids=`) while the API allows it; when it refuses the
    /// deprecated batch endpoint (403 or 404), fetches one by one from then on. Empty input makes
    /// no request.
    public func tracks(_ ids: [SpotifyID]) async throws -> [SpotifyTrackObject?] {
        struct Batch: Decodable { var tracks: [SpotifyTrackObject?] }
        return try await fetchBatched(
            ids,
            singly: \.fetchesTracksSingly,
            batch: { try await decode(Batch.self, "tracks", query: [("ids", $0)]).tracks },
            single: { try await track($0) }
        )
    }

    /// One artist by ID (`GET /artists/{id}`).
    public func artist(_ id: SpotifyID) async throws -> SpotifyFullArtistObject {
        try await decode(SpotifyFullArtistObject.self, "artists/\(id)")
    }

    /// Artists by ID, batched like ``tracks(_:)``.
    public func artists(_ ids: [SpotifyID]) async throws -> [SpotifyFullArtistObject?] {
        struct Batch: Decodable { var artists: [SpotifyFullArtistObject?] }
        return try await fetchBatched(
            ids,
            singly: \.fetchesArtistsSingly,
            batch: { try await decode(Batch.self, "artists", query: [("ids", $0)]).artists },
            single: { try await artist($0) }
        )
    }

    /// The largest page `/search` serves a development-mode app: since February 2026 Spotify
    /// answers `400 Invalid limit` above 10 for apps without extended quota.
    public static let searchPageLimit = 10

    /// Searches the catalogue (`GET /search`) for one kind of item; the results hold that kind's
    /// items, up to `limit` of them.
    ///
    /// Asks in pages of ``searchPageLimit`` (`offset` 0, 10, …), which every app may, and stops
    /// early when Spotify has no more.
    ///
    /// - Parameters:
    ///   - query: Spotify's search syntax, such as `artist:Radiohead track:Reckoner`.
    ///   - type: What to look for.
    ///   - limit: How many items, 1 to 50. Defaults to 10.
    public func search(_ query: String, type: SpotifySearchType, limit: Int = 10) async throws -> SpotifySearchResults {
        let wanted = max(1, min(limit, 50))
        var merged: SpotifySearchResults?
        var offset = 0
        while offset < wanted {
            let size = min(Self.searchPageLimit, wanted - offset)
            let page = try await decode(
                SpotifySearchResults.self,
                "search",
                query: [("q", query), ("type", type.rawValue), ("limit", "\(size)"), ("offset", "\(offset)")]
            )
            let found = page.count(of: type)
            if var results = merged {
                results.append(page, of: type)
                merged = results
            } else {
                merged = page
            }
            offset += size
            if found.items < size || offset >= (found.total ?? .max) { break }
        }
        return merged ?? SpotifySearchResults()
    }

    /// Searches the catalogue for tracks (`GET /search?type=track`), in pages of
    /// ``searchPageLimit``.
    ///
    /// - Parameters:
    ///   - query: Spotify's search syntax, such as `artist:Radiohead track:Reckoner`.
    ///   - limit: 1 to 50. Defaults to 10.
    public func searchTracks(_ query: String, limit: Int = 10) async throws -> [SpotifyTrackObject] {
        try await search(query, type: .track, limit: limit).tracks?.items.compactMap { $0 } ?? []
    }

    /// Audio features by track ID, in batches of 100 (`GET /audio-features?ids=`).
    ///
    /// Spotify returns `null` for tracks it has no features for; those are absent from the result.
    /// Empty input makes no request.
    ///
    /// - Throws: ``SpotifyError/audioFeaturesForbidden(clientID:)`` when Spotify answers 403, as it
    ///   does for every app created after 2024-11-27. Callers should stop asking and point the user
    ///   at file imports.
    public func audioFeatures(for ids: [SpotifyID]) async throws -> [SpotifyID: AudioFeatures] {
        struct Batch: Decodable {
            var audioFeatures: [SpotifyAudioFeaturesObject?]
            enum CodingKeys: String, CodingKey { case audioFeatures = "audio_features" }
        }
        var result: [SpotifyID: AudioFeatures] = [:]
        for chunk in ids.chunked(into: Self.audioFeaturesBatchSize) {
            let batch: Batch
            do {
                batch = try await decode(
                    Batch.self,
                    "audio-features",
                    query: [("ids", chunk.map(\.rawValue).joined(separator: ","))]
                )
            } catch SpotifyError.http(status: 403, _, _) {
                throw SpotifyError.audioFeaturesForbidden(clientID: clientID ?? "(unknown)")
            }
            for entry in batch.audioFeatures {
                if let entry, let id = entry.id.flatMap({ SpotifyID($0) }) { result[id] = entry.features }
            }
        }
        return result
    }

    private func fetchBatched<T: Sendable>(
        _ ids: [SpotifyID],
        singly flag: WritableKeyPath<Fallbacks, Bool>,
        batch: (String) async throws -> [T?],
        single: (SpotifyID) async throws -> T
    ) async throws -> [T?] {
        var result: [T?] = []
        for chunk in ids.chunked(into: 50) {
            if !fallbacks.withLock({ $0[keyPath: flag] }) {
                do {
                    result += try await batch(chunk.map(\.rawValue).joined(separator: ","))
                    continue
                } catch SpotifyError.http(let status, _, _) where status == 403 || status == 404 {
                    logger.info("The batch endpoint answered \(status); fetching one by one.")
                    fallbacks.withLock { $0[keyPath: flag] = true }
                }
            }
            for id in chunk {
                do {
                    result.append(try await single(id))
                } catch SpotifyError.http(status: 404, _, _) {
                    result.append(nil)
                }
            }
        }
        return result
    }
}
