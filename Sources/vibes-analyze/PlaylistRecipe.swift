import Analytics
import ArgumentParser
import Features
import Foundation
import Ingest
import VibesCommandSupport
import VibesEngine

extension VibesAnalyze.PlaylistCommand {
    /// `vibes-analyze playlist recipe save|run|list|show|delete`: playlists that refresh themselves.
    struct Recipe: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "recipe",
            abstract: "Keep how a playlist is built, and build it again from the current library.",
            discussion: """
                A recipe is the options of `playlist build` (seeds, mood or vibe, filters, length or \\
                duration, order, diversity) under a name. `recipe run NAME` builds the playlist NAME \\
                again from the library as it is now, keeping the tracks that still fit in their \\
                places where it can; once it was pushed (`recipe run NAME --push`), each run updates \\
                the Spotify playlist in place: tracks that no longer fit are removed, new ones \\
                added, and the rest moved, keeping their dates added. `vibes-analyze sync \\
                --refresh-recipes` runs every recipe after a sync.

                Example: vibes-analyze playlist recipe save "Calm evening" --mood chill --duration 1h
                Example: vibes-analyze playlist recipe run "Calm evening" --push
                """,
            subcommands: [Save.self, Run.self, List.self, Show.self, Delete.self]
        )
    }
}

extension VibesAnalyze.PlaylistCommand.Recipe {
    /// The options a recipe may not hold: the recipe decides the name and where the playlist goes.
    static let refusedOptions: Set<String> = [
        "--name", "--save", "--export", "--out", "--db", "--json", "--quiet", "--verbose", "-q", "-v",
    ]

    struct Save: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "save",
            abstract: "Save a recipe: a name and the options of `playlist build`.",
            discussion: """
                Everything after NAME is an option of `playlist build` (give --db and --json before \\
                NAME). Saving a recipe of an existing name replaces its options and keeps the \\
                Spotify playlist it updates.

                Example: vibes-analyze playlist recipe save "Run club" --mood energetic -n 30 --order arc --arc rising
                """
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The recipe's name, which is also the playlist's.")
        var name: String

        @Argument(parsing: .captureForPassthrough, help: "The options of `playlist build`.")
        var options: [String] = []

