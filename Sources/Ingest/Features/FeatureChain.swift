import Features
import Foundation
import Logging

/// Fills in audio features for tracks that lack them by asking a chain of providers in order.
///
/// For each provider, the chain takes the tracks in scope that still have no features (or, with
/// ``Options/onlyMissingFrom``, none from that source), leaves out those the provider said it
/// does not know within ``Options/notFoundRetryInterval`` (unless ``Options/refresh``), and asks in
/// batches. Each batch is written in its own transaction: the features with the provider's source
/// and the fetch time, and a "not found on <date>" record for each miss. An interrupted run keeps
/// every finished batch, and the next run resumes with what is left.
///
/// A provider that fails (unreachable, rate-limited past the retry budget, a malformed answer)
/// is stopped and reported in ``FeatureFetchReport/failures``; nothing of the failed batch is
/// stored, and the chain goes on with the next provider.
public struct FeatureChain: Sendable {
    /// What to fetch.
    public struct Options: Sendable {
        /// The tracks to fill. Defaults to the library.
        public var scope: TrackScope = .library
        /// Ask again for tracks a provider did not know, however recently.
        public var refresh = false
        /// How long a "not found" answer is trusted. Defaults to 30 days.
        public var notFoundRetryInterval: TimeInterval = 30 * 24 * 3600
        /// Ask for tracks lacking a row from this source, instead of tracks lacking any features.
        public var onlyMissingFrom: FeatureSource?

        public init(scope: TrackScope = .library, refresh: Bool = false, onlyMissingFrom: FeatureSource? = nil) {
            self.scope = scope
            self.refresh = refresh
            self.onlyMissingFrom = onlyMissingFrom
        }
    }

    /// Where a run stands, after each batch.
    public struct Progress: Sendable {
        /// The provider being asked.
        public var provider: String
        /// Tracks asked about so far, and how many this provider will be asked about.
        public var done: Int
        public var total: Int
        /// Tracks that got features from this provider so far.
        public var found: Int
    }

    let store: LibraryStore
    let providers: [any FeatureProvider]
    let now: @Sendable () -> Date
    let progress: @Sendable (Progress) -> Void
    let logger: Logger

    /// Creates a chain.
    ///
    /// - Parameters:
    ///   - store: The library to read and write.
    ///   - providers: The sources, asked in this order.
    ///   - now: The wall clock, for `fetched_at` and the not-found memory.
    ///   - progress: Called after every batch.
    public init(
        store: LibraryStore,
        providers: [any FeatureProvider],
        now: @escaping @Sendable () -> Date = Date.init,
        progress: @escaping @Sendable (Progress) -> Void = { _ in },
        logger: Logger = Logger(label: "vibes.features")
    ) {
        self.store = store
        self.providers = providers
        self.now = now
        self.progress = progress
        self.logger = logger
    }

    /// Runs the chain.
    ///
    /// - Parameters:
    ///   - options: Scope, refresh and the not-found memory.
    ///   - runID: The import run the rows belong to (a sync's), if any.
    /// - Returns: What each provider did, and what is left.
    /// - Throws: `CancellationError` when the task is cancelled (finished batches stay written);
    ///   ``StoreError`` when the store fails. Provider failures are reported, not thrown.
    public func run(_ options: Options = Options(), runID: Int64? = nil) async throws -> FeatureFetchReport {
        var report = FeatureFetchReport()
        // Read once; each provider's finds are taken off before the next one is asked.
        var stillMissing = try missingTracks(options)
        report.candidates = stillMissing.count
        for provider in providers {
            try Task.checkCancellation()
            var outcome = FeatureFetchReport.ProviderOutcome(source: provider.source.key, name: provider.name)
            let requestsBefore = provider.requestCount
            if let reason = try await provider.unavailabilityReason() {
                outcome.skippedBecause = reason
                report.providers.append(outcome)
                continue
            }
            let missing = stillMissing.filter(provider.canLookUp)
            var found: Set<Int64> = []
            let remembered = options.refresh ? [] : try recentlyNotFound(by: provider.source, options: options)
            let asked = missing.filter { !remembered.contains($0.trackID) }
            outcome.rememberedNotFound = missing.count - asked.count
            outcome.asked = asked.count
            var done = 0
            for batch in asked.chunked(into: provider.batchSize) {
                try Task.checkCancellation()
                let result: FeatureLookupResult
                do {
                    result = try await provider.lookUp(Array(batch))
                } catch is CancellationError {
                    throw CancellationError()
                } catch let error as FeatureProviderUnavailableError {
                    outcome.skippedBecause = error.reason
                    break
                } catch {
                    outcome.failure = String(describing: error)
                    outcome.unreachable = (error as? ReccoBeatsError)?.isUnreachable ?? false
                    logger.info("\(provider.name) stopped: \(error)")
                    break
                }
                try await write(result, batch: batch, source: provider.source, runID: runID)
                found.formUnion(result.found.keys)
                outcome.found += result.found.count
                outcome.notFound += result.notFound.count
                outcome.matchedByISRC += result.matchedByISRC
                outcome.ignoredItems += result.ignoredItems
                done += batch.count
                progress(Progress(provider: provider.name, done: done, total: asked.count, found: outcome.found))
            }
            outcome.requests = provider.requestCount - requestsBefore
            report.providers.append(outcome)
            stillMissing.removeAll { found.contains($0.trackID) }
        }
        report.remaining = stillMissing.count
        return report
    }

