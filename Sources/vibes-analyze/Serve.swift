import ArgumentParser
import Foundation
import Ingest
import Logging
import SpotifyTokenServer
import VibesCommandSupport
import VibesEngine
import VibesServer

extension VibesAnalyze {
    /// `vibes-analyze serve`: the library's JSON API, the Spotify-compatible audio-features and
    /// recommendations endpoints and the web app, on one local port.
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "serve",
            abstract:
                "Serve the web app, the JSON API and Spotify-compatible /v1/audio-features and /v1/recommendations over your library.",
            discussion: """
                Open the printed address in a browser. The server listens on 127.0.0.1 only; another \
                --bind address needs --token-file, and then every request must send \
                Authorization: Bearer TOKEN. It notices within 2 s when another command changes the \
                library. The API is described in docs/api.md. Ctrl-C stops it.

                Example: vibes-analyze serve --open
                """
        )

        @OptionGroup var global: GlobalOptions

        @Option(help: ArgumentHelp("The TCP port; 0 picks a free one.", valueName: "port"))
        var port: UInt16 = VibesServer.Configuration.defaultPort

        @Option(
            help: ArgumentHelp(
                "The IPv4 or IPv6 address to listen on. Any address but 127.0.0.1 or ::1 needs --token-file.",
                valueName: "address"
            )
        )
        var bind = "127.0.0.1"

        @Option(
            help: ArgumentHelp(
                "A file holding the token every request must send as a bearer token, on one line, readable only by you (chmod 600).",
                valueName: "file"
            )
        )
        var tokenFile: String?

        @Flag(help: "Open the web app in the default browser once the server listens.")
        var open = false

        static let loopbackAddresses: Set<String> = ["127.0.0.1", "::1"]

        func validate() throws {
            if !Self.loopbackAddresses.contains(bind), tokenFile == nil {
                throw ValidationError(
                    "Listening on \(bind) lets other machines reach your library: please give --token-file FILE too."
                )
            }
        }

        func run() async throws {
            let store = try global.openStore()
            var token: String?
            if let tokenFile {
                do {
                    token = try TokenServer.loadClientSecret(fromFile: tokenFile)
                } catch let error as TokenServerError {
                    throw CommandFailure(error.description)
                }
            }
            let server = VibesServer(
                configuration: VibesServer.Configuration(bindAddress: bind, port: port, bearerToken: token),
                store: store,
                logger: Logger(label: "vibes.server"),
                spotify: Self.spotifyAccount
            )
            let open = open
            do {
                try await server.run { url in
                    Console.write("Serving \(store.path) at \(url.absoluteString) (Ctrl-C stops)")
                    fflush(nil)
                    if open { Self.openInBrowser(url) }
                }
            } catch let error as VibesServerError {
                throw CommandFailure("\(error) Choose another --port, or an address of this machine with --bind.")
            }
        }

        /// The Spotify account `vibes-analyze auth login` signed in to, configured as the Spotify
        /// commands are and read again at each push, so a sign-in made after `serve` started counts.
        static let spotifyAccount = SpotifyAccount.savedSession {
            try SpotifyOptions.parse([]).makeClient(quiet: true)
        }

        /// Asks the desktop to open `url` (`open` on macOS, `xdg-open` elsewhere); says so when
        /// it cannot.
        static func openInBrowser(_ url: URL) {
            let process = Process()
            #if os(macOS)
            process.executableURL = URL(fileURLWithPath: "/usr/bin/open")
            process.arguments = [url.absoluteString]
            #else
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["xdg-open", url.absoluteString]
            #endif
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            do {
                try process.run()
            } catch {
                Console.diagnostic("Could not open a browser; open \(url.absoluteString) yourself.")
            }
        }
    }
}
