import Foundation
import Ingest
import SpotifyTestSupport
import Testing
import VibesEngine
import VibesServer
import VibesTestSupport

/// `docs/openapi.json` describes the server: every route it answers and no other, and real
/// answers of a real server over a real store match the documented schemas.
struct OpenAPITests {
    /// The document, read from the repository.
    static func document() throws -> JSONValue {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        let data = try Data(contentsOf: url.appendingPathComponent("docs/openapi.json"))
        return try JSONDecoder().decode(JSONValue.self, from: data)
    }

    /// Every operation of the document, as "METHOD /path/{pattern}".
    static func operations(of document: JSONValue) throws -> Set<String> {
        guard case .object(let paths) = try #require(document["paths"]) else { return [] }
        var operations: Set<String> = []
        for (path, item) in paths {
            guard case .object(let methods) = item else { continue }
            for method in methods.keys where ["get", "post", "put", "patch", "delete"].contains(method) {
                operations.insert(method.uppercased() + " " + path)
            }
        }
        return operations
    }

    @Test func documentsEveryRouteAndNoOther() throws {
        let documented = try Self.operations(of: Self.document())
        let routed = Set(VibesServer.endpoints.map { $0.method + " " + $0.path })
        #expect(routed.count == VibesServer.endpoints.count, "a route is listed twice")
        #expect(routed.subtracting(documented).isEmpty, "routes missing from docs/openapi.json")
        #expect(documented.subtracting(routed).isEmpty, "documented operations the server does not answer")
    }

