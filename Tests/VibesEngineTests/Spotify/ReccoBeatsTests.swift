import Features
import Foundation
import GRDB
import SpotifyTestSupport
import Synchronization
import Testing
import VibesHTTP
import VibesTestSupport

@testable import Ingest

/// The ReccoBeats client and provider against the loopback fake, and the feature-source chain
/// writing into a real SQLite file.
struct ReccoBeatsTests {
    /// A 22-character base-62 ID for generated track `number`.
    static func trackID(_ number: Int) -> String {
        let digits = String(number)
        return "T" + String(repeating: "0", count: 21 - digits.count) + digits
    }

    /// Adds library tracks `T…0` to `T…(count−1)` (with ISRCs when given) and returns their store IDs.
    @discardableResult
    static func addTracks(
        _ count: Int,
        to store: LibraryStore,
        isrc: (Int) -> String? = { _ in nil },
        offset: Int = 0
    ) throws -> [Int64] {
        try store.database.write { db in
            let writer = try LibraryWriter(db, runID: nil, fetchedAt: "2026-01-01T00:00:00Z")
            return try (offset..<(offset + count)).map { number in
                try writer.write(
                    Track(
                        spotifyID: SpotifyID(trackID(number)),
                        name: "Song \(number)",
                        artists: ["Band \(number % 7)"],
                        durationMS: 200_000 + number,
                        isrc: isrc(number)
                    )
                ).id
            }
        }
    }

    static func client(_ fake: FakeReccoBeats, policy: RetryPolicy = RetryPolicy(usesJitter: false)) -> ReccoBeatsClient
    {
        ReccoBeatsClient(
            baseURL: fake.baseURL,
            networking: ClientNetworking(
                network: URLSessionTransport(timeout: loopbackTimeout),
                retryPolicy: policy,
                clock: TestClock()
            )
        )
    }

    static func count(_ sql: String, in store: LibraryStore) throws -> Int {
        try store.database.read { db in try Int.fetchOne(db, sql: sql)! }
    }

