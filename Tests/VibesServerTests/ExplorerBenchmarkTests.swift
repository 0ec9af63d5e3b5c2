import Foundation
import Ingest
import Testing
import VibesServer
import VibesTestSupport

/// The explorer on 30,000 tracks in headless Chromium: first paint and frames per second while
/// zooming and panning, printed as a benchmark line. Run on demand, not in the suite:
///
/// ```
/// VIBES_EXPLORER_BENCHMARK=1 swift test --skip-build --filter ExplorerBenchmark
/// ```
///
/// It checks only that every point is there; the figures are for people to read.
struct ExplorerBenchmark {
    static let isRequested = ProcessInfo.processInfo.environment["VIBES_EXPLORER_BENCHMARK"] != nil

    /// What one run measured.
    struct Figures: Decodable {
        /// Milliseconds from navigation start to the points answer and to the first drawn frame.
        var pointsLoadedAt: Double
        var firstPaintAt: Double
        /// Frames drawn, and the milliseconds they took, while the page zoomed (or panned) on every
        /// animation frame.
        var frames: Int
        var milliseconds: Double
        /// Each drawn frame's own drawing time, in milliseconds.
        var drawMilliseconds: [Double]
    }

    @Test(.enabled(if: isRequested && HeadlessChromium.isAvailable, "set VIBES_EXPLORER_BENCHMARK=1 to run"))
    func explorerWith30kTracks() async throws {
        try await withTemporaryDirectory { folder async throws in
            let store = try LibraryStore(path: folder + "/library.sqlite")
            try LibrarySeeding.insert(LibrarySeeding.syntheticTracks(perGroup: 10_000), into: store, folder: folder)
            try ServerHarness.saveRun(in: store)
            let server = VibesServer(configuration: .init(port: 0), store: store)
            let (urls, continuation) = AsyncStream.makeStream(of: URL.self)
            let task = Task {
                // A server that fails before it listens ends the stream, so the wait below ends too.
                defer { continuation.finish() }
                try await server.run { continuation.yield($0) }
            }
            var iterator = urls.makeAsyncIterator()
            guard let base = await iterator.next() else {
                try await task.value
                throw CancellationError()
            }
            let result: Result<Void, any Error>
            do {
                result = .success(try await Self.measure(at: base, folder: folder, store: store))
            } catch {
                result = .failure(error)
            }
            // The server is stopped, and awaited, before its folder is removed.
            task.cancel()
            try await task.value
            try result.get()
        }
    }

    /// Times the points answers, then the explorer in three browser sessions, and prints it all.
    static func measure(at base: URL, folder: String, store: LibraryStore) async throws {
        let harness = ServerHarness(folder: folder, store: store, port: base.port ?? 0)
        let clock = ContinuousClock()
        var pointsTimes: [Duration] = []
        var pointsBytes = 0
        for _ in 0..<5 {
            let started = clock.now
            let answer = try await harness.get("/api/points?x=energy&y=valence")
            pointsTimes.append(clock.now - started)
            pointsBytes = answer.body.count
        }
        let facetsStarted = clock.now
        let facets = try await harness.get("/api/points/facets")
        let facetsTime = clock.now - facetsStarted

        var runs: [(zoom: Figures, pan: Figures)] = []
        for _ in 0..<3 {
            try await ChromiumSession.withSession { browser in
                try await browser.open(try #require(URL(string: base.absoluteString + "#explorer")))
                try await browser.waitUntil("window.explorerStats && explorerStats.firstPaintAt !== null")
                let shown = try await browser.evaluate(
                    "document.getElementById('explorer-canvas').dataset.shown",
                    as: String.self
                )
                #expect(shown == "30000")
                let zoom = try await browser.evaluate(Self.animate(Self.zoomEvent), as: Figures.self)
                let pan = try await browser.evaluate(Self.animate(Self.panEvent), as: Figures.self)
                runs.append((zoom, pan))
            }
        }
        func milliseconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) * 1_000 + Double(duration.components.attoseconds) / 1e15
        }
        let serverTimes = pointsTimes.map(milliseconds).map { String(format: "%.0f", $0) }
        print(
            """
            explorer benchmark, 30,000 tracks (debug build server, \(ProcessInfo.processInfo.activeProcessorCount) cores, load \(Self.loadAverage()))
              GET /api/points: \(pointsBytes / 1_000) kB in \(serverTimes.joined(separator: ", ")) ms; facets \(facets.body.count / 1_000) kB in \(String(format: "%.0f", milliseconds(facetsTime))) ms
            """
        )
        for run in runs {
            func summary(_ figures: Figures) -> String {
                let draws = figures.drawMilliseconds.sorted()
                return String(
                    format: "%.1f frames/s, draw p50 %.1f ms, p95 %.1f ms",
                    Double(figures.frames) / figures.milliseconds * 1_000,
                    draws.isEmpty ? 0 : draws[draws.count / 2],
                    draws.isEmpty ? 0 : draws[draws.count * 95 / 100]
                )
            }
            print(
                String(
                    format: "  points answered at %.0f ms, first paint at %.0f ms; ",
                    run.zoom.pointsLoadedAt,
                    run.zoom.firstPaintAt
                ) + "zoom: \(summary(run.zoom)); pan: \(summary(run.pan))"
            )
        }
    }

    /// A wheel turn at the canvas centre, in and out by turns every half second.
    static let zoomEvent = """
        new WheelEvent('wheel', { deltaY: (Math.floor(t / 500) % 2 ? 30 : -30), clientX: r.x + r.width / 2,
          clientY: r.y + r.height / 2, cancelable: true, bubbles: true })
        """

    /// An arrow key on the canvas, left and right by turns every half second.
    static let panEvent = """
        new KeyboardEvent('keydown', { key: Math.floor(t / 500) % 2 ? 'ArrowLeft' : 'ArrowRight', cancelable: true, bubbles: true })
        """

    /// Sends the canvas the event `event` (an expression of `t`, the milliseconds since the
    /// start, and `r`, the canvas's box) on every animation frame for three seconds, through the
    /// explorer's own handlers, and reports the frames it drew.
    static func animate(_ event: String) -> String {
        """
        new Promise(resolve => {
          const canvas = document.getElementById('explorer-canvas');
          const r = canvas.getBoundingClientRect();
          const first = explorerStats.draws, durations = [];
          let start = null, lastDraws = first;
          function step(now) {
            if (start === null) start = now;
            const t = now - start;
            if (explorerStats.draws !== lastDraws) { durations.push(explorerStats.lastDrawMs); lastDraws = explorerStats.draws; }
            if (t > 3000) {
              resolve({ pointsLoadedAt: explorerStats.pointsLoadedAt, firstPaintAt: explorerStats.firstPaintAt,
                frames: explorerStats.draws - first, milliseconds: t, drawMilliseconds: durations });
              return;
            }
            canvas.dispatchEvent(\(event));
            requestAnimationFrame(step);
          }
          requestAnimationFrame(step);
        })
        """
    }

    static func loadAverage() -> String {
        (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3)
            .joined(separator: " ") ?? "unknown"
    }
}
