import Foundation
import Testing
import VibesTestSupport

/// What the built tool prints for a mistyped command and for `--version`.
struct HelpCommandTests {
    @Test(arguments: [
        (["plylist"], "Error: 'plylist' is not a command of vibes-analyze. Did you mean 'playlist'?"),
        (["playlist", "biuld"], "Error: 'biuld' is not a command of vibes-analyze playlist. Did you mean 'build'?"),
        (["features", "stat"], "Error: 'stat' is not a command of vibes-analyze features. Did you mean 'status'?"),
        (["frobnicate"], "Error: 'frobnicate' is not a command of vibes-analyze.\n"),
    ])
    func aMistypedCommandGetsTheClosestName(arguments: [String], expected: String) async throws {
        let result = try await CommandLineTool.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix(expected), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    /// `--version` names the checkout it was built from, as `git describe` does.
    @Test func theVersionCarriesTheGitDescription() async throws {
        let result = try await CommandLineTool.run(["--version"])
        #expect(result.status == 0)
        let line = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let prefix = "0.1.0 ("
        try #require(line.hasPrefix(prefix) && line.hasSuffix(")"), "\(line)")
        let description = String(line.dropFirst(prefix.count).dropLast())
        let git = Process()
        git.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        git.arguments = ["git", "-C", JSONShapeTests.root, "describe", "--tags", "--always"]
        let pipe = Pipe()
        git.standardOutput = pipe
        git.standardError = FileHandle.nullDevice
        try git.run()
        let expected = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        git.waitUntilExit()
        if git.terminationStatus == 0 && !expected.isEmpty {
            // Changes made after the build may add or drop "-dirty".
            #expect(description == expected || description == expected + "-dirty", "\(description) vs \(expected)")
        } else {
            #expect(description == "unknown")
        }
    }
}
