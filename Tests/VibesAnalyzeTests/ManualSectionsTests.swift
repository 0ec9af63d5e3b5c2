import Foundation
import Testing
import VibesTestSupport

/// `make install`'s manual pages get EXAMPLES and ENVIRONMENT from the same text as `--help`
/// (`scripts/man-sections.py`, run on the built tool).
struct ManualSectionsTests {
    /// A page shaped as swift-argument-parser's generate-manual writes it.
    static func page(_ title: String) -> String {
        [
            ".Dd November 1, 2026", ".Dt \(title.uppercased()) 1", ".Os", ".Sh NAME", ".Nm \(title)",
            ".Sh DESCRIPTION", "Text.", ".Sh \"EXIT STATUS\"", "0 on success.", ".Sh \"SEE ALSO\"",
            ".Xr vibes-analyze 1", ".Sh AUTHORS", "Someone.", "",
        ].joined(separator: "\n")
    }

    @Test func pagesGetTheExamplesAndTheEnvironmentOfTheirHelp() async throws {
        try await withTemporaryDirectory { folder in
            for title in ["vibes-analyze", "vibes-analyze.cluster", "vibes-analyze.playlists.show"] {
                try Self.page(title).write(toFile: "\(folder)/\(title).1", atomically: true, encoding: .utf8)
            }
            let script = JSONShapeTests.root + "/scripts/man-sections.py"
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", script, CommandLineTool.executablePath, folder]
            try process.run()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)

            let root = try String(contentsOfFile: folder + "/vibes-analyze.1", encoding: .utf8).split(separator: "\n")
            let environment = try #require(root.firstIndex(of: ".Sh ENVIRONMENT"))
            #expect(environment < (root.firstIndex(of: ".Sh \"EXIT STATUS\"") ?? 0))
            for variable in ["VIBES_DB", "XDG_DATA_HOME", "SPOTIFY_CLIENT_ID", "NO_COLOR"] {
                #expect(root.contains(".It Ev \(variable)"), "\(variable)")
            }
            let help = try await CommandLineTool.run(["--help"]).stdout
            #expect(help.contains("Environment:") && help.contains("VIBES_DB: "))

            let cluster = try String(contentsOfFile: folder + "/vibes-analyze.cluster.1", encoding: .utf8)
                .split(separator: "\n")
            let examples = try #require(cluster.firstIndex(of: ".Sh EXAMPLES"))
            #expect(examples < (cluster.firstIndex(of: ".Sh \"SEE ALSO\"") ?? 0))
            #expect(cluster[examples + 2] == "vibes-analyze cluster --k auto --seed 42")
            #expect(!cluster.contains(".Sh ENVIRONMENT"))
            let show = try String(contentsOfFile: folder + "/vibes-analyze.playlists.show.1", encoding: .utf8)
            #expect(show.contains("\nvibes-analyze playlists show bath\n"))
        }
    }
}
