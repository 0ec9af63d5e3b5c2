import Analytics
import ArgumentParser
import Features
import Foundation
import Ingest
import VibesCommandSupport
import VibesEngine

extension VibesAnalyze {
    /// `vibes-analyze playlist …`: build (and, with the Spotify issue, push) playlists.
    struct PlaylistCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "playlist",
            abstract: "Build vibe-matched playlists that flow, and push them to Spotify.",
            discussion: "Example: vibes-analyze playlist build --mood chill --duration 1h --save",
            subcommands: [Build.self, PlaylistPush.self, Reorder.self, Extend.self, Recipe.self]
        )
    }
}

extension VibesAnalyze.PlaylistCommand {
    /// `vibes-analyze playlist build`.
    struct Build: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "build",
            abstract: "Build a playlist from seeds and targets, or along a mood path, ordered for flow.",
            discussion: """
                Tracks come from the same seeds and --min-/--max-/--target- options as `recommend`, or from \
                --from-mood/--to-mood ("from calm to energetic in 12 tracks"). They are then ordered: `flow` \
                minimises one transition cost (Camelot key compatibility, octave-aware BPM ratio, energy step, \
                and no artist twice in a row), never above a best-start greedy order's; `arc` follows an energy \
                curve (--arc) with a shape correlation of at least 0.8 where the energies allow; `key` walks round \
                the Camelot wheel, each key next to a neighbouring one, tempo breaking ties; `none` keeps the \
                ranking. A mood path keeps its ramp under flow: tracks move only within each step of three.

                Example: vibes-analyze playlist build --vibe 1 --duration 45m --order arc --arc peak --export m3u --out vibe.m3u
                """
        )

        @OptionGroup var global: GlobalOptions
        @OptionGroup var layout: TableOptions
        @OptionGroup var pick: PickOptions

        @Option(name: .customLong("from-mood"), help: "Start a mood path at this mood (with --to-mood).")
        var fromMood: MoodWord?

        @Option(name: .customLong("to-mood"), help: "End a mood path at this mood (with --from-mood).")
        var toMood: MoodWord?

        @Option(name: [.customShort("n"), .long], help: "The number of tracks (1–10000), unless --duration is given.")
        var count = 20

        @Option(name: .long, help: "The total length instead of a count, such as 45m, 1h30m or 2700s.")
        var duration: PlaylistDuration?

        @Option(name: .long, help: "Variety against similarity, 0 to 1, as in `recommend`.")
        var diversity = 0.0

        @OptionGroup var artistCap: ArtistCapOptions

        @Flag(
            name: .customLong("same-artist"),
            help:
                "Let the seed tracks' own artists fill the playlist (by default at most 2 of their tracks besides the seeds)."
        )
        var sameArtist = false

        @Option(
            name: .long,
            help:
                "The order: flow (lowest transition cost; within each step of a mood path), arc (an energy curve), key (round the Camelot wheel, by tempo within a key) or none (best first, or the path's order). Default: flow, or none for a mood path."
        )
        var order: PlaylistRequest.Order?

        @Option(
            name: .long,
            help:
                "The energy curve for --order arc: flat, rising, peak (warm-up → peak → cool-down), falling, or energies evenly spread over the playlist, such as 0.2,0.8,0.4."
        )
        var arc: PlaylistOrdering.Arc = .peak

        @Option(
            name: .long,
            help: "Pin a track at a position, as POSITION=TRACK (1-based; TRACK as for --seed). Repeatable."
        )
        var lock: [String] = []

        @Option(name: .long, help: "The playlist's name.")
        var name: String?

        @Flag(name: .long, help: "Save the playlist in the library (replacing one of the same name).")
        var save = false

        @Flag(
            name: .long,
            help:
                "With --vibe alone, keep other versions (single, album, compilation) of a song already listed."
        )
        var keepVersions = false

        @Option(name: .long, help: "Write the playlist as m3u, csv (Exportify columns) or json.")
        var export: PlaylistExport.Format?

        @Option(name: .long, help: "The file for --export; standard output when omitted.")
        var out: String?

        /// Whether a seed or a target was given (else a mood path, or a playlist to order).
        var hasSeeds: Bool {
            pick.hasSeedsOrTargets
        }

        func validate() throws {
            guard (1...PlaylistBuilder.maximumTrackCount).contains(count) else {
                throw ValidationError(
                    "Please ask for 1 to \(PlaylistBuilder.maximumTrackCount) tracks with -n (got \(count))."
                )
            }
            guard (fromMood == nil) == (toMood == nil) else {
                throw ValidationError("Please give both --from-mood and --to-mood for a mood path.")
            }
            guard hasSeeds || fromMood != nil || pick.candidates.playlist.playlist != nil else {
                throw ValidationError(
                    "Please give seeds (--seed, --seed-artist, --vibe, --mood), a target (--target-energy 0.8), "
                        + "--from-mood/--to-mood, or --playlist NAME alone to order that playlist."
                )
            }
            guard (0...1).contains(diversity) else {
                throw ValidationError("Please give --diversity from 0 to 1 (got \(diversity)).")
            }
            if out != nil && export == nil {
                throw ValidationError("Please say which format to write to --out with --export m3u|csv|json.")
            }
            if global.json && export != nil && out == nil {
                throw ValidationError(
                    "--export without --out writes the playlist to standard output, where --json would print too; please give --out FILE, or drop --json (--export json is JSON)."
                )
            }
            for text in lock { _ = try Build.parseLock(text) }
            if let order, order == .arc || order == .key, fromMood != nil {
                throw ValidationError(
                    "A mood path sets its own energy ramp; please order it with --order flow or none, not \(order.rawValue)."
                )
            }
        }

        func run() async throws {
            if let out { try CommandFailure.checkOutputFolder(of: out) }
            let store = try global.openStore(activity: "playlist build")
            let report = try describingScope { try store.buildPlaylist(request) }
            if !global.quiet { report.notes.forEach(Console.diagnostic) }
            if let export {
                let text = try PlaylistExport.text(of: report.exportedPlaylist, as: export)
                if let out {
                    try OutputFile.write(text, to: out)
                    if !global.quiet { Console.diagnostic("wrote \(report.playlist.entries.count) tracks to \(out)") }
                } else {
                    print(text, terminator: "")
                }
            }
            if global.json {
                try Console.printJSON(report.playlist)
            } else if export == nil || out != nil {
                print(Build.table(report.playlist, width: layout.width))
            }
        }

        /// The playlist to build, as the engine takes it.
        var request: PlaylistRequest {
            var request = PlaylistRequest()
            request.recommendation = pick.request(query: RecommendationQuery(diversity: diversity))
            request.recommendation.maximumPerArtist = artistCap.maxPerArtist
            request.recommendation.sameArtist = sameArtist
            if let fromMood, let toMood { request.moodPath = (fromMood, toMood) }
            request.length = duration.map { .duration(milliseconds: $0.milliseconds) } ?? .trackCount(count)
            request.keepsVersions = keepVersions
            request.locks = lock.compactMap { try? Build.parseLock($0) }.map { (position: $0.0, track: $0.1) }
            request.order = order
            request.arc = arc
            request.name = name
            request.saves = save
            request.settings = CommandLine.arguments.dropFirst().joined(separator: " ")
            request.includesExportDetails = export == .csv
            return request
        }

        /// Parses `POSITION=TRACK`.
        static func parseLock(_ text: String) throws -> (Int, String) {
            let parts = text.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, let position = Int(parts[0]), position >= 1, !parts[1].isEmpty else {
                throw ValidationError(
                    "Please write --lock as POSITION=TRACK, such as --lock 1=spotify:track:… (got \"\(text)\")."
                )
            }
            return (position, String(parts[1]))
        }

        /// The human-readable listing: position, Camelot key, tempo, energy, track; on a terminal
        /// of `width` columns, titles are shortened with "…" to fit.
        static func table(_ playlist: Features.Playlist, width: Int? = nil) -> String {
            // "Like mood chill — Like mood chill, ordered flow" says the name once.
            let title =
                playlist.description.hasPrefix(playlist.name)
                ? playlist.description : "\(playlist.name) — \(playlist.description)"
            var lines = TerminalWidth.wrap(title, to: width)
            for (index, entry) in playlist.entries.enumerated() {
                let f = entry.features
                let camelot = f.key.flatMap { key in f.mode.flatMap { CamelotKey(pitchClass: key, mode: $0) } }
                let title = (entry.artists.first.map { "\($0) – " } ?? "") + entry.name
                let tempo = f.tempo.map { $0.formatted(digits: 0) } ?? "?"
                let energy = f.energy.map { $0.formatted(digits: 2) } ?? "?"
                let prefix =
                    "\((index + 1).padded(to: 3)). \((camelot?.description ?? "–").padding(to: 3))  \(tempo.padding(to: 5)) BPM  energy \(energy)  "
                let locked = (entry.isInLibrary == false ? "  new" : "") + (entry.isLocked ? "  [locked]" : "")
                let room = width.map { Swift.max(12, $0 - prefix.count - locked.count) }
                lines.append(prefix + title.fitted(to: room) + locked)
            }
            return lines.joined(separator: "\n")
        }
    }
}

/// A playlist length written as `45m`, `1h30m`, `2700s` or `90` (minutes).
struct PlaylistDuration: ExpressibleByArgument {
    var milliseconds: Int

    init?(argument: String) {
        var total = 0
        var number = ""
        var sawUnit = false
        for character in argument.lowercased() {
            if character.isNumber {
                number.append(character)
                continue
            }
            guard let value = Int(number) else { return nil }
            switch character {
            case "h": total += value * 3_600_000
            case "m": total += value * 60_000
            case "s": total += value * 1000
            default: return nil
            }
            number = ""
            sawUnit = true
        }
        if !number.isEmpty {
            guard let value = Int(number), !sawUnit else { return nil }
            total += value * 60_000
        }
        guard total > 0 else { return nil }
        milliseconds = total
    }
}

extension PlaylistOrdering.Arc: ExpressibleByArgument {
    public init?(argument: String) {
        self.init(parsing: argument)
    }
}
extension PlaylistExport.Format: ExpressibleByArgument {}
extension PlaylistRequest.Order: ExpressibleByArgument {}
