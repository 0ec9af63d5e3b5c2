import Features
import Foundation
import Ingest
import Testing
import VibesServer
import VibesTestSupport

/// The explorer's endpoints: `GET /api/points`, `GET /api/points/facets` and `POST /api/exports`.
struct ExplorerAPITests {
    /// The store's track ID of synthetic track `index` (its Spotify ID is `spotifyID(index)`).
    static func trackID(_ index: Int, in harness: ServerHarness) throws -> Int64 {
        let table = try harness.store.featureTable()
        let summaries = try harness.store.trackSummaries(for: table.trackIDs)
        return try #require(summaries.values.first { $0.spotifyID == ServerHarness.spotifyID(index) }?.id)
    }

    @Test func pointsAreColumnsOfEveryTrackWithItsVibe() async throws {
        try await ServerHarness.withServer { harness async throws in
            let answer = try await harness.get("/api/points?x=energy&y=tempo")
            #expect(answer.status == 200)
            #expect(answer.headers["content-type"] == "application/json; charset=utf-8")
            let body = try answer.json()
            #expect(body["schema_version"] as? Int == 1)
            let ids = try #require(body["track_ids"] as? [Int])
            #expect(body["count"] as? Int == 20)
            #expect(ids.count == 20 && ids == ids.sorted())
            let x = try #require(body["x"] as? [String: Any])
            let y = try #require(body["y"] as? [String: Any])
            #expect(x["name"] as? String == "energy" && y["name"] as? String == "tempo")
            let energies = try #require(x["values"] as? [Double])
            let tempos = try #require(y["values"] as? [Double])
            let table = try harness.store.featureTable()
            #expect(table.trackIDs.map(Int.init) == ids)
            for row in 0..<table.rowCount {
                let stored = Double(try #require(table.value(row: row, feature: .energy)))
                #expect(abs(energies[row] - stored) < 1e-4)
                #expect(tempos[row] == 120)
            }
            // Each track's vibe number is its vibe's place in GET /api/vibes; calm tracks (energy
            // below 0.5) are in "Calm".
            let vibes = try #require((try await harness.get("/api/vibes").json())["vibes"] as? [[String: Any]])
            let numberOf = Dictionary(
                uniqueKeysWithValues: vibes.compactMap { v in
                    (v["name"] as? String).map { ($0, v["number"] as? Int ?? 0) }
                }
            )
            let vibeNumbers = try #require(body["vibe"] as? [Int])
            for row in 0..<table.rowCount {
                #expect(vibeNumbers[row] == numberOf[energies[row] < 0.5 ? "Calm" : "Lively"])
            }
            let listed = try #require(body["vibes"] as? [[String: Any]])
            #expect(listed.compactMap { $0["name"] as? String } == vibes.compactMap { $0["name"] as? String })
            // The axes offered: every audio feature with how many tracks have it, and the map.
            let axes = try #require(body["axes"] as? [[String: Any]])
            #expect(axes.first { $0["name"] as? String == "energy" }?["tracks"] as? Int == 20)
            #expect(axes.contains { $0["name"] as? String == "pc1" })
        }
    }

    @Test func theMapFollowsTheFeatureThatVaries() async throws {
        try await ServerHarness.withServer { harness async throws in
            let body = try await harness.get("/api/points?x=pc1&y=pc2").json()
            let pc1 = try #require((body["x"] as? [String: Any])?["values"] as? [Double])
            let energies = try #require(
                (try await harness.get("/api/points").json()["x"] as? [String: Any])?["values"] as? [Double]
            )
            #expect(pc1.count == 20)
            // Energy is the only feature that varies in the synthetic library: the first
            // component orders the tracks by it (either way round).
            let order = pc1.indices.sorted { pc1[$0] < pc1[$1] }
            let energySorted = order.map { energies[$0] }
            #expect(energySorted == energySorted.sorted() || energySorted == energySorted.sorted(by: >))
        }
    }

