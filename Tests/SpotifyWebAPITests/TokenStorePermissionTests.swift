import Foundation
import SpotifyTestSupport
import Testing
import VibesTestSupport

@testable import SpotifyWebAPI

/// The session file is the owner's alone; the folder around it is created private but never changed.
struct TokenStorePermissionTests {
    private static let session = SpotifySession(
        accessToken: "BQ-secret",
        refreshToken: "AQ-secret",
        expiresAt: Date(timeIntervalSince1970: 2_000_000_000),
        scopes: ["user-top-read"],
        grant: .authorizationCodePKCE,
        clientID: "id"
    )

    private func mode(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return try #require(attributes[.posixPermissions] as? NSNumber, sourceLocation: sourceLocation).intValue
            & 0o7777
    }

    @Test func aSharedStickyFolderKeepsItsModeAndTheSaveWarns() async throws {
        try await withTemporaryDirectory { directory in
            let shared = directory + "/shared"
            try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: false)
            try FileManager.default.setAttributes([.posixPermissions: 0o1777], ofItemAtPath: shared)
            let capture = LogCapture()
            let path = shared + "/spotify-session.json"
            let store = TokenStore(path: path, accounts: nil, logger: capture.logger)
            try await store.save(Self.session)

            #expect(try mode(shared) == 0o1777)
            #expect(try mode(path) == 0o600)
            #expect(try await TokenStore(path: path, accounts: nil).session() == Self.session)
            let warnings = capture.lines.filter { $0.hasPrefix("warning") && $0.contains("writable by others") }
            #expect(warnings.count == 1)
            #expect(warnings.first?.contains("mode 1777") == true)
            #expect(!capture.lines.joined().contains("secret"))
            // Only the session file: no temporary file is left behind.
            #expect(try FileManager.default.contentsOfDirectory(atPath: shared) == ["spotify-session.json"])
        }
    }

    @Test func aNewFolderIsTheOwnersOnlyAndAPrivateFolderDoesNotWarn() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory + "/config/vibes-analyze"
            let path = folder + "/spotify-session.json"
            let capture = LogCapture()
            let store = TokenStore(path: path, accounts: nil, logger: capture.logger)
            try await store.save(Self.session)
            #expect(try mode(folder) == 0o700)
            #expect(try mode(path) == 0o600)

            // An existing private folder with another mode (0750) keeps it, silently.
            try FileManager.default.setAttributes([.posixPermissions: 0o750], ofItemAtPath: folder)
            var renewed = Self.session
            renewed.accessToken = "BQ-renewed"
            try await store.save(renewed)
            #expect(try mode(folder) == 0o750)
            #expect(try mode(path) == 0o600)
            #expect(try await TokenStore(path: path, accounts: nil).session() == renewed)
            #expect(!capture.lines.contains { $0.contains("writable by others") })
        }
    }

    @Test func replacingTheFileIsAtomicAndKeepsItPrivate() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/spotify-session.json"
            // A looser file left by an older version, or by hand, is replaced by a 0600 one.
            try Data("{}".utf8).write(to: URL(fileURLWithPath: path))
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
            let before = try #require(
                FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? NSNumber
            )
            try TokenStore.writeOwnerOnly(Data("new".utf8), to: path, logger: LogCapture().logger)
            #expect(try mode(path) == 0o600)
            #expect(FileManager.default.contents(atPath: path) == Data("new".utf8))
            // A rename puts a new inode in place; the old file was never truncated and rewritten.
            let after = try #require(FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? NSNumber)
            #expect(after != before)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["spotify-session.json"])
        }
    }
}
