import Foundation
import Testing
import VibesServer
import VibesTestSupport

/// The vibes, mood path, ordering and report views in headless Chromium, each opened by its
/// address, over the harness's library.
struct WebAppViewsBrowserTests {
    /// The serialised DOM of the app opened at `#fragment`.
    static func dom(_ harness: ServerHarness, fragment: String) async throws -> String {
        let url = try #require(URL(string: "http://127.0.0.1:\(harness.port)/#\(fragment)"))
        return try await HeadlessChromium.dumpDOM(ofPageAt: url)
    }

    /// How many times `needle` occurs in `text`.
    static func count(of needle: String, in text: String) -> Int {
        text.components(separatedBy: needle).count - 1
    }

    @Test(.enabled(if: HeadlessChromium.isAvailable, HeadlessChromium.skipReason))
    func aMoodPathIsPreviewedReadyToSave() async throws {
        try await ServerHarness.withServer { harness async throws in
            let dom = try await Self.dom(harness, fragment: "path/mood:calm/mood:energetic/8")
            let list = try #require(dom.range(of: "<ol class=\"preview\" id=\"path-list\">"))
            let end = try #require(dom.range(of: "</ol>", range: list.upperBound..<dom.endIndex))
            #expect(Self.count(of: "data-track-id=", in: String(dom[list.upperBound..<end.lowerBound])) == 8)
            #expect(dom.contains("<form class=\"inline\" id=\"path-save\">"))
            #expect(dom.contains("8 tracks, "))
            // The vibes list and the re-cluster form are there too.
            #expect(dom.contains("Run 1: 2 vibes over 20 tracks."))
            #expect(dom.contains("<option value=\"auto\">auto (4–12, by silhouette)</option>"))
            #expect(!dom.contains("Could not"))
        }
    }

    @Test(.enabled(if: HeadlessChromium.isAvailable, HeadlessChromium.skipReason))
    func aVibeShowsItsProfileGenresAndTracks() async throws {
        try await ServerHarness.withServer { harness async throws in
            let dom = try await Self.dom(harness, fragment: "vibe/2")
            #expect(dom.contains("<h3 tabindex=\"-1\">2. Lively</h3>"))
            #expect(dom.contains("<span role=\"listitem\">energy</span>"))
            #expect(dom.contains("<li>pop (10)</li>"))
            #expect(dom.contains("All 10 tracks, nearest the centre first"))
            #expect(Self.count(of: "<tr><td class=\"num\">", in: dom) == 10)
            #expect(!dom.contains("Could not"))
        }
    }

    @Test(.enabled(if: HeadlessChromium.isAvailable, HeadlessChromium.skipReason))
    func aPlaylistOrderIsPreviewedWithItsSaveAndPushButtons() async throws {
        try await ServerHarness.withServer { harness async throws in
            let workout = try await WebAppViewsTests.playlistID("Workout", in: harness)
            let dom = try await Self.dom(harness, fragment: "playlist/\(workout)/order/key")
            #expect(Self.count(of: "<li data-track-id=", in: dom) == 12)
            #expect(dom.contains("value=\"Workout (key)\""))
            #expect(dom.contains("Save to library</button>"))
            #expect(dom.contains("id=\"order-push\" aria-describedby=\"order-push-why\" disabled=\"\""))
            #expect(dom.contains("This playlist is not on Spotify"))
            #expect(!dom.contains("Could not"))
        }
    }

    /// A part of the address that is not valid percent-encoding does not stop the routing: the
    /// rest of the address is still shown.
    @Test(.enabled(if: HeadlessChromium.isAvailable, HeadlessChromium.skipReason))
    func aMalformedAddressStillOpensItsView() async throws {
        try await ServerHarness.withServer { harness async throws in
            let workout = try await WebAppViewsTests.playlistID("Workout", in: harness)
            let dom = try await Self.dom(harness, fragment: "playlist/\(workout)/order/key/%")
            #expect(Self.count(of: "<li data-track-id=", in: dom) == 12)
            #expect(!dom.contains("Could not"))
        }
    }

    @Test(.enabled(if: HeadlessChromium.isAvailable, HeadlessChromium.skipReason))
    func theReportShowsEverySection() async throws {
        try await ServerHarness.withServer { harness async throws in
            let dom = try await Self.dom(harness, fragment: "report")
            for (id, title) in [
                ("overview", "Overview"), ("features", "Feature distributions"), ("moods", "Moods"),
                ("vibes", "Vibes"), ("map", "Library map"), ("listening", "Listening"), ("outliers", "Outliers"),
            ] {
                #expect(dom.contains("<h3 id=\"report-\(id)-title\">\(title)</h3>"), "\(id)")
            }
            #expect(dom.contains("<dt>Tracks</dt><dd>20</dd>"))
            #expect(dom.contains("<strong>Calm</strong>"))
            #expect(!dom.contains("Could not"))
        }
    }
}

