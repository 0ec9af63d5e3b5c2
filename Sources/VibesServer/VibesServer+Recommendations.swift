import Analytics
import Features
import FlyingFox
import Foundation
import Ingest
import VibesEngine

// Spotify's `GET /v1/recommendations`, answered over the library by the warm recommender of
// ``LibraryCache``: the request parameters of Spotify's OpenAPI, and its `RecommendationsObject`
// with the track-object fields the store knows.

extension VibesServer {
    /// `GET /v1/recommendations?seed_tracks=…&seed_artists=…&seed_genres=…&limit=…&target_energy=…`.
    ///
    /// Seeds are 1 to 5 in all: tracks by Spotify ID, artists by Spotify ID (as a Spotify sync
    /// stored them) or by name, genres by tag. Every `min_`, `max_` and `target_` attribute of
    /// the old endpoint is taken. Filters that leave nothing answer an empty `tracks` list, as
    /// Spotify did.
    func recommendations(_ request: HTTPRequest) throws -> HTTPResponse {
        let snapshot = library.snapshot
        let recommender = try snapshot.recommender.get()
        let limit = try Self.integer(request.query["limit"], name: "limit", in: 1...100) ?? 20
        var query = RecommendationQuery(count: limit)
        try Self.applyTunables(from: request, to: &query)
        let seeds = try resolveSeeds(of: request, in: recommender)
        query.seeds = seeds.map(\.seed)
        let limits = ArtistLimits(
            maximumPerArtist: nil,
            sameArtist: false,
            hasTrackSeeds: seeds.contains { $0.object.type == "track" }
        )
        query.maximumPerArtist = limits.perArtist
        query.maximumPerSeedArtist = limits.perSeedArtist
        // Bounds that leave nothing answer an empty list, as Spotify did.
        let (recommendations, candidates, afterFilters): ([Recommendation], Int, Int)
        do {
            let result = try recommender.recommend(query)
            (recommendations, candidates, afterFilters) =
                (result.recommendations, result.pool.candidates, result.pool.afterFilters)
        } catch RecommendationError.nothingLeft(let count) {
            (recommendations, candidates, afterFilters) = ([], count, 0)
        } catch let error as RecommendationError {
            throw APIError.badRequest(error.description)
        }
        let summaries = try store.trackSummaries(for: recommendations.map(\.trackID))
        let tracks = recommendations.compactMap { recommendation in
            summaries[recommendation.trackID].map { RecommendedTrack(summary: $0, recommendation: recommendation) }
        }
        let seedObjects = seeds.map { seed in
            var object = seed.object
            object.initialPoolSize = candidates
            object.afterFilteringSize = afterFilters
            object.afterRelinkingSize = afterFilters
            return object
        }
        return try Self.json(RecommendationsObject(tracks: tracks, seeds: seedObjects))
    }

    /// The seeds of `request`, in the order seed_tracks, seed_artists, seed_genres.
    ///
    /// - Throws: ``APIError`` 400 naming the parameter of a seed that is not valid or not in the
    ///   library, or when there are not 1 to 5 seeds.
    func resolveSeeds(
        of request: HTTPRequest,
        in recommender: Recommender
    ) throws -> [(seed: RecommendationSeed, object: SeedObject)] {
        func values(_ name: String) -> [String] {
            (request.query[name] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty }
        }
        let (tracks, artists, genres) = (values("seed_tracks"), values("seed_artists"), values("seed_genres"))
        let count = tracks.count + artists.count + genres.count
        guard (1...RecommendationQuery.maximumSeedCount).contains(count) else {
            throw APIError.badRequest(
                "Give 1 to \(RecommendationQuery.maximumSeedCount) seeds in all with seed_tracks, seed_artists "
                    + "and seed_genres, comma-separated (got \(count))."
            )
        }
        var seeds: [(seed: RecommendationSeed, object: SeedObject)] = []
        for text in tracks {
            guard let id = SpotifyID(uri: text, category: "track") else {
                throw APIError.badRequest("seed_tracks: \"\(text)\" is not a Spotify track ID.")
            }
            guard let trackID = try store.trackID(spotifyID: id) else {
                throw APIError.badRequest("seed_tracks: the library has no track \(id).")
            }
            guard recommender.row(of: trackID) != nil else {
                throw APIError.badRequest("seed_tracks: track \(id) has no audio features in the library.")
            }
            seeds.append(
                (.track(trackID), SeedObject(id: text, type: "track", href: Nullable(Self.webAPI("tracks", id))))
            )
        }
        for text in artists {
            let id = SpotifyID(uri: text, category: "artist")
            let match = try id.map { try store.artist(spotifyID: $0) } ?? store.searchArtist(matching: text)
            guard let match else {
                throw APIError.badRequest("seed_artists: the library has no artist \"\(text)\".")
            }
            guard match.trackIDs.contains(where: { recommender.row(of: $0) != nil }) else {
                throw APIError.badRequest(
                    "seed_artists: no track of \(match.name) has audio features in the library."
                )
            }
            seeds.append(
                (
                    .tracks(match.trackIDs, label: "artist \(match.name)"),
                    SeedObject(id: text, type: "artist", href: Nullable(id.map { Self.webAPI("artists", $0) }))
                )
            )
        }
        if !genres.isEmpty {
            let index = try library.genreSeeds()
            for text in genres {
                let members = index[LibraryCache.genreKey(text)] ?? []
                guard members.contains(where: { recommender.row(of: $0) != nil }) else {
                    throw APIError.badRequest(
                        "seed_genres: no track with audio features in the library is tagged \"\(text)\"."
                    )
                }
                seeds.append(
                    (.tracks(members, label: "genre \(text)"), SeedObject(id: text, type: "genre", href: Nullable(nil)))
                )
            }
        }
        return seeds
    }

