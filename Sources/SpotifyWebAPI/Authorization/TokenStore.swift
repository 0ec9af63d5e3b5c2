import Foundation
import Logging
import VibesHTTP

/// Supplies access tokens to ``AuthorizingTransport``.
public protocol AccessTokenProvider: Sendable {
    /// A token valid for at least a couple of minutes, refreshed first when needed.
    func accessToken() async throws -> String
    /// A new token after the API rejected `token` with 401.
    func refreshAccessToken(rejecting token: String) async throws -> String
}

/// The signed-in session, kept in a file only the owner can read, and refreshed before it expires.
///
/// The file is JSON, mode 0600, in a folder created with mode 0700 when missing (an existing
/// folder keeps its mode, with a warning when others may write to it); by default
/// `$XDG_CONFIG_HOME/vibes-analyze/spotify-session.json` (see ``defaultPath(environment:)``).
/// A store without a file keeps the session in memory (Client Credentials, tests).
///
/// Concurrent callers share one refresh: the first starts it and the others await its result.
public actor TokenStore: AccessTokenProvider {
    /// The session file, or `nil` for memory only.
    public nonisolated let path: String?
    private let accounts: SpotifyAccounts?
    private let now: @Sendable () -> Date
    private let logger: Logger
    private var cached: SpotifySession??
    private var refreshTask: Task<SpotifySession, any Error>?

    /// Creates a store.
    ///
    /// - Parameters:
    ///   - path: The session file, or `nil` to keep the session in memory.
    ///   - accounts: The accounts service that refreshes tokens; `nil` for a store that only reads
    ///     and writes (`auth status`, `auth logout`).
    ///   - now: The wall clock that decides expiry; tests inject a fixed or advancing clock.
    public init(
        path: String?,
        accounts: SpotifyAccounts?,
        now: @escaping @Sendable () -> Date = Date.init,
        logger: Logger = Logger(label: "vibes.spotify")
    ) {
        self.path = path
        self.accounts = accounts
        self.now = now
        self.logger = logger
    }

    /// The default session file: `$VIBES_SPOTIFY_SESSION`, else
    /// `$XDG_CONFIG_HOME/vibes-analyze/spotify-session.json`, else
    /// `~/.config/vibes-analyze/spotify-session.json`.
    ///
    /// The session lives with the configuration, not beside the database, so several library
    /// files share one sign-in and copying a database never copies a token.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let path = environment["VIBES_SPOTIFY_SESSION"], !path.isEmpty { return path }
        return configurationDirectory(environment: environment) + "/spotify-session.json"
    }

    /// `$XDG_CONFIG_HOME/vibes-analyze`, else `~/.config/vibes-analyze`.
    public static func configurationDirectory(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String {
        if let config = environment["XDG_CONFIG_HOME"], !config.isEmpty { return config + "/vibes-analyze" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.config/vibes-analyze"
    }

    // MARK: - Reading and writing

    /// The stored session, or `nil` when nobody is signed in.
    public func session() throws -> SpotifySession? {
        if let cached { return cached }
        let loaded = try load()
        cached = .some(loaded)
        return loaded
    }

    /// Stores `session`, replacing any other.
    public func save(_ session: SpotifySession) throws {
        cached = .some(session)
        guard let path else { return }
        try Self.writeOwnerOnly(JSONEncoder.session.encode(session), to: path, logger: logger)
    }

    /// Removes the stored session (sign out). Removing nothing is not an error.
    public func clear() throws {
        cached = .some(nil)
        guard let path, FileManager.default.fileExists(atPath: path) else { return }
        try FileManager.default.removeItem(atPath: path)
    }

    private func load() throws -> SpotifySession? {
        guard let path, let data = FileManager.default.contents(atPath: path) else { return nil }
        if let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let mode = attributes[.posixPermissions] as? NSNumber, mode.intValue & 0o077 != 0
        {
            logger.warning("The Spotify session file \(path) was readable by others; its mode is now 0600.")
            try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        }
        do {
            return try JSONDecoder.session.decode(SpotifySession.self, from: data)
        } catch {
            throw SpotifyError.decoding(
                reason: "the session file \(path) is damaged (\(error))",
                status: 0,
                body: redactedBody(data),
                endpoint: SpotifyError.sessionFileEndpoint
            )
        }
    }

    /// Writes `data` to `path` with mode 0600, atomically: a new file in the same folder, then
    /// `rename(2)` over the old one, so a reader sees the old session or the new one, never a part.
    ///
    /// A missing folder is created with mode 0700. An existing folder keeps its mode: it may be
    /// shared on purpose (`/tmp` is 1777), and the file alone holds the secret. When others may
    /// write to it, a warning says so, since they could remove or replace the session file.
    static func writeOwnerOnly(_ data: Data, to path: String, logger: Logger) throws {
        let folder = (path as NSString).deletingLastPathComponent
        let manager = FileManager.default
        if !folder.isEmpty {
            if !manager.fileExists(atPath: folder) {
                try manager.createDirectory(
                    atPath: folder,
                    withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700]
                )
            } else if let mode = (try? manager.attributesOfItem(atPath: folder))?[.posixPermissions] as? NSNumber,
                mode.intValue & 0o022 != 0
            {
                logger.warning(
                    "The folder \(folder) of the Spotify session file is writable by others (mode \(String(mode.intValue & 0o7777, radix: 8))): they could remove or replace the session. The file itself is readable only by you; choose a private folder with VIBES_SPOTIFY_SESSION or XDG_CONFIG_HOME."
                )
            }
        }
        // O_EXCL and O_NOFOLLOW: never write through a file or link someone else put there.
        let temporary = path + ".tmp-\(UUID().uuidString)"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: temporary])
        }
        do {
            let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
            try handle.write(contentsOf: data)
            try handle.synchronize()
            try handle.close()
            guard rename(temporary, path) == 0 else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
            }
        } catch {
            try? manager.removeItem(atPath: temporary)
            throw error
        }
    }

    // MARK: - Tokens

    public func accessToken() async throws -> String {
        try await accessToken(refreshingWithin: .seconds(120))
    }

    /// Returns an access token valid for at least `tolerance`, refreshing the session first when
    /// it expires sooner.
    ///
    /// - Throws: ``SpotifyError/notSignedIn``; ``SpotifyError/sessionRevoked(description:)`` when
    ///   the refresh token was revoked (the stored session is then removed).
    public func accessToken(refreshingWithin tolerance: Duration) async throws -> String {
        guard let session = try session() else { throw SpotifyError.notSignedIn }
        guard session.accessTokenIsExpired(tolerance: tolerance, now: now()) else { return session.accessToken }
        logger.debug("The access token expires at \(session.expiresAt); refreshing.")
        return try await refreshed(session).accessToken
    }

    public func refreshAccessToken(rejecting token: String) async throws -> String {
        guard let session = try session() else { throw SpotifyError.notSignedIn }
        if session.accessToken != token { return session.accessToken }  // Another caller refreshed already.
        logger.debug("Spotify rejected the access token (401); refreshing once.")
        return try await refreshed(session).accessToken
    }

    /// Refreshes `session`, unless another process already did: the file is read again first, and
    /// a newer, unexpired session there is adopted instead (refresh tokens rotate, so two processes
    /// refreshing the same one would make the second fail with `invalid_grant`).
    private func refreshed(_ session: SpotifySession) async throws -> SpotifySession {
        if let refreshTask { return try await refreshTask.value }
        if let onDisk = newerSessionOnDisk(than: session), !onDisk.accessTokenIsExpired(now: now()) {
            return onDisk
        }
        guard let accounts else { throw SpotifyError.notSignedIn }
        let task = Task { try await accounts.refresh(session) }
        refreshTask = task
        defer { refreshTask = nil }
        do {
            let new = try await task.value
            try save(new)
            return new
        } catch SpotifyError.sessionRevoked(let description) {
            if let onDisk = newerSessionOnDisk(than: session) {
                logger.debug("The refresh token was replaced by another process; using its session.")
                refreshTask = nil
                return onDisk.accessTokenIsExpired(now: now()) ? try await refreshed(onDisk) : onDisk
            }
            try? clear()
            throw SpotifyError.sessionRevoked(description: description)
        }
    }

    /// The session in the file when it differs from `session` (another process saved it).
    private func newerSessionOnDisk(than session: SpotifySession) -> SpotifySession? {
        guard path != nil, let onDisk = try? load(), onDisk.refreshToken != session.refreshToken else { return nil }
        cached = .some(onDisk)
        return onDisk
    }
}

extension JSONEncoder {
    /// Pretty, sorted, ISO-8601 dates: the session file format.
    static var session: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }
}

extension JSONDecoder {
    static var session: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