    @Test(arguments: ["/api/points?x=loudness_war", "/api/points?y=%3Cscript%3E"])
    func unknownAxesAreRefusedWithTypedErrors(path: String) async throws {
        try await ServerHarness.withServer { harness async throws in
            let answer = try await harness.get(path)
            #expect(answer.status == 400)
            #expect(answer.errorCode == "bad_request")
            #expect(answer.errorMessage?.contains("Unknown axis") == true)
            #expect(answer.errorMessage?.contains("danceability") == true)
        }
    }

    @Test func facetsListTitlesSourcesPlaylistsAndGenres() async throws {
        try await ServerHarness.withServer { harness async throws in
            let body = try await harness.get("/api/points/facets").json()
            let ids = try #require(body["track_ids"] as? [Int])
            let titles = try #require(body["titles"] as? [String])
            #expect(ids.count == 20 && titles.count == 20)
            let third = try Self.trackID(3, in: harness)
            #expect(titles[try #require(ids.firstIndex(of: Int(third)))] == "Artist 3 – Song 3")
            let playlists = try #require(body["playlists"] as? [[String: Any]])
            let workout = try #require(playlists.first { $0["name"] as? String == "Workout" })
            let expected = try (9...20).map { Int(try Self.trackID($0, in: harness)) }
            #expect((workout["track_ids"] as? [Int])?.sorted() == expected.sorted())
            let sources = try #require(body["sources"] as? [String])
            let sourceOf = try #require(body["source"] as? [Int])
            #expect(!sources.isEmpty && sourceOf.count == 20 && sourceOf.allSatisfy { sources.indices.contains($0) })
            let genres = try #require(body["genres"] as? [[String: Any]])
            #expect((genres.first { $0["name"] as? String == "pop" }?["track_ids"] as? [Int])?.count == 20)
        }
    }

    @Test func readOnlyEndpointsRefuseOtherMethods() async throws {
        try await ServerHarness.withServer { harness async throws in
            let answer = try await harness.post("{}", to: "/api/points")
            #expect(answer.status == 405)
            #expect(answer.errorCode == "method_not_allowed")
            let export = try await harness.get("/api/exports")
            #expect(export.status == 405)
        }
    }

