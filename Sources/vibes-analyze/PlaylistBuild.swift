import Analytics
import ArgumentParser
import Features
import Foundation
import Ingest
import VibesCommandSupport

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
        @OptionGroup(title: "Seeds") var seeds: SeedOptions
        @OptionGroup(title: "Tuning") var tuning: TunableOptions
        @OptionGroup(title: "Scope") var candidates: CandidateScopeOptions
        @OptionGroup var layout: TableOptions

        @Flag(
            name: .long,
            help: "Use the default similarity weights, not the personal ones `weights learn` stored."
        )
        var noPersonal = false

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

        @Option(
            name: .customLong("max-per-artist"),
            help:
                "At most this many tracks by the same main artist; 2 by default when seeded by tracks, unlimited otherwise."
        )
        var maxPerArtist: Int?

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
        var order: OrderMode?

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
            seeds.positiveCount > 0 || tuning.constraints.values.contains { $0.target != nil }
        }

        enum OrderMode: String, ExpressibleByArgument, CaseIterable {
            case flow, arc, key, none
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
            guard hasSeeds || fromMood != nil || candidates.playlist.playlist != nil else {
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
            let report = try makePlaylist(store: store)
            if !global.quiet { report.notes.forEach(Console.diagnostic) }
            if let export {
                var playlist = report.playlist
                if export == .csv {
                    let details = try store.exportDetails(for: playlist.entries.map(\.trackID))
                    for index in playlist.entries.indices {
                        playlist.entries[index].exportDetails = details[playlist.entries[index].trackID]
                    }
                }
                let text = try PlaylistExport.text(of: playlist, as: export)
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

        /// Selects, orders, names and (with --save) stores the playlist.
        func makePlaylist(store: LibraryStore) throws -> (playlist: Features.Playlist, notes: [String]) {
            let library = try LoadedLibrary(
                store: store,
                scope: candidates.scope,
                personal: !noPersonal,
                context: seeds.hasTrackSeeds
            )
            let builder = PlaylistBuilder(recommender: library.recommender)
            var length: PlaylistBuilder.Length =
                duration.map { .duration(milliseconds: $0.milliseconds) } ?? .trackCount(count)
            var notes: [String] = []
            var ids: [Int64]
            let description: String
            var defaultName: String?
            do {
                if let fromMood, let toMood {
                    ids = try builder.moodPath(from: fromMood, to: toMood, length: length)
                    description = "From \(fromMood.rawValue) to \(toMood.rawValue)"
                    defaultName = "\(fromMood.rawValue.capitalized) → \(toMood.rawValue)" + Build.lengthText(duration)
                } else if !hasSeeds, let named = candidates.playlist.playlist {
                    // A playlist of the library, ordered offline: its own tracks, each once.
                    let playlist = try describingScope { try store.playlist(matching: named) }
                    var seen = Set<Int64>()
                    let own = try store.playlistTrackIDs(rowID: playlist.id)
                    ids = own.filter { seen.insert($0).inserted && library.hasFeatures($0) }
                    if duration == nil { length = .trackCount(max(1, ids.count)) }
                    let left = seen.count - ids.count
                    notes.append(
                        "\"\(playlist.name)\": its \(ids.count) tracks with audio features"
                            + (left > 0 ? "; \(left) without features left out" : "")
                    )
                    guard !ids.isEmpty else {
                        throw CommandFailure(
                            "The playlist \"\(playlist.name)\" has no tracks with audio features to order; "
                                + "`vibes-analyze features fetch --playlist NAME` fills them in."
                        )
                    }
                    description = playlist.name
                    defaultName = playlist.name
                } else if seeds.vibes.count == 1, seeds.positiveCount == 1, tuning.constraints.isEmpty,
                    seeds.avoidTracks.isEmpty, seeds.avoidArtists.isEmpty
                {
                    // A vibe on its own: its members, strongest first (order none keeps that).
                    let (members, label) = try SeedOptions.vibeMembers(seeds.vibes[0], run: seeds.run, in: store)
                    let selection = try builder.vibeSelection(
                        members: members,
                        label: label,
                        length: length,
                        keepingVersions: keepVersions
                    )
                    ids = selection.tracks
                    notes.append("\(label): \(ids.count) of its \(members.count) tracks, strongest first")
                    if selection.otherVersions > 0 {
                        notes.append(
                            "\(selection.otherVersions) other versions of songs already listed left out; `--keep-versions` keeps them"
                        )
                    }
                    description = label.prefix(1).uppercased() + label.dropFirst()
                    defaultName =
                        "\(label.split(separator: "\"").dropFirst().first ?? Substring(label)) (\(label.split(separator: " ").prefix(2).joined(separator: " ")))"
                } else {
                    let resolved = try seeds.resolve(in: store, library: library)
                    notes += resolved.notes
                    let limits = SeedOptions.artistLimits(
                        maxPerArtist: maxPerArtist,
                        sameArtist: sameArtist,
                        hasTrackSeeds: !seeds.tracks.isEmpty
                    )
                    if let note = limits.note { notes.append(note) }
                    var query = RecommendationQuery(
                        seeds: resolved.seeds,
                        negativeSeeds: resolved.negative,
                        combination: seeds.combination,
                        diversity: diversity,
                        maximumPerArtist: limits.perArtist,
                        tempoOctave: tuning.tempoOctave
                    )
                    query.maximumPerSeedArtist = limits.perSeedArtist
                    query.constraints = tuning.constraints
                    query.excludedTrackIDs = resolved.excluded
                    let seedTracks = resolved.seeds.compactMap { seed -> Int64? in
                        if case .track(let id) = seed { return id }
                        return nil
                    }
                    ids = PlaylistBuilder.startingWithSeeds(
                        try builder.tracks(for: query, length: length),
                        seeds: seedTracks,
                        length: length
                    )
                    // Named from the request: "Like mood chill, target energy 0.8, 45 min".
                    let targets = tuning.constraints.compactMap { attribute, constraint in
                        constraint.target.map { target in
                            let value = target == target.rounded() ? String(Int(target)) : "\(target)"
                            return "\(attribute.rawValue.replacingOccurrences(of: "_", with: " ")) \(value)"
                        }
                    }
                    .sorted().joined(separator: ", ")
                    let request =
                        resolved.seeds.isEmpty
                        ? "Target " + targets
                        : "Like " + library.recommender.describe(seeds: resolved.seeds, titles: library.title(of:))
                            + (targets.isEmpty ? "" : ", target " + targets)
                    description = request + Build.lengthText(duration)
                    defaultName = description
                }
            } catch let error as RecommendationError {
                throw CommandFailure(error.description)
            }

            let summaries = try library.summaries(of: ids)
            let chosen = ids.map { makeEntry($0, library: library, summary: summaries[$0], isLocked: false) }
            var locks: [PlaylistBuilder.Lock] = []
            for text in lock {
                let (position, reference) = try Build.parseLock(text)
                let (id, note) = try SeedOptions.resolveTrack(reference, in: store, hasFeatures: library.hasFeatures)
                notes.append("lock \(position): " + note)
                let summary = try library.summaries(of: [id])[id]
                locks.append(
                    .init(position: position, entry: makeEntry(id, library: library, summary: summary, isLocked: true))
                )
            }
            // A mood path is already in its order; anything else flows unless told otherwise.
            let order: OrderMode = self.order ?? (fromMood != nil ? OrderMode.none : OrderMode.flow)
            let arrangement = PlaylistBuilder.assemble(
                chosen,
                locks: locks,
                length: length,
                order: order == .flow ? .flow : order == .arc ? .arc(arc) : order == .key ? .key : .asChosen,
                isMoodPath: fromMood != nil
            )
            var entries = arrangement.entries
            let paths = try store.localFilePaths(for: entries.map(\.trackID))
            let reference = try store.referenceTracks(among: entries.map(\.trackID))
            for index in entries.indices {
                entries[index].filePath = paths[entries[index].trackID]
                entries[index].isInLibrary = !reference.contains(entries[index].trackID)
            }
            let score = PlaylistOrdering.transitionScore(of: entries)
            let orderNote = order == .arc ? "arc \(arc)" : order == .key ? "by key" : order.rawValue
            let playlist = Features.Playlist(
                name: name ?? defaultName ?? description,
                description: description + ", ordered \(orderNote) (vibes-analyze)",
                entries: entries,
                transitionScore: score
            )
            let minutes = playlist.totalDurationMS / 60_000
            notes.append(
                "\(entries.count) tracks, \(minutes) min, transition score \(score.formatted(digits: 2)) (0 jarring … 1 seamless)"
            )
            notes.append(Build.costNote(arrangement, order: orderNote))
            if let note = Build.newTracksNote(count: reference.count) { notes.append(note) }
            if save {
                try store.saveBuiltPlaylist(
                    playlist,
                    settings: CommandLine.arguments.dropFirst().joined(separator: " ")
                )
                notes.append("saved as \"\(playlist.name)\"")
            }
            return (playlist, notes)
        }

        func makeEntry(
            _ id: Int64,
            library: LoadedLibrary,
            summary: TrackSummary?,
            isLocked: Bool
        ) -> Features.Playlist.Entry {
            Features.Playlist.Entry(
                trackID: id,
                spotifyID: summary?.spotifyID.flatMap { SpotifyID($0) },
                name: summary?.name ?? "track \(id)",
                artists: summary?.artists ?? [],
                album: summary?.album,
                durationMS: summary?.durationMS,
                popularity: summary?.popularity,
                features: library.recommender.audioFeatures(of: id),
                isLocked: isLocked
            )
        }

        /// The transition cost of the chosen order beside best-start greedy's, and an arc's shape
        /// correlation.
        static func costNote(_ arrangement: PlaylistOrdering.Arrangement, order: String) -> String {
            var note =
                "transition cost \(arrangement.cost.formatted(digits: 3)) (\(order)) vs "
                + "\(arrangement.greedyCost.formatted(digits: 3)) (best-start greedy), lower is smoother"
            if let correlation = arrangement.arcCorrelation {
                note += "; energy follows the arc with shape correlation \(correlation.formatted(digits: 2))"
            }
            return note
        }

        /// How many tracks come from the reference pool rather than the user's library; `nil` for none.
        static func newTracksNote(count: Int) -> String? {
            guard count > 0 else { return nil }
            return
                "\(count) track\(count == 1 ? " is" : "s are") new to you (from the reference pool, not your library), marked new"
        }

        /// ", 45 min" for a playlist asked for by duration, else nothing.
        static func lengthText(_ duration: PlaylistDuration?) -> String {
            duration.map { ", \($0.milliseconds / 60_000) min" } ?? ""
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

extension Recommender {
    /// "Daft Punk – One More Time and mood calm", for playlist descriptions.
    func describe(seeds: [RecommendationSeed], titles: (Int64) -> String) -> String {
        seeds.map { seed in
            switch seed {
            case .track(let id): titles(id)
            case .tracks(_, let label): label
            case .mood(let mood): "mood \(mood.rawValue)"
            }
        }.joined(separator: " and ")
    }
}
