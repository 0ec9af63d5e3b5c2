import Features
import Foundation
import Ingest

/// One vibe of a saved run in full: its profile and examples as `vibes N` prints them, the genres
/// most of its tracks carry, and every member, nearest the vibe's centre first.
public struct VibeDetail: Sendable {
    /// A genre tag and how many of the vibe's tracks carry it.
    public struct GenreCount: Hashable, Sendable, Encodable {
        public var genre: String
        public var tracks: Int
    }

    /// A member of the vibe and its distance to the vibe's centre, in the run's scaled units.
    public struct Member: Hashable, Sendable {
        public var track: TrackSummary
        public var distance: Double
    }

    /// The run the vibe belongs to.
    public var runID: Int64
    /// The vibe as ``VibesReport`` shows it.
    public var vibe: VibesReport.Vibe
    /// The most common genre tags (artist genres, dataset genres and subgenres), most first.
    public var topGenres: [GenreCount]
    /// Every member, nearest the centre first.
    public var members: [Member]
}

extension LibraryStore {
    /// Reads one vibe of run `runID` (the current one when `nil`) in full.
    ///
    /// - Parameters:
    ///   - vibe: The vibe, by number (1 for the largest) or name.
    ///   - runID: The run; the current one when `nil`.
    ///   - exampleCount: The representative tracks of ``VibeDetail/vibe``.
    ///   - genreCount: The most genre tags listed.
    /// - Throws: `StoreError.notFound` when there is no such run, ``EngineError`` when there is no
    ///   such vibe.
    public func vibeDetail(
        _ vibe: VibeReference,
        runID: Int64?,
        exampleCount: Int,
        genreCount: Int = 10
    ) throws -> VibeDetail {
        let report = try vibesReport(runID: runID, exampleCount: exampleCount, vibe: vibe)
        guard let id = report.run.id, let shown = report.vibes.first else {
            throw EngineError.noClusteringRun(id: runID)
        }
        let assignments = try assignments(ofRun: id).filter { $0.cluster == shown.cluster }
            .sorted { $0.distance != $1.distance ? $0.distance < $1.distance : $0.trackID < $1.trackID }
        let summaries = try trackSummaries(for: assignments.map(\.trackID))
        let tags = try nameTags()
        var counts: [String: Int] = [:]
        for assignment in assignments {
            for tag in tags[assignment.trackID] ?? [] { counts[tag, default: 0] += 1 }
        }
        let topGenres = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            .prefix(genreCount).map { VibeDetail.GenreCount(genre: $0.key, tracks: $0.value) }
        return VibeDetail(
            runID: id,
            vibe: shown,
            topGenres: Array(topGenres),
            members: assignments.compactMap { assignment in
                summaries[assignment.trackID].map { VibeDetail.Member(track: $0, distance: assignment.distance) }
            }
        )
    }
}
