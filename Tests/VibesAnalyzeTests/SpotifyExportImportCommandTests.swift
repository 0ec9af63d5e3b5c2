import Foundation
import Testing
import VibesTestSupport

/// `vibes-analyze import my_spotify_data.zip` (or its folder) through the built tool.
struct SpotifyExportImportCommandTests {
    @Test func theExportZipIsImportedAsItComes() async throws {
        try await withTemporaryDirectory { directory in
            let zip = directory + "/my_spotify_data.zip"
            try ZipFixture.write(
                [
                    .fixture("Spotify Account Data/StreamingHistory0.json", "json/StreamingHistory0.json"),
                    .fixture("Spotify Account Data/YourLibrary.json", "json/YourLibrary.json"),
                    .file("Spotify Account Data/Identity.json", Data(#"{"displayName": "x"}"#.utf8)),
                    .file("Spotify Account Data/StreamingHistory1.json", Data("[{\"endTime\": ".utf8)),
                ],
                to: zip
            )
            let environment = ["VIBES_DB": directory + "/library.sqlite", "HOME": directory]
            let run = try await runTool(["import", zip], environment: environment)
            // The broken history file fails alone; the others land.
            #expect(run.exitCode == 1)
            #expect(run.stdout.contains("my_spotify_data.zip/Spotify Account Data/YourLibrary.json"), "\(run.stdout)")
            #expect(
                run.stdout.contains("my_spotify_data.zip/Spotify Account Data/StreamingHistory0.json"),
                "\(run.stdout)"
            )
            #expect(
                run.stderr.contains(
                    "skipped Spotify Account Data/Identity.json: account data vibes-analyze does not import"
                ),
                "\(run.stderr)"
            )
            #expect(
                run.stderr.contains("my_spotify_data.zip/Spotify Account Data/StreamingHistory1.json"),
                "\(run.stderr)"
            )
            let json = try await runTool(["import", zip, "--json"], environment: environment)
            let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
            let files = object?["files"] as? [[String: Any]]
            #expect(files?.count == 2 && files?.allSatisfy { $0["status"] as? String == "unchanged" } == true)
        }
    }
}
