import ArgumentParser
import Foundation
import Testing

@testable import vibes_analyze

/// Help people can use: an example per command that really parses, and a suggestion for a typo.
struct HelpCommandParsingTests {
    /// Every command a user sees, with the words that name it.
    static func visibleCommands(
        under command: any ParsableCommand.Type = VibesAnalyze.self,
        path: [String] = []
    ) -> [(path: [String], type: any ParsableCommand.Type)] {
        command.configuration.subcommands.filter { $0.configuration.shouldDisplay }.flatMap { sub in
            let subPath = path + [sub._commandName]
            return [(subPath, sub)] + visibleCommands(under: sub, path: subPath)
        }
    }

    /// Every command names itself. Without a `commandName`, argument-parser derives the name from
    /// the type's name on every start, and each such `String(describing:)` of a type scans every
    /// protocol conformance of the program: about a quarter of `--version`'s time.
    @Test func everyCommandNamesItself() {
        var pending: [any ParsableCommand.Type] = [VibesAnalyze.self]
        var seen = 0
        while let command = pending.popLast() {
            #expect(command.configuration.commandName != nil, "\(command)")
            pending += command.configuration.subcommands
            seen += 1
        }
        #expect(seen > 30)
    }

    /// The words of a command line, with double quotes grouping.
    static func words(_ line: String) -> [String] {
        var words: [String] = []
        var current = ""
        var quoted = false
        var started = false
        for character in line {
            if character == "\"" {
                quoted.toggle()
                started = true
            } else if character == " " && !quoted {
                if started { words.append(current) }
                current = ""
                started = false
            } else {
                current.append(character)
                started = true
            }
        }
        if started { words.append(current) }
        return words
    }

    @Test func everyCommandHasAnExampleThatParses() throws {
        let commands = HelpCommandParsingTests.visibleCommands()
        #expect(commands.count >= 30)
        for (path, type) in commands {
            let help = VibesAnalyze.helpMessage(for: type, columns: 400)
            let example = help.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
                .first { $0.hasPrefix("Example: vibes-analyze ") }
            guard let example else {
                Issue.record("`\(path.joined(separator: " ")) --help` has no example")
                continue
            }
            let words = Array(HelpCommandParsingTests.words(String(example.dropFirst("Example: vibes-analyze ".count))))
            #expect(Array(words.prefix(path.count)) == path, "\(example)")
            do {
                _ = try VibesAnalyze.parseAsRoot(words)
            } catch {
                // Checks of the world (a file that is not here) are fine; the words must parse.
                let message = VibesAnalyze.message(for: error)
                for mistake in ["Unknown option", "Unexpected argument", "Missing expected argument", "Missing value"] {
                    #expect(!message.contains(mistake), "\(example): \(message)")
                }
            }
        }
    }

    @Test func realCommandsAndTheirArgumentsAreLeftToTheParser() {
        #expect(VibesAnalyze.unknownSubcommand(in: ["play", "road trip"]) == nil)
        #expect(VibesAnalyze.unknownSubcommand(in: ["help", "plylist"]) == nil)
        #expect(VibesAnalyze.unknownSubcommand(in: ["--version"]) == nil)
        #expect(VibesAnalyze.unknownSubcommand(in: ["playlist", "push", "Road trip"]) == nil)
        #expect(VibesAnalyze.unknownSubcommand(in: []) == nil)
        #expect(VibesAnalyze.editDistance("kitten", "sitting") == 3)
        #expect(VibesAnalyze.editDistance("biuld", "build") == 1)
    }

    /// Commands that never open the library offer no `--db`; those that do, and `play` (which
    /// finds playlists in it by name), keep it. The long option groups have titles.
    @Test func onlyCommandsThatOpenTheLibraryTakeDB() {
        let withoutStore: [any ParsableCommand.Type] = [
            VibesAnalyze.Auth.Login.self, VibesAnalyze.Auth.Status.self, VibesAnalyze.Auth.Logout.self,
            VibesAnalyze.Now.self, VibesAnalyze.Recent.self, VibesAnalyze.Top.self, VibesAnalyze.Search.self,
            VibesAnalyze.Pause.self, VibesAnalyze.Next.self, VibesAnalyze.Previous.self, VibesAnalyze.Seek.self,
            VibesAnalyze.Devices.self,
        ]
        for type in withoutStore {
            let help = VibesAnalyze.helpMessage(for: type, columns: 200)
            #expect(!help.contains("--db"), "\(type._commandName)")
            #expect(help.contains("--json"), "\(type._commandName)")
        }
        for type in [VibesAnalyze.Play.self, VibesAnalyze.Recommend.self, VibesAnalyze.Library.self]
            as [any ParsableCommand.Type]
        {
            #expect(VibesAnalyze.helpMessage(for: type, columns: 200).contains("--db"), "\(type._commandName)")
        }
        for type in [VibesAnalyze.Recommend.self, VibesAnalyze.PlaylistCommand.Build.self] as [any ParsableCommand.Type]
        {
            let help = VibesAnalyze.helpMessage(for: type, columns: 200)
            #expect(help.contains("SEEDS:"))
            #expect(help.contains("TUNING:"))
        }
    }
}
