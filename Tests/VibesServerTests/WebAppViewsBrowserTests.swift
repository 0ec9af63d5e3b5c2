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
            #expect(dom.contains("<button type=\"button\" id=\"order-push\" disabled=\"\""))
            #expect(dom.contains("Push to Spotify (needs Spotify sign-in)"))
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
