import Features
import Foundation

/// A track a ``FeatureProvider`` is asked about: its store ID and everything that can identify it.
public struct FeatureLookup: Hashable, Sendable {
    /// The track's ID in the store.
    public var trackID: Int64
    public var spotifyID: SpotifyID?
    public var isrc: String?
    public var title: String
    /// The main artist.
    public var artist: String?
    public var durationMS: Int?

    public init(
        trackID: Int64,
        spotifyID: SpotifyID?,
        isrc: String?,
        title: String,
        artist: String?,
        durationMS: Int?
    ) {
        self.trackID = trackID
        self.spotifyID = spotifyID
        self.isrc = isrc
        self.title = title
        self.artist = artist
        self.durationMS = durationMS
    }
}

/// What a provider answered for one batch.
public struct FeatureLookupResult: Sendable {
    /// Features by store track ID. Fields the provider does not give stay `nil`.
    public var found: [Int64: AudioFeatures] = [:]
    /// Tracks the provider was asked about and does not know.
    public var notFound: Set<Int64> = []
    /// Items in the answer for IDs that were not asked for, ignored.
    public var ignoredItems = 0
    /// Tracks matched through their ISRC rather than their Spotify ID.
    public var matchedByISRC = 0

    public init() {}
}

/// One link of the feature-source chain: a source that can supply audio features for tracks.
///
/// ``FeatureChain`` asks providers in order for the tracks that still lack features, in batches
/// of ``batchSize``, and writes what they find with their ``source``. The chain is open: the
/// legacy Spotify endpoint, ReccoBeats and local analysis results are all providers.
public protocol FeatureProvider: Sendable {
    /// The provenance stored with the values.
    var source: FeatureSource { get }
    /// The provider's name, for messages ("ReccoBeats").
    var name: String { get }
    /// How many tracks one ``lookUp(_:)`` call takes.
    var batchSize: Int { get }
    /// Requests sent so far, retries included.
    var requestCount: Int { get }

    /// Why the provider cannot be used now (such as a remembered 403), or `nil` when it can.
    func unavailabilityReason() async throws -> String?

    /// Whether the provider can look `track` up at all (it has the identifiers the provider needs).
    func canLookUp(_ track: FeatureLookup) -> Bool

    /// Looks up a batch of at most ``batchSize`` tracks.
    ///
    /// - Throws: The provider's error when the batch failed as a whole; nothing of it is stored.
    ///   ``FeatureProviderUnavailableError`` when the provider turned out to be closed to this client.
    func lookUp(_ batch: [FeatureLookup]) async throws -> FeatureLookupResult
}

/// A provider found it cannot serve this client (such as Spotify's 403 on `/audio-features`).
public struct FeatureProviderUnavailableError: Error, Sendable, CustomStringConvertible {
    public var provider: String
    public var reason: String

    public init(provider: String, reason: String) {
        self.provider = provider
        self.reason = reason
    }

    public var description: String { "\(provider) is not available: \(reason)" }
}