/// The same views driven as a person would, over the DevTools protocol: clicks and keys, then
/// what the store and `vibes-analyze playlists` say.
struct WebAppViewsSessionTests {
    /// Clicks the element `selector` at its centre, scrolled into view, once the app has settled.
    static func click(_ selector: String, _ browser: ChromiumSession) async throws {
        try await ExplorerTests.click(selector, browser)
    }

    /// Sets the value of the form control `id` and tells the page it changed, once the app has
    /// settled (a view still loading may replace the form).
    static func set(_ id: String, to value: String, _ browser: ChromiumSession) async throws {
        try await browser.waitUntil(ExplorerTests.settled)
        try await browser.evaluate(
            "(() => { const node = document.getElementById('\(id)'); node.value = \(ExplorerTests.quoted(value));"
                + " node.dispatchEvent(new Event('change', { bubbles: true })); })()"
        )
    }

    /// Opens the app at `#fragment` and waits until `condition` holds.
    static func open(
        _ harness: ServerHarness,
        fragment: String = "",
        until condition: String,
        _ browser: ChromiumSession
    ) async throws {
        try await browser.open(try #require(URL(string: "http://127.0.0.1:\(harness.port)/#\(fragment)")))
        try await browser.waitUntil("(\(condition)) && \(ExplorerTests.settled)")
    }

    @Test(.enabled(if: HeadlessChromium.isAvailable, HeadlessChromium.skipReason))
    func aMoodPathToASongIsBuiltAndSaved() async throws {
        try await ServerHarness.withServer { harness async throws in
            let song = try WebAppViewsTests.trackID(17, in: harness)
            try await ChromiumSession.withSession(width: 390, height: 844) { browser in
                try await Self.open(harness, until: "document.getElementById('path-form') !== null", browser)
                // From calm to a song found by searching, six tracks long.
                try await Self.set("path-to-kind", to: "track", browser)
                try await Self.set("path-to-query", to: "Song 17", browser)
                try await browser.waitUntil(ExplorerTests.settled)
                try await browser.evaluate("document.getElementById('path-to-query').focus()")
                try await browser.press(.enter)
                try await browser.waitUntil("document.getElementById('path-to-track').options.length > 0")
                #expect(
                    try await browser.evaluate("document.getElementById('path-to-track').value", as: String.self)
                        == String(song)
                )
                try await Self.set("path-length", to: "6", browser)
                try await Self.click("#path-form button[type=submit]", browser)
                try await browser.waitUntil("document.querySelectorAll('#path-list li').length === 6")
                let previewed = try await browser.evaluate(
                    "[...document.querySelectorAll('#path-list li')].map(li => Number(li.dataset.trackId))",
                    as: [Int64].self
                )
                #expect(previewed.last == Int64(song))
                try await Self.set("path-name", to: "Calm to Song 17", browser)
                try await Self.click("#path-save button[type=submit]", browser)
                try await browser.waitUntil(
                    "document.getElementById('path-status').textContent.startsWith('Saved as playlist')"
                )
                // The new playlist is listed by the app too.
                try await browser.waitUntil(
                    "[...document.querySelectorAll('.playlist-item strong')].some(n => n.textContent === 'Calm to Song 17')"
                )
                #expect(browser.pageErrors.isEmpty, "\(browser.pageErrors)")

                let saved = try #require(
                    try harness.store.playlistOverviews(vibesOf: nil).first { $0.name == "Calm to Song 17" }
                )
                let detail = try harness.store.playlistDetail(id: saved.id, vibesOf: nil)
                #expect(detail.entries.map(\.track.id) == previewed)
            }
            let listing = try await CommandLineTool.run(["playlists", "--db", harness.folder + "/library.sqlite"])
            #expect(listing.status == 0)
            #expect(listing.stdout.contains("Calm to Song 17"), "\(listing.stdout)")
        }
    }

    @Test(.enabled(if: HeadlessChromium.isAvailable, HeadlessChromium.skipReason))
    func reclusteringFromTheVibesViewShowsTheNewRun() async throws {
        try await ServerHarness.withServer { harness async throws in
            try await ChromiumSession.withSession { browser in
                try await Self.open(
                    harness,
                    fragment: "vibes",
                    until: "document.querySelectorAll('#vibe-list li').length === 2",
                    browser
                )
                try await Self.set("cluster-k", to: "3", browser)
                // By keyboard: Enter on the focused button submits the form.
                try await browser.waitUntil(ExplorerTests.settled)
                try await browser.evaluate("document.querySelector('#cluster-form button').focus()")
                try await browser.press(.enter)
                try await browser.waitUntil(
                    "document.getElementById('cluster-status').textContent.startsWith('Saved run')"
                )
                try await browser.waitUntil("document.querySelectorAll('#vibe-list li').length === 3")
                let runID = try #require(try harness.store.currentClusteringRunID())
                #expect(
                    try await browser.evaluate("document.getElementById('vibes-run').textContent", as: String.self)
                        == "Run \(runID): 3 vibes over 20 tracks."
                )
                // A vibe of the new run opens with its tracks.
                try await Self.click("#vibe-list li:first-child button", browser)
                try await browser.waitUntil("document.querySelector('#vibe-detail h3') !== null")
                let size = try await browser.evaluate(
                    "document.querySelectorAll('#vibe-detail table.vibe-tracks tbody tr').length",
                    as: Int.self
                )
                let ranked = try harness.store.rankedClusters(ofRun: runID)
                #expect(size == ranked.first?.size)
                #expect(browser.pageErrors.isEmpty, "\(browser.pageErrors)")
            }
        }
    }

    @Test(.enabled(if: HeadlessChromium.isAvailable, HeadlessChromium.skipReason))
    func aPlaylistIsOrderedAndSavedFromItsView() async throws {
        try await ServerHarness.withServer { harness async throws in
            let workout = try await WebAppViewsTests.playlistID("Workout", in: harness)
            try await ChromiumSession.withSession { browser in
                try await Self.open(
                    harness,
                    until: "document.querySelectorAll('.playlist-item').length === 2",
                    browser
                )
                try await Self.click(".playlist-item button[data-id='\(workout)']", browser)
                try await browser.waitUntil("document.getElementById('order-form') !== null")
                // The arc curve is offered only for the arc order.
                #expect(try await browser.evaluate("document.getElementById('order-arc').hidden", as: Bool.self))
                try await Self.set("order-kind", to: "arc", browser)
                try await Self.set("order-arc", to: "rising", browser)
                #expect(!(try await browser.evaluate("document.getElementById('order-arc').hidden", as: Bool.self)))
                try await Self.click("#order-form button[type=submit]", browser)
                try await browser.waitUntil("document.querySelectorAll('#order-list li').length === 12")
                #expect(
                    try await browser.evaluate("document.getElementById('order-name').value", as: String.self)
                        == "Workout (arc rising)"
                )
                #expect(try await browser.evaluate("document.getElementById('order-push').disabled", as: Bool.self))
                let previewed = try await browser.evaluate(
                    "[...document.querySelectorAll('#order-list li')].map(li => Number(li.dataset.trackId))",
                    as: [Int64].self
                )
                try await Self.click("#order-preview form button[type=submit]", browser)
                try await browser.waitUntil(
                    "document.getElementById('order-status').textContent.startsWith('Saved as playlist')"
                )
                #expect(browser.pageErrors.isEmpty, "\(browser.pageErrors)")
                let saved = try #require(
                    try harness.store.playlistOverviews(vibesOf: nil).first { $0.name == "Workout (arc rising)" }
                )
                #expect(
                    try harness.store.playlistDetail(id: saved.id, vibesOf: nil).entries.map(\.track.id) == previewed
                )
            }
        }
    }

    /// The report is asked for in the browser's time zone, which listening is bucketed by.
    @Test(.enabled(if: HeadlessChromium.isAvailable, HeadlessChromium.skipReason))
    func theReportIsAskedForInTheBrowsersTimeZone() async throws {
        try await ServerHarness.withServer { harness async throws in
            try await ChromiumSession.withSession { browser in
                try await browser.send("Emulation.setTimezoneOverride", ["timezoneId": "Asia/Tokyo"])
                try await Self.open(
                    harness,
                    fragment: "report",
                    until: "document.querySelectorAll('#report-body .report-part').length === 7",
                    browser
                )
                let requests = try await browser.evaluate(
                    "performance.getEntriesByType('resource').map(e => e.name).filter(n => n.includes('/api/report'))",
                    as: [String].self
                )
                #expect(requests == ["http://127.0.0.1:\(harness.port)/api/report?time_zone=Asia%2FTokyo"])
                #expect(browser.pageErrors.isEmpty, "\(browser.pageErrors)")
            }
        }
    }

    @Test(.enabled(if: HeadlessChromium.isAvailable, HeadlessChromium.skipReason))
    func theReportOpensFromItsButton() async throws {
        try await ServerHarness.withServer { harness async throws in
            try await ChromiumSession.withSession(width: 390, height: 844) { browser in
                try await Self.open(harness, until: "document.getElementById('report-load') !== null", browser)
                try await Self.click("#report-load", browser)
                try await browser.waitUntil("document.querySelectorAll('#report-body .report-part').length === 7")
                let titles = try await browser.evaluate(
                    "[...document.querySelectorAll('#report-body .report-part h3')].map(n => n.textContent)",
                    as: [String].self
                )
                #expect(
                    titles == [
                        "Overview", "Feature distributions", "Moods", "Vibes", "Library map", "Listening", "Outliers",
                    ]
                )
                // At phone width nothing is wider than the page.
                #expect(
                    try await browser.evaluate(
                        "document.documentElement.scrollWidth <= window.innerWidth",
                        as: Bool.self
                    )
                )
                #expect(browser.pageErrors.isEmpty, "\(browser.pageErrors)")
            }
        }
    }
}
