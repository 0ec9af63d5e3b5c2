import Foundation
import GRDB
import Ingest
import Testing
import VibesTestSupport

/// Seeds people trust: a weak match is refused with the closest tracks, a version is found by its
/// song's title, a seed without features falls back to a version that has them, an ISRC works,
/// and `--exclude-artist` keeps an artist out. Through the built tool, on the tidytuesday excerpt.
@Suite(.serialized) struct SeedResolutionCommandTests {
    static let excerpt = Fixtures.path("csv/tidytuesday-excerpt.csv")

    func withLibrary(_ body: (String, String) async throws -> Void) async throws {
        try await withTemporaryDirectory { folder in
            let db = folder + "/library.sqlite"
            let imported = try await CommandLineTool.run(["import", "--db", db, Self.excerpt])
            #expect(imported.status == 0, "\(imported.stderr)")
            try await body(folder, db)
        }
    }

    @Test func aWeakMatchIsRefusedWithTheClosestTracks() async throws {
        try await withLibrary { _, db in
            // The excerpt has four Ed Sheeran remixes and no "Love Me Like You Do".
            let weak = try await CommandLineTool.run(["recommend", "--db", db, "--seed", "Ed Sheeran - Love Me Like"])
            #expect(weak.status == 1)
            #expect(weak.stdout.isEmpty)
            #expect(weak.stderr.contains("No track in the library matches \"Ed Sheeran - Love Me Like\" well enough"))
            #expect(weak.stderr.contains("Ed Sheeran – Cross Me"))
            #expect(weak.stderr.contains("spotify:track:"))
            #expect(!weak.stderr.contains("Usage"))

            let absent = try await CommandLineTool.run(["recommend", "--db", db, "--seed", "Daft Punk - One More Time"])
            #expect(absent.status == 1 && absent.stdout.isEmpty, "\(absent.stdout)")
        }
    }

    @Test func aVersionIsFoundByItsSongsTitleAndAnExcludedArtistNeverComesBack() async throws {
        try await withLibrary { _, db in
            let run = try await CommandLineTool.run([
                "recommend", "--db", db, "--seed", "Ed Sheeran - I Dont Care", "--exclude-artist", "ed sheeran",
                "-n", "10", "--json",
            ])
            #expect(run.status == 0, "\(run.stderr)")
            let report = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
            let tracks = try #require(report?["tracks"] as? [[String: Any]])
            #expect(tracks.count == 10)
            #expect(tracks.allSatisfy { !(($0["artists"] as? [String]) ?? []).contains("Ed Sheeran") })
            let notes = try #require(report?["notes"] as? [String])
            #expect(notes.contains { $0.contains("→ Ed Sheeran – I Don't Care (with Justin Bieber)") })
            #expect(notes.contains { $0.contains("excluded artist \"ed sheeran\" → Ed Sheeran, 4 tracks") })
        }
    }

    @Test func aSeedWithoutFeaturesFallsBackToAVersionThatHasThem() async throws {
        try await withLibrary { folder, db in
            // The original single, more popular than the remix, imported without features.
            let single = folder + "/single.csv"
            try """
            track_id,track_name,track_artist,track_popularity,danceability,energy,valence
            0hVXuCcriWRGvwMV1r5Yn9,I Don't Care,Ed Sheeran,95,,,

            """.write(toFile: single, atomically: true, encoding: .utf8)
            let imported = try await CommandLineTool.run(["import", "--db", db, single])
            #expect(imported.status == 0, "\(imported.stderr)")

            let run = try await CommandLineTool.run([
                "recommend", "--db", db, "--seed", "Ed Sheeran - I Don't Care", "-n", "3",
            ])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stderr.contains("→ Ed Sheeran – I Don't Care (match 1.00) has no audio features; using"))
            #expect(run.stderr.contains("Loud Luxury Remix"))
            #expect(run.stdout.split(separator: "\n").count == 3)

            // By its Spotify ID the featureless track is refused, saying what to do.
            let byID = try await CommandLineTool.run([
                "recommend", "--db", db, "--seed", "spotify:track:0hVXuCcriWRGvwMV1r5Yn9",
            ])
            #expect(byID.status == 1)
            #expect(byID.stderr.contains("has no audio features here; run `vibes-analyze features fetch`"))
        }
    }

    @Test func anISRCIsASeed() async throws {
        try await withLibrary { _, db in
            let queue = try DatabaseQueue(path: db)
            try await queue.write { db in
                try db.execute(
                    sql: "UPDATE tracks SET isrc = 'GBAHS1900123' WHERE spotify_id = '6f807x0ima9a1j3VPbc7VN'"
                )
            }
            try queue.close()
            let run = try await CommandLineTool.run(["recommend", "--db", db, "--seed", "gbahs1900123", "-n", "3"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stderr.contains("ISRC GBAHS1900123 → store ID"))
            let unknown = try await CommandLineTool.run(["recommend", "--db", db, "--seed", "GBAHS1900999"])
            #expect(unknown.status == 1)
            #expect(unknown.stderr.contains("No track in the library has the ISRC GBAHS1900999"))
        }
    }
}