        func validate() throws {
            guard !name.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw ValidationError("Please give the recipe a name.")
            }
            if let refused = options.first(where: {
                refusedOptions.contains($0.split(separator: "=").first.map(String.init) ?? $0)
            }) {
                throw ValidationError(
                    "A recipe decides the playlist's name and where it goes; please leave \(refused) out of it."
                )
            }
            guard !options.isEmpty else {
                throw ValidationError("Please give the options of `playlist build`, such as --mood chill -n 20.")
            }
            // The options must make a playlist build that parses and validates.
            _ = try VibesAnalyze.PlaylistCommand.Build.parse(options)
        }

        func run() async throws {
            let store = try global.openStore(activity: "playlist recipe save", createsMissingStore: true)
            try store.saveRecipe(name: name, arguments: options)
            if global.json {
                try Console.printJSON(try store.recipe(named: name))
            } else if !global.quiet {
                print(
                    "Saved the recipe \"\(name)\": playlist build \(options.joined(separator: " ")). "
                        + "`vibes-analyze playlist recipe run \"\(name)\"` builds it."
                )
            }
        }
    }

    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "run",
            abstract: "Build a recipe's playlist again from the current library (and update it on Spotify).",
            discussion: """
                The playlist is saved in the library under the recipe's name. If the recipe was \\
                pushed before, its Spotify playlist is updated in place; --push pushes it the first \\
                time.

                Example: vibes-analyze playlist recipe run "Calm evening"
                """
        )

        @OptionGroup var global: GlobalOptions
        @OptionGroup var spotify: SpotifyOptions

        @Argument(help: "The recipe.")
        var name: String

        @Flag(help: "Create the Spotify playlist if the recipe has none yet (later runs update it).")
        var push = false

        func run() async throws {
            let store = try global.openStore(activity: "playlist recipe run")
            let outcome = try await Runner.reporting {
                try await store.runRecipe(
                    named: name,
                    push: push,
                    makeRequest: Runner.request(for:),
                    makeClient: { try spotify.makeClient(quiet: global.quiet).0 }
                )
            }
            if global.json {
                try Console.printJSON(outcome)
            } else {
                print(outcome.line)
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the recipes.",
            discussion: "Example: vibes-analyze playlist recipe list"
        )

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let store = try global.openStore(activity: "playlist recipe list")
            let recipes = try store.recipes()
            if global.json {
                try Console.printJSON(["recipes": recipes])
            } else if recipes.isEmpty {
                print("No recipes; `vibes-analyze playlist recipe save NAME --mood chill -n 20` saves one.")
            } else {
                for recipe in recipes {
                    let where_ = recipe.spotifyID.map { " → spotify:playlist:\($0)" } ?? ""
                    let ran = recipe.lastRunAt.map { ", last run \($0)" } ?? ", never run"
                    print(
                        "\(TerminalText.singleLine(recipe.name)): \(TerminalText.singleLine(recipe.arguments.joined(separator: " ")))\(where_)\(ran)"
                    )
                }
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show a recipe.",
            discussion: "Example: vibes-analyze playlist recipe show \"Calm evening\" --json"
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The recipe.")
        var name: String

        func run() async throws {
            let store = try global.openStore(activity: "playlist recipe show")
            guard let recipe = try store.recipe(named: name) else {
                throw CommandFailure(
                    "There is no recipe named \"\(name)\"; `vibes-analyze playlist recipe list` lists them."
                )
            }
            if global.json {
                try Console.printJSON(recipe)
            } else {
                print(
                    """
                    \(TerminalText.singleLine(recipe.name))
                      Builds:   playlist build \(TerminalText.singleLine(recipe.arguments.joined(separator: " ")))
                      Spotify:  \(recipe.spotifyID.map { "https://open.spotify.com/playlist/\($0)" } ?? "not pushed (run it with --push)")
                      Saved:    \(recipe.createdAt)
                      Last run: \(recipe.lastRunAt ?? "never")
                    """
                )
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete a recipe (its playlists stay).",
            discussion: "Example: vibes-analyze playlist recipe delete \"Calm evening\""
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The recipe.")
        var name: String

        func run() async throws {
            let store = try global.openStore(activity: "playlist recipe delete")
            guard try store.deleteRecipe(named: name) else {
                throw CommandFailure("There is no recipe named \"\(name)\".")
            }
            if global.json {
                try Console.printJSON(["deleted": name])
            } else if !global.quiet {
                print("Deleted the recipe \"\(name)\"; the playlists it built stay.")
            }
        }
    }

    /// What one run did.
    typealias Outcome = RecipeRun
}

extension RecipeRun {
    /// "Built NAME: 20 tracks, 12 kept in place; on Spotify …."
    var line: String {
        var text = "Built \(recipe): \(tracks) tracks, \(keptInPlace) kept in place"
        if let spotify {
            text +=
                created
                ? "; created on Spotify: https://open.spotify.com/playlist/\(spotify.spotifyID)"
                : "; on Spotify \(spotify.removed) removed, \(spotify.added) added, \(spotify.moves) moved, \(spotify.kept) kept with their dates"
        }
        return text + "."
    }
}

extension VibesAnalyze.PlaylistCommand.Recipe {
    /// Builds a recipe's playlist and, when it has a Spotify playlist (or `push`), writes it there.
    enum Runner {
        static func run(
            _ recipe: PlaylistRecipe,
            store: LibraryStore,
            spotify: SpotifyOptions,
            push: Bool,
            quiet: Bool
        ) async throws -> Outcome {
            let request = try request(for: recipe)
            return try await reporting {
                try await store.runRecipe(
                    recipe,
                    request: request,
                    push: push,
                    makeClient: { try spotify.makeClient(quiet: quiet).0 }
                )
            }
        }

        /// The build a recipe's options describe.
        static func request(for recipe: PlaylistRecipe) throws -> PlaylistRequest {
            do {
                return try VibesAnalyze.PlaylistCommand.Build.parse(recipe.arguments + ["--name", recipe.name]).request
            } catch {
                throw CommandFailure(
                    "The recipe \"\(recipe.name)\" no longer parses (\(VibesAnalyze.PlaylistCommand.Build.message(for: error))); save it again."
                )
            }
        }

        /// Runs `body` with the scope and Spotify errors worded for the command line.
        static func reporting(_ body: () async throws -> Outcome) async throws -> Outcome {
            try await reportingSpotifyErrors { try await describingScope { try await body() } }
        }
    }
}
