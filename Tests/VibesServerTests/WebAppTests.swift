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

/// "More like this" in headless Chromium: a playlist's tracks each offer it, and following it
/// lists what `/v1/recommendations` answers, with the similarity and the reasons of each.
struct MoreLikeThisBrowserTests {
    @Test(.enabled(if: HeadlessChromium.isAvailable, HeadlessChromium.skipReason))
    func moreLikeThisListsRecommendationsWithTheirReasons() async throws {
        try await ServerHarness.withServer { harness async throws in
            let playlists = try #require(
                (try await harness.get("/api/playlists").json())["playlists"] as? [[String: Any]]
            )
            let quiet = try #require(playlists.first { $0["name"] as? String == "Quiet Evening" }?["id"] as? Int)
            let seed = ServerHarness.spotifyID(3)
            let expected = try #require(
                (try await harness.get("/v1/recommendations?limit=20&seed_tracks=\(seed)").json())["tracks"]
                    as? [[String: Any]]
            )
            try #require(!expected.isEmpty)

            // The address a "More like this" button of the playlist leads to.
            let url = try #require(URL(string: "http://127.0.0.1:\(harness.port)/#playlist/\(quiet)/more/\(seed)"))
            let dom = try await HeadlessChromium.dumpDOM(ofPageAt: url)
            // Every track of Quiet Evening has features and a Spotify ID: each has the button.
            #expect(dom.components(separatedBy: "class=\"more-like\"").count - 1 == 8)
            #expect(dom.contains("Like Artist 3 – Song 3: \(expected.count) tracks of your library."))
            #expect(dom.components(separatedBy: "class=\"recommendation\"").count - 1 == expected.count)
            var position = dom.startIndex
            for track in expected {
                let name = try #require(track["name"] as? String)
                let artist = try #require((track["artists"] as? [[String: Any]])?.first?["name"] as? String)
                let vibes = try #require(track["vibes"] as? [String: Any])
                let similarity = try #require(vibes["similarity"] as? Double)
                // In the order of the API, each with its similarity.
                let entry =
                    "\(artist) – \(name)</span> <span class=\"sim\">similarity \(String(format: "%.2f", similarity))"
                let found = try #require(dom.range(of: entry, range: position..<dom.endIndex), "\(entry)")
                position = found.upperBound
                let reasons = (vibes["why"] as? [String] ?? []).joined(separator: "; ")
                if !reasons.contains(where: { "&<>\"".contains($0) }) { #expect(dom.contains(reasons)) }
            }
            // The list can be saved as a playlist, under a name to edit.
            #expect(dom.contains("<form class=\"save-playlist\">"))
            #expect(dom.contains("value=\"More like Artist 3 – Song 3\""))
            #expect(!dom.contains("Could not"))
        }
    }
}
