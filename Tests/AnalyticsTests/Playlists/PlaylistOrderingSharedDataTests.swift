import Analytics
import Features
import Foundation
import Testing
import VibesTestSupport

/// Ordering the real playlists in `../shared/data`; skipped, visibly, where it is absent.
@Suite(.enabled(if: SharedData.isAvailable, SharedData.skipReason))
struct PlaylistOrderingSharedDataTests {
    static let tidyTuesday: [PlaylistSamples.Sample] =
        (try? PlaylistSamples.tidyTuesday(
            path: SharedData.path("tidytuesday-2020-01-21/spotify_songs.csv"),
            minimumCount: 10
        )) ?? []

    /// Every tenth of them, from the first: 46 playlists. The whole set takes minutes of a debug
    /// build's CPU, which starves the loopback tests running beside it on a 2-core host; the full
    /// comparison, with its confidence interval, is `vibes-analyze bench ordering`.
    static let tidyTuesdaySubset: [PlaylistSamples.Sample] = stride(from: 0, to: tidyTuesday.count, by: 10).map {
        tidyTuesday[$0]
    }

    /// Every tenth tidytuesday playlist of at least 10 tracks: flow's cost is never above
    /// best-start greedy's, and the figures are printed.
    @Test func flowNeverCostsMoreThanGreedyOnTheTidyTuesdayPlaylists() {
        // shared/data/README.md: 471 playlists; 460 of them hold 10 tracks or more.
        #expect(PlaylistOrderingSharedDataTests.tidyTuesday.count == 460)
        let samples = PlaylistOrderingSharedDataTests.tidyTuesdaySubset
        let ordering = PlaylistOrdering()
        var (lower, equal, higher) = (0, 0, 0)
        var ratios: [Double] = []
        for sample in samples {
            let cost = ordering.arrange(sample.entries).cost
            let greedy = ReferenceGreedy.bestCost(of: sample.entries, ordering: ordering)
            if cost < greedy - 1e-9 {
                lower += 1
            } else if cost <= greedy + 1e-9 {
                equal += 1
            } else {
                higher += 1
                Issue.record("\(sample.name): flow \(cost) > greedy \(greedy)")
            }
            if greedy > 0 { ratios.append(cost / greedy) }
        }
        #expect(higher == 0)
        #expect(lower > samples.count / 2)
        let meanRatio = ratios.reduce(0, +) / Double(ratios.count)
        print(
            "flow vs best-start greedy on \(samples.count) tidytuesday playlists: lower \(lower), equal \(equal), "
                + "higher \(higher); mean cost ratio \(String(format: "%.4f", meanRatio))"
        )
    }

    /// Every tenth tidytuesday playlist of at least 10 tracks follows each arc with a shape
    /// correlation of at least 0.8, or the best its energies allow.
    @Test(arguments: [PlaylistOrdering.Arc.rising, .peak, .falling])
    func arcsFollowTheirCurveOnTheTidyTuesdayPlaylists(arc: PlaylistOrdering.Arc) {
        let samples = PlaylistOrderingSharedDataTests.tidyTuesdaySubset
        #expect(!samples.isEmpty)
        var correlations: [Double] = []
        var limited = 0
        for sample in samples {
            let ordered = PlaylistOrdering(arc: arc).ordered(sample.entries)
            let correlation = ReferenceGreedy.correlation(of: ordered, arc: arc)
            let best = ReferenceGreedy.bestCorrelation(of: sample.entries, arc: arc)
            #expect(correlation >= min(0.8, best) - 1e-9, "\(sample.name): \(correlation), best \(best)")
            correlations.append(correlation)
            if best < 0.8 { limited += 1 }
        }
        let mean = correlations.reduce(0, +) / Double(correlations.count)
        print(
            "arc \(arc) on \(samples.count) tidytuesday playlists: shape correlation mean "
                + "\(String(format: "%.3f", mean)), min \(String(format: "%.3f", correlations.min() ?? .nan)); "
                + "below 0.8 on \(correlations.filter { $0 < 0.8 }.count), whose energies allow less on \(limited)"
        )
    }

    /// The Exportify exports, in consecutive playlists of 50 tracks (the first ten of each file).
    @Test func flowNeverCostsMoreThanGreedyOnTheExportifyExports() throws {
        let files = PlaylistSamples.exportifyFiles(under: SharedData.path("spotify-api/exports/exportify"))
        #expect(!files.isEmpty)
        let ordering = PlaylistOrdering()
        for file in files {
            let entries = try PlaylistSamples.exportify(path: file).entries
            for start in stride(from: 0, to: min(entries.count, 500), by: 50) {
                let chunk = Array(entries[start..<min(start + 50, entries.count)])
                guard chunk.count >= 10 else { continue }
                let cost = ordering.arrange(chunk).cost
                #expect(cost <= ReferenceGreedy.bestCost(of: chunk, ordering: ordering) + 1e-9, "\(file) @\(start)")
            }
        }
    }
}
