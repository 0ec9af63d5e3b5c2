import ArgumentParser
import Testing

@testable import vibes_analyze

/// How `token-server` parses, and its help; the server itself is tested through the built tool
/// (`TokenServerCommandTests`).
struct TokenServerCommandParsingTests {
    @Test func theServerNeedsASecretARedirectURIAndAKey() throws {
        #expect(throws: (any Error).self) { try VibesAnalyze.parseAsRoot(["token-server"]) }
        let message = VibesAnalyze.message(for: parseError(["token-server", "--redirect-uri", "app://cb"]))
        #expect(message.contains("--client-secret-file FILE") && message.contains("--key-file FILE"))
        #expect(message.contains("--new-key"))
        let command = try #require(
            try VibesAnalyze.parseAsRoot([
                "token-server", "--client-secret-file", "s", "--redirect-uri", "app://cb", "--key-file", "k",
            ]) as? VibesAnalyze.TokenServerCommand
        )
        #expect(command.port == 8080 && command.bind == "127.0.0.1" && command.requestsPerMinute == 30)
        #expect(try VibesAnalyze.parseAsRoot(["token-server", "--new-key", "k"]) is VibesAnalyze.TokenServerCommand)
    }

    @Test func helpIsStable() {
        let usage =
            "USAGE: vibes-analyze token-server [--port <port>] [--bind <address>] [--client-id <id>] "
            + "[--client-secret-file <file>] [--redirect-uri <uri>] [--key-file <file>] [--new-key <file>] "
            + "[--requests-per-minute <count>] [--trust-forwarded-for]"
        let help = VibesAnalyze.helpMessage(for: VibesAnalyze.TokenServerCommand.self, columns: 80)
        #expect(
            help == """
                OVERVIEW: Serve the token swap and refresh endpoints that Spotify's iOS and
                Android SDKs call.

                Your app signs in with Spotify and sends the authorization code to POST /swap;
                the server exchanges it with your client secret, which never leaves the server,
                and returns Spotify's answer with the refresh token encrypted. POST /refresh
                takes that encrypted token. Make the key once with --new-key FILE. The server
                listens on 127.0.0.1: put a TLS proxy in front of it. Each request is logged to
                stderr without tokens, codes or secrets. Ctrl-C stops it.

                Example: vibes-analyze token-server --new-key key.bin

                \(usage)

                OPTIONS:
                  --port <port>           The TCP port; 0 picks a free one. (default: 8080)
                  --bind <address>        The IPv4 or IPv6 address to listen on: 127.0.0.1 for
                                          a proxy on this machine, 0.0.0.0 for every interface.
                                          (default: 127.0.0.1)
                  --client-id <id>        The Spotify app's client ID. Defaults to
                                          $SPOTIFY_CLIENT_ID, else client_id in the config file.
                  --client-secret-file <file>
                                          A file holding the app's client secret on one line,
                                          readable only by you (chmod 600).
                  --redirect-uri <uri>    The redirect URI your app uses and registered in the
                                          Spotify dashboard, such as
                                          myapp://spotify-login-callback.
                  --key-file <file>       The key that encrypts refresh tokens: a file with 64
                                          hexadecimal characters, made by --new-key.
                  --new-key <file>        Write a new random key to a new file (mode 0600) and
                                          exit.
                  --requests-per-minute <count>
                                          How many requests a minute one client address may
                                          send, in bursts of as many. (default: 30)
                  --trust-forwarded-for   Take the client address from the last X-Forwarded-For
                                          entry, which the proxy in front sets. Use only behind
                                          a proxy.
                  --version               Show the version.
                  -h, --help              Show help information.

                """
        )
    }

    @Test func aRedirectURIWithoutASchemeIsRefused() {
        let message = VibesAnalyze.message(
            for: parseError([
                "token-server", "--client-secret-file", "s", "--redirect-uri", "callback", "--key-file", "k",
            ])
        )
        #expect(message.contains("with its scheme"))
    }
}

/// The parse error of `arguments`, for `VibesAnalyze.message(for:)`.
private func parseError(_ arguments: [String]) -> any Error {
    do {
        _ = try VibesAnalyze.parseAsRoot(arguments)
        return CancellationError()
    } catch {
        return error
    }
}