    /// The `reccobeats` row of a track, as stored.
    static func storedFeatures(of trackID: Int64, in store: LibraryStore) throws -> AudioFeatures {
        try store.database.read { db in
            let row = try #require(
                try Row.fetchOne(
                    db,
                    sql: "SELECT * FROM all_features WHERE track_id = ? AND source = 'reccobeats'",
                    arguments: [trackID]
                )
            )
            var features = AudioFeatures()
            for feature in AudioFeature.all { features[feature] = row[feature.rawValue] as Double? }
            return features
        }
    }

    static func withStore<T>(_ body: (LibraryStore) async throws -> T) async throws -> T {
        try await withTemporaryDirectory { directory in
            try await body(try LibraryStore(path: directory + "/library.sqlite"))
        }
    }

    // MARK: - Client

    @Test func itemsMapBackThroughHrefAndUnknownIDsAreLeftOut() async throws {
        try await FakeReccoBeats.withServer { fake in
            await fake.state.configure { $0.unknownSpotifyIDs = [Self.trackID(2)] }
            let client = Self.client(fake)
            let items = try await client.audioFeatures(ids: (0..<4).map(Self.trackID))
            #expect(items.count == 3)
            // The fake answers in reverse order: pairing by position would be wrong.
            #expect(items.first?.spotifyID?.rawValue == Self.trackID(3))
            let first = try #require(items.first { $0.spotifyID?.rawValue == Self.trackID(0) })
            let expected = FakeReccoBeatsState.values(for: Self.trackID(0))
            #expect(first.features.energy == expected["energy"] && first.features.tempo == expected["tempo"])
            #expect(first.features.key == expected["key"].map { Int($0) })
            #expect(first.features.timeSignature == nil)  // ReccoBeats has none
            #expect(first.id != Self.trackID(0))  // its own UUID
            #expect(await fake.state.requests.count == 1)
        }
    }

    @Test func errorCodesAndEndpointsAppearInMessages() async throws {
        try await FakeReccoBeats.withServer { fake in
            let client = ReccoBeatsClient(
                baseURL: fake.baseURL.appendingPathComponent("nope/"),
                networking: ClientNetworking(
                    network: URLSessionTransport(timeout: loopbackTimeout),
                    retryPolicy: RetryPolicy(usesJitter: false),
                    clock: TestClock()
                )
            )
            do {
                _ = try await client.audioFeatures(ids: [Self.trackID(1)])
                Issue.record("a wrong path must fail")
            } catch let error as ReccoBeatsError {
                #expect(error.description.contains("404") && error.description.contains("4042"))
                #expect(error.description.contains("GET /v1/nope/audio-features"))
            }
        }
    }

    @Test func retryAfterWithinTheBudgetIsWaitedOut() async throws {
        try await FakeReccoBeats.withServer { fake in
            await fake.state.inject(.rateLimited(retryAfter: "3"))
            await fake.state.inject(.status(503))
            let clock = TestClock()
            let client = ReccoBeatsClient(
                baseURL: fake.baseURL,
                networking: ClientNetworking(
                    network: URLSessionTransport(timeout: loopbackTimeout),
                    retryPolicy: RetryPolicy(usesJitter: false),
                    clock: clock
                )
            )
            let items = try await client.audioFeatures(ids: [Self.trackID(1)])
            #expect(items.count == 1)
            #expect(clock.sleeps.first == .seconds(3))
            #expect(await fake.state.requests.count == 3)
        }
    }

    // MARK: - The chain

    @Test func aRunStoresProviderValuesInBatchesOfFortyWithProvenance() async throws {
        try await Self.withStore { store in
            try await FakeReccoBeats.withServer { fake in
                try Self.addTracks(95, to: store)
                let now = Date(timeIntervalSince1970: 1_800_000_000)
                let chain = FeatureChain(
                    store: store,
                    providers: [ReccoBeatsProvider(client: Self.client(fake))],
                    now: { now }
                )
                let report = try await chain.run()
                #expect(report.candidates == 95 && report.fetched == 95 && report.remaining == 0)
                let sizes = await fake.state.requests(to: "/v1/audio-features").map(\.ids.count)
                #expect(sizes == [40, 40, 15])
                #expect(
                    try Self.count("SELECT count(*) FROM all_features WHERE source = 'reccobeats'", in: store) == 95
                )
                #expect(
                    try Self.count(
                        "SELECT count(*) FROM all_features WHERE fetched_at = '\(now.formatted(.iso8601))' AND time_signature IS NULL",
                        in: store
                    ) == 95
                )
                // Every stored value equals the provider's number.
                let ids = try await store.database.read { db in
                    try Row.fetchAll(db, sql: "SELECT id, spotify_id FROM tracks").map {
                        ($0[0] as Int64, $0[1] as String)
                    }
                }
                for (trackID, spotifyID) in ids {
                    let stored = try Self.storedFeatures(of: trackID, in: store)
                    let values = FakeReccoBeatsState.values(for: spotifyID)
                    for feature in AudioFeature.all where feature != .timeSignature {
                        #expect(stored[feature] == values[feature.rawValue], "\(spotifyID) \(feature)")
                    }
                }
            }
        }
    }

    @Test func unknownTracksAreRememberedAndAskedAgainOnlyWithRefreshOrLater() async throws {
        try await Self.withStore { store in
            try await FakeReccoBeats.withServer { fake in
                try Self.addTracks(10, to: store)
                await fake.state.configure { $0.unknownSpotifyIDs = [Self.trackID(3), Self.trackID(7)] }
                let clock = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
                let chain = FeatureChain(
                    store: store,
                    providers: [ReccoBeatsProvider(client: Self.client(fake))],
                    now: { clock.withLock { $0 } }
                )
                let first = try await chain.run()
                #expect(first.fetched == 8 && first.remaining == 2 && first.providers[0].notFound == 2)
                #expect(
                    try Self.count("SELECT count(*) FROM feature_lookups WHERE outcome = 'not_found'", in: store) == 2
                )
                let status = try store.featureStatus()
                #expect(status.missing.notFound == 2 && status.missing.pending == 0)
                #expect(status.notFound.map(\.source) == ["reccobeats"] && status.notFound.first?.tracks == 2)
                #expect(status.notFound.first?.lastAsked == clock.withLock { $0 }.formatted(.iso8601))

                let second = try await chain.run()
                #expect(second.providers[0].asked == 0 && second.providers[0].rememberedNotFound == 2)
                #expect(await fake.state.requests.count == 1)

                _ = try await chain.run(FeatureChain.Options(refresh: true))
                #expect(await fake.state.requests.count == 2)

                clock.withLock { $0 = $0.addingTimeInterval(31 * 24 * 3600) }
                await fake.state.configure { $0.unknownSpotifyIDs = [] }
                let later = try await chain.run()
                #expect(later.fetched == 2 && later.remaining == 0)
                #expect(try Self.count("SELECT count(*) FROM feature_lookups", in: store) == 0)
            }
        }
    }

    @Test func tracksWithoutAUsableIDAreLookedUpByISRCAndDisambiguated() async throws {
        try await Self.withStore { store in
            try await FakeReccoBeats.withServer { fake in
                // Track 0: unknown Spotify ID, known ISRC with two records; the one that fits is chosen.
                // Track 1: no Spotify ID at all, only an ISRC.
                let ids = try await store.database.write { db in
                    let writer = try LibraryWriter(db, runID: nil, fetchedAt: "2026-01-01T00:00:00Z")
                    return [
                        try writer.write(
                            Track(
                                spotifyID: SpotifyID(Self.trackID(0)),
                                name: "Blue Monday",
                                artists: ["New Order"],
                                durationMS: 448_000,
                                isrc: "GBAAP8300001"
                            )
                        ).id,
                        try writer.write(
                            Track(
                                spotifyID: nil,
                                name: "Ceremony",
                                artists: ["New Order"],
                                durationMS: 263_000,
                                isrc: "gb-aap-81-00002"
                            )
                        ).id,
                    ]
                }
                await fake.state.configure { $0.knowsEveryTrack = false }
                await fake.state.addISRCRecord(
                    isrc: "GBAAP8300001",
                    spotifyID: Self.trackID(900),
                    title: "Blue Monday '88",
                    artist: "New Order",
                    durationMS: 250_000
                )
                let right = await fake.state.addISRCRecord(
                    isrc: "GBAAP8300001",
                    spotifyID: Self.trackID(901),
                    title: "Blue Monday",
                    artist: "New Order",
                    durationMS: 448_500
                )
                let only = await fake.state.addISRCRecord(
                    isrc: "GBAAP8100002",
                    spotifyID: Self.trackID(902),
                    title: "Ceremony",
                    artist: "New Order",
                    durationMS: 263_000
                )
                let chain = FeatureChain(store: store, providers: [ReccoBeatsProvider(client: Self.client(fake))])
                let report = try await chain.run()
                #expect(report.fetched == 2 && report.providers[0].matchedByISRC == 2)
                let first = try Self.storedFeatures(of: ids[0], in: store)
                #expect(first.energy == right.values["energy"] && first.valence == right.values["valence"])
                let second = try Self.storedFeatures(of: ids[1], in: store)
                #expect(second.energy == only.values["energy"])
                // By ID first, then by ISRC; the two records' details were fetched to choose.
                let paths = await fake.state.requests.map(\.path)
                #expect(paths == ["/v1/audio-features", "/v1/audio-features", "/v1/track"])
            }
        }
    }

    @Test func aServiceThatRefusesISRCsKeepsTheBatchsFindsByID() async throws {
        try await Self.withStore { store in
            try await FakeReccoBeats.withServer { fake in
                try Self.addTracks(5, to: store, isrc: { "QZFKT" + String(format: "%07d", $0) })
                await fake.state.configure { $0.unknownSpotifyIDs = [Self.trackID(4)] }
                // The ID request succeeds; the ISRC request for the one miss is refused (4004).
                await fake.state.inject(.status(400), after: 1)
                let report = try await FeatureChain(
                    store: store,
                    providers: [ReccoBeatsProvider(client: Self.client(fake))]
                ).run()
                #expect(report.failures.isEmpty)
                #expect(report.fetched == 4 && report.providers[0].notFound == 1)
                let isrcRequest = try #require(await fake.state.requests.last)
                #expect(isrcRequest.ids == ["QZFKT0000004"])
            }
        }
    }

    @Test func hrefsAreReadAsLinksOrAsPathsEndingInTheID() {
        let link = ReccoBeatsAudioFeaturesObject(
            id: nil,
            href: "https://open.spotify.com/track/4uLU6hMCjMI75M1A2tKUQC?si=x",
            isrc: nil,
            features: .init()
        )
        let path = ReccoBeatsAudioFeaturesObject(
            id: nil,
            href: "https://api.reccobeats.com/v1/audio-features/4uLU6hMCjMI75M1A2tKUQC",
            isrc: nil,
            features: .init()
        )
        let neither = ReccoBeatsAudioFeaturesObject(
            id: nil,
            href: "https://example.com/x",
            isrc: nil,
            features: .init()
        )
        #expect(link.spotifyID?.rawValue == "4uLU6hMCjMI75M1A2tKUQC")
        #expect(path.spotifyID?.rawValue == "4uLU6hMCjMI75M1A2tKUQC")
        #expect(neither.spotifyID == nil)
    }

    @Test func itemsForTracksNotAskedForAreIgnoredAndCounted() async throws {
        try await Self.withStore { store in
            try await FakeReccoBeats.withServer { fake in
                try Self.addTracks(3, to: store)
                await fake.state.inject(.foreignItem)
                let chain = FeatureChain(store: store, providers: [ReccoBeatsProvider(client: Self.client(fake))])
                let report = try await chain.run()
                #expect(report.fetched == 3 && report.providers[0].ignoredItems == 1)
                #expect(try Self.count("SELECT count(*) FROM tracks", in: store) == 3)
            }
        }
    }

    @Test func aMalformedAnswerStoresNothingOfItsBatchAndKeepsEarlierBatches() async throws {
        try await Self.withStore { store in
            try await FakeReccoBeats.withServer { fake in
                try Self.addTracks(60, to: store)
                // The first batch's answer is good; the second one's is malformed.
                await fake.state.inject(.malformedBody, after: 1)
                let chain = FeatureChain(store: store, providers: [ReccoBeatsProvider(client: Self.client(fake))])
                let report = try await chain.run()
                #expect(report.fetched == 40 && report.remaining == 20)
                let failure = try #require(report.failures.first?.failure)
                #expect(failure.contains("ReccoBeats") && failure.contains("GET /v1/audio-features"))
                #expect(failure.contains("Nothing from this request was stored"))
                #expect(try Self.count("SELECT count(*) FROM audio_features", in: store) == 40)

                let again = try await chain.run()
                #expect(again.fetched == 20 && again.remaining == 0)
            }
        }
    }

    @Test func aRateLimitPastTheBudgetStopsCleanlyAndARerunResumes() async throws {
        try await Self.withStore { store in
            try await FakeReccoBeats.withServer { fake in
                try Self.addTracks(100, to: store)
                // The first batch goes through; then ReccoBeats asks for two hours, past the 60 s budget.
                await fake.state.inject(.rateLimited(retryAfter: "7200"), after: 1)
                let chain = FeatureChain(store: store, providers: [ReccoBeatsProvider(client: Self.client(fake))])
                let report = try await chain.run()
                #expect(report.fetched == 40 && report.remaining == 60)
                let failure = try #require(report.failures.first?.failure)
                #expect(failure.contains("rate limit") && failure.contains("2 h"))
                #expect(try Self.count("SELECT count(*) FROM audio_features", in: store) == 40)

                let resumed = try await chain.run()
                #expect(resumed.candidates == 60 && resumed.fetched == 60 && resumed.remaining == 0)
                let sizes = await fake.state.requests(to: "/v1/audio-features").map(\.ids.count)
                #expect(sizes == [40, 40, 40, 20])
            }
        }
    }

    @Test func anAddressThatAnswers404ToEverythingStopsTheChainAndRecordsNothing() async throws {
        try await Self.withStore { store in
            try await FakeReccoBeats.withServer { fake in
                // Half the tracks have ISRCs, so both the ID and the ISRC lookups meet the 404.
                try Self.addTracks(10, to: store, isrc: { $0.isMultiple(of: 2) ? "USRC1700\(1000 + $0)" : nil })
                // A mistyped base URL: the service answers 404 (code 4042, no such endpoint) to everything.
                let client = ReccoBeatsClient(
                    baseURL: fake.baseURL.appendingPathComponent("misspelt/"),
                    networking: ClientNetworking(
                        network: URLSessionTransport(timeout: loopbackTimeout),
                        retryPolicy: RetryPolicy(usesJitter: false),
                        clock: TestClock()
                    )
                )
                let report = try await FeatureChain(store: store, providers: [ReccoBeatsProvider(client: client)]).run()
                let outcome = try #require(report.failures.first)
                #expect(outcome.failure?.contains("does not serve ReccoBeats' API") == true, "\(outcome)")
                #expect(outcome.notFound == 0 && outcome.found == 0)
                #expect(report.remaining == 10)
                #expect(try Self.count("SELECT count(*) FROM feature_lookups", in: store) == 0)
                #expect(try Self.count("SELECT count(*) FROM all_features WHERE source = 'reccobeats'", in: store) == 0)

                // The right address still answers "not found" for unknown tracks, and that is remembered.
                await fake.state.configure { $0.unknownSpotifyIDs = [Self.trackID(1)] }
                let good = try await FeatureChain(
                    store: store,
                    providers: [ReccoBeatsProvider(client: Self.client(fake))]
                )
                .run()
                #expect(good.failures.isEmpty && good.fetched == 9)
                #expect(try Self.count("SELECT count(*) FROM feature_lookups", in: store) == 1)
            }
        }
    }

    @Test func anUnreachableProviderIsReportedNotThrown() async throws {
        try await Self.withStore { store in
            try Self.addTracks(5, to: store)
            let client = ReccoBeatsClient(
                baseURL: try FakeReccoBeats.unreachableBaseURL(),
                networking: ClientNetworking(
                    network: URLSessionTransport(timeout: 5),
                    retryPolicy: RetryPolicy(maxAttempts: 2, usesJitter: false),
                    clock: TestClock()
                )
            )
            let report = try await FeatureChain(store: store, providers: [ReccoBeatsProvider(client: client)]).run()
            let outcome = try #require(report.failures.first)
            #expect(outcome.unreachable && outcome.failure?.contains("ReccoBeats unreachable") == true)
            #expect(report.remaining == 5 && outcome.requests == 2)
        }
    }
}
