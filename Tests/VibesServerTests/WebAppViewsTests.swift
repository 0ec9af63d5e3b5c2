import Foundation
import Ingest
import Testing
import VibesServer
import VibesTestSupport

/// The API of the vibes, mood path, ordering and report views, over raw HTTP against the
/// harness's library (tracks 1–10 calm, 11–20 lively; "Quiet Evening" 1–8, "Workout" 9–20; a run
/// of two vibes, "Calm" and "Lively").
struct WebAppViewsTests {
    /// Sends `POST path` with `body`, with the session's CSRF token unless `csrf` is false.
    static func post(
        _ path: String,
        _ body: String,
        to harness: ServerHarness,
        csrf: Bool = true
    ) async throws -> ServerHarness.Answer {
        var headers = [
            "Host: 127.0.0.1:\(harness.port)", "Content-Type: application/json", "Content-Length: \(body.utf8.count)",
        ]
        if csrf {
            let token = try #require(try await harness.get("/api/session").json()["csrf_token"] as? String)
            headers.append("X-CSRF-Token: \(token)")
        }
        return try await harness.send(method: "POST", path: path, headers: headers, body: body)
    }

    /// Expects `answer` to be the typed error `code` with `status`.
    static func expectError(
        _ answer: ServerHarness.Answer,
        status: Int,
        code: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(
            answer.status == status,
            "\(String(decoding: answer.body, as: UTF8.self))",
            sourceLocation: sourceLocation
        )
        #expect(answer.errorCode == code, sourceLocation: sourceLocation)
        #expect(answer.errorMessage?.isEmpty == false, sourceLocation: sourceLocation)
    }

    /// The store ID of the playlist called `name`.
    static func playlistID(_ name: String, in harness: ServerHarness) async throws -> Int {
        let playlists = try #require((try await harness.get("/api/playlists").json())["playlists"] as? [[String: Any]])
        return try #require(playlists.first { $0["name"] as? String == name }?["id"] as? Int)
    }

