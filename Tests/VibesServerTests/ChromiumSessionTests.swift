import Foundation
import Testing
import VibesTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The DevTools driver the browser tests use: it opens the app, reads the page, clicks with real
/// mouse events and leaves no process behind.
struct ChromiumSessionTests {
    @Test(.enabled(if: HeadlessChromium.isAvailable, HeadlessChromium.skipReason))
    func opensThePageClicksAndClosesWithoutLeavingProcesses() async throws {
        let processID = try await ServerHarness.withServer { harness async throws in
            try await ChromiumSession.withSession { browser in
                try await browser.open(try #require(URL(string: "http://127.0.0.1:\(harness.port)/")))
                try await browser.waitUntil("document.querySelectorAll('.playlist-item').length === 2")
                #expect(try await browser.evaluate("document.title", as: String.self) == "vibes-analyze")
                #expect(try await browser.evaluate("Promise.resolve(6 * 7)", as: Int.self) == 42)
                // A real click on the "Workout" button opens the playlist, once the views above it
                // have loaded and it stays where it is.
                let workout = try await browser.evaluate(
                    "[...document.querySelectorAll('button.playlist')].find(b => b.textContent.includes('Workout')).dataset.id",
                    as: String.self
                )
                try await browser.click(
                    "button.playlist[data-id='\(workout)']",
                    whenSettled: "document.getElementById('main').getAttribute('aria-busy') !== 'true'"
                )
                try await browser.waitUntil("document.querySelector('#playlist-detail h3')?.textContent === 'Workout'")
                #expect(
                    try await browser.evaluate(
                        "document.querySelectorAll('#playlist-detail tbody tr').length",
                        as: Int.self
                    ) == 12
                )
                // A script error is reported as a failure with its text.
                await #expect(throws: ChromiumSession.Failure.self) {
                    try await browser.evaluate("null.property")
                }
                #expect(browser.pageErrors.isEmpty)
                return browser.processID
            }
        }
        // The browser and every process of its group are gone.
        #expect(kill(processID, 0) == -1)
        #expect(kill(-processID, 0) == -1)
    }

    /// A command whose task is cancelled stops waiting at once, well before its timeout, and the
    /// session goes on answering. Timed from the cancellation: waiting for the browser's turn
    /// behind the suite's other browser tests is not the command's wait.
    @Test(.enabled(if: HeadlessChromium.isAvailable, HeadlessChromium.skipReason), .timeLimit(.minutes(10)))
    func aCancelledCommandStopsWaiting() async throws {
        try await ChromiumSession.withSession(commandTimeout: .seconds(300)) { browser in
            let never = Task { try await browser.evaluate("new Promise(() => {})", as: Int.self) }
            try await Task.sleep(for: .milliseconds(100))
            let cancelled = ContinuousClock.now
            never.cancel()
            await #expect(throws: CancellationError.self) { try await never.value }
            #expect(ContinuousClock.now - cancelled < .seconds(60))
            #expect(try await browser.evaluate("6 * 7", as: Int.self) == 42)
        }
    }
}