    @Test func errorsAndVersionsAreDocumented() throws {
        let document = try Self.document()
        let checker = SchemaChecker(document: document)
        let error = try #require(checker.resolve("#/components/schemas/ErrorResponse"))
        let good = try JSONDecoder().decode(
            JSONValue.self,
            from: Data(#"{"error": {"status": 404, "code": "not_found", "message": "No."}, "schema_version": 1}"#.utf8)
        )
        #expect(checker.problems(of: good, against: error).isEmpty)
        // The checker finds what is wrong: a missing key, a wrong type, another schema version.
        for bad in [
            #"{"error": {"status": 404, "code": "not_found"}, "schema_version": 1}"#,
            #"{"error": {"status": "404", "code": "not_found", "message": "No."}, "schema_version": 1}"#,
            #"{"error": {"status": 404, "code": "not_found", "message": "No."}, "schema_version": 2}"#,
            #"{"error": {"status": 404, "code": "not_found", "message": "No."}}"#,
        ] {
            let value = try JSONDecoder().decode(JSONValue.self, from: Data(bad.utf8))
            #expect(!checker.problems(of: value, against: error).isEmpty, "\(bad)")
        }
    }

    /// A request the test sends, and the status it expects.
    struct Sample {
        var method = "GET"
        var path: String
        var headers: [String] = []
        var body = ""
        var status: Int
    }

    /// Sends requests that reach every operation of the document with a real server over a real
    /// store, and checks each answer against the document: its status is one the operation
    /// lists, and a JSON body matches that status's schema.
    @Test func realAnswersMatchTheDocumentedSchemas() async throws {
        try await FakeSpotify.withServer { fake in try await checkRealAnswers(signedInTo: fake) }
    }

    /// The samples of ``realAnswersMatchTheDocumentedSchemas()``, with the server signed in to
    /// `fake` for the pushes.
    func checkRealAnswers(signedInTo fake: FakeSpotify) async throws {
        let document = try Self.document()
        let checker = SchemaChecker(document: document)
        let signedIn = try await makeSignedInClient(fake)
        try await ServerHarness.withServer(spotify: SpotifyAccount { signedIn.client }) { harness async throws in
            let audio = harness.folder + "/Song 3.mp3"
            try AudioTests.audioBytes(count: 5_000).write(to: URL(fileURLWithPath: audio))
            let audioID = try AudioTests.recordFile(at: audio, forTrack: 3, in: harness.store)
            let token = try #require(try await harness.get("/api/session").json()["csrf_token"] as? String)
            /// A POST of `body` as JSON with the session's CSRF token.
            func post(_ path: String, _ body: String, status: Int) -> Sample {
                let headers = [
                    "Content-Type: application/json", "Content-Length: \(body.utf8.count)", "X-CSRF-Token: \(token)",
                ]
                return Sample(method: "POST", path: path, headers: headers, body: body, status: status)
            }
            let (seed, unknown) = (ServerHarness.spotifyID(3), "7ouMYWpwJ422jRcDASZB7P")
            let lively = try AudioTests.trackID(15, in: harness.store)
            let samples = [
                Sample(path: "/", status: 200),
                Sample(path: "/app.js", status: 200),
                Sample(path: "/app.css", status: 200),
                Sample(path: "/api/session", status: 200),
                Sample(path: "/api/library", status: 200),
                Sample(path: "/api/playlists", status: 200),
                post("/api/playlists", #"{"name": "Picked", "track_ids": [\#(audioID)]}"#, status: 201),
                post("/api/playlists", #"{"name": "", "track_ids": []}"#, status: 400),
                Sample(method: "POST", path: "/api/playlists", headers: ["Content-Length: 0"], status: 403),
                Sample(path: "/api/playlists/1", status: 200),
                Sample(path: "/api/playlists/999", status: 404),
                Sample(path: "/api/playlists/one", status: 400),
                Sample(path: "/api/vibes", status: 200),
                Sample(path: "/api/tracks?q=Song%203&limit=3", status: 200),
                Sample(path: "/api/tracks", status: 400),
                Sample(path: "/api/vibes/1", status: 200),
                Sample(path: "/api/vibes/99", status: 404),
                Sample(path: "/api/moods", status: 200),
                Sample(path: "/api/mood-path?from=track:\(audioID)&to=track:\(lively)&count=5", status: 200),
                Sample(path: "/api/mood-path?from=nowhere&to=track:\(lively)", status: 400),
                Sample(path: "/api/playlists/1/order?order=flow", status: 200),
                Sample(path: "/api/playlists/1/order?order=sideways", status: 400),
                post("/api/playlists/1/order", #"{"order": "key"}"#, status: 201),
                Sample(path: "/api/report", status: 200),
                post("/api/vibes/cluster", #"{"k": 2}"#, status: 201),
                post("/api/vibes/cluster", #"{"k": 1}"#, status: 400),
                Sample(path: "/api/tracks/\(audioID)/audio", status: 200),
                Sample(path: "/api/tracks/\(audioID)/audio", headers: ["Range: bytes=10-19"], status: 206),
                Sample(path: "/api/tracks/\(audioID)/audio", headers: ["Range: bytes=9000-"], status: 416),
                Sample(path: "/api/tracks/\(audioID + 1)/audio", status: 404),
                Sample(path: "/api/points", status: 200),
                Sample(path: "/api/points?x=pc1&y=tempo", status: 200),
                Sample(path: "/api/points?x=nope", status: 400),
                Sample(path: "/api/points/facets", status: 200),
                post("/api/exports", #"{"format": "m3u", "track_ids": [\#(audioID)]}"#, status: 200),
                post("/api/exports", #"{"format": "csv", "name": "Picked", "track_ids": [\#(audioID)]}"#, status: 200),
                post("/api/exports", #"{"format": "pdf", "track_ids": [\#(audioID)]}"#, status: 400),
                Sample(path: "/api/spotify", status: 200),
                post("/api/playlists/1/push", "{}", status: 200),
                post("/api/playlists/999/push", "{}", status: 404),
                // Playlist 1 is on Spotify now; playlist 2 is not.
                post("/api/playlists/1/order", #"{"order": "arc", "arc": "falling", "to": "spotify"}"#, status: 200),
                post("/api/playlists/2/order", #"{"order": "key", "to": "spotify"}"#, status: 409),
                Sample(path: "/v1/audio-features?ids=\(seed),\(unknown)", status: 200),
                Sample(path: "/v1/audio-features", status: 400),
                Sample(path: "/v1/audio-features/\(seed)", status: 200),
                Sample(path: "/v1/audio-features/\(unknown)", status: 404),
                Sample(path: "/v1/recommendations?seed_tracks=\(seed)&limit=3&target_energy=0.8", status: 200),
                Sample(path: "/v1/recommendations?seed_genres=pop&min_tempo=200", status: 200),
                Sample(path: "/v1/recommendations?limit=3", status: 400),
            ]
            var answered: Set<String> = []
            for sample in samples {
                let answer = try await harness.send(
                    method: sample.method,
                    path: sample.path,
                    headers: ["Host: 127.0.0.1:\(harness.port)"] + sample.headers,
                    body: sample.body
                )
                let label = "\(sample.method) \(sample.path)"
                #expect(answer.status == sample.status, "\(label): \(answer.errorMessage ?? "")")
                let operation = try #require(Self.operation(for: sample, in: document), "\(label) is not documented")
                let response = try #require(
                    operation.response[String(answer.status)],
                    "\(label): \(answer.status) is not documented"
                )
                let resolved =
                    response["$ref"]?.stringValue.flatMap(checker.resolve) ?? response
                guard case .object(let contents) = try #require(resolved["content"], "\(label)") else { continue }
                let type = answer.headers["content-type"] ?? ""
                let declared = contents.keys.first { key in
                    key.hasSuffix("/*") ? type.hasPrefix(key.dropLast()) : type.hasPrefix(key)
                }
                #expect(declared != nil, "\(label): \(type) is not among \(contents.keys.sorted())")
                if (200..<300).contains(answer.status) { answered.insert(operation.name) }
                guard declared == "application/json", let schema = contents["application/json"]?["schema"] else {
                    continue
                }
                let body = try JSONDecoder().decode(JSONValue.self, from: answer.body)
                let problems = checker.problems(of: body, against: schema)
                #expect(problems.isEmpty, "\(label): \(problems.joined(separator: "; "))")
            }
            #expect(answered == (try Self.operations(of: document)), "operations no sample answered with success")
        }
    }

    /// The documented operation a sample reaches: its name and its responses by status.
    static func operation(for sample: Sample, in document: JSONValue) -> (name: String, response: [String: JSONValue])?
    {
        guard case .object(let paths) = document["paths"] else { return nil }
        let segments = (sample.path.split(separator: "?").first ?? "").split(separator: "/")
        for (pattern, item) in paths {
            let parts = pattern.split(separator: "/")
            guard parts.count == segments.count,
                zip(parts, segments).allSatisfy({ $0.first == "{" || $0 == $1 }),
                case .object(let responses) = item[sample.method.lowercased()]?["responses"]
            else { continue }
            return (sample.method + " " + pattern, responses)
        }
        return nil
    }
}
