import Foundation
import Testing
import VibesTestSupport

/// `make install`'s copy of the programs (`make install-programs`, run on the programs `swift test`
/// built): the installed tool analyses a real clip with the tagger, whose model must be installed
/// beside the programs.
@Suite struct InstallCommandTests {
    /// The repository, three folders above this file.
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// Runs `executable` with `arguments` to completion.
    private func run(_ executable: String, _ arguments: [String]) async throws -> CommandLineTool.Result {
        try await CommandLineTool.run(arguments, executablePath: executable)
    }

    @Test func installedToolAnalysesAClipWithTheTagger() async throws {
        try await withTemporaryDirectory { directory in
            let prefix = directory + "/prefix"
            let buildDirectory = URL(fileURLWithPath: CommandLineTool.executablePath).deletingLastPathComponent().path
            let make = try await run(
                "/usr/bin/env",
                ["make", "-C", Self.repository, "install-programs", "BUILD_DIR=" + buildDirectory, "PREFIX=" + prefix]
            )
            #expect(make.status == 0, "make install-programs: \(make.stderr)")
            let model = prefix + "/bin/vibes-analyze_AudioAnalysis.resources/MSD_musicnn/weights.bin"
            #expect(FileManager.default.fileExists(atPath: model))

            // Run from elsewhere, through a symbolic link, as a user's PATH may lead to it.
            let link = directory + "/vibes-analyze"
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: prefix + "/bin/vibes-analyze")
            let result = try await run(
                link,
                ["analyze", "--db", directory + "/library.sqlite", "--json", Fixtures.path("audio/clip.flac")]
            )
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            let file = try #require((object?["files"] as? [[String: Any]])?.first)
            let details = try #require(file["details"] as? [String: Any])
            let heard = try #require(details["audio_tags"] as? [String: Any])
            #expect(heard["model"] as? String == "MSD_musicnn")
            #expect((heard["probabilities"] as? [String: Double])?.count == 50)
        }
    }

    @Test func programsWithoutTheModelSayHowToInstallIt() async throws {
        try await withTemporaryDirectory { directory in
            let built = URL(fileURLWithPath: CommandLineTool.executablePath).deletingLastPathComponent()
            for name in ["vibes-analyze", "vibes-analyze-audio"] {
                try FileManager.default.copyItem(
                    atPath: built.appendingPathComponent(name).path,
                    toPath: directory + "/" + name
                )
            }
            let result = try await run(
                directory + "/vibes-analyze",
                ["analyze", "--db", directory + "/library.sqlite", Fixtures.path("audio/clip.flac")]
            )
            #expect(result.status == 1)
            #expect(!result.wasSignalled)
            #expect(result.stderr.contains("vibes-analyze_AudioAnalysis.resources"), "\(result.stderr)")
            #expect(result.stderr.contains("make install"), "\(result.stderr)")
        }
    }
}
