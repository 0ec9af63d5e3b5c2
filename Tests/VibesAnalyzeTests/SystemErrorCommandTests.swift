import Foundation
import Testing
import VibesTestSupport

/// Through the built tool, a file or host that fails is named with the cause in a sentence, with
/// no Foundation or libcurl error dump.
struct SystemErrorCommandTests {
    static func isRaw(_ text: String) -> Bool {
        ["NSCocoaErrorDomain", "NSURLErrorDomain", "Error Domain=", "UserInfo="].contains { text.contains($0) }
    }

    @Test func aMissingFileOrFolderIsNamedWithTheCause() async throws {
        try await withTemporaryDirectory { folder in
            let db = folder + "/library.sqlite"
            let imported = try await CommandLineTool.run(["import", "--db", db, folder + "/missing.csv"])
            #expect(imported.status == 1)
            #expect(imported.stderr.contains(folder + "/missing.csv: no such file"), "\(imported.stderr)")
            let report = try await CommandLineTool.run(["report", "--db", db, "--out", folder + "/no/such/r.html"])
            #expect(report.status == 1)
            #expect(report.stderr.contains("The folder \(folder)/no/such") && report.stderr.contains("does not exist"))
            #expect(!SystemErrorCommandTests.isRaw(imported.stderr + report.stderr))
        }
    }

    @Test func aHostThatRefusesIsNamed() async throws {
        try await withTemporaryDirectory { folder in
            let db = folder + "/library.sqlite"
            // One track without features, so `features fetch` asks ReccoBeats for it.
            let csv = folder + "/Unmeasured.csv"
            try
                (LibrarySeeding.exportifyHeader + "\n"
                + "spotify:track:4uLU6hMCjMI75M1A2tKUQC,Song,Album,Nobody,2020-01-01,200000,50,false,,"
                + "2024-01-01T00:00:00Z,\"pop\",\"Label\"" + String(repeating: ",", count: 12) + "\n")
                .write(toFile: csv, atomically: true, encoding: .utf8)
            let imported = try await CommandLineTool.run(["import", "--db", db, "--quiet", csv])
            #expect(imported.status == 0, "\(imported.stderr)")
            // A port nothing listens on: 9 (discard) on the loopback.
            let fetched = try await CommandLineTool.run(
                ["features", "fetch", "--db", db, "--source", "reccobeats"],
                environment: ["VIBES_RECCOBEATS_API_URL": "http://127.0.0.1:9/", "HOME": folder]
            )
            #expect(fetched.status == 1)
            let said = fetched.stdout + fetched.stderr
            #expect(said.contains("ReccoBeats unreachable") && said.contains("127.0.0.1") && said.contains("connect"))
            #expect(said.contains("What was fetched is saved"), "\(said)")
            #expect(!SystemErrorCommandTests.isRaw(said), "\(said)")
        }
    }
}
