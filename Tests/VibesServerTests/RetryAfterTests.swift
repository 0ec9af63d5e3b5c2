import Foundation
import SpotifyWebAPI
import Testing

@testable import VibesServer

/// The `Retry-After` of the server's own 429s: the whole seconds until Spotify lets a retry
/// through, from its wait or the time it named.
struct RetryAfterTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test(arguments: [
        (Duration?.some(.seconds(30)), Date?.none, Int?.some(30)),
        (.milliseconds(2_500), nil, 3),
        (.milliseconds(1), nil, 1),
        (.zero, nil, 1),
        (nil, now.addingTimeInterval(4 * 3600), 4 * 3600),
        (nil, now.addingTimeInterval(0.2), 1),
        // A time already past still asks for a second.
        (nil, now.addingTimeInterval(-60), 1),
        // The time named wins over the wait.
        (.seconds(5), now.addingTimeInterval(120), 120),
        (nil, nil, nil),
    ])
    func secondsAreRoundedUp(delay: Duration?, time: Date?, expected: Int?) {
        #expect(VibesServer.retrySeconds(delay, at: time, now: Self.now) == expected)
    }

    @Test func spotifysWaitsBecomeTheAnswersRetryAfter() {
        let limited = VibesServer.spotifyFailure(
            SpotifyError.rateLimited(retryAfter: .seconds(90), retryAt: nil, endpoint: "PUT /v1/playlists/x/items"),
            action: "take the order"
        )
        #expect(limited.status == 429 && limited.code == "spotify_rate_limited")
        #expect(limited.retryAfterSeconds == 90)
        let quota = VibesServer.spotifyFailure(
            SpotifyError.quotaExceeded(retryAfter: .seconds(7_200), resetsAt: nil, endpoint: "GET /v1/me"),
            action: "take the order"
        )
        #expect(quota.status == 429 && quota.code == "spotify_quota_exceeded")
        #expect(quota.retryAfterSeconds == 7_200)
        // Other failures ask for no wait.
        #expect(VibesServer.spotifyFailure(SpotifyError.notSignedIn, action: "take the order").retryAfterSeconds == nil)
    }
}