    // MARK: - Reading

    /// The tracks in scope that lack features (from `onlyMissingFrom`, or from any source).
    package func missingTracks(_ options: Options) throws -> [FeatureLookup] {
        try store.tracksMissingFeatures(in: options.scope, from: options.onlyMissingFrom)
    }

    private func recentlyNotFound(by source: FeatureSource, options: Options) throws -> Set<Int64> {
        let cutoff = now().addingTimeInterval(-options.notFoundRetryInterval).formatted(.iso8601)
        return try store.tracksNotFound(by: source, since: cutoff)
    }

    // MARK: - Writing

    private func write(
        _ result: FeatureLookupResult,
        batch: ArraySlice<FeatureLookup>,
        source: FeatureSource,
        runID: Int64?
    ) async throws {
        try await store.recordLookups(
            result,
            batch: batch,
            source: source,
            runID: runID,
            fetchedAt: now().formatted(.iso8601)
        )
    }
}

/// What a ``FeatureChain`` run did.
public struct FeatureFetchReport: Sendable, Hashable, Codable {
    /// What one provider did.
    public struct ProviderOutcome: Sendable, Hashable, Codable {
        /// The provenance key, such as `reccobeats`.
        public var source: String
        public var name: String
        /// Tracks asked about.
        public var asked = 0
        /// Tracks that got features.
        public var found = 0
        /// Tracks the provider does not know (remembered for next time).
        public var notFound = 0
        /// Tracks not asked because the provider did not know them recently.
        public var rememberedNotFound = 0
        /// Tracks found through their ISRC.
        public var matchedByISRC = 0
        /// Answer items for IDs that were not asked for, ignored.
        public var ignoredItems = 0
        /// Requests sent, retries included.
        public var requests = 0
        /// Why the provider was not used (such as a remembered 403).
        public var skippedBecause: String?
        /// Why the provider stopped early, when it did.
        public var failure: String?
        /// Whether that failure was the service being unreachable.
        public var unreachable = false

        public init(source: String, name: String) {
            self.source = source
            self.name = name
        }

        enum CodingKeys: String, CodingKey {
            case source, name, asked, found, requests, failure, unreachable
            case notFound = "not_found"
            case rememberedNotFound = "remembered_not_found"
            case matchedByISRC = "matched_by_isrc"
            case ignoredItems = "ignored_items"
            case skippedBecause = "skipped_because"
        }
    }

    /// Tracks in scope that lacked features when the run began.
    public var candidates = 0
    /// Tracks in scope that still lack features.
    public var remaining = 0
    /// Each provider's outcome, in chain order.
    public var providers: [ProviderOutcome] = []

    public init() {}

    /// Tracks that got features in this run.
    public var fetched: Int { providers.reduce(0) { $0 + $1.found } }

    /// The providers that stopped early.
    public var failures: [ProviderOutcome] { providers.filter { $0.failure != nil } }

    enum CodingKeys: String, CodingKey {
        case candidates, remaining, providers
    }
}
