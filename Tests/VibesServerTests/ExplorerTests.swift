import Foundation
import Ingest
import Testing
import VibesServer
import VibesTestSupport

/// The explorer in real headless Chromium, driven over the DevTools protocol: filter by a
/// playlist, lasso points with real mouse events, save the staging list as a playlist and export
/// it; and the same by keyboard.
struct ExplorerTests {
    /// Opens the explorer of `harness`'s server and waits until the points and facets are in.
    static func openExplorer(_ browser: ChromiumSession, harness: ServerHarness) async throws {
        try await browser.open(try #require(URL(string: "http://127.0.0.1:\(harness.port)/#explorer")))
        try await browser.waitUntil(
            "window.explorerStats && explorerStats.firstPaintAt !== null"
                + " && document.getElementById('explorer-playlist').options.length > 1"
        )
    }

    /// Chooses the option labelled `label` (up to its count) in the select `id`, as a person does.
    static func choose(_ label: String, in id: String, _ browser: ChromiumSession) async throws {
        try await browser.evaluate(
            """
            (() => { const select = document.getElementById('\(id)');
              const option = [...select.options].find(o => o.textContent.startsWith(\(quoted(label))));
              select.value = option.value; select.dispatchEvent(new Event('change', { bubbles: true })); })()
            """
        )
    }

    static func quoted(_ text: String) -> String {
        String(decoding: try! JSONEncoder().encode(text), as: UTF8.self)
    }

    /// True once the app has no request under way (it marks its `main` aria-busy until then).
    static let settled = "document.getElementById('main').getAttribute('aria-busy') !== 'true'"

    /// Clicks the element `selector` at its centre once the app has settled and the element
    /// stays where it is.
    static func click(_ selector: String, _ browser: ChromiumSession) async throws {
        try await browser.click(selector, whenSettled: settled)
    }

    /// The centre of the element `selector`, scrolled into view, in viewport pixels.
    static func centre(of selector: String, _ browser: ChromiumSession) async throws -> (x: Double, y: Double) {
        let box = try await browser.evaluate(
            """
            (() => { const node = document.querySelector(\(quoted(selector))); node.scrollIntoView({ block: 'center' });
              const r = node.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()
            """,
            as: [Double].self
        )
        return (box[0], box[1])
    }

    /// The titles in the staging list, in order.
    static func stagedTitles(_ browser: ChromiumSession) async throws -> [String] {
        try await browser.evaluate(
            "[...document.querySelectorAll('#staging-list li .title')].map(n => n.textContent)",
            as: [String].self
        )
    }

    /// Waits up to 60 s for the download `name` to be complete in `folder`, and returns its text.
    static func downloaded(_ name: String, in folder: String) async throws -> String {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(60)
        while clock.now < deadline {
            if let data = FileManager.default.contents(atPath: folder + "/" + name),
                !FileManager.default.fileExists(atPath: folder + "/" + name + ".crdownload")
            {
                return String(decoding: data, as: UTF8.self)
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        let present = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        throw ChromiumSession.Failure(description: "\(name) was not downloaded; the folder holds \(present)")
    }

    @Test(.enabled(if: HeadlessChromium.isAvailable, HeadlessChromium.skipReason))
    func lassoedTracksAreSavedAsAPlaylistAndExported() async throws {
        try await ServerHarness.withServer { harness async throws in
            try await withTemporaryDirectory { downloads async throws in
                try await ChromiumSession.withSession { browser in
                    try await browser.allowDownloads(into: downloads)
                    try await Self.openExplorer(browser, harness: harness)
                    #expect(
                        try await browser.evaluate(
                            "document.getElementById('explorer-canvas').dataset.shown",
                            as: String.self
                        ) == "20"
                    )

                    try await Self.choose("Workout", in: "explorer-playlist", browser)
                    try await browser.waitUntil("document.getElementById('explorer-canvas').dataset.shown === '12'")

                    // Where the canvas is, and so where each energy falls across it: the x axis
                    // spans the tracks' energies widened by 3 % each side; valence is the same
                    // for every track, so all points lie on the middle line.
                    _ = try await Self.centre(of: "#explorer-canvas", browser)
                    let rect = try await browser.evaluate(
                        "(() => { const r = document.getElementById('explorer-canvas').getBoundingClientRect();"
                            + " return [r.x, r.y, r.width, r.height]; })()",
                        as: [Double].self
                    )
                    let table = try harness.store.featureTable()
                    let energies = (0..<table.rowCount).map { Double(table.value(row: $0, feature: .energy)!) }
                    let (low, high) = (energies.min()!, energies.max()!)
                    let (x0, x1) = (low - (high - low) * 0.03, high + (high - low) * 0.03)
                    // The border is 1 px: the drawing starts inside it.
                    let screenX = { (energy: Double) in rect[0] + 1 + (energy - x0) / (x1 - x0) * (rect[2] - 2) }
                    let middle = rect[1] + rect[3] / 2
                    // A diamond lasso from energy 0.845 to 0.875 on the middle line.
                    let (left, right) = (screenX(0.845), screenX(0.875))
                    let centreX = (left + right) / 2
                    try await browser.drag(
                        through: [
                            (centreX, middle - 120), (right, middle), (centreX, middle + 120), (left, middle),
                            (centreX, middle - 118),
                        ],
                        steps: 6
                    )
                    let workout = Set(
                        try harness.store.playlistOverviews(vibesOf: nil).filter { $0.name == "Workout" }
                            .flatMap { try harness.store.playlistTrackIDs(rowID: $0.id) }
                    )
                    let expected = table.trackIDs.indices.filter {
                        workout.contains(table.trackIDs[$0]) && energies[$0] > 0.845 && energies[$0] < 0.875
                    }.map { table.trackIDs[$0] }
                    try #require(expected.count == 3)
                    try await browser.waitUntil("document.querySelectorAll('#staging-list li').length > 0")
                    let summaries = try harness.store.trackSummaries(for: expected)
                    let expectedTitles = expected.map { "\(summaries[$0]!.artists[0]) – \(summaries[$0]!.name)" }
                    #expect(try await Self.stagedTitles(browser) == expectedTitles)
                    #expect(
                        try await browser.evaluate(
                            "document.getElementById('staging-count').textContent",
                            as: String.self
                        )
                        .hasPrefix("3 tracks staged.")
                    )

                    // Saved as a playlist of the store, by a real click on the form's button.
                    try await browser.evaluate("document.getElementById('staging-name').value = 'Lasso picks'")
                    try await Self.click("#staging-save button[type=submit]", browser)
                    try await browser.waitUntil(
                        "document.getElementById('staging-status').textContent.startsWith('Saved as playlist')"
                    )
                    let saved = try harness.store.playlistOverviews(vibesOf: nil).first { $0.name == "Lasso picks" }
                    #expect(saved?.trackCount == 3)
                    if let saved { #expect(try harness.store.playlistTrackIDs(rowID: saved.id) == expected) }
                    // The playlist filter offers it at once.
                    try await browser.waitUntil(
                        "[...document.getElementById('explorer-playlist').options].some(o => o.textContent === 'Lasso picks (3)')"
                    )

                    // Exported as files the browser downloads.
                    try await Self.click("#staging-m3u", browser)
                    let m3u = try await Self.downloaded("Lasso picks.m3u", in: downloads)
                    let entries = m3u.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
                    #expect(m3u.hasPrefix("#EXTM3U\n#PLAYLIST:Lasso picks\n"))
                    #expect(entries == expectedTitles.map { $0.replacingOccurrences(of: " – ", with: " - ") })
                    try await Self.click("#staging-csv", browser)
                    let csv = try await Self.downloaded("Lasso picks.csv", in: downloads)
                    let rows = csv.components(separatedBy: "\r\n").filter { !$0.isEmpty }
                    #expect(rows.first == "track_id,spotify_id,artist,title,album,duration_ms,path")
                    #expect(
                        rows.dropFirst().map { $0.split(separator: ",").first.map(String.init) }
                            == expected.map { String($0) }
                    )
                    #expect(browser.pageErrors.isEmpty, "\(browser.pageErrors)")
                }
            }
            // The built tool lists the saved playlist too.
            let listing = try await CommandLineTool.run(["playlists", "--db", harness.folder + "/library.sqlite"])
            #expect(listing.status == 0, "\(listing.stderr)")
            #expect(listing.stdout.contains("Lasso picks"))
        }
    }

    @Test(.enabled(if: HeadlessChromium.isAvailable, HeadlessChromium.skipReason))
    func theKeyboardStagesShownTracksAndRemovesThem() async throws {
        try await ServerHarness.withServer { harness async throws in
            try await ChromiumSession.withSession { browser in
                try await Self.openExplorer(browser, harness: harness)
                try await Self.choose("Quiet Evening", in: "explorer-playlist", browser)
                try await browser.waitUntil("document.getElementById('explorer-canvas').dataset.shown === '8'")
                try await browser.evaluate("document.getElementById('explorer-add-shown').focus()")
                try await browser.press(.enter)
                try await browser.waitUntil("document.querySelectorAll('#staging-list li').length === 8")
                let titles = try await Self.stagedTitles(browser)
                #expect(Set(titles) == Set((1...8).map { "Artist \($0 % 4) – Song \($0)" }))
                // Remove the second by keyboard: the focus moves to the next one's button.
                try await browser.evaluate("document.querySelectorAll('#staging-list button')[1].focus()")
                try await browser.press(.enter)
                try await browser.waitUntil("document.querySelectorAll('#staging-list li').length === 7")
                #expect(try await Self.stagedTitles(browser) == Array(titles[0..<1] + titles[2...]))
                #expect(
                    try await browser.evaluate(
                        "document.activeElement === document.querySelectorAll('#staging-list button')[1]",
                        as: Bool.self
                    )
                )
                // Nobody is signed in to Spotify here: the push button is off, and says why.
                #expect(
                    try await browser.evaluate(
                        "document.getElementById('staging-spotify').disabled"
                            + " && !document.getElementById('staging-spotify-why').hidden",
                        as: Bool.self
                    )
                )
                // The canvas pans and zooms by keyboard too.
                try await browser.evaluate("document.getElementById('explorer-canvas').focus()")
                let draws = try await browser.evaluate("explorerStats.draws", as: Int.self)
                try await browser.press(.arrowLeft)
                try await browser.waitUntil("explorerStats.draws > \(draws)")
                #expect(browser.pageErrors.isEmpty, "\(browser.pageErrors)")
            }
        }
    }

    /// The points and their facets are separate answers keyed by track ID: the page joins them by
    /// ID, so facets listed in another order (as after a store changed between the two requests)
    /// still put each title on its own track.
    @Test(.enabled(if: HeadlessChromium.isAvailable, HeadlessChromium.skipReason))
    func facetsInAnotherOrderStillNameTheirOwnTracks() async throws {
        try await ServerHarness.withServer { harness async throws in
            try await ChromiumSession.withSession { browser in
                // The page's facets answer arrives reversed, every array in step.
                try await browser.send(
                    "Page.addScriptToEvaluateOnNewDocument",
                    [
                        "source": """
                        const realFetch = window.fetch;
                        window.fetch = async (...args) => {
                          const response = await realFetch(...args);
                          if (!String(args[0]).startsWith('/api/points/facets')) return response;
                          const body = await response.json();
                          for (const key of ['track_ids', 'titles', 'source']) body[key].reverse();
                          return new Response(JSON.stringify(body), { status: response.status, headers: response.headers });
                        };
                        """
                    ]
                )
                try await Self.openExplorer(browser, harness: harness)
                try await Self.choose("Quiet Evening", in: "explorer-playlist", browser)
                try await browser.waitUntil("document.getElementById('explorer-canvas').dataset.shown === '8'")
                try await Self.click("#explorer-add-shown", browser)
                try await browser.waitUntil("document.querySelectorAll('#staging-list li').length === 8")
                #expect(
                    Set(try await Self.stagedTitles(browser)) == Set((1...8).map { "Artist \($0 % 4) – Song \($0)" })
                )
                // The source filter keeps the playlist's tracks of that source, joined by ID too.
                let facets = try await harness.get("/api/points/facets").json()
                let sources = try #require(facets["sources"] as? [String])
                try await Self.choose(sources[0], in: "explorer-source", browser)
                let ids = try #require(facets["track_ids"] as? [Int])
                let source = try #require(facets["source"] as? [Int])
                let playlists = try #require(facets["playlists"] as? [[String: Any]])
                let quiet = try #require(playlists.first { $0["name"] as? String == "Quiet Evening" })
                let members = Set(try #require(quiet["track_ids"] as? [Int]))
                let expected = zip(ids, source).filter { members.contains($0.0) && $0.1 == 0 }.count
                try await browser.waitUntil(
                    "document.getElementById('explorer-canvas').dataset.shown === '\(expected)'"
                )
                #expect(browser.pageErrors.isEmpty, "\(browser.pageErrors)")
            }
        }
    }
}