    /// The store ID of synthetic track `index`.
    static func trackID(_ index: Int, in harness: ServerHarness) throws -> Int {
        let tracks = try harness.store.searchTracks(matching: "Song \(index)", limit: 5)
        return Int(try #require(tracks.first { $0.track.name == "Song \(index)" }).track.id)
    }

    // MARK: - Vibes

    @Test func aVibeListsItsProfileGenresExamplesAndEveryMember() async throws {
        try await ServerHarness.withServer { harness async throws in
            let answer = try await harness.get("/api/vibes/1")
            #expect(answer.status == 200)
            let body = try answer.json()
            #expect(body["schema_version"] as? Int == 1)
            let vibe = try #require(body["vibe"] as? [String: Any])
            #expect(vibe["name"] as? String == "Calm")
            #expect(vibe["number"] as? Int == 1)
            #expect((vibe["examples"] as? [Any])?.isEmpty == false)
            let profile = try #require(body["profile"] as? [[String: Any]])
            #expect(profile.map { $0["feature"] as? String } == ["energy"])
            let tracks = try #require(body["tracks"] as? [[String: Any]])
            #expect(tracks.count == 10)
            let names = Set(tracks.compactMap { ($0["track"] as? [String: Any])?["name"] as? String })
            #expect(names == Set((1...10).map { "Song \($0)" }))
            let genres = try #require(body["top_genres"] as? [[String: Any]])
            #expect(genres.first?["genre"] as? String == "pop")
            #expect(genres.first?["tracks"] as? Int == 10)
            // By name too, as `vibes NAME` takes it.
            let lively = try await harness.get("/api/vibes/lively")
            #expect(((try lively.json())["vibe"] as? [String: Any])?["name"] as? String == "Lively")
        }
    }

    @Test func aVibeThatIsNotThereIsNotFound() async throws {
        try await ServerHarness.withServer { harness async throws in
            Self.expectError(try await harness.get("/api/vibes/9"), status: 404, code: "not_found")
            Self.expectError(try await harness.get("/api/vibes/Nothing%20like%20it"), status: 404, code: "not_found")
            Self.expectError(
                try await Self.post("/api/vibes/1", "{}", to: harness),
                status: 405,
                code: "method_not_allowed"
            )
        }
    }

    @Test func reclusteringSavesANewCurrentRun() async throws {
        try await ServerHarness.withServer { harness async throws in
            let before = try #require((try await harness.get("/api/vibes").json())["run_id"] as? Int)
            let answer = try await Self.post("/api/vibes/cluster", "{\"k\": 3}", to: harness)
            #expect(answer.status == 201, "\(String(decoding: answer.body, as: UTF8.self))")
            let run = try answer.json()
            let runID = try #require(run["run_id"] as? Int)
            #expect(runID != before)
            #expect(run["cluster_count"] as? Int == 3)
            #expect(run["track_count"] as? Int == 20)
            let vibes = try #require(run["vibes"] as? [[String: Any]])
            #expect(vibes.compactMap { $0["number"] as? Int } == [1, 2, 3])
            #expect(vibes.compactMap { $0["size"] as? Int }.reduce(0, +) == 20)
            // The store holds it as the current run, and the vibes list shows it.
            #expect(try harness.store.currentClusteringRunID() == Int64(runID))
            let listed = try await harness.get("/api/vibes").json()
            #expect(listed["run_id"] as? Int == runID)
            #expect((listed["vibes"] as? [Any])?.count == 3)
        }
    }

    /// Bodies of `POST /api/vibes/cluster` that are refused.
    static let badClusterBodies = ["not json", "{\"k\": 1}", "{\"k\": \"many\"}", "{}"]

    @Test(arguments: badClusterBodies)
    func badClusterBodiesAreRefused(body: String) async throws {
        try await ServerHarness.withServer { harness async throws in
            let before = try harness.store.currentClusteringRunID()
            Self.expectError(
                try await Self.post("/api/vibes/cluster", body, to: harness),
                status: 400,
                code: "bad_request"
            )
            #expect(try harness.store.currentClusteringRunID() == before)
        }
    }

    @Test(arguments: ["/api/vibes/cluster", "/api/playlists/1/order"])
    func postsWithoutTheCSRFTokenAreRefused(path: String) async throws {
        try await ServerHarness.withServer { harness async throws in
            let before = try harness.store.currentClusteringRunID()
            let answer = try await Self.post(path, "{\"k\": 2, \"order\": \"flow\"}", to: harness, csrf: false)
            Self.expectError(answer, status: 403, code: "csrf_token_missing")
            #expect(try harness.store.currentClusteringRunID() == before)
            #expect(try harness.store.playlistOverviews(vibesOf: nil).count == 2)
        }
    }

    // MARK: - Mood path

    @Test func moodsAreListedWithTheirPoints() async throws {
        try await ServerHarness.withServer { harness async throws in
            let moods = try #require((try await harness.get("/api/moods").json())["moods"] as? [[String: Any]])
            #expect(moods.count == 11)
            let calm = try #require(moods.first { $0["name"] as? String == "calm" })
            #expect(calm["energy"] as? Double == 0.2)
        }
    }

    @Test func aMoodPathRisesFromCalmToEnergeticAndSavesAsAPlaylist() async throws {
        try await ServerHarness.withServer { harness async throws in
            let answer = try await harness.get("/api/mood-path?from=mood:calm&to=mood:energetic&count=8&order=none")
            #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
            let body = try answer.json()
            let tracks = try #require(body["tracks"] as? [[String: Any]])
            #expect(tracks.count == 8)
            let energies = tracks.compactMap { $0["energy"] as? Double }
            #expect(energies.count == 8)
            #expect(try #require(energies.first) < 0.5 && (try #require(energies.last)) > 0.5, "\(energies)")
            #expect((body["name"] as? String)?.isEmpty == false)
            // Saved through the playlists endpoint, it is a playlist of the store, in order.
            let ids = tracks.compactMap { $0["track_id"] as? Int }
            let save = try await Self.post(
                "/api/playlists",
                "{\"name\": \"Calm to energetic\", \"track_ids\": \(ids)}",
                to: harness
            )
            #expect(save.status == 201)
            let saved = try harness.store.playlistOverviews(vibesOf: nil).first { $0.name == "Calm to energetic" }
            #expect(saved?.trackCount == 8)
        }
    }

    @Test func aPathFromASongStartsWithIt() async throws {
        try await ServerHarness.withServer { harness async throws in
            let song = try Self.trackID(2, in: harness)
            let answer = try await harness.get("/api/mood-path?from=track:\(song)&to=mood:energetic&count=6")
            #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
            let tracks = try #require((try answer.json())["tracks"] as? [[String: Any]])
            #expect(tracks.count == 6)
            #expect(tracks.first?["track_id"] as? Int == song)
            // And one to a song ends with it.
            let end = try Self.trackID(17, in: harness)
            let back = try await harness.get("/api/mood-path?from=mood:calm&to=track:\(end)&minutes=15")
            let backTracks = try #require((try back.json())["tracks"] as? [[String: Any]])
            #expect(backTracks.last?["track_id"] as? Int == end)
        }
    }

    /// A path to a song ends with it, and one from a song starts with it, when the song's nearest
    /// neighbour is by the same artist (the walk never takes an artist twice in a row) and the
    /// flow order rearranges each step of the path.
    @Test func aPathToASongEndsWithItWhenItsNeighbourSharesItsArtist() async throws {
        try await ServerHarness.withServer { harness async throws in
            // Song 40: by Artist 0, with the very features of song 20, also by Artist 0.
            let other = try LibraryStore(path: harness.store.path)
            try ServerHarness.importPlaylist("Echoes", indices: [40], into: other, folder: harness.folder)
            let (twin, end) = (try Self.trackID(20, in: harness), try Self.trackID(40, in: harness))
            let between = "/api/mood-path?from=track:\(twin)&to=track:\(end)&count=2&order=flow"
            #expect(try await harness.status(of: between, becoming: 200, within: .seconds(30)) == 200)
            // Each path, its length, and the track it must start or end with.
            let paths: [(String, Int, first: Int?, last: Int?)] = [
                (between, 2, twin, end),
                ("/api/mood-path?from=mood:calm&to=track:\(end)&count=9&order=flow", 9, nil, end),
                ("/api/mood-path?from=track:\(end)&to=mood:calm&count=7&order=flow", 7, end, nil),
            ]
            for (path, count, first, last) in paths {
                let answer = try await harness.get(path)
                let tracks = try #require((try answer.json())["tracks"] as? [[String: Any]], "\(path)")
                let ids = tracks.compactMap { $0["track_id"] as? Int }
                #expect(ids.count == count, "\(path)")
                if let first { #expect(ids.first == first, "\(path): \(ids)") }
                if let last { #expect(ids.last == last, "\(path): \(ids)") }
            }
        }
    }

    /// Mood path queries that are refused, and what the message must name.
    static let badPaths = [
        "to=mood:calm": "from",
        "from=mood:nope&to=mood:calm": "from",
        "from=mood:calm&to=song:3": "to",
        "from=mood:calm&to=mood:happy&count=0": "count",
        "from=mood:calm&to=mood:happy&count=5&minutes=10": "either",
        "from=mood:calm&to=mood:happy&order=arc": "order",
        "from=track:99999&to=mood:happy": "99999",
    ]

    @Test(arguments: badPaths)
    func badMoodPathsAreRefusedNamingTheProblem(query: String, named: String) async throws {
        try await ServerHarness.withServer { harness async throws in
            let answer = try await harness.get("/api/mood-path?" + query)
            Self.expectError(answer, status: 400, code: "bad_request")
            #expect(answer.errorMessage?.contains(named) == true, "\(answer.errorMessage ?? "")")
        }
    }

    // MARK: - Ordering a playlist

    @Test func orderingAPlaylistPreviewsItsTracksAndSavesTheOrder() async throws {
        try await ServerHarness.withServer { harness async throws in
            let workout = try await Self.playlistID("Workout", in: harness)
            let preview = try await harness.get("/api/playlists/\(workout)/order?order=arc&arc=rising")
            #expect(preview.status == 200, "\(String(decoding: preview.body, as: UTF8.self))")
            let body = try preview.json()
            let tracks = try #require(body["tracks"] as? [[String: Any]])
            let names = tracks.compactMap { $0["name"] as? String }
            #expect(Set(names) == Set((9...20).map { "Song \($0)" }))
            let energies = tracks.compactMap { $0["energy"] as? Double }
            #expect(try #require(energies.first) <= (try #require(energies.last)), "\(energies)")
            #expect(body["name"] as? String == "Workout (arc rising)")
            let spotify = try #require(body["spotify"] as? [String: Any])
            #expect(spotify["can_push"] as? Bool == false)
            #expect((body["notes"] as? [String])?.isEmpty == false)

            let answer = try await Self.post(
                "/api/playlists/\(workout)/order",
                "{\"order\": \"key\", \"name\": \"Workout by key\"}",
                to: harness
            )
            #expect(answer.status == 201, "\(String(decoding: answer.body, as: UTF8.self))")
            let id = try #require((try answer.json())["id"] as? Int)
            // The store lists it with the same twelve tracks, and the original is untouched.
            let saved = try harness.store.playlistDetail(id: Int64(id), vibesOf: nil)
            #expect(saved.overview.name == "Workout by key")
            #expect(Set(saved.entries.map(\.track.name)) == Set(names))
            #expect(try harness.store.playlistOverviews(vibesOf: nil).filter { $0.name == "Workout" }.count == 1)
        }
    }

    /// Two playlists of the same name (an imported one and a saved one, neither on Spotify):
    /// each one's order is of its own tracks.
    @Test func orderingFindsThePlaylistByItsIDNotItsName() async throws {
        try await ServerHarness.withServer { harness async throws in
            let imported = try await Self.playlistID("Workout", in: harness)
            let ids = try [2, 4, 6].map { try Self.trackID($0, in: harness) }
            let saved = try await Self.post(
                "/api/playlists",
                "{\"name\": \"Workout\", \"track_ids\": [\(ids.map(String.init).joined(separator: ","))]}",
                to: harness
            )
            let copy = try #require((try saved.json())["id"] as? Int)
            #expect(copy != imported)
            for (id, songs) in [(imported, Array(9...20)), (copy, [2, 4, 6])] {
                let preview = try await harness.get("/api/playlists/\(id)/order?order=flow")
                #expect(preview.status == 200, "\(String(decoding: preview.body, as: UTF8.self))")
                let tracks = try #require((try preview.json())["tracks"] as? [[String: Any]])
                #expect(Set(tracks.compactMap { $0["name"] as? String }) == Set(songs.map { "Song \($0)" }))
            }
        }
    }

    @Test func pushingAnOrderToSpotifyNeedsASpotifyPlaylist() async throws {
        try await ServerHarness.withServer { harness async throws in
            let workout = try await Self.playlistID("Workout", in: harness)
            let answer = try await Self.post(
                "/api/playlists/\(workout)/order",
                "{\"order\": \"flow\", \"to\": \"spotify\"}",
                to: harness
            )
            Self.expectError(answer, status: 409, code: "playlist_not_on_spotify")
            #expect(answer.errorMessage?.contains("“Workout” has no Spotify playlist") == true)
            #expect(try harness.store.playlistOverviews(vibesOf: nil).count == 2)
        }
    }

    @Test func badOrderRequestsAreRefused() async throws {
        try await ServerHarness.withServer { harness async throws in
            let workout = try await Self.playlistID("Workout", in: harness)
            Self.expectError(
                try await harness.get("/api/playlists/\(workout)/order?order=shuffle"),
                status: 400,
                code: "bad_request"
            )
            Self.expectError(
                try await harness.get("/api/playlists/\(workout)/order?order=arc&arc=zigzag"),
                status: 400,
                code: "bad_request"
            )
            Self.expectError(try await harness.get("/api/playlists/99999/order"), status: 404, code: "not_found")
            Self.expectError(try await harness.get("/api/playlists/x/order"), status: 400, code: "bad_request")
            Self.expectError(
                try await Self.post("/api/playlists/\(workout)/order", "{\"to\": \"cloud\"}", to: harness),
                status: 400,
                code: "bad_request"
            )
            #expect(try harness.store.playlistOverviews(vibesOf: nil).count == 2)
        }
    }

    // MARK: - Report

    @Test func theReportCarriesTheSectionsOfTheReportCommand() async throws {
        try await ServerHarness.withServer { harness async throws in
            let answer = try await harness.get("/api/report?time_zone=UTC")
            #expect(answer.status == 200)
            let body = try answer.json()
            #expect(body["schema_version"] as? Int == 1)
            let report = try #require(body["report"] as? [String: Any])
            for section in ["overview", "features", "mood_map", "vibes", "map", "outliers"] {
                #expect(report[section] != nil, "\(section)")
            }
            #expect((report["overview"] as? [String: Any])?["tracks"] as? Int == 20)
            #expect(report["time_zone"] as? String == "UTC")
            let vibes = try #require((report["vibes"] as? [String: Any])?["vibes"] as? [[String: Any]])
            #expect(vibes.compactMap { $0["name"] as? String } == ["Calm", "Lively"])
            Self.expectError(try await harness.get("/api/report?time_zone=Mars/Base"), status: 400, code: "bad_request")
        }
    }
}
