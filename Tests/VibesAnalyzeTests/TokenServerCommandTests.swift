import Foundation
import Ingest
import SpotifyTestSupport
import SpotifyWebAPI
import Synchronization
import Testing
import VibesHTTP
import VibesTestSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `vibes-analyze token-server`, run as a user runs it, against the fake Spotify.
struct TokenServerCommandTests {
    // MARK: - Keys and files

    @Test func newKeyWritesAPrivateFileAndNeverOverwritesIt() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/token-key"
            let made = try await CommandLineTool.run(["token-server", "--new-key", path])
            #expect(made.status == 0, "stderr: \(made.stderr)")
            #expect(made.stdout.contains("Wrote a new 256-bit key to \(path) (mode 0600)"))
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            let key = try String(contentsOfFile: path, encoding: .utf8)
            #expect(key.count == 65 && key.hasSuffix("\n"))
            #expect(key.dropLast().allSatisfy { "0123456789abcdef".contains($0) })

            let again = try await CommandLineTool.run(["token-server", "--new-key", path])
            #expect(again.status == 1)
            #expect(again.stderr.contains("already exists"))
            #expect(!again.stderr.contains(String(key.prefix(16))))
            #expect(try String(contentsOfFile: path, encoding: .utf8) == key)
        }
    }

    @Test func aSecretFileOthersCanReadIsRefused() async throws {
        try await withTemporaryDirectory { directory in
            let key = directory + "/token-key"
            _ = try await CommandLineTool.run(["token-server", "--new-key", key])
            let secret = directory + "/client-secret"
            try Data("s3cret-value\n".utf8).write(to: URL(fileURLWithPath: secret))
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: secret)
            let result = try await CommandLineTool.run(
                [
                    "token-server", "--client-id", "fake-client-id", "--client-secret-file", secret,
                    "--redirect-uri", "vibesapp://cb", "--key-file", key, "--port", "0",
                ],
                environment: ["XDG_CONFIG_HOME": directory]
            )
            #expect(result.status == 1)
            #expect(result.stderr.contains("mode 644") && result.stderr.contains("chmod 600 \(secret)"))
            #expect(!result.stderr.contains("s3cret-value") && result.stdout.isEmpty)
        }
    }

    @Test func aKeyFileThatIsNotAKeyIsRefused() async throws {
        try await withTemporaryDirectory { directory in
            let secret = directory + "/client-secret"
            let key = directory + "/token-key"
            for (path, text) in [(secret, "s3cret-value\n"), (key, "not a key\n")] {
                try Data(text.utf8).write(to: URL(fileURLWithPath: path))
                try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
            }
            let result = try await CommandLineTool.run(
                [
                    "token-server", "--client-id", "fake-client-id", "--client-secret-file", secret,
                    "--redirect-uri", "vibesapp://cb", "--key-file", key, "--port", "0",
                ],
                environment: ["XDG_CONFIG_HOME": directory]
            )
            #expect(result.status == 1)
            #expect(result.stderr.contains("--new-key FILE"), "\(result.stderr)")
        }
    }

    // MARK: - Serving

    @Test func swapAndRefreshOverHTTPWithTheSecretKeptOnTheServer() async throws {
        try await FakeSpotify.withServer { fake in
            try await withTemporaryDirectory { directory in
                let key = directory + "/token-key"
                #expect(try await CommandLineTool.run(["token-server", "--new-key", key]).status == 0)
                let secret = directory + "/client-secret"
                try Data("s3cret-value\n".utf8).write(to: URL(fileURLWithPath: secret))
                try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: secret)
                let redirectURI = "vibesapp://spotify-login-callback"

                let (process, out, err) = try CommandLineTool.start(
                    [
                        "token-server", "--client-id", "fake-client-id", "--client-secret-file", secret,
                        "--redirect-uri", redirectURI, "--key-file", key, "--port", "0",
                    ],
                    environment: [
                        "VIBES_SPOTIFY_ACCOUNTS_URL": fake.accountsBaseURL.absoluteString,
                        "XDG_CONFIG_HOME": directory,
                        // The fake lives in this busy test process: wait for it as other loopback tests do.
                        "VIBES_HTTP_TIMEOUT": String(loopbackTimeout),
                    ]
                )
                defer { if process.isRunning { process.terminate() } }
                let line = try #require(await firstLine(of: out, process: process))
                let urls = line.split(separator: " ").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: ",")) }
                #expect(line.hasPrefix("Token server listening: swap http://127.0.0.1:"))
                let swapURL = try #require(urls.first { $0.hasSuffix("/swap") }.flatMap(URL.init(string:)))
                let refreshURL = try #require(urls.first { $0.hasSuffix("/refresh") }.flatMap(URL.init(string:)))

                // The app signs in with PKCE and sends the code and its verifier to the server.
                let verifier = PKCE.makeCodeVerifier()
                let code = try await authorizationCode(
                    fake: fake,
                    redirectURI: redirectURI,
                    challenge: PKCE.makeCodeChallenge(for: verifier)
                )
                let swapped = try await postForm(swapURL, ["code": code, "code_verifier": verifier])
                #expect(swapped.status == 200, "\(swapped.text)")
                let sealed = try #require(swapped.json["refresh_token"] as? String)
                #expect(sealed.hasPrefix("v1."))
                #expect(swapped.json["access_token"] as? String != nil)
                let exchange = try #require(await fake.state.requests(to: "/accounts/api/token").last)
                #expect(
                    exchange.authorization == "Basic " + Data("fake-client-id:s3cret-value".utf8).base64EncodedString()
                )

                let refreshed = try await postForm(refreshURL, ["refresh_token": sealed])
                #expect(refreshed.status == 200, "\(refreshed.text)")
                let rotated = try #require(refreshed.json["refresh_token"] as? String)
                #expect(rotated.hasPrefix("v1.") && rotated != sealed)

                let issued = await fake.state.issuedTokens
                #expect(issued.count == 4)  // two access and two refresh tokens
                for token in issued where token.hasPrefix("AQ-") {
                    #expect(!swapped.text.contains(token) && !refreshed.text.contains(token))
                }

                kill(process.processIdentifier, SIGINT)
                process.waitUntilExit()
                let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                let log = stderr.split(separator: "\n")
                #expect(log.count == 2, "\(stderr)")
                #expect(log.first?.contains(" 127.0.0.1 POST /swap 200 ") == true)
                #expect(log.last?.contains(" 127.0.0.1 POST /refresh 200 ") == true)
                for secretText in [code, verifier, sealed, rotated, "s3cret-value"] + issued {
                    #expect(!stderr.contains(secretText))
                }
            }
        }
    }

    /// The issue's reproduction: 1,100 connections that send nothing to a server that may open only
    /// 64 files. Accepting fails with EMFILE, which once ended the server within 2 s; now it sheds
    /// the connections that waited longest and keeps answering.
    @Test func runningOutOfFileDescriptorsNeverStopsTheServer() async throws {
        try await withTemporaryDirectory { directory in
            let key = directory + "/token-key"
            #expect(try await CommandLineTool.run(["token-server", "--new-key", key]).status == 0)
            let secret = directory + "/client-secret"
            try Data("s3cret-value\n".utf8).write(to: URL(fileURLWithPath: secret))
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: secret)

            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = [
                "-c", #"ulimit -n 64 && exec "$0" "$@""#, CommandLineTool.executablePath, "token-server",
                "--client-id", "fake-client-id", "--client-secret-file", secret, "--redirect-uri", "vibesapp://cb",
                "--key-file", key, "--port", "0",
            ]
            var environment = ProcessInfo.processInfo.environment
            environment["XDG_CONFIG_HOME"] = directory
            environment["VIBES_SPOTIFY_ACCOUNTS_URL"] = UnreachableLoopback.url().absoluteString
            process.environment = environment
            let out = Pipe()
            process.standardOutput = out
            let errorPath = directory + "/stderr"
            _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
            process.standardInput = FileHandle.nullDevice
            try process.run()
            func errors() -> String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }
            defer { if process.isRunning { process.terminate() } }
            let line = try #require(await firstLine(of: out, process: process))
            let refreshURL = try #require(
                line.split(separator: " ").last.flatMap { URL(string: String($0)) },
                "\(line)"
            )
            let port = try #require(refreshURL.port)

            let clock = ContinuousClock()
            let started = clock.now
            let idle = try (0..<1_100).map { _ in try IdleConnection(port: port) }
            // The server works through the backlog, shedding as it goes, until at most the 64
            // descriptors it may hold are connections.
            while idle.count(where: \.isClosedByServer) < 1_100 - 64, clock.now < started + .seconds(20) {
                try await clock.sleep(for: .milliseconds(20))
            }
            let settled = started.duration(to: clock.now)
            #expect(process.isRunning, "\(errors())")
            #expect(settled < .seconds(10), "the server took \(settled) to work through 1,100 connections")

            let asked = clock.now
            let answer = try await postForm(refreshURL, ["refresh_token": "v1.not-a-sealed-token"])
            let elapsed = asked.duration(to: clock.now)
            #expect(answer.status == 400 && answer.text.contains("invalid_token"), "\(answer.text)")
            #expect(elapsed < .seconds(20), "a normal request took \(elapsed) with 1,100 idle connections")
            #expect(process.isRunning)
            print(
                "runningOutOfFileDescriptors: backlog of 1,100 worked through in \(settled); request answered in \(elapsed)"
            )
            kill(process.processIdentifier, SIGINT)
            process.waitUntilExit()
        }
    }

    // MARK: - Helpers

    /// The first line the process writes to `pipe`, or `nil` when it ends first.
    private func firstLine(of pipe: Pipe, process: Process) async -> String? {
        let (chunks, continuation) = AsyncStream<Data>.makeStream()
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty {
                handle.readabilityHandler = nil
                continuation.finish()
            } else {
                continuation.yield(data)
            }
        }
        // A process that never listens must not hang the test.
        let watchdog = Task {
            try await Task.sleep(for: .seconds(120))
            if process.isRunning { process.terminate() }
        }
        defer { watchdog.cancel() }
        var text = ""
        for await chunk in chunks {
            text += String(decoding: chunk, as: UTF8.self)
            if let end = text.firstIndex(of: "\n") {
                pipe.fileHandleForReading.readabilityHandler = nil
                return String(text[..<end])
            }
        }
        return nil
    }

    /// Signs in at the fake as a browser would, and returns the code from its redirect.
    private func authorizationCode(fake: FakeSpotify, redirectURI: String, challenge: String) async throws -> String {
        let accounts = SpotifyAccounts(
            credentials: SpotifyAppCredentials(clientID: "fake-client-id"),
            baseURL: fake.accountsBaseURL,
            transport: URLSessionTransport(timeout: loopbackTimeout)
        )
        let url = accounts.makeAuthorizationURL(
            redirectURI: redirectURI,
            codeChallenge: challenge,
            state: "state-1",
            scopes: [.userLibraryRead]
        )
        let location = try #require(try await fetchWithoutRedirect(url).location)
        let items = URLComponents(string: location)?.queryItems ?? []
        return try #require(items.first { $0.name == "code" }?.value)
    }

    private struct Answer {
        var status: Int
        var text: String
        var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
        }
    }

    private func postForm(_ url: URL, _ form: [String: String]) async throws -> Answer {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let body = form.sorted { $0.key < $1.key }
            .map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }
            .joined(separator: "&")
        let (response, data) = try await URLSessionTransport(timeout: loopbackTimeout).send(
            HTTPRequest(
                method: .post,
                url: url,
                headerFields: ["Content-Type": "application/x-www-form-urlencoded"]
            ),
            body: Data(body.utf8)
        )
        return Answer(status: response.status, text: String(decoding: data, as: UTF8.self))
    }
}

/// A TCP connection to 127.0.0.1 that sends nothing.
private final class IdleConnection: Sendable {
    let descriptor: Int32

    init(port: Int) throws {
        descriptor = try connectToLoopback(port: port)
    }

    deinit { close(descriptor) }

    /// Whether the server has closed (or reset) the connection.
    var isClosedByServer: Bool {
        var byte: UInt8 = 0
        let count = recv(descriptor, &byte, 1, Int32(MSG_PEEK))
        return count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
    }
}
