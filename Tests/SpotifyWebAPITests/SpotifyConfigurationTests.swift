import Foundation
import SpotifyWebAPI
import Testing
import VibesTestSupport

struct SpotifyConfigurationTests {
    @Test func flagsWinOverEnvironmentOverFile() throws {
        try withTemporaryDirectory { directory in
            let file = directory + "/spotify.json"
            try Data(#"{"client_id": "from-file", "client_secret": "file-secret", "redirect_port": 9000}"#.utf8)
                .write(to: URL(fileURLWithPath: file))
            let environment = ["SPOTIFY_CLIENT_ID": "from-env", "HOME": directory]

            let fromFlags = try SpotifyConfiguration.resolve(
                clientID: "from-flag",
                redirectPort: 9100,
                configPath: file,
                environment: environment
            )
            #expect(fromFlags.credentials == SpotifyAppCredentials(clientID: "from-flag", clientSecret: "file-secret"))
            #expect(fromFlags.redirectPort == 9100)

            let fromEnvironment = try SpotifyConfiguration.resolve(configPath: file, environment: environment)
            #expect(fromEnvironment.credentials?.clientID == "from-env")
            #expect(fromEnvironment.redirectPort == 9000)

            let fromFile = try SpotifyConfiguration.resolve(configPath: file, environment: ["HOME": directory])
            #expect(fromFile.credentials?.clientID == "from-file")
            #expect(fromFile.sessionPath == directory + "/.config/vibes-analyze/spotify-session.json")
            #expect(fromFile.apiBaseURL.absoluteString == "https://api.spotify.com/v1/")
        }
    }

    @Test func noClientIDAnywhereIsNil() throws {
        let configuration = try SpotifyConfiguration.resolve(environment: ["HOME": "/nonexistent"])
        #expect(configuration.credentials == nil)
        #expect(configuration.redirectPort == 8977)
        #expect(SpotifyError.missingClientID.description.contains("http://127.0.0.1:8977/callback"))
    }

    @Test func aNamedButMissingOrBrokenConfigFileIsAnError() throws {
        try withTemporaryDirectory { directory in
            #expect(throws: SpotifyConfigurationError.self) {
                try SpotifyConfiguration.resolve(configPath: directory + "/missing.json", environment: [:])
            }
            try Data("client_id = x".utf8).write(to: URL(fileURLWithPath: directory + "/broken.json"))
            #expect(throws: SpotifyConfigurationError.self) {
                try SpotifyConfiguration.resolve(configPath: directory + "/broken.json", environment: [:])
            }
        }
    }
}
