import ArgumentParser
import Testing
import VibesEngine

@testable import vibes_analyze

/// How the Spotify commands parse, and their help; what they do is tested through the built tool
/// (`SpotifyCommandsTests`).
struct SpotifyCommandsParsingTests {
    @Test(
        arguments: [
            ([String](), SpotifySync.Parts.all),
            (["--saved", "--top"], [.savedTracks, .top]),
            (["--playlists", "--all"], .all),
            (["--recheck-audio-features"], [.audioFeatures]),
        ] as [([String], SpotifySync.Parts)]
    )
    func syncFlagsSelectParts(arguments: [String], parts: SpotifySync.Parts) throws {
        let command = try #require(try VibesAnalyze.parseAsRoot(["sync"] + arguments) as? VibesAnalyze.Sync)
        #expect(command.parts == parts)
    }

    @Test func authHelpIsStable() {
        let help = VibesAnalyze.helpMessage(for: VibesAnalyze.Auth.self, columns: 80)
        #expect(
            help == """
                OVERVIEW: Sign in to Spotify, show the session, or sign out.

                Create an app at https://developer.spotify.com/dashboard and register the
                redirect URI http://127.0.0.1:8977/callback (or the port you choose with
                --port). Spotify refuses "localhost"; use 127.0.0.1. The session is kept in a
                file only you can read. The sign-in asks for the scopes every command needs,
                the playback ones (user-read-playback-state, user-modify-playback-state)
                included; a session from before they were asked for gets "lacks the scope" from
                `devices` and `play` until you sign in again.

                Example: vibes-analyze auth login --client-id YOUR_CLIENT_ID

                USAGE: vibes-analyze auth <subcommand>

                OPTIONS:
                  --version               Show the version.
                  -h, --help              Show help information.

                SUBCOMMANDS:
                  login                   Sign in to Spotify (Authorization Code with PKCE, or
                                          with the client secret when one is set).
                  status                  Show who is signed in, the scopes granted and when
                                          the access token expires.
                  logout                  Forget the stored Spotify session.

                  See 'vibes-analyze help auth <subcommand>' for detailed help.
                """
        )
    }

    @Test func unknownScopesAreValidationErrors() {
        #expect(throws: (any Error).self) {
            _ = try VibesAnalyze.parseAsRoot(["auth", "login", "--scope", "user-everything"])
        }
        do {
            _ = try VibesAnalyze.parseAsRoot(["auth", "login", "--scope", "user-everything"])
        } catch {
            #expect(VibesAnalyze.exitCode(for: error) == .validationFailure)
            #expect(VibesAnalyze.message(for: error).contains("Unknown scope \"user-everything\""))
        }
    }

    @Test func pushTakesAPlaylistAndFlags() throws {
        let command = try #require(
            try VibesAnalyze.parseAsRoot(pushCommand + ["Late night", "--public", "--new", "--name", "Vibes"])
                as? PlaylistPush
        )
        #expect(command.playlist == "Late night" && command.public && command.new && command.name == "Vibes")
    }
}
