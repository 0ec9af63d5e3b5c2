import Analytics
import Features
import Ingest
import Logging
import Synchronization
import VibesEngine

/// What the server keeps of the store in memory, and the watch that reloads it when another
/// program writes: the audio features of every track under the feature-source precedence, and a
/// warm recommender (VibesEngine's `makeRecommender`: the similarity space and its blocks) that
/// `/v1/recommendations` queries without reading the store.
///
/// A reload reads the new state aside and swaps it in whole: a request holds the state it started
/// with, so none is dropped or sees half of a reload.
final class LibraryCache: Sendable {
    /// One reload's worth of the store.
    struct Snapshot: Sendable {
        var table = FeatureTable()
        var index = TrackIndex([])
        /// The recommender over every track with features, or why there is none.
        var recommender: Result<Recommender, APIError> = .failure(
            APIError(status: 503, code: "loading", message: "The library is still loading; try again shortly.")
        )
        /// Track IDs by folded genre tag, read on first use (``genreSeeds()``).
        var genres: [String: [Int64]]?
        var version: Int?
    }

    let store: LibraryStore
    let logger: Logger
    private let state = Mutex<(snapshot: Snapshot, reloads: Int)>((Snapshot(), 0))

    init(store: LibraryStore, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    /// The state in force.
    var snapshot: Snapshot { state.withLock { $0.snapshot } }

    /// The features table in force.
    var featureTable: FeatureTable { snapshot.table }

    /// How many times the store was read, the first time included.
    var reloadCount: Int { state.withLock { $0.reloads } }

    /// Reads the table and builds the recommender again, and notes the store's data version they
    /// belong to. A library without tracks with features still loads: the recommender is then
    /// the error `/v1/recommendations` answers.
    func reload() throws {
        // The version is read first: a write landing during the read changes it again, and the
        // next poll reloads once more.
        let version = try store.dataVersion()
        let recommender: Result<Recommender, APIError>
        do {
            recommender = .success(try store.makeRecommender(scope: .all, weights: .personal, context: true))
        } catch EngineError.noTracksWithFeatures {
            recommender = .failure(
                APIError(
                    status: 404,
                    code: "no_features",
                    message: "The library has no tracks with audio features yet: import or analyze some first."
                )
            )
        } catch {
            logger.info("Could not build the recommender: \(error)")
            recommender = .failure(
                APIError(status: 500, code: "internal_error", message: "The recommender could not be built: \(error)")
            )
        }
        // The recommender holds the very table `/v1/audio-features` answers from: it is read once
        // and shared, not read and kept a second time.
        let table = try (try? recommender.get().table) ?? store.featureTable()
        let snapshot = Snapshot(
            table: table,
            index: TrackIndex(table.trackIDs),
            recommender: recommender,
            genres: nil,
            version: version
        )
        state.withLock { $0 = (snapshot, $0.reloads + 1) }
    }

    /// Asks the store for its data version every `interval`, and reloads when it changed; runs
    /// until cancelled. A failed poll or reload (the store busy, say) is logged and tried again.
    ///
    /// - Parameter reads: Where the store is read: off the cooperative pool.
    func watch(every interval: Duration, reads: BlockingQueue) async throws {
        while true {
            try await Task.sleep(for: interval)
            do {
                let reloaded = try await reads.run { [self] () throws -> Bool in
                    let version = try store.dataVersion()
                    guard version != state.withLock({ $0.snapshot.version }) else { return false }
                    try reload()
                    return true
                }
                if reloaded { logger.info("The store changed; reloaded \(featureTable.rowCount) tracks' features.") }
            } catch {
                logger.info("Could not check the store for changes: \(error)")
            }
        }
    }

    /// The stored features of track `id`, or `nil` when it has none.
    func features(ofTrack id: Int64) -> [AudioFeature: Float]? {
        let snapshot = snapshot
        guard let row = snapshot.index.index(of: id) else { return nil }
        var values: [AudioFeature: Float] = [:]
        for feature in AudioFeature.allCases {
            values[feature] = snapshot.table.value(row: row, feature: feature)
        }
        return values
    }

    /// The tracks of each genre tag (artist genres, dataset genres and subgenres), keyed by
    /// ``genreKey(_:)``; read from the store once per reload, on first use.
    func genreSeeds() throws -> [String: [Int64]] {
        let (genres, version) = state.withLock { ($0.snapshot.genres, $0.snapshot.version) }
        if let genres { return genres }
        var built: [String: [Int64]] = [:]
        for (trackID, tags) in try store.nameTags() {
            for tag in tags { built[Self.genreKey(tag), default: []].append(trackID) }
        }
        for key in built.keys { built[key]?.sort() }
        state.withLock { if $0.snapshot.version == version { $0.snapshot.genres = built } }
        return built
    }

    /// A genre folded for lookup: lower case, with hyphens and underscores read as spaces, so that
    /// Spotify's `hip-hop` finds a `Hip Hop` tag.
    static func genreKey(_ genre: String) -> String {
        genre.lowercased().replacing(/[-_\s]+/, with: " ").trimmingCharacters(in: .whitespaces)
    }
}
