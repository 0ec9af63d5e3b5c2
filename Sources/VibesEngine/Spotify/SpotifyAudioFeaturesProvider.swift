import Features
import Foundation
import Ingest
import SpotifyWebAPI

/// The legacy Spotify `/audio-features` link of the feature-source chain, for apps that still
/// have it.
///
/// It is used only while the store has not recorded a 403 for this client ID (Spotify closed the
/// endpoint to apps created after 2024-11-27); the first 403 is recorded, and the chain moves on
/// to the next provider.
public struct SpotifyAudioFeaturesProvider: FeatureProvider {
    public let client: SpotifyClient
    public let store: LibraryStore
    /// Ask even though this client ID got 403 before.
    public let recheck: Bool
    let now: @Sendable () -> Date

    public init(
        client: SpotifyClient,
        store: LibraryStore,
        recheck: Bool = false,
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.client = client
        self.store = store
        self.recheck = recheck
        self.now = now
    }

    /// The capability key recorded for `/audio-features`.
    public static let capability = "audio-features"

    public var source: FeatureSource { .spotifyAPI }
    public var name: String { "Spotify /audio-features" }
    public var batchSize: Int { SpotifyClient.audioFeaturesBatchSize }
    public var requestCount: Int { client.requestCounter.value }
    var clientID: String { client.clientID ?? "(unknown)" }

    public func unavailabilityReason() async throws -> String? {
        guard !recheck, try store.spotifyCapability(Self.capability, clientID: clientID) == "forbidden" else {
            return nil
        }
        return "client ID \(clientID) got 403 from /audio-features before (closed to apps created after 2024-11-27)"
    }

    public func canLookUp(_ track: FeatureLookup) -> Bool { track.spotifyID != nil }

    public func lookUp(_ batch: [FeatureLookup]) async throws -> FeatureLookupResult {
        let ids = batch.compactMap(\.spotifyID)
        let features: [SpotifyID: AudioFeatures]
        do {
            features = try await client.audioFeatures(for: ids)
        } catch SpotifyError.audioFeaturesForbidden {
            try store.recordSpotifyCapability(Self.capability, clientID: clientID, isAllowed: false, at: now())
            throw FeatureProviderUnavailableError(
                provider: name,
                reason: "Spotify answered 403 for client ID \(clientID) (closed to apps created after 2024-11-27)"
            )
        }
        try store.recordSpotifyCapability(Self.capability, clientID: clientID, isAllowed: true, at: now())
        var result = FeatureLookupResult()
        for track in batch {
            if let id = track.spotifyID, let values = features[id] {
                result.found[track.trackID] = values
            } else {
                result.notFound.insert(track.trackID)
            }
        }
        return result
    }
}
