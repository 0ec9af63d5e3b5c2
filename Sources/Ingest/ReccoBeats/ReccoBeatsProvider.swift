import Features
import Foundation

/// The ReccoBeats link of the feature-source chain.
///
/// Per batch of at most 40 tracks it asks by Spotify ID and maps every answer back through its
/// `href`. Tracks whose ID found nothing, and tracks without a Spotify ID, are then asked by ISRC.
/// When an ISRC gives several records, their track details are fetched and the record whose
/// title, artist and duration fit best is chosen. Items for IDs that were not asked for are
/// ignored and counted. Values are stored as ReccoBeats gives them: no time signature.
public struct ReccoBeatsProvider: FeatureProvider {
    public let client: ReccoBeatsClient

    public init(client: ReccoBeatsClient) {
        self.client = client
    }

    public var source: FeatureSource { .reccoBeats }
    public var name: String { "ReccoBeats" }
    public var batchSize: Int { ReccoBeatsClient.batchSize }
    public var requestCount: Int { client.requestCounter.value }

    public func unavailabilityReason() async throws -> String? { nil }

    public func canLookUp(_ track: FeatureLookup) -> Bool {
        track.spotifyID != nil || Self.normalizedISRC(track.isrc) != nil
    }

    public func lookUp(_ batch: [FeatureLookup]) async throws -> FeatureLookupResult {
        var result = FeatureLookupResult()

        // 1. By Spotify ID, mapped back through `href`.
        let bySpotifyID = Dictionary(
            batch.compactMap { track in track.spotifyID.map { ($0.rawValue, track.trackID) } },
            uniquingKeysWith: { first, _ in first }
        )
        if !bySpotifyID.isEmpty {
            for item in try await Self.allowingNotFound({
                try await client.audioFeatures(ids: Array(bySpotifyID.keys).sorted())
            }) {
                guard let id = item.spotifyID?.rawValue, let trackID = bySpotifyID[id] else {
                    result.ignoredItems += 1
                    continue
                }
                if result.found[trackID] == nil { result.found[trackID] = item.features }
            }
        }

        // 2. By ISRC, for what the ID did not find.
        var byISRC: [String: [FeatureLookup]] = [:]
        for track in batch where result.found[track.trackID] == nil {
            if let isrc = Self.normalizedISRC(track.isrc) { byISRC[isrc, default: []].append(track) }
        }
        if !byISRC.isEmpty {
            var records: [String: [ReccoBeatsAudioFeaturesObject]] = [:]
            // A service that refuses ISRCs (4xx) leaves those tracks not found; the batch's finds stand.
            let answer = try await Self.allowingNotFound(refusalsToo: true) {
                try await client.audioFeatures(ids: Array(byISRC.keys).sorted())
            }
            for item in answer {
                guard let isrc = Self.normalizedISRC(item.isrc), byISRC[isrc] != nil else {
                    result.ignoredItems += 1
                    continue
                }
                records[isrc, default: []].append(item)
            }
            let ambiguous = records.values.filter { $0.count > 1 }.flatMap { $0.compactMap(\.id) }
            var details: [String: ReccoBeatsTrackObject] = [:]
            for chunk in Array(Set(ambiguous)).sorted().chunked(into: ReccoBeatsClient.batchSize) {
                // Without details, the first record stands; with them, the best fit.
                for track in try await Self.allowingNotFound(
                    refusalsToo: true,
                    { try await client.tracks(ids: Array(chunk)) }
                ) {
                    if let id = track.id { details[id] = track }
                }
            }
            for (isrc, tracks) in byISRC {
                guard let candidates = records[isrc], !candidates.isEmpty else { continue }
                for track in tracks {
                    let chosen =
                        candidates.count == 1
                        ? candidates[0]
                        : candidates.max { lhs, rhs in
                            Self.fit(of: lhs.id.flatMap { details[$0] }, to: track)
                                < Self.fit(of: rhs.id.flatMap { details[$0] }, to: track)
                        }!
                    result.found[track.trackID] = chosen.features
                    result.matchedByISRC += 1
                }
            }
        }
        result.notFound = Set(batch.map(\.trackID)).subtracting(result.found.keys)
        return result
    }

    /// Runs a lookup, reading ReccoBeats' own "not found" (404 with code 4041) as an empty
    /// answer, and with `refusalsToo` any other 4xx but 429 that carries a ReccoBeats error code.
    ///
    /// A 404 without ReccoBeats' code (a mistyped base URL, a proxy's page) or with 4042 (no such
    /// endpoint) is not an answer about the tracks: it is thrown, so the chain stops, reports it
    /// and records nothing, rather than marking every track "not found" for a month.
    static func allowingNotFound<Item>(
        refusalsToo: Bool = false,
        _ body: () async throws -> [Item]
    ) async throws -> [Item] {
        do {
            return try await body()
        } catch ReccoBeatsError.http(let status, let code?, _, _)
            where code != 4042 && (status == 404 && code == 4041 || refusalsToo && (400..<500).contains(status))
        {
            return []
        }
    }

    /// An ISRC in canonical form (12 characters, upper case, no hyphens), or `nil`.
    static func normalizedISRC(_ text: String?) -> String? {
        guard let text else { return nil }
        let compact = text.uppercased().filter { $0.isLetter || $0.isNumber }
        return compact.count == 12 ? compact : nil
    }

    /// How well a record's details fit a track: title and main artist equal after folding count
    /// most, then a duration within 2 s, then the closer duration. Records without details rank last.
    static func fit(of record: ReccoBeatsTrackObject?, to track: FeatureLookup) -> Double {
        guard let record else { return -1 }
        var score = 0.0
        if let title = record.trackTitle, Track.normalizedName(title) == Track.normalizedName(track.title) {
            score += 4
        }
        if let artist = track.artist,
            record.artists?.contains(where: { Track.normalizedName($0.name ?? "") == Track.normalizedName(artist) })
                == true
        {
            score += 2
        }
        if let wanted = track.durationMS, let duration = record.durationMs {
            let gap = Double(abs(wanted - duration))
            if gap <= 2000 { score += 1 }
            score += 1 / (1 + gap / 1000)
        }
        return score
    }
}
