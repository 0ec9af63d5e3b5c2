import Foundation
import Testing
import VibesServer
import VibesTestSupport

/// The embedded web app: served with a policy that loads nothing from elsewhere, and, in headless
/// Chromium, showing the library's playlists through the API.
struct WebAppTests {
    @Test func pageScriptAndStylesAreServedLocally() async throws {
        try await ServerHarness.withServer { harness async throws in
            let page = try await harness.get("/")
            #expect(page.status == 200)
            #expect(page.headers["content-type"] == "text/html; charset=utf-8")
            #expect(page.headers["content-security-policy"]?.contains("default-src 'none'") == true)
            let html = String(decoding: page.body, as: UTF8.self)
            #expect(html.contains("<script src=\"/app.js\""))
            for path in ["/app.js", "/app.css"] {
                let asset = try await harness.get(path)
                #expect(asset.status == 200)
                let text = String(decoding: asset.body, as: UTF8.self)
                #expect(!text.contains("http://") && !text.contains("https://"), "\(path) refers to another site")
            }
        }
    }
}

/// The web app in headless Chromium: it loads, calls the API and lists the playlists with their
/// vibes.
struct WebAppBrowserTests {
    @Test(.enabled(if: HeadlessChromium.isAvailable, HeadlessChromium.skipReason))
    func appListsPlaylistsWithTheirVibes() async throws {
        try await ServerHarness.withServer { harness async throws in
            let url = try #require(URL(string: "http://127.0.0.1:\(harness.port)/"))
            let dom = try await HeadlessChromium.dumpDOM(ofPageAt: url)
            #expect(dom.contains("class=\"playlist-item\""))
            #expect(dom.contains("Quiet Evening"))
            #expect(dom.contains("Workout"))
            // The vibe breakdown of Workout: 10 lively tracks and 2 calm of 12.
            #expect(dom.contains("Lively 83%, Calm 17%"))
            // The library summary came through the API too.
            #expect(dom.contains("<dt>Tracks</dt><dd>20</dd>"))
            #expect(!dom.contains("Could not load"))
        }
    }
}
