import Foundation
import Testing
import VibesServer
import VibesTestSupport

/// spotipy, the Python client of the Spotify Web API, run unchanged against the server: only its
/// `prefix` points at `http://127.0.0.1:PORT/v1/`.
///
/// Its Python is `$VIBES_SPOTIPY_PYTHON`, else `python3` on `PATH`, when it can import spotipy;
/// otherwise the tests are reported as skipped, with the reason. `make test` installs spotipy
/// into `.build/venv-spotipy` and points `VIBES_SPOTIPY_PYTHON` at it.
enum Spotipy {
    /// A Python that imports spotipy, or `nil`.
    static let python: String? = {
        let environment = ProcessInfo.processInfo.environment
        var candidates: [String] = []
        if let path = environment["VIBES_SPOTIPY_PYTHON"] { candidates.append(path) }
        for folder in (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            candidates.append(folder + "/python3")
        }
        return candidates.first { path in
            guard FileManager.default.isExecutableFile(atPath: path) else { return false }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: path)
            process.arguments = ["-c", "import spotipy"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            guard (try? process.run()) != nil else { return false }
            process.waitUntilExit()
            return process.terminationStatus == 0
        }
    }()

    static var isAvailable: Bool { python != nil }

    static let skipReason: Comment =
        "spotipy is not installed (python3 -m venv .build/venv-spotipy && .build/venv-spotipy/bin/pip install spotipy, then VIBES_SPOTIPY_PYTHON=.build/venv-spotipy/bin/python3): spotipy test skipped"

    /// Runs `script` with `arguments` (`sys.argv[1:]`) and returns its standard output parsed as
    /// JSON; the process is awaited on a thread of its own, not one of the cooperative pool.
    static func run(_ script: String, arguments: [String]) async throws -> [String: Any] {
        let python = try #require(python)
        return try await withTemporaryDirectory { folder in
            try script.write(toFile: folder + "/client.py", atomically: true, encoding: .utf8)
            let (output, errors, status) = try await withCheckedThrowingContinuation { continuation in
                Thread {
                    continuation.resume(
                        with: Result {
                            let process = Process()
                            process.executableURL = URL(fileURLWithPath: python)
                            process.arguments = [folder + "/client.py"] + arguments
                            let (output, errors) = (Pipe(), Pipe())
                            process.standardOutput = output
                            process.standardError = errors
                            process.standardInput = FileHandle.nullDevice
                            try process.run()
                            let printed = output.fileHandleForReading.readDataToEndOfFile()
                            let complaints = errors.fileHandleForReading.readDataToEndOfFile()
                            process.waitUntilExit()
                            return (printed, complaints, process.terminationStatus)
                        }
                    )
                }.start()
            }
            try #require(status == 0, "spotipy script failed:\n\(String(decoding: errors, as: UTF8.self))")
            return try #require(try JSONSerialization.jsonObject(with: output) as? [String: Any])
        }
    }

    /// Calls the server through spotipy: recommendations from a seed track with a bound and a
    /// target, audio features of a known and an unknown ID, a request spotipy sends but the
    /// server refuses, and one with a wrong token. Prints what came back as JSON.
    static let script = #"""
        import json, sys, warnings
        import requests, spotipy

        warnings.simplefilter("ignore", DeprecationWarning)
        port, token, seed, unknown = sys.argv[1:5]

        def client(auth):
            sp = spotipy.Spotify(auth=auth, requests_session=requests.Session(), retries=0, status_retries=0,
                                 requests_timeout=90)
            sp.prefix = f"http://127.0.0.1:{port}/v1/"
            return sp

        def failure(call):
            try:
                call()
            except spotipy.SpotifyException as error:
                return {"status": error.http_status, "message": error.msg}
            return None

        sp = client(token)
        out = {
            "recommendations": sp.recommendations(seed_tracks=[seed], limit=4, max_energy=0.5, target_energy=0.15),
            "by_uri": sp.recommendations(seed_tracks=["spotify:track:" + seed], limit=2),
            "features": sp.audio_features([seed, unknown]),
            "bad_limit": failure(lambda: sp.recommendations(seed_tracks=[seed], limit=500)),
            "wrong_token": failure(lambda: client("not-the-token").recommendations(seed_tracks=[seed])),
        }
        print(json.dumps(out))
        """#
}

struct SpotipyTests {
    @Test(.enabled(if: Spotipy.isAvailable, Spotipy.skipReason))
    func spotipyWorksUnchangedAgainstTheServer() async throws {
        let token = "spotipy-test-token"
        let configuration = VibesServer.Configuration(port: 0, bearerToken: token, pollInterval: .milliseconds(100))
        try await ServerHarness.withServer(configuration: configuration) { harness async throws in
            let seed = ServerHarness.spotifyID(4)
            let out = try await Spotipy.run(
                Spotipy.script,
                arguments: [String(harness.port), token, seed, "7ouMYWpwJ422jRcDASZB7P"]
            )
            let recommendations = try #require(out["recommendations"] as? [String: Any])
            let tracks = try #require(recommendations["tracks"] as? [[String: Any]])
            let indices = tracks.compactMap(RecommendationsTests.index(of:))
            #expect(indices.count == 4)
            // max_energy 0.5 leaves the calm tracks 1–10 only, the seed left out.
            #expect(indices.allSatisfy { (1...10).contains($0) && $0 != 4 }, "\(indices)")
            let seeds = try #require(recommendations["seeds"] as? [[String: Any]])
            #expect(seeds.first?["id"] as? String == seed)
            #expect(seeds.first?["type"] as? String == "track")
            #expect(((out["by_uri"] as? [String: Any])?["tracks"] as? [Any])?.count == 2)

            let features = try #require(out["features"] as? [Any])
            #expect(features.count == 2)
            #expect((features.first as? [String: Any])?["id"] as? String == seed)
            #expect(features.last is NSNull)

            let badLimit = try #require(out["bad_limit"] as? [String: Any])
            #expect(badLimit["status"] as? Int == 400)
            #expect((badLimit["message"] as? String)?.contains("limit must be a whole number from 1 to 100") == true)
            #expect((out["wrong_token"] as? [String: Any])?["status"] as? Int == 401)
        }
    }
}
