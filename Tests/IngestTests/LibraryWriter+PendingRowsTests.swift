import Features
import Foundation
import GRDB
import Testing

@testable import Ingest

/// The rows a bulk import holds back and inserts many to a statement end up as the rows written
/// one at a time.
struct PendingRowsTests {
    /// Writes `tracks` with features for two tracks in three, and tags (one of them twice) for
    /// every track, in one transaction: with the indexes deferred (rows held back) or not.
    /// A track without a Spotify ID at `localAt`, when given, stops the holding back half-way.
    static func write(
        _ tracks: [Track],
        into store: LibraryStore,
        deferring: Bool,
        localAt: Int? = nil
    ) throws -> (ids: [Int64], counts: LibraryWriter.Counts, heldBack: Bool) {
        try store.database.write { db in
            let writer = try LibraryWriter(db, runID: nil, fetchedAt: "2026-01-02T03:04:05Z")
            if deferring { try writer.deferIndexBuilds(expectedTracks: tracks.count) }
            let heldBack = writer.pending.nextTrackID != nil
            var ids: [Int64] = []
            for (row, track) in tracks.enumerated() {
                if row == localAt {
                    let local = Track(spotifyID: nil, name: "Local \(row)", artists: ["Somebody"])
                    ids.append(try writer.write(local).id)
                }
                let id = try writer.write(track).id
                ids.append(id)
                if row % 3 != 2 {
                    let features = AudioFeatures(
                        danceability: Double(row % 100) / 100,
                        energy: 0.5,
                        key: row % 12,
                        loudness: -Double(row % 30) - 0.125,
                        tempo: 90 + Double(row % 50)
                    )
                    try writer.write(features, trackID: id, source: .file(format: "features-csv"))
                }
                try writer.tag(
                    trackID: id,
                    with: [
                        ("genre", "genre \(row % 4)"), ("playlist", "list \(row % 9)"), ("genre", "genre \(row % 4)"),
                    ],
                    source: "file:features-csv"
                )
            }
            try writer.buildDeferredIndexes()
            return (ids, writer.counts, heldBack)
        }
    }

    @Test(arguments: [nil, 150] as [Int?])
    func heldBackRowsAreTheRowsWrittenOneByOne(localAt: Int?) throws {
        try withStore { direct in
            try withStore { held in
                // Both stores hold the same earlier tracks, which the next rows meet again.
                let earlier = DeferredSpotifyIDIndexTests.tracks(60)
                _ = try Self.write(earlier, into: direct, deferring: false)
                _ = try Self.write(earlier, into: held, deferring: false)
                let next = DeferredSpotifyIDIndexTests.tracks(300, firstID: 40)
                let one = try Self.write(next, into: direct, deferring: false, localAt: localAt)
                let many = try Self.write(next, into: held, deferring: true, localAt: localAt)
                #expect(!one.heldBack && many.heldBack)
                #expect(many.ids == one.ids)
                #expect(try contentSnapshot(held) == contentSnapshot(direct))
                for counts in [one.counts, many.counts] {
                    #expect(counts.tracksNew > 200 && counts.featuresWritten > 100)
                }
                let encoder = JSONEncoder()
                encoder.outputFormatting = .sortedKeys
                #expect(try encoder.encode(many.counts) == encoder.encode(one.counts))
            }
        }
    }
}
