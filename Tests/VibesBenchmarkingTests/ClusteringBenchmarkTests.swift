import Analytics
import Features
import Foundation
import Numerics
import Synchronization
import Testing
import VibesBenchmarking
import VibesTestSupport

extension ClusteringBenchmark.Settings {
    /// A grid small enough for a debug build: N = 2,000, k = 4, 1 and 2 threads, 3 iterations,
    /// 2 repeats, 100 queries, and a probe of a few milliseconds.
    static func tiny() -> Self {
        var settings = Self()
        settings.rowCounts = [2_000]
        settings.clusterCounts = [4]
        settings.threadCounts = [1, 2]
        settings.iterations = 3
        settings.repeats = 2
        settings.queryCount = 100
        settings.probe.bandwidthBufferBytes = 1 << 20
        settings.probe.multiplyAddDuration = .milliseconds(2)
        settings.probe.attempts = 1
        settings.quietWindow = .milliseconds(20)
        return settings
    }
}

/// Progress reports gathered from the benchmark's callback.
private final class ProgressLog: Sendable {
    private let events = Mutex<[ClusteringBenchmark.Progress]>([])
    func append(_ progress: ClusteringBenchmark.Progress) { events.withLock { $0.append(progress) } }
    var all: [ClusteringBenchmark.Progress] { events.withLock { $0 } }
}

struct ClusteringBenchmarkTests {
    private func expectOrdered(
        _ statistic: BenchmarkReport.Statistic,
        _ name: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(
            statistic.minimum <= statistic.median && statistic.median <= statistic.maximum,
            "\(name): \(statistic)",
            sourceLocation: sourceLocation
        )
    }

    private func expectClose(
        _ actual: Double,
        _ expected: Double,
        _ name: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(
            actual.isApproximatelyEqual(to: expected, relativeTolerance: 1e-9),
            "\(name): \(actual) ≠ \(expected)",
            sourceLocation: sourceLocation
        )
    }

