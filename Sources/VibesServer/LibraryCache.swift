import Features
import Ingest
import Logging
import Synchronization

/// What the server keeps of the store in memory (the audio features of every track under the
/// feature-source precedence), and the watch that reloads it when another program writes.
///
/// A reload reads the new table aside and swaps it in whole: a request holds the table it started
/// with, so none is dropped or sees half of a reload.
final class LibraryCache: Sendable {
    let store: LibraryStore
    let logger: Logger
    private let state = Mutex<(table: FeatureTable, index: TrackIndex, version: Int?, reloads: Int)>(
        (FeatureTable(), TrackIndex([]), nil, 0))

    init(store: LibraryStore, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    /// The features table in force.
    var featureTable: FeatureTable { state.withLock { $0.table } }

    /// How many times the table was read, the first time included.
    var reloadCount: Int { state.withLock { $0.reloads } }

    /// Reads the table again and notes the store's data version it belongs to.
    func reload() throws {
        // The version is read first: a write landing during the read changes it again, and the
        // next poll reloads once more.
        let version = try store.dataVersion()
        let table = try store.featureTable()
        let index = TrackIndex(table.trackIDs)
        state.withLock { $0 = (table, index, version, $0.reloads + 1) }
    }

    /// Asks the store for its data version every `interval`, and reloads when it changed; runs
    /// until cancelled. A failed poll or reload (the store busy, say) is logged and tried again.
    func watch(every interval: Duration) async throws {
        while true {
            try await Task.sleep(for: interval)
            do {
                let version = try store.dataVersion()
                if version != state.withLock({ $0.version }) {
                    try reload()
                    logger.info("The store changed; reloaded \(featureTable.rowCount) tracks' features.")
                }
            } catch {
                logger.info("Could not check the store for changes: \(error)")
            }
        }
    }

    /// The stored features of track `id`, or `nil` when it has none.
    func features(ofTrack id: Int64) -> [AudioFeature: Float]? {
        let (table, index) = state.withLock { ($0.table, $0.index) }
        guard let row = index.index(of: id) else { return nil }
        var values: [AudioFeature: Float] = [:]
        for feature in AudioFeature.allCases {
            values[feature] = table.value(row: row, feature: feature)
        }
        return values
    }
}
