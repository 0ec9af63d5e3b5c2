import Foundation

/// Where the Spotify settings come from: flags, then the environment, then the config file.
///
/// The config file is JSON, by default `$XDG_CONFIG_HOME/vibes-analyze/spotify.json`
/// (`~/.config/vibes-analyze/spotify.json`):
/// ```json
/// {"client_id": "…", "client_secret": "…", "redirect_port": 8977}
/// ```
/// The environment offers `SPOTIFY_CLIENT_ID`, `SPOTIFY_CLIENT_SECRET`, `VIBES_SPOTIFY_SESSION`
/// (the session file), and `VIBES_SPOTIFY_API_URL` and `VIBES_SPOTIFY_ACCOUNTS_URL` (a local fake
/// or proxy instead of Spotify).
public struct SpotifyConfiguration: Sendable, Hashable {
    /// The client ID, and secret if any; `nil` when none was configured anywhere.
    public var credentials: SpotifyAppCredentials?
    /// The loopback port of the redirect URI.
    public var redirectPort: UInt16
    public var apiBaseURL: URL
    public var accountsBaseURL: URL
    /// The session file.
    public var sessionPath: String

    /// The file's keys.
    struct File: Decodable {
        var clientID: String?
        var clientSecret: String?
        var redirectPort: UInt16?

        enum CodingKeys: String, CodingKey {
            case clientID = "client_id"
            case clientSecret = "client_secret"
            case redirectPort = "redirect_port"
        }
    }

    /// The default config file path.
    public static func defaultConfigPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String
    {
        TokenStore.configurationDirectory(environment: environment) + "/spotify.json"
    }

    /// Resolves the settings.
    ///
    /// - Parameters:
    ///   - clientID: `--client-id`, which wins over everything else.
    ///   - clientSecret: `--client-secret`.
    ///   - redirectPort: `--port`.
    ///   - sessionPath: `--session-file`.
    ///   - configPath: `--config`; a missing default file is fine, a missing named one is not.
    /// - Throws: When the config file cannot be read or parsed.
    public static func resolve(
        clientID: String? = nil,
        clientSecret: String? = nil,
        redirectPort: UInt16? = nil,
        sessionPath: String? = nil,
        configPath: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> SpotifyConfiguration {
        let path = configPath ?? defaultConfigPath(environment: environment)
        var file = File()
        if let data = FileManager.default.contents(atPath: path) {
            do {
                file = try JSONDecoder().decode(File.self, from: data)
            } catch {
                throw SpotifyConfigurationError(
                    path: path,
                    reason: "it is not valid JSON with client_id, client_secret, redirect_port (\(error))"
                )
            }
        } else if configPath != nil {
            throw SpotifyConfigurationError(path: path, reason: "the file does not exist")
        }
        func nonEmpty(_ value: String?) -> String? { value.flatMap { $0.isEmpty ? nil : $0 } }
        let id = nonEmpty(clientID) ?? nonEmpty(environment["SPOTIFY_CLIENT_ID"]) ?? nonEmpty(file.clientID)
        let secret =
            nonEmpty(clientSecret) ?? nonEmpty(environment["SPOTIFY_CLIENT_SECRET"]) ?? nonEmpty(file.clientSecret)
        return SpotifyConfiguration(
            credentials: id.map { SpotifyAppCredentials(clientID: $0, clientSecret: secret) },
            redirectPort: redirectPort ?? file.redirectPort ?? LoopbackCallbackServer.defaultPort,
            apiBaseURL: nonEmpty(environment["VIBES_SPOTIFY_API_URL"]).flatMap(URL.init(string:))
                ?? SpotifyClient.productionBaseURL,
            accountsBaseURL: nonEmpty(environment["VIBES_SPOTIFY_ACCOUNTS_URL"]).flatMap(URL.init(string:))
                ?? SpotifyAccounts.productionBaseURL,
            sessionPath: sessionPath ?? TokenStore.defaultPath(environment: environment)
        )
    }

}

/// The Spotify config file could not be used.
public struct SpotifyConfigurationError: Error, CustomStringConvertible {
    public var path: String
    public var reason: String

    public var description: String {
        "Cannot read the Spotify config file \(path): \(reason)."
    }
}
