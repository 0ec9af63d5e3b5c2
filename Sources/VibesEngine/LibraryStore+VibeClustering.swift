import Analytics
import Features
import Foundation
import Ingest

/// What vibes to find: the tracks, the clustering settings, and how to show the saved run.
public struct VibeRequest: Sendable {
    /// The tracks to cluster; a playlist's run is saved with that scope.
    public var scope: TrackScope = .library
    /// The schema, the cluster count and the k-means options; the name tags come from the store.
    public var settings: VibeClustering.Settings
    /// Whether the store's personal weights reweigh the schema.
    public var usesPersonalWeights = true
    /// Whether a playlist's run becomes the current one.
    public var makesCurrent = false
    /// The example tracks shown per vibe in the report of the saved run.
    public var exampleCount = 3

    public init(settings: VibeClustering.Settings) {
        self.settings = settings
    }
}

/// A kept clustering run saved to the store.
public struct RestoredRun: Sendable {
    /// The saved run's ID.
    public var runID: Int64
    /// The saved run's vibes.
    public var report: VibesReport
}

/// Vibes found and saved.
public struct FoundVibes: Sendable {
    /// The saved run's ID.
    public var runID: Int64
    /// The saved run as `vibes` shows it.
    public var report: VibesReport
    /// The playlist the run was made of, if it was one.
    public var playlistName: String?
    /// The current run after saving (what `vibes` and `report` use).
    public var currentRunID: Int64?
    /// The tracks left out for missing a clustered feature, per feature.
    public var missingCounts: [AudioFeature: Int]
    /// The tracks given the library's mean for a feature no source measures, per feature.
    public var imputedCounts: [AudioFeature: Int]
    /// The tracks left out in all.
    public var excludedTrackCount: Int
    /// The k-means iterations.
    public var iterationCount: Int
    /// Milliseconds per phase: `load`, `matrix`, `clustering`, … and `save`.
    public var timings: [String: Double]
}

extension LibraryStore {
    /// Clusters the tracks of the request's scope into vibes, names them and saves the run.
    ///
    /// When the run cannot be saved (the store is busy or full), it is kept in a file beside the
    /// store so that ``restoreClusteringRun(from:)`` can save it later.
    ///
    /// - Parameters:
    ///   - request: The tracks, settings and report.
    ///   - phase: Called after each phase: "load", "space", "k-means and names", "save".
    ///   - progress: Called with the cluster counts tried and to try, with `k` chosen.
    /// - Returns: The saved run, its report, and what was left out or filled in.
    /// - Throws: ``EngineError/noTracksToCluster(referenceTracks:scope:)`` when the scope has no
    ///   tracks with features, ``EngineError/runNotSaved(cause:keptIn:)`` when the run was kept
    ///   in a file instead.
    public func findVibes(
        _ request: VibeRequest,
        phase: (String) -> Void = { _ in },
        progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil
    ) async throws -> FoundVibes {
        let clock = ContinuousClock()
        var start = clock.now
        let table = try featureTable(scope: request.scope)
        let loadMS = Self.milliseconds(clock.now - start)
        phase("load")
        if table.rowCount == 0 {
            throw EngineError.noTracksToCluster(referenceTracks: try summary().referenceTracks, scope: request.scope)
        }
        var settings = request.settings
        if request.usesPersonalWeights, let personal = try personalWeights() {
            settings.schema = settings.schema.applying(personal)
        }
        // The scaled space from the store's cache when the last command used this table and
        // schema (as `recommend` does with the default one).
        let space = try featureSpace(of: table, schema: settings.schema)
        // Only the rows in the space are clustered and named.
        settings.tagRows = try nameTagRows(of: table.trackIDs, needing: space.tableRows)
        phase("space")
        let outcome = try await VibeClustering.cluster(table, settings: settings, space: space, progress: progress)
        phase("k-means and names")

        start = clock.now
        var timings = outcome.timings
        timings["load"] = loadMS
        let unsaved = UnsavedClusteringRun(
            run: outcome.run,
            timings: timings,
            clusters: outcome.vibes.map { ClusterRecord(runID: 0, vibe: $0) },
            trackIDs: outcome.trackIDs,
            labels: outcome.labels,
            distances: outcome.distances
        )
        let runID: Int64
        do {
            runID = try saveClusteringRun(unsaved)
        } catch let error as StoreError {
            // The work is done: keep it in a file rather than lose it.
            throw EngineError.runNotSaved(cause: error, keptIn: try Self.keep(unsaved, beside: path))
        }
        let playlistName = try playlist(in: request.scope)?.name
        try setScope(
            playlistName.map { .playlist($0) } ?? .library,
            makeCurrent: request.makesCurrent,
            ofRun: runID
        )
        timings["save"] = Self.milliseconds(clock.now - start)
        phase("save")
        return FoundVibes(
            runID: runID,
            report: try VibesReport(store: self, runID: runID, exampleCount: request.exampleCount),
            playlistName: playlistName,
            currentRunID: playlistName == nil ? runID : try currentClusteringRunID(),
            missingCounts: outcome.missingCounts,
            imputedCounts: outcome.imputedCounts,
            excludedTrackCount: outcome.run.excludedTrackCount,
            iterationCount: outcome.run.iterationCount,
            timings: timings
        )
    }

    /// Saves a run that ``findVibes(_:phase:progress:)`` kept in a file because the store was
    /// busy, removes the file, and reads the saved run back as a report.
    ///
    /// - Parameters:
    ///   - file: The file's path.
    ///   - exampleCount: The representative tracks shown per vibe in the report.
    /// - Returns: The saved run's ID and its report.
    /// - Throws: ``EngineError/noKeptRun(path:)`` or ``EngineError/notAKeptRun(path:)``, and
    ///   `StoreError` when it cannot be saved.
    public func restoreClusteringRun(from file: String, exampleCount: Int) throws -> RestoredRun {
        let runID = try saveKeptClusteringRun(from: file)
        return RestoredRun(runID: runID, report: try VibesReport(store: self, runID: runID, exampleCount: exampleCount))
    }

    /// Saves the run kept in `file` and removes the file; returns the saved run's ID.
    private func saveKeptClusteringRun(from file: String) throws -> Int64 {
        guard let data = FileManager.default.contents(atPath: file) else { throw EngineError.noKeptRun(path: file) }
        let unsaved: UnsavedClusteringRun
        do {
            unsaved = try UnsavedClusteringRun(json: data)
        } catch {
            throw EngineError.notAKeptRun(path: file)
        }
        let runID = try saveClusteringRun(unsaved)
        try? FileManager.default.removeItem(atPath: file)
        return runID
    }

    /// Writes a run that could not be saved to `unsaved-run-<time>-<pid>.json` beside the store
    /// (mode 0600), or in the temporary folder when that folder cannot be written.
    static func keep(_ unsaved: UnsavedClusteringRun, beside storePath: String) throws -> String {
        let data = try unsaved.encoded()
        let stamp = Date().formatted(.iso8601.year().month().day().time(includingFractionalSeconds: false))
            .replacingOccurrences(of: ":", with: "")
        let name = "unsaved-run-\(stamp)-\(ProcessInfo.processInfo.processIdentifier).json"
        let folder = (storePath as NSString).deletingLastPathComponent
        for directory in [folder.isEmpty ? "." : folder, NSTemporaryDirectory()] {
            let path = (directory as NSString).appendingPathComponent(name)
            if FileManager.default.createFile(atPath: path, contents: data, attributes: [.posixPermissions: 0o600]) {
                return path
            }
        }
        throw CocoaError(.fileWriteUnknown)
    }

    /// A duration in milliseconds.
    static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }
}
