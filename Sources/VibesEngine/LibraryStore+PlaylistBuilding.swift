import Analytics
import Features
import Foundation
import Ingest

/// What playlist to build: where its tracks come from, how long it is, and how it is ordered.
public struct PlaylistRequest: Sendable {
    /// How a playlist is ordered.
    public enum Order: String, Sendable, CaseIterable {
        /// The lowest transition cost; within each step of a mood path.
        case flow
        /// Along the energy curve ``PlaylistRequest/arc``.
        case arc
        /// Round the Camelot wheel, each key next to a neighbouring one, tempo breaking ties.
        case key
        /// Best first, or the mood path's or the playlist's own order.
        case none
    }

    /// The seeds, tuning, scope and weights, as for ``LibraryStore/recommend(_:phase:)``; the
    /// query's count is ignored (``length`` rules).
    public var recommendation = RecommendRequest()
    /// A mood path from the first mood to the second, instead of seeds.
    public var moodPath: (from: MoodWord, to: MoodWord)?
    /// A path from a mood or a track to a mood or a track, instead of seeds; ``moodPath`` is the
    /// one between two moods, and this one wins when both are given.
    public var path: (from: PlaylistBuilder.PathEnd, to: PlaylistBuilder.PathEnd)?
    /// The length. Ordering a playlist of the library without a duration takes all its tracks.
    public var length: PlaylistBuilder.Length = .trackCount(20)
    /// With a vibe alone, whether to keep other versions of a song already listed.
    public var keepsVersions = false
    /// Tracks pinned to positions (1-based), given like seed tracks.
    public var locks: [(position: Int, track: String)] = []
    /// The order; flow by default, none for a mood path.
    public var order: Order?
    /// The energy curve of ``Order/arc``.
    public var arc: PlaylistOrdering.Arc = .peak
    /// The playlist's name; one is made from the seeds when `nil`.
    public var name: String?
    /// Whether to save the playlist in the library (replacing one of the same name).
    public var saves = false
    /// How the playlist was built (such as the command line), saved with it for the record.
    public var settings: String?
    /// Whether to read what a CSV export writes besides the entries.
    public var includesExportDetails = false

    public init() {}

    /// Whether a seed or a target was given (else a mood path, or a playlist to order).
    public var hasSeeds: Bool {
        recommendation.seeds.positiveCount > 0
            || recommendation.query.constraints.values.contains { $0.target != nil }
    }

    /// ", 45 min" for a playlist asked for by duration, else nothing.
    var lengthText: String {
        guard case .duration(let milliseconds) = length else { return "" }
        return ", \(milliseconds / 60_000) min"
    }

    /// Whether the playlist is a saved vibe on its own: its members, strongest first.
    var isVibeAlone: Bool {
        let seeds = recommendation.seeds
        return seeds.vibes.count == 1 && seeds.positiveCount == 1 && recommendation.query.constraints.isEmpty
            && seeds.avoidTracks.isEmpty && seeds.avoidArtists.isEmpty
    }
}

/// A built playlist and what the user should know about it.
public struct BuiltPlaylist: Sendable {
    public var playlist: Playlist
    /// What was picked, how long it is, how smooth, and whether it was saved.
    public var notes: [String]
    /// What a CSV export writes besides the entries, by track ID, when the request asked for it.
    public var exportDetails: [Int64: Playlist.Entry.ExportDetails] = [:]

    /// The playlist with each entry's ``exportDetails``, for an export.
    public var exportedPlaylist: Playlist {
        var playlist = playlist
        for index in playlist.entries.indices {
            playlist.entries[index].exportDetails = exportDetails[playlist.entries[index].trackID]
        }
        return playlist
    }
}

