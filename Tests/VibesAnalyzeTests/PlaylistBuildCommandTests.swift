import ArgumentParser
import Testing

@testable import vibes_analyze

/// `playlist build`'s options; what it builds is tested on the engine (`LibraryStorePlaylistBuildingTests`).
struct PlaylistBuildCommandTests {
    @Test(arguments: [
        ["--from-mood", "calm", "--to-mood", "energetic", "--order", "arc"],
        ["--mood", "calm", "--order", "arc", "--arc", "0.5"],
        ["--mood", "calm", "--order", "arc", "--arc", "0.2,1.4"],
        ["--mood", "calm", "--order", "arc", "--arc", "wobbly"],
        ["--mood", "calm", "--export", "m3u", "--json"],
        // Without seeds, a mood path or a playlist, there is nothing to build from.
        ["--order", "flow"],
    ])
    func invalidOrderingArgumentsExitWith64(arguments: [String]) {
        do {
            _ = try VibesAnalyze.parseAsRoot(["playlist", "build"] + arguments)
            Issue.record("\(arguments) parsed")
        } catch {
            #expect(VibesAnalyze.exitCode(for: error) == .validationFailure, "\(VibesAnalyze.message(for: error))")
        }
    }

    @Test func moreThanSpotifyHoldsIsAUsageError() {
        do {
            _ = try VibesAnalyze.parseAsRoot(["playlist", "build", "--mood", "chill", "-n", "10001"])
            Issue.record("-n 10001 parsed")
        } catch {
            #expect(VibesAnalyze.exitCode(for: error) == .validationFailure)
            #expect(VibesAnalyze.message(for: error).contains("1 to 10000"))
        }
    }
}
