import Features
import Ingest

/// The saved clustering runs, newest first, and which one is current.
public struct ClusteringRunListing: Sendable {
    /// A saved run with what it was made of.
    public struct Run: Encodable, Sendable {
        public var record: ClusteringRunRecord
        public var scope: ClusteringRunScope

        enum Key: String, CodingKey {
            case scope
        }

        /// The stored record's fields and `scope` as its wire value.
        public func encode(to encoder: any Encoder) throws {
            try record.encode(to: encoder)
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(scope.wireValue, forKey: .scope)
        }
    }

    public var runs: [Run]
    /// The run that `vibes`, `report` and `--vibe` use unless given one.
    public var currentRunID: Int64?
}

extension LibraryStore {
    /// Lists the saved clustering runs with their scopes and the current run.
    ///
    /// - Throws: `StoreError` when the store cannot be read.
    public func listClusteringRuns() throws -> ClusteringRunListing {
        let runs = try clusteringRuns()
        let scopes = try clusteringRunScopes()
        return ClusteringRunListing(
            runs: runs.map { .init(record: $0, scope: scopes[$0.run.id ?? 0] ?? .library) },
            currentRunID: try currentClusteringRunID()
        )
    }

    /// The vibes of run `runID` (the current one when `nil`), or one of them.
    ///
    /// A vibe given by number when no run is named may have meant a run: when a run has that
    /// number too, `runNamedLikeVibe` is called with it before the report is read.
    ///
    /// - Parameters:
    ///   - runID: The run; the current run when `nil`.
    ///   - exampleCount: The representative tracks shown per vibe.
    ///   - vibe: The one vibe to show; every vibe when `nil`.
    ///   - runNamedLikeVibe: Called with the number of a run that the vibe's number also names.
    /// - Throws: `StoreError.notFound` when there is no such run, ``EngineError`` when there is
    ///   no such vibe.
    public func vibesReport(
        runID: Int64?,
        exampleCount: Int,
        vibe: VibeReference?,
        runNamedLikeVibe: (Int64) -> Void = { _ in }
    ) throws -> VibesReport {
        if let vibe, runID == nil, let number = Int64(vibe.text), try clusteringRun(id: number) != nil {
            runNamedLikeVibe(number)
        }
        return try VibesReport(store: self, runID: runID, exampleCount: exampleCount, vibe: vibe)
    }
}
