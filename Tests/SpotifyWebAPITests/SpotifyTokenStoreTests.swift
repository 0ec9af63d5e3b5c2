import Foundation
import SpotifyTestSupport
import SpotifyWebAPI
import Synchronization
import Testing
import VibesTestSupport

struct SpotifyTokenStoreTests {
    @Test func theSessionFileIsOwnerOnly() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/config/vibes-analyze/spotify-session.json"
            let store = TokenStore(path: path, accounts: nil)
            let session = SpotifySession(
                accessToken: "BQ-secret",
                refreshToken: "AQ-secret",
                expiresAt: Date(timeIntervalSince1970: 2_000_000_000),
                scopes: ["user-top-read", "playlist-read-private"],
                grant: .authorizationCodePKCE,
                clientID: "id",
                userID: "wizzler"
            )
            try await store.save(session)
            let manager = FileManager.default
            let fileMode = try #require(manager.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)
            let folderMode = try #require(
                manager.attributesOfItem(atPath: directory + "/config/vibes-analyze")[.posixPermissions] as? NSNumber
            )
            #expect(fileMode.intValue & 0o777 == 0o600)
            #expect(folderMode.intValue & 0o777 == 0o700)
            #expect(
                try manager.contentsOfDirectory(atPath: directory + "/config/vibes-analyze") == ["spotify-session.json"]
            )

            let reread = try await TokenStore(path: path, accounts: nil).session()
            #expect(reread == session)
            #expect(reread?.scopes == ["playlist-read-private", "user-top-read"])
            #expect(!session.description.contains("secret"))

            try await store.clear()
            #expect(!manager.fileExists(atPath: path))
            #expect(try await store.session() == nil)
            try await store.clear()  // Clearing twice is fine.
        }
    }

    @Test func aLooseSessionFileIsTightened() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/session.json"
            let session = SpotifySession(
                accessToken: "a",
                refreshToken: "r",
                expiresAt: Date(),
                scopes: [],
                grant: .authorizationCode,
                clientID: "id"
            )
            try await TokenStore(path: path, accounts: nil).save(session)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
            _ = try await TokenStore(path: path, accounts: nil).session()
            let mode = try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)
            #expect(mode.intValue & 0o777 == 0o600)
        }
    }

    @Test func tokensAreRefreshedOnlyNearExpiryUsingTheInjectedClock() async throws {
        try await FakeSpotify.withServer { fake in
            let now = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
            let clock: @Sendable () -> Date = { now.withLock { $0 } }
            let signedIn = try await makeSignedInClient(fake, expiresIn: 3600, now: clock)
            let first = try await signedIn.tokens.accessToken()
            now.withLock { $0 += 3000 }  // 10 minutes left: still valid.
            #expect(try await signedIn.tokens.accessToken() == first)
            now.withLock { $0 += 500 }  // 100 seconds left: inside the 2-minute tolerance.
            let second = try await signedIn.tokens.accessToken()
            #expect(second != first)
            let expiry = try #require(await signedIn.tokens.session()).expiresAt
            #expect(expiry == now.withLock { $0 }.addingTimeInterval(3600))
            #expect(await fake.state.requests(to: "/accounts/api/token").count == 1)
        }
    }

    @Test func concurrentCallersShareOneRefresh() async throws {
        try await FakeSpotify.withServer { fake in
            let signedIn = try await makeSignedInClient(fake, expiresIn: 10)
            let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<8 { group.addTask { try await signedIn.tokens.accessToken() } }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(tokens.count == 1)
            #expect(await fake.state.requests(to: "/accounts/api/token").count == 1)
        }
    }

    @Test func aSessionRefreshedByAnotherProcessIsAdopted() async throws {
        try await withTemporaryDirectory { directory in
            try await FakeSpotify.withServer { fake in
                let path = directory + "/spotify-session.json"
                let first = try await makeSignedInClient(fake, sessionPath: path)
                let second = TokenStore(path: path, accounts: first.accounts)  // Another process, same file.
                let old = try #require(await second.session()).accessToken
                await fake.state.expireAccessTokens()
                let refreshedByFirst = try await first.tokens.refreshAccessToken(rejecting: old)
                // The second store still holds the old refresh token, which the fake has now retired.
                #expect(try await second.refreshAccessToken(rejecting: old) == refreshedByFirst)
                #expect(await fake.state.requests(to: "/accounts/api/token").count == 1)
                #expect(FileManager.default.fileExists(atPath: path))
            }
        }
    }

    @Test func defaultPathFollowsXDG() {
        #expect(
            TokenStore.defaultPath(environment: ["XDG_CONFIG_HOME": "/x", "HOME": "/h"])
                == "/x/vibes-analyze/spotify-session.json"
        )
        #expect(TokenStore.defaultPath(environment: ["HOME": "/h"]) == "/h/.config/vibes-analyze/spotify-session.json")
        #expect(TokenStore.defaultPath(environment: ["VIBES_SPOTIFY_SESSION": "/s.json", "HOME": "/h"]) == "/s.json")
    }
}