extension LibraryStore {
    /// Selects, orders, names and (when asked) saves a playlist.
    ///
    /// The tracks come from a mood path, from a playlist of the library (the scope's, when no
    /// seed is given), from a vibe alone (strongest first), or from the seeds as
    /// ``recommend(_:phase:)`` finds them, seed tracks first.
    ///
    /// - Parameter request: The tracks, length, order and name.
    /// - Returns: The playlist and notes for the user.
    /// - Throws: ``EngineError`` for seeds that cannot be resolved or a playlist without
    ///   features, `RecommendationError` for a query that cannot run, `TrackScopeError` for an
    ///   unknown playlist.
    public func buildPlaylist(_ request: PlaylistRequest) throws -> BuiltPlaylist {
        let seeds = request.recommendation.seeds
        let recommender = try makeRecommender(
            scope: request.recommendation.scope,
            weights: request.recommendation.weights,
            context: seeds.hasTrackSeeds
        )
        let hasFeatures = { recommender.row(of: $0) != nil }
        let builder = PlaylistBuilder(recommender: recommender)
        var length = request.length
        var notes: [String] = []
        var ids: [Int64]
        let description: String
        var defaultName: String?
        if let (start, end) = request.path, PlaylistRequest.moods(of: (start, end)) == nil {
            // A path with a track end; one between two moods is the mood path below.
            ids = try builder.path(from: start, to: end, length: length)
            description = "From \(label(of: start)) to \(label(of: end))"
            defaultName = "\(label(of: start)) → \(label(of: end))" + request.lengthText
        } else if let (fromMood, toMood) = request.path.flatMap(PlaylistRequest.moods(of:)) ?? request.moodPath {
            ids = try builder.moodPath(from: fromMood, to: toMood, length: length)
            description = "From \(fromMood.rawValue) to \(toMood.rawValue)"
            defaultName = "\(fromMood.rawValue.capitalized) → \(toMood.rawValue)" + request.lengthText
        } else if !request.hasSeeds, let playlist = try playlist(in: request.recommendation.scope) {
            // A playlist of the library, ordered offline: its own tracks, each once.
            var seen = Set<Int64>()
            ids = try playlistTrackIDs(rowID: playlist.id).filter { seen.insert($0).inserted && hasFeatures($0) }
            if case .trackCount = length { length = .trackCount(max(1, ids.count)) }
            let left = seen.count - ids.count
            notes.append(
                "\"\(playlist.name)\": its \(ids.count) tracks with audio features"
                    + (left > 0 ? "; \(left) without features left out" : "")
            )
            guard !ids.isEmpty else { throw EngineError.playlistWithoutFeatures(name: playlist.name) }
            description = playlist.name
            defaultName = playlist.name
        } else if request.isVibeAlone {
            // A vibe on its own: its members, strongest first (order none keeps that).
            let (members, label) = try vibeMembers(seeds.vibes[0], run: seeds.run)
            let selection = try builder.vibeSelection(
                members: members,
                label: label,
                length: length,
                keepingVersions: request.keepsVersions
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
            let resolved = try resolveSeeds(seeds, in: recommender)
            notes += resolved.notes
            let limits = request.recommendation.artistLimits
            if let note = limits.note { notes.append(note) }
            let seedTracks = resolved.seeds.compactMap { seed -> Int64? in
                if case .track(let id) = seed { return id }
                return nil
            }
            ids = PlaylistBuilder.startingWithSeeds(
                try builder.tracks(for: request.recommendation.query(with: resolved, limits: limits), length: length),
                seeds: seedTracks,
                length: length
            )
            // Named from the request: "Like mood chill, target energy 0.8, 45 min".
            let targets = request.recommendation.query.constraints.compactMap { attribute, constraint in
                constraint.target.map { target in
                    let value = target == target.rounded() ? String(Int(target)) : "\(target)"
                    return "\(attribute.rawValue.replacingOccurrences(of: "_", with: " ")) \(value)"
                }
            }
            .sorted().joined(separator: ", ")
            let named =
                resolved.seeds.isEmpty
                ? "Target " + targets
                : "Like " + describe(resolved.seeds) + (targets.isEmpty ? "" : ", target " + targets)
            description = named + request.lengthText
            defaultName = description
        }

        var chosen = try playlistEntries(for: ids, features: recommender.audioFeatures(of:))
        // A path's track ends stay at its ends, whatever the order.
        if let (start, end) = request.path, !chosen.isEmpty {
            if case .track(let id) = start, chosen[0].trackID == id { chosen[0].isLocked = true }
            let last = chosen.count - 1
            if case .track(let id) = end, chosen[last].trackID == id { chosen[last].isLocked = true }
        }
        var locks: [PlaylistBuilder.Lock] = []
        for (position, reference) in request.locks {
            let (id, note) = try resolveTrack(reference, hasFeatures: hasFeatures)
            notes.append("lock \(position): " + note)
            var entry = try playlistEntries(for: [id], features: recommender.audioFeatures(of:))[0]
            entry.isLocked = true
            locks.append(.init(position: position, entry: entry))
        }
        // A mood path is already in its order; anything else flows unless told otherwise.
        let isPath = request.moodPath != nil || request.path != nil
        let order = request.order ?? (isPath ? PlaylistRequest.Order.none : .flow)
        let arrangement = PlaylistBuilder.assemble(
            chosen,
            locks: locks,
            length: length,
            order: order == .flow ? .flow : order == .arc ? .arc(request.arc) : order == .key ? .key : .asChosen,
            isMoodPath: isPath
        )
        let entries = arrangement.entries
        let score = PlaylistOrdering.transitionScore(of: entries)
        let orderNote = order == .arc ? "arc \(request.arc)" : order == .key ? "by key" : order.rawValue
        let playlist = Playlist(
            name: request.name ?? defaultName ?? description,
            description: description + ", ordered \(orderNote) (vibes-analyze)",
            entries: entries,
            transitionScore: score
        )
        let minutes = playlist.totalDurationMS / 60_000
        notes.append(
            "\(entries.count) tracks, \(minutes) min, transition score \(score.formatted(digits: 2)) (0 jarring … 1 seamless)"
        )
        notes.append(Self.costNote(arrangement, order: orderNote))
        let newTracks = Set(entries.filter { $0.isInLibrary == false }.map(\.trackID))
        if let note = Self.newTracksNote(count: newTracks.count) { notes.append(note) }
        if request.saves {
            try saveBuiltPlaylist(playlist, settings: request.settings)
            notes.append("saved as \"\(playlist.name)\"")
        }
        var built = BuiltPlaylist(playlist: playlist, notes: notes)
        if request.includesExportDetails {
            built.exportDetails = try exportDetails(for: playlist.entries.map(\.trackID))
        }
        return built
    }

    /// "calm" or "Daft Punk – One More Time", for a path's description.
    private func label(of end: PlaylistBuilder.PathEnd) -> String {
        switch end {
        case .mood(let mood): mood.rawValue
        case .track(let id): title(of: id)
        }
    }

    /// "Daft Punk – One More Time and mood calm", for playlist descriptions.
    private func describe(_ seeds: [RecommendationSeed]) -> String {
        seeds.map { seed in
            switch seed {
            case .track(let id): title(of: id)
            case .tracks(_, let label): label
            case .mood(let mood): "mood \(mood.rawValue)"
            }
        }.joined(separator: " and ")
    }

    /// How many tracks come from the reference pool rather than the user's library; `nil` for none.
    static func newTracksNote(count: Int) -> String? {
        guard count > 0 else { return nil }
        return
            "\(count) track\(count == 1 ? " is" : "s are") new to you (from the reference pool, not your library), marked new"
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
}

extension PlaylistRequest {
    /// The two moods of a path between moods; `nil` when an end is a track.
    static func moods(
        of path: (from: PlaylistBuilder.PathEnd, to: PlaylistBuilder.PathEnd)
    ) -> (from: MoodWord, to: MoodWord)? {
        guard case .mood(let from) = path.from, case .mood(let to) = path.to else { return nil }
        return (from, to)
    }
}
