import Foundation
import SpotifyTestSupport
import Testing
import VibesTestSupport

/// The Spotify commands' `--json` against the shapes in the second part of `docs/json.md`, run
/// against the fake Spotify. With `VIBES_WRITE_JSON_DOCS=1` the test writes that part instead,
/// from what the commands print.
@Suite(.serialized, .timeLimit(.minutes(10)))
struct SpotifyJSONShapeTests {
    /// Where the Spotify part of the document starts.
    static let marker = "<!-- The Spotify commands: written by SpotifyJSONShapeTests with VIBES_WRITE_JSON_DOCS=1. -->"

    static let commands: [(arguments: [String], description: String)] = [
        (["auth", "status", "--json"], "Who is signed in, the scopes granted and when the access token expires."),
        (["now", "--json"], "What is playing, as an `items` list of one."),
        (["recent", "--limit", "2", "--json"], "The tracks played most recently."),
        (["top", "--limit", "2", "--json"], "Your top tracks (or `--type artists`)."),
        (["search", "daft", "--limit", "2", "--json"], "Tracks (or `--type` artists, albums, playlists) found."),
        (["devices", "--json"], "The devices Spotify can play on; `is_active` marks the active one."),
        (["pause", "--json"], "Every player command (`play`, `pause`, `next`, `previous`, `seek`) prints this."),
        (
            ["sync", "--playlists", "--plan", "--json"],
            "How many requests a sync needs, part by part, before it starts (nothing is synced): `requests` sums `parts`, `exact` is false when a part's count is a lower bound, `planning_requests` is what the plan itself sent."
        ),
        (
            ["sync", "--playlists", "--json"],
            "What each part of the sync fetched and wrote. `budget_reached` is true when `--max-requests` stopped it (then `request_budget` is that budget); what it fetched is saved and the next sync resumes."
        ),
        (["features", "fetch", "--json"], "What each source was asked for and what it gave."),
        (["playlist", "push", "Pushed", "--json"], "The Spotify playlist written, and how many tracks went in."),
        (
            ["playlist", "reorder", "Roadtrip", "--json"],
            "How the order was written: `method` is `moves` (Spotify's reorder operation, one move per item that changed place: dates added and adders kept) or `rewrite` (`--rewrite`), `operations` the write requests sent, `moved` the items that changed place, `other_items` the local files, episodes and removed tracks (kept in place), `verified` whether the order read back is the one intended."
        ),
        (
            ["playlist", "extend", "Roadtrip", "-n", "2", "--dry-run", "--json"],
            "The tracks found like the playlist (`seeds` is how many of its tracks seeded them), and where they went: `written` is `library`, `spotify` (with `spotify_id` and `snapshot_id`), `new` (with `new_playlist`) or `none` for `--dry-run`."
        ),
        (
            ["playlist", "recipe", "run", "Evening", "--json"],
            "What a recipe's run built: `tracks`, and `kept_in_place`, the tracks of the previous build that kept their places. Once the recipe was pushed, `spotify` says what changed there (`removed`, `added`, `moves`, `kept` with their dates added) and `created` whether this run created the playlist."
        ),
        (
            ["playlist", "recipe", "show", "Evening", "--json"],
            "A recipe: the `playlist build` options it holds (`arguments`), the Spotify playlist it updates (`spotify_id`, once pushed) and when it last ran. `playlist recipe list --json` prints `{\"recipes\": [...]}` of these."
        ),
    ]

    /// Commands run between the documented ones to set the account and library up.
    static let setUp: [String: [String]] = [
        "playlist push": ["playlist", "build", "--mood", "chill", "-n", "3", "--save", "--name", "Pushed"],
        "playlist extend": ["import", Fixtures.path("csv/tidytuesday-excerpt.csv")],
        "playlist recipe": ["playlist", "recipe", "save", "Evening", "--mood", "chill", "-n", "3"],
    ]

    /// `value` with every array cut to its first two items.
    static func cut(_ value: Any) -> Any {
        switch value {
        case let array as [Any]: return array.prefix(2).map(cut)
        case let object as [String: Any]: return object.mapValues(cut)
        default: return value
        }
    }

    @Test func everySpotifyCommandPrintsTheDocumentedShape() async throws {
        let path = JSONShapeTests.root + "/docs/json.md"
        let document = try String(contentsOfFile: path, encoding: .utf8)
        let writing = ProcessInfo.processInfo.environment["VIBES_WRITE_JSON_DOCS"] == "1"
        let documented = try JSONShapeTests.documented(text: document, part: .spotify)
        if !writing { #expect(documented.count == SpotifyJSONShapeTests.commands.count) }
        var written: [String] = []
        try await withTemporaryDirectory { directory in
            try await FakeSpotify.withServer { spotify in
                await spotify.state.setPlayCount(3)
                await spotify.state.configure { $0.nothingPlaying = false }
                await spotify.state.addPlaylist(name: "Roadtrip", trackCount: 4)
                try await FakeReccoBeats.withServer { recco in
                    let environment = try await signedInToolEnvironment(
                        directory: directory,
                        spotify: spotify,
                        reccoBeatsURL: recco.baseURL,
                        scopes: [
                            "user-library-read", "playlist-read-private", "user-read-recently-played", "user-top-read",
                            "user-read-playback-state", "user-modify-playback-state", "user-read-currently-playing",
                            "playlist-modify-private", "playlist-modify-public",
                        ]
                    )
                    for (index, (arguments, description)) in SpotifyJSONShapeTests.commands.enumerated() {
                        if let setUp = SpotifyJSONShapeTests.setUp[arguments.prefix(2).joined(separator: " ")] {
                            let prepared = try await runTool(setUp, environment: environment)
                            try #require(prepared.exitCode == 0, "\(setUp): \(prepared.stderr)")
                        }
                        let result = try await runTool(arguments, environment: environment)
                        try #require(result.exitCode == 0, "\(arguments): \(result.stderr)")
                        let actual = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
                        if writing {
                            let example = try JSONSerialization.data(
                                withJSONObject: SpotifyJSONShapeTests.cut(actual),
                                options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                            )
                            written += [
                                "## `vibes-analyze \(arguments.joined(separator: " "))`", "", description, "",
                                "```json",
                                String(decoding: example, as: UTF8.self), "```", "",
                            ]
                            continue
                        }
                        try #require(index < documented.count)
                        #expect(documented[index].arguments == arguments)
                        var expected = Set<String>()
                        var printed = Set<String>()
                        JSONShapeTests.shape(of: documented[index].example, into: &expected)
                        JSONShapeTests.shape(of: actual, into: &printed)
                        #expect(
                            printed.subtracting(expected).sorted() == [],
                            "\(arguments): printed but not documented"
                        )
                        #expect(
                            expected.subtracting(printed).sorted() == [],
                            "\(arguments): documented but not printed"
                        )
                        #expect(printed.contains(".schema_version: number or bool"), "\(arguments)")
                    }
                }
            }
        }
        if writing {
            let head = document.components(separatedBy: SpotifyJSONShapeTests.marker)[0]
            let tail =
                (["# The Spotify commands", "", "Examples from a fake Spotify account; arrays cut to two items.", ""]
                    + written)
            try (head + SpotifyJSONShapeTests.marker + "\n\n" + tail.joined(separator: "\n")).write(
                toFile: path,
                atomically: true,
                encoding: .utf8
            )
        }
    }
}
