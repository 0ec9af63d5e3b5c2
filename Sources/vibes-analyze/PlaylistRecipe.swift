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
            guard let recipe = try store.recipe(named: name) else {
                throw CommandFailure(
                    "There is no recipe named \"\(name)\"; `vibes-analyze playlist recipe list` lists them."
                )
            }
            let outcome = try await Runner.run(recipe, store: store, spotify: spotify, push: push, quiet: global.quiet)
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
    struct Outcome: Encodable {
        var recipe: String
        var tracks: Int
        /// Tracks of the previous build that stayed in the same place.
        var keptInPlace: Int
        var spotify: PlaylistUpdateResult?
        var created: Bool

        enum CodingKeys: String, CodingKey {
            case recipe, tracks, spotify, created
            case keptInPlace = "kept_in_place"
        }

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

    /// Builds a recipe's playlist and, when it has a Spotify playlist (or `push`), writes it there.
    enum Runner {
        static func run(
            _ recipe: PlaylistRecipe,
            store: LibraryStore,
            spotify: SpotifyOptions,
            push: Bool,
            quiet: Bool
        ) async throws -> Outcome {
            let build: VibesAnalyze.PlaylistCommand.Build
            do {
                build = try VibesAnalyze.PlaylistCommand.Build.parse(recipe.arguments + ["--name", recipe.name])
            } catch {
                throw CommandFailure(
                    "The recipe \"\(recipe.name)\" no longer parses (\(VibesAnalyze.PlaylistCommand.Build.message(for: error))); save it again."
                )
            }
            let previous = try store.builtPlaylist(named: recipe.name)?.entries.map(\.trackID) ?? []
            var playlist = try describingScope { try store.buildPlaylist(build.request) }.playlist
            let entries = playlist.entries
            let ordered = keepingPlaces(entries.map(\.trackID), previous: previous)
            let byID = Dictionary(entries.map { ($0.trackID, $0) }, uniquingKeysWith: { first, _ in first })
            playlist.entries = ordered.compactMap { byID[$0] }
            let keptInPlace = zip(ordered, previous).count { $0 == $1 }
            try store.saveBuiltPlaylist(
                playlist,
                settings: "playlist recipe \(recipe.name): " + recipe.arguments.joined(separator: " ")
            )
            var outcome = Outcome(
                recipe: recipe.name,
                tracks: playlist.entries.count,
                keptInPlace: keptInPlace,
                spotify: nil,
                created: false
            )
            if recipe.spotifyID == nil && !push {
                try store.recordRecipeRun(name: recipe.name, spotifyID: nil)
                return outcome
            }
            try await reportingSpotifyErrors {
                let (client, _) = try spotify.makeClient(quiet: quiet)
                let pushable = try store.pushablePlaylist(matching: "built:" + Track.normalizedName(recipe.name))
                if let id = recipe.spotifyID.flatMap({ SpotifyID($0) }) {
                    outcome.spotify = try await store.updateInPlace(
                        id,
                        name: recipe.name,
                        to: pushable.uris,
                        using: client
                    )
                    try store.recordPush(of: pushable.rowID, spotifyID: id, snapshotID: outcome.spotify?.snapshotID)
                } else {
                    let result = try await SpotifyPlaylistPusher(client: client, store: store).push(pushable)
                    outcome.created = true
                    outcome.spotify = PlaylistUpdateResult(
                        spotifyID: result.spotifyID,
                        removed: 0,
                        added: result.itemCount,
                        moves: 0,
                        kept: 0,
                        snapshotID: result.snapshotID
                    )
                }
            }
            try store.recordRecipeRun(name: recipe.name, spotifyID: outcome.spotify?.spotifyID)
            return outcome
        }

        /// `fresh` (the new build's tracks, in its order) rearranged so that every track of
        /// `previous` it still holds sits where it sat before, when that place is within the new
        /// length; the others fill the free places in their order.
        static func keepingPlaces(_ fresh: [Int64], previous: [Int64]) -> [Int64] {
            let wanted = Set(fresh)
            var slots = [Int64?](repeating: nil, count: fresh.count)
            var placed: Set<Int64> = []
            for (position, id) in previous.enumerated() where position < slots.count {
                if wanted.contains(id) && !placed.contains(id) {
                    slots[position] = id
                    placed.insert(id)
                }
            }
            var rest = fresh.filter { !placed.contains($0) }.makeIterator()
            return slots.compactMap { $0 ?? rest.next() }
        }
    }
}
