import Analytics
import Features
import Foundation
import Ingest

/// What the user should know about a mood report's input.
public enum MoodReportNote: Sendable, Hashable {
    /// The library has no tracks with features, only `count` reference tracks, which stay out.
    case referenceTracksOnly(count: Int)
    /// No track in scope has audio features.
    case noFeatures
    /// The report shows the vibes of run `id`, made of `scope`; `isLatest` when no run was asked
    /// for.
    case vibesOfRun(id: Int64, scope: ClusteringRunScope, isLatest: Bool)
    /// There is no clustering run, so the report has no vibes.
    case noRun
    /// `count` plays have an unreadable time and are left out of the listening charts.
    case unreadablePlayTimes(count: Int)
}

extension LibraryStore {
    /// Reads everything a mood report needs from the store.
    ///
    /// - Parameters:
    ///   - runID: The clustering run to report; the current one when `nil`, none when there is
    ///     none.
    ///   - timeZone: The zone plays are bucketed in.
    ///   - scope: The tracks reported on.
    ///   - phase: Called after each part of the load: "load features", "load credits", "load
    ///     run", "load plays".
    /// - Returns: The input, and notes for the user (no run yet, unreadable play times).
    /// - Throws: `StoreError.notFound` when run `runID` does not exist.
    public func moodReportInput(
        runID: Int64?,
        timeZone: TimeZone,
        scope: TrackScope = .library,
        phase: (String) -> Void = { _ in }
    ) throws -> (MoodReport.Input, [MoodReportNote]) {
        let store = self
        var notes: [MoodReportNote] = []
        let counts = try store.libraryCounts()
        // Tracks, sources and coverage as the scope sees them: reference tracks are not the
        // user's library.
        let features = try store.featureOverview(scope: scope)
        let table = features.table
        var overview = MoodReport.Overview(
            tracks: features.tracks,
            artists: counts.artists,
            tracksWithFeatures: features.withFeatures,
            playlists: counts.playlists,
            savedTracks: counts.savedTracks,
            plays: counts.plays,
            sources: features.sources.map { .init(source: $0.source, tracks: $0.tracks, preferred: $0.preferred) },
            coverage: AudioFeature.all.map { .init(feature: $0.rawValue, tracks: features.coverage[$0.rawValue] ?? 0) }
        )
        if let playlist = try store.playlist(in: scope) { overview.playlist = playlist.name }
        phase("load features")
        // Only an empty table needs the summary's count of reference tracks.
        let referenceTracks = table.rowCount == 0 ? try store.summary(tagLimit: 0).referenceTracks : 0
        if table.rowCount == 0 && referenceTracks > 0 && scope == .library {
            notes.append(.referenceTracksOnly(count: referenceTracks))
        } else if table.rowCount == 0 {
            notes.append(.noFeatures)
        }
        let credits = try store.trackCreditTable(for: table.trackIDs)
        phase("load credits")
        let lookup: @Sendable ([Int64]) throws -> [Int64: TrackCredit] = { ids in
            let paths = try store.localFilePaths(for: ids)
            return try store.trackCredits(for: ids).mapValues { credit in
                var credit = credit
                credit.filePath = paths[credit.id]
                return credit
            }
        }

        var run: ReportRun?
        if let record = try store.clusteringRun(id: runID), let id = record.run.id {
            let vibes = try store.clusters(ofRun: id).map(\.profile)
            let packed = try store.packedAssignments(ofRun: id)
            let runScope = try store.clusteringRunScopes()[id] ?? .library
            notes.append(.vibesOfRun(id: id, scope: runScope, isLatest: runID == nil))
            run = ReportRun(
                id: id,
                scaling: record.run.scaling,
                vibes: vibes,
                trackIDs: packed.trackIDs,
                clusters: packed.clusters,
                distances: packed.distances
            )
            if case .playlist(let name) = runScope { run?.playlist = name }
        } else if let runID {
            throw StoreError.notFound(what: "Clustering run \(runID) (list the runs with `vibes-analyze vibes --list`)")
        } else if table.rowCount > 0 {
            notes.append(.noRun)
        }
        phase("load run")

        let history = try store.playHistory()
        if history.unreadable > 0 {
            notes.append(.unreadablePlayTimes(count: history.unreadable))
        }
        phase("load plays")
        var input = MoodReport.Input(
            overview: overview,
            table: table,
            tracks: [:],
            run: run,
            plays: history.plays,
            timeZone: timeZone
        )
        input.trackLookup = lookup
        input.credits = credits
        return (input, notes)
    }
}