    @Test func everyConfigurationIsMeasuredAndItsFiguresFollowTheirDefinitions() async throws {
        let settings = ClusteringBenchmark.Settings.tiny()
        let report = try await ClusteringBenchmark(settings: settings, data: .synthetic(SyntheticLibrary())).run()
        #expect(report.version == 1)
        #expect(
            report.configurations.map { [$0.rowCount, $0.columnCount, $0.clusterCount, $0.threadCount] } == [
                [2_000, 12, 4, 1], [2_000, 12, 4, 2],
            ]
        )
        #expect(
            report.searches.map { [$0.rowCount, $0.threadCount, $0.queryCount] } == [
                [2_000, 1, 100], [2_000, 2, 100],
            ]
        )
        #expect(report.machine.rooflines.map(\.threadCount) == [1, 2])
        #expect(report.data.source == "synthetic")
        #expect(report.data.columns == SyntheticLibrary.columnNames(count: 12))

        let data = await SyntheticLibrary().makeMatrix(rowCount: 2_000, columnCount: 12, seed: settings.seed)
        for c in report.configurations {
            for (statistic, name) in [
                (c.seedingSeconds, "seeding"), (c.secondsPerIteration, "per iteration"), (c.fitSeconds, "fit"),
                (c.inertia, "inertia"), (c.rowsPerSecond, "rows/s"), (c.bandwidth, "bandwidth"), (c.gflops, "GFLOP/s"),
                (c.rooflineFraction, "roofline share"), (c.miniBatchSecondsPerStep, "mini-batch step"),
            ] {
                expectOrdered(statistic, name)
            }
            #expect(c.repeats == 2)
            #expect(c.iterationCount >= 1 && c.iterationCount <= 3)
            let time = c.secondsPerIteration
            let bytes = Double(2_000 * 12 * 4)
            let flops = 2.0 * 2_000 * 12 * 4
            expectClose(c.bytesPerIteration, bytes, "bytes")
            expectClose(c.flopsPerIteration, flops, "FLOPs")
            expectClose(c.bandwidth.median, bytes / time.median, "bandwidth")
            expectClose(c.bandwidth.maximum, bytes / time.minimum, "best bandwidth")
            expectClose(c.gflops.median, flops / time.median / 1e9, "GFLOP/s")
            expectClose(c.rowsPerSecond.median, 2_000 / time.median, "rows/s")
            let roofline = try #require(report.machine.roofline(threadCount: c.threadCount))
            expectClose(
                c.rooflineSecondsPerIteration,
                max(bytes / roofline.readBandwidth, flops / roofline.multiplyAddPeak),
                "roofline"
            )
            expectClose(c.rooflineFraction.median, c.rooflineSecondsPerIteration / time.median, "roofline share")
            #expect(c.matrixBytes == 2_000 * 12 * 4)
            if let peak = c.peakMemoryBytes { #expect(peak >= c.matrixBytes) }

            // Lloyd's inertia is what KMeans.fit gives for the same data, seed and options.
            var options = KMeans.Options()
            options.maxIterations = 3
            options.tolerance = 0
            options.threadCount = c.threadCount
            var rng = SplitMix64(seed: settings.seed)
            let model = try await KMeans.fit(data, clusterCount: 4, options: options, using: &rng)
            expectClose(c.inertia.median, model.inertia, "inertia")
            #expect(c.inertia.minimum == c.inertia.maximum, "repeats with one seed do the same work")
            #expect(c.iterationCount == model.iterationCount)
            let ratio = try #require(c.miniBatchInertiaRatio)
            expectClose(ratio, c.miniBatchInertia.median / c.inertia.median, "mini-batch ratio")
        }
        for search in report.searches {
            expectOrdered(search.seconds, "search")
            expectOrdered(search.indexSeconds, "index")
            expectClose(search.queriesPerSecond.median, 100 / search.seconds.median, "queries/s")
            expectClose(search.flops, 2.0 * 100 * 2_000 * 12, "search FLOPs")
            expectClose(search.gflops.median, search.flops / search.seconds.median / 1e9, "search GFLOP/s")
            expectClose(search.rooflineFraction.median, search.rooflineSeconds / search.seconds.median, "search share")
        }
    }

    @Test func libraryDataIsTheLibraryOrADrawFromIt() async throws {
        let table = SampleLibrary.featureTable
        let complete = SyntheticLibrary.schema.makeSpace(from: table).matrix.rowCount
        var settings = ClusteringBenchmark.Settings.tiny()
        settings.rowCounts = nil
        settings.threadCounts = [1]
        settings.repeats = 1
        let whole = try await ClusteringBenchmark(settings: settings, data: .library(table)).run()
        #expect(whole.configurations.map(\.rowCount) == [complete])
        #expect(whole.searches.map(\.rowCount) == [complete])
        #expect(whole.data.source == "library")

        settings.rowCounts = [500, 5_000]
        settings.columnCount = 10
        let drawn = try await ClusteringBenchmark(settings: settings, data: .library(table)).run()
        #expect(drawn.configurations.map(\.rowCount) == [500, 5_000])
        #expect(drawn.configurations.allSatisfy { $0.columnCount == 10 })
    }

    @Test func badSettingsAreRejectedBeforeAnythingRuns() async {
        func benchmark(_ change: (inout ClusteringBenchmark.Settings) -> Void) -> ClusteringBenchmark {
            var settings = ClusteringBenchmark.Settings.tiny()
            change(&settings)
            return ClusteringBenchmark(settings: settings, data: .synthetic(SyntheticLibrary()))
        }
        #expect(throws: AnalyticsError.self) { try benchmark { $0.clusterCounts = [4, 3_000] }.validate() }
        #expect(throws: AnalyticsError.self) { try benchmark { $0.threadCounts = [0] }.validate() }
        #expect(throws: AnalyticsError.self) { try benchmark { $0.repeats = 0 }.validate() }
        #expect(throws: AnalyticsError.self) { try benchmark { $0.iterations = 0 }.validate() }
        #expect(throws: AnalyticsError.self) { try benchmark { $0.rowCounts = nil }.validate() }
        #expect(throws: AnalyticsError.self) { try benchmark { $0.rowCounts = [] }.validate() }
        await #expect(throws: AnalyticsError.self) { try await benchmark { $0.columnCount = 0 }.run() }
        let empty = ClusteringBenchmark(settings: .tiny(), data: .library(FeatureTable()))
        #expect(throws: AnalyticsError.self) { try empty.validate() }
    }

    @Test func progressCountsEveryStepAndOnlyMovesForward() async throws {
        var settings = ClusteringBenchmark.Settings.tiny()
        settings.rowCounts = [500, 1_000]
        settings.clusterCounts = [2, 3]
        settings.repeats = 1
        let log = ProgressLog()
        _ = try await ClusteringBenchmark(settings: settings).run { log.append($0) }
        let events = log.all
        // Per N: the data, a search per thread count, a k-means run per k and thread count.
        let stepCount = 2 * (1 + 2 + 2 * 2)
        #expect(events.allSatisfy { $0.stepCount == stepCount })
        #expect(events.filter(\.isStartOfStep).map(\.step) == Array(1...stepCount))
        let fractions = events.map(\.fractionDone)
        #expect(fractions == fractions.sorted())
        #expect(fractions.allSatisfy { (0...1).contains($0) })
        #expect(events.filter(\.isStartOfStep).map(\.configuration).contains("N=1,000 k=3 threads=2"))
        for event in events { #expect(event.renderedLine(width: 60).count <= 60) }
        #expect(events.last?.renderedLine().contains("ETA") == true)
    }

    @Test(arguments: [
        ([3.0], 3.0), ([4.0, 1.0], 2.5), ([5.0, 1.0, 3.0], 3.0), ([2.0, 8.0, 4.0, 6.0], 5.0),
    ])
    func statisticsAreMediansWithTheirRange(values: [Double], median: Double) {
        let statistic = BenchmarkReport.Statistic(values)
        #expect(statistic.median == median)
        #expect(statistic.minimum == values.min())
        #expect(statistic.maximum == values.max())
        let rate = statistic.reciprocal(times: 10)
        #expect(rate.median == 10 / median)
        #expect(rate.maximum == 10 / values.min()!)
        #expect(rate.minimum == 10 / values.max()!)
    }
}
