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
