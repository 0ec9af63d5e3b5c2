import ArgumentParser
import Testing

@testable import vibes_analyze

struct RecommendCommandTests {
    @Test(arguments: [
        ["recommend"],
        ["recommend", "--seed", "x", "--diversity", "1.5"],
        ["recommend", "--seed", "x", "-n", "0"],
        [
            "recommend", "--seed", "a", "--seed", "b", "--seed", "c", "--seed-artist", "d", "--mood", "calm", "--mood",
            "sad",
        ],
        ["recommend", "--mood", "grumpy"],
        ["playlist", "build", "--from-mood", "calm"],
        ["playlist", "build", "--mood", "calm", "--out", "x.m3u"],
        ["playlist", "build", "--mood", "calm", "--lock", "first=x"],
        ["playlist", "build", "--mood", "calm", "--duration", "forever"],
        ["eval", "--label", "colour"],
    ])
    func invalidArgumentsExitWith64(arguments: [String]) {
        #expect(throws: (any Error).self) { try VibesAnalyze.parseAsRoot(arguments) }
        do {
            _ = try VibesAnalyze.parseAsRoot(arguments)
        } catch {
            #expect(VibesAnalyze.exitCode(for: error) == .validationFailure, "\(VibesAnalyze.message(for: error))")
        }
    }

    @Test func playlistHelpIsStable() {
        let help = VibesAnalyze.helpMessage(for: VibesAnalyze.PlaylistCommand.self, columns: 80)
        #expect(
            help == """
                OVERVIEW: Build vibe-matched playlists that flow, and push them to Spotify.

                Example: vibes-analyze playlist build --mood chill --duration 1h --save

                USAGE: vibes-analyze playlist <subcommand>

                OPTIONS:
                  --version               Show the version.
                  -h, --help              Show help information.

                SUBCOMMANDS:
                  build                   Build a playlist from seeds and targets, or along a
                                          mood path, ordered for flow.
                  push                    Write a playlist from the store to your Spotify
                                          account.
                  reorder                 Reorder a Spotify playlist in place so it flows;
                                          --undo puts the old order back.
                  extend                  Find more tracks like a playlist's and append them,
                                          or write them as a new playlist.
                  recipe                  Keep how a playlist is built, and build it again from
                                          the current library.

                  See 'vibes-analyze help playlist <subcommand>' for detailed help.
                """
        )
    }
}
