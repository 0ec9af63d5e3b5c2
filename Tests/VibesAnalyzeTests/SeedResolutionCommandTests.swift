import Foundation
import GRDB
import Ingest
import Testing
import VibesTestSupport

/// Seeds people trust, through the built tool on the tidytuesday excerpt: a weak match is refused
/// with the closest tracks, and an ISRC works. `LibraryStoreSeedResolutionTests` tests the rest in
/// process.
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