    /// Sets the `min_`, `max_` and `target_` parameters of `request` on `query`.
    ///
    /// - Throws: ``APIError`` 400 naming a parameter that is not a number in its attribute's
    ///   range, or a `min_` above its `max_`.
    static func applyTunables(from request: HTTPRequest, to query: inout RecommendationQuery) throws {
        for attribute in TunableAttribute.allCases {
            let range = attribute.acceptedRange
            func value(_ prefix: String) throws -> Double? {
                let name = prefix + attribute.rawValue
                guard let text = request.query[name] else { return nil }
                guard let value = Double(text), range.contains(value) else {
                    throw APIError.badRequest(
                        "\(name) must be a number from \(range.lowerBound.formatted()) to \(range.upperBound.formatted()) (got \"\(text)\")."
                    )
                }
                return value
            }
            let (minimum, maximum, target) = (try value("min_"), try value("max_"), try value("target_"))
            if let minimum, let maximum, minimum > maximum {
                throw APIError.badRequest(
                    "min_\(attribute.rawValue) \(minimum.formatted()) is above max_\(attribute.rawValue) \(maximum.formatted()); no track can match."
                )
            }
            if let minimum { query.setMinimum(minimum, for: attribute) }
            if let maximum { query.setMaximum(maximum, for: attribute) }
            if let target { query.setTarget(target, for: attribute) }
        }
    }

    /// The Web API address of a track or an artist, as Spotify's objects link them.
    static func webAPI(_ collection: String, _ id: SpotifyID) -> String {
        "https://api.spotify.com/v1/\(collection)/\(id.rawValue)"
    }
}

// MARK: - Bodies

/// Spotify's `RecommendationsObject`.
struct RecommendationsObject: Encodable {
    var tracks: [RecommendedTrack]
    var seeds: [SeedObject]
}

/// Spotify's `RecommendationSeedObject`; the pool sizes are the whole query's.
struct SeedObject: Encodable {
    var id: String
    var type: String
    /// The Web API address of the seed; `null` for a genre, as Spotify sent it.
    var href: Nullable<String>
    var initialPoolSize = 0
    var afterFilteringSize = 0
    var afterRelinkingSize = 0
}

/// A value encoded as `null` when absent, where Spotify's objects have the key either way.
struct Nullable<Wrapped: Encodable>: Encodable {
    var value: Wrapped?

    init(_ value: Wrapped?) {
        self.value = value
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let value { try container.encode(value) } else { try container.encodeNil() }
    }
}

/// Spotify's `TrackObject` with the fields the store knows, and under `vibes` why it was
/// recommended.
struct RecommendedTrack: Encodable {
    /// The store's track ID, the similarity to the seeds, the ranking score, the target fit, the
    /// seed the track was found for, and the reasons.
    struct Reasons: Encodable {
        var trackID: Int64
        var similarity: Double
        var score: Double
        var targetFit: Nullable<Double>
        var seed: String
        var why: [String]

        enum CodingKeys: String, CodingKey {
            case similarity, score, seed, why
            case trackID = "track_id"
            case targetFit = "target_fit"
        }
    }

    struct Named: Encodable {
        var name: String
        var type: String
    }

    struct Album: Encodable {
        var name: String
        var type = "album"
        var images: [String] = []
    }

    var summary: TrackSummary
    var recommendation: Recommendation

    enum CodingKeys: String, CodingKey {
        case id, name, type, uri, href, artists, album, popularity, vibes
        case durationMS = "duration_ms"
        case externalURLs = "external_urls"
        case isLocal = "is_local"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        let id = summary.spotifyID.flatMap { SpotifyID($0) }
        try container.encode(id?.rawValue, forKey: .id)
        try container.encode(summary.name, forKey: .name)
        try container.encode("track", forKey: .type)
        try container.encode(id?.trackURI, forKey: .uri)
        try container.encode(id.map { VibesServer.webAPI("tracks", $0) }, forKey: .href)
        let link = id.map { ["spotify": "https://open.spotify.com/track/\($0.rawValue)"] }
        try container.encode(link ?? [:], forKey: .externalURLs)
        try container.encode(id == nil, forKey: .isLocal)
        try container.encode(summary.artists.map { Named(name: $0, type: "artist") }, forKey: .artists)
        try container.encode(summary.album.map { Album(name: $0) }, forKey: .album)
        try container.encode(summary.durationMS, forKey: .durationMS)
        try container.encode(summary.popularity, forKey: .popularity)
        let reasons = Reasons(
            trackID: summary.id,
            similarity: recommendation.similarity,
            score: recommendation.score,
            targetFit: Nullable(recommendation.targetFit),
            seed: recommendation.seed,
            why: recommendation.reasons
        )
        try container.encode(reasons, forKey: .vibes)
    }
}