    @Test func exportsAreFilesInTheOrderSent() async throws {
        try await ServerHarness.withServer { harness async throws in
            let ids = try [15, 3, 9].map { try Self.trackID($0, in: harness) }
            let list = ids.map(String.init).joined(separator: ",")
            let m3u = try await harness.post(
                "{\"format\": \"m3u\", \"name\": \"Évening / mix\", \"track_ids\": [\(list)]}",
                to: "/api/exports"
            )
            #expect(m3u.status == 200)
            #expect(m3u.headers["content-type"] == "audio/x-mpegurl; charset=utf-8")
            let disposition = try #require(m3u.headers["content-disposition"])
            #expect(disposition.hasPrefix("attachment; filename=\"vening  mix.m3u\""))
            #expect(disposition.contains("filename*=UTF-8''%C3%89vening%20%20mix.m3u"))
            let lines = String(decoding: m3u.body, as: UTF8.self).split(separator: "\n").map(String.init)
            #expect(
                lines == [
                    "#EXTM3U", "#PLAYLIST:Évening / mix",
                    "#EXTINF:180,Artist 3 - Song 15", "Artist 3 - Song 15",
                    "#EXTINF:180,Artist 3 - Song 3", "Artist 3 - Song 3",
                    "#EXTINF:180,Artist 1 - Song 9", "Artist 1 - Song 9",
                ]
            )
            let csv = try await harness.post(
                "{\"format\": \"csv\", \"track_ids\": [\(list)]}",
                to: "/api/exports"
            )
            #expect(csv.status == 200)
            #expect(csv.headers["content-disposition"]?.hasPrefix("attachment; filename=\"playlist.csv\"") == true)
            let rows = String(decoding: csv.body, as: UTF8.self).components(separatedBy: "\r\n")
            #expect(rows[0] == "track_id,spotify_id,artist,title,album,duration_ms,path")
            #expect(rows[1] == "\(ids[0]),\(ServerHarness.spotifyID(15)),Artist 3,Song 15,Album 0,180015,")
            #expect(rows.count == 5 && rows[4].isEmpty)
        }
    }

    /// Names from imported data that a spreadsheet would run as formulas are exported with a
    /// leading `'`; others are left as they are.
    @Test func csvExportsDoNotStartAFieldWithAFormula() async throws {
        try await ServerHarness.withServer { harness async throws in
            let path = harness.folder + "/Formulas.csv"
            let values = "0.5,0.5,5,-7.5,1,0.05,0.2,0.0,0.1,0.6,120,4"
            try [
                ServerHarness.exportifyHeader,
                "spotify:track:\(ServerHarness.spotifyID(50)),\"=HYPERLINK(\"\"x\"\"),1\",+Album,@Artist,2020-01-01,"
                    + "180000,50,false,,2024-01-01T00:00:00Z,pop,Label,\(values)",
                "spotify:track:\(ServerHarness.spotifyID(51)),-5 dB,Album=1,Plain,2020-01-01,"
                    + "180000,50,false,,2024-01-01T00:00:00Z,pop,Label,\(values)",
            ].joined(separator: "\n").appending("\n").write(toFile: path, atomically: true, encoding: .utf8)
            _ = try harness.store.importFile(at: path)
            let ids = try [50, 51].map { index in
                let spotifyID = try #require(SpotifyID(ServerHarness.spotifyID(index)))
                return try #require(try harness.store.trackID(spotifyID: spotifyID))
            }
            let csv = try await harness.post(
                "{\"format\": \"csv\", \"track_ids\": [\(ids.map(String.init).joined(separator: ","))]}",
                to: "/api/exports"
            )
            #expect(csv.status == 200)
            let rows = String(decoding: csv.body, as: UTF8.self).components(separatedBy: "\r\n")
            #expect(
                rows[1]
                    == "\(ids[0]),\(ServerHarness.spotifyID(50)),'@Artist,\"'=HYPERLINK(\"\"x\"\"),1\",'+Album,180000,"
            )
            #expect(rows[2] == "\(ids[1]),\(ServerHarness.spotifyID(51)),Plain,'-5 dB,Album=1,180000,")
        }
    }

    /// Export bodies that are refused, and what the message must name.
    static let badExports = [
        "[]": "JSON",
        "{\"format\": \"pls\", \"track_ids\": [1]}": "m3u or csv",
        "{\"format\": \"m3u\", \"track_ids\": []}": "track_ids",
        "{\"format\": \"csv\", \"track_ids\": [1, 99999]}": "99999",
    ]

    @Test(arguments: badExports)
    func badExportsAreRefusedNamingTheProblem(body: String, named: String) async throws {
        try await ServerHarness.withServer { harness async throws in
            let answer = try await harness.post(body, to: "/api/exports")
            #expect(answer.status == 400)
            #expect(answer.errorCode == "bad_request")
            #expect(answer.errorMessage?.contains(named) == true, "\(answer.errorMessage ?? "")")
        }
    }

    @Test func exportsNeedTheCSRFToken() async throws {
        try await ServerHarness.withServer { harness async throws in
            let answer = try await harness.post(
                "{\"format\": \"m3u\", \"track_ids\": [1]}",
                to: "/api/exports",
                sendsCSRFToken: false
            )
            #expect(answer.status == 403)
        }
    }
}

extension ServerHarness {
    /// Sends `body` as JSON to `path`, with the session's CSRF token unless `sendsCSRFToken` is
    /// false.
    func post(_ body: String, to path: String, sendsCSRFToken: Bool = true) async throws -> Answer {
        let token = sendsCSRFToken ? try #require(try await get("/api/session").json()["csrf_token"] as? String) : nil
        return try await send(
            method: "POST",
            path: path,
            headers: [
                "Host: 127.0.0.1:\(port)", "Content-Type: application/json", "Content-Length: \(body.utf8.count)",
            ] + (token.map { ["X-CSRF-Token: \($0)"] } ?? []),
            body: body
        )
    }
}
