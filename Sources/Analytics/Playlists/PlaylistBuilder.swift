import Features

/// Picks the tracks of a playlist: from a recommendation query, from a vibe cluster, or along a
/// mood path; ``PlaylistOrdering`` then puts them in order.
///
/// ```swift
/// let builder = PlaylistBuilder(recommender: recommender)
/// let ids = try builder.moodPath(from: .calm, to: .energetic, length: .trackCount(12))
/// ```
public struct PlaylistBuilder: Sendable {
    /// How long a playlist should be.
    public enum Length: Hashable, Sendable {
        /// A number of tracks, 1…``PlaylistBuilder/maximumTrackCount``.
        case trackCount(Int)
        /// A total duration: tracks are added until the total reaches it (tracks of unknown
        /// duration count as 3.5 minutes).
        case duration(milliseconds: Int)
    }

    /// The longest playlist built, in tracks: Spotify's limit for the items of one playlist.
    /// (Spotify takes at most 100 items per request; pushing a playlist sends it in such chunks.)
    public static let maximumTrackCount = 10_000

    /// The recommender whose library and space the playlists come from.
    public let recommender: Recommender

    public init(recommender: Recommender) {
        self.recommender = recommender
    }

    /// The tracks of a recommendation query, best first, cut to `length`.
    ///
    /// - Throws: ``RecommendationError`` for an invalid query.
    public func tracks(for query: RecommendationQuery, length: Length) throws -> [Int64] {
        var query = query
        switch length {
        case .trackCount(let count):
            query.count = Swift.min(Swift.max(1, count), PlaylistBuilder.maximumTrackCount)
        case .duration(let milliseconds):
            // Enough tracks of the median length, and more while the duration is not reached and
            // the library has more to give.
            let estimate = Double(milliseconds) / Double(Swift.max(1, medianDuration())) * 1.5 + 10
            query.count = Int(Swift.min(estimate, Double(PlaylistBuilder.maximumTrackCount)))
        }
        while true {
            let ranked = try recommender.recommend(query).recommendations.map(\.trackID)
            let picked = cut(ranked, to: length)
            let isShort = picked.count == ranked.count && ranked.count == query.count
            guard case .duration = length, isShort, query.count < PlaylistBuilder.maximumTrackCount else {
                return picked
            }
            query.count = Swift.min(query.count * 2, PlaylistBuilder.maximumTrackCount)
        }
    }

    /// The members of a vibe cluster, strongest first: by cosine similarity to the members' centroid.
    ///
    /// - Parameters:
    ///   - members: The cluster's track IDs; tracks without features are skipped.
    ///   - length: The playlist length.
    /// - Throws: ``RecommendationError/emptySeed(label:)`` when no member has features.
    public func vibeTracks(members: [Int64], label: String, length: Length) throws -> [Int64] {
        try vibeSelection(members: members, label: label, length: length).tracks
    }

    /// ``vibeTracks(members:label:length:)`` with what it left out: `otherVersions` counts the
    /// members passed over, up to the last one taken, as another version (the same artists and
    /// title: single, album, compilation) of a song already listed.
    ///
    /// - Parameter keepingVersions: Whether other versions stay in (and none are counted).
    public func vibeSelection(
        members: [Int64],
        label: String,
        length: Length,
        keepingVersions: Bool = false
    ) throws -> (tracks: [Int64], otherVersions: Int) {
        let rows = members.compactMap(recommender.row(of:))
        guard !rows.isEmpty else { throw RecommendationError.emptySeed(label: label) }
        let centre = recommender.centroid(of: rows, label: label).scaled
        let similarities = recommender.index.similarities(to: centre)
        let ranked = rows.sorted {
            (similarities[$0], -recommender.table.trackIDs[$0]) > (similarities[$1], -recommender.table.trackIDs[$1])
        }
        var songs = Set<Int32>()
        let songCodes = recommender.attributes.songCodes
        let distinct =
            keepingVersions
            ? ranked : ranked.filter { row in songCodes[row] < 0 || songs.insert(songCodes[row]).inserted }
        let picked = cut(distinct.map { recommender.table.trackIDs[$0] }, to: length)
        guard picked.count < distinct.count, let last = picked.indices.last else {
            return (picked, ranked.count - distinct.count)
        }
        // Cut short by the length: only the versions ranked before the last track taken were left out.
        let lastPosition = ranked.firstIndex(of: distinct[last]) ?? last
        return (picked, lastPosition + 1 - picked.count)
    }

    /// One end of a path: a mood, or a track of the library.
    public enum PathEnd: Hashable, Sendable {
        /// The mood seed's point: the centroid of the 50 tracks nearest the mood.
        case mood(MoodWord)
        /// The track's own point; the path starts or ends with the track itself.
        case track(Int64)
    }

    /// A path across the valence–energy plane: from one mood to another in even steps, each step
    /// taking the unused track nearest (Euclidean, in the scaled space) to the interpolated point,
    /// never the same main artist twice in a row.
    ///
    /// The end points are the mood seeds' points (the centroid of the 50 tracks nearest each mood).
    /// A duration sets the number of steps from the library's median track length, so the path
    /// always reaches the second mood.
    ///
    /// - Complexity: O(*s* · *n* · *d*) for *s* steps.
    public func moodPath(from start: MoodWord, to end: MoodWord, length: Length) throws -> [Int64] {
        try path(from: .mood(start), to: .mood(end), length: length)
    }

    /// A path from a mood or a track to a mood or a track, as ``moodPath(from:to:length:)`` walks
    /// one between moods; a track end is the path's first or last track.
    ///
    /// - Throws: `RecommendationError.seedWithoutFeatures(trackID:)` for a track end without
    ///   features, `RecommendationError.emptySeed(label:)` for a mood no track is near.
    /// - Complexity: O(*s* · *n* · *d*) for *s* steps.
    public func path(from start: PathEnd, to end: PathEnd, length: Length) throws -> [Int64] {
        let a = try recommender.point(for: start.seed).scaled
        let b = try recommender.point(for: end.seed).scaled
        let steps: Int
        switch length {
        case .trackCount(let count): steps = count
        case .duration(let milliseconds):
            let tracks = (Double(milliseconds) / Double(Swift.max(1, medianDuration()))).rounded()
            steps = Swift.max(1, Int(Swift.min(tracks, Double(PlaylistBuilder.maximumTrackCount))))
        }
        let stepCount = Swift.min(steps, PlaylistBuilder.maximumTrackCount, recommender.trackCount)
        let d = recommender.features.columnCount
        let values = recommender.features.values.elements
        var used = Set<Int>()
        var usedSongs = Set<Int32>()
        var path: [Int] = []
        var previousArtist: Int32 = -1
        let (artistCodes, songCodes) = (recommender.attributes.artistCodes, recommender.attributes.songCodes)
        func take(_ row: Int) {
            used.insert(row)
            usedSongs.insert(songCodes[row])
            previousArtist = artistCodes[row]
            path.append(row)
        }
        // Track ends are placed, not searched for: the walk's rules (no artist twice in a row,
        // no song twice) must not pass over them. The end track and its song are kept out of
        // the steps between, and the step before it avoids its artist.
        let startRow: Int? = if case .track(let id) = start { recommender.row(of: id) } else { nil }
        var endRow: Int? = if case .track(let id) = end { recommender.row(of: id) } else { nil }
        if endRow == startRow { endRow = nil }
        if let endRow {
            used.insert(endRow)
            usedSongs.insert(songCodes[endRow])
        }
        let endArtist = endRow.map { artistCodes[$0] } ?? -1
        for step in 0..<stepCount {
            if step == 0, let startRow {
                take(startRow)
                continue
            }
            if step == stepCount - 1, endRow != nil { break }
            let t = Float(stepCount > 1 ? Double(step) / Double(stepCount - 1) : 0)
            let point = (0..<d).map { a[$0] + (b[$0] - a[$0]) * t }
            let nextArtist = step == stepCount - 2 ? endArtist : -1
            var best = -1
            var bestDistance = Float.infinity
            for row in 0..<recommender.trackCount where !used.contains(row) {
                if previousArtist >= 0 && artistCodes[row] == previousArtist { continue }
                if nextArtist >= 0 && artistCodes[row] == nextArtist { continue }
                if songCodes[row] >= 0 && usedSongs.contains(songCodes[row]) { continue }
                var distance: Float = 0
                for column in 0..<d {
                    let difference = values[row * d + column] - point[column]
                    distance += difference * difference
                }
                if distance < bestDistance { (best, bestDistance) = (row, distance) }
            }
            guard best >= 0 else { break }
            take(best)
        }
        if let endRow, path.count < stepCount { path.append(endRow) }
        // The ramp: the chosen tracks in the order of how far along the way from `start` to `end`
        // they lie on the valence–energy plane, so that a nearest track that overshoots its
        // waypoint does not break the rise. A stable sort keeps ties in waypoint order.
        let (from, to) = (moodPoint(of: start), moodPoint(of: end))
        let table = recommender.table
        let progress = path.map { row -> Double in
            let valence = table.value(row: row, feature: .valence).map(Double.init) ?? from.valence
            let energy = table.value(row: row, feature: .energy).map(Double.init) ?? from.energy
            return (valence - from.valence) * (to.valence - from.valence) + (energy - from.energy)
                * (to.energy - from.energy)
        }
        let order = path.indices.sorted { progress[$0] < progress[$1] || (progress[$0] == progress[$1] && $0 < $1) }
        var ids = order.map { recommender.table.trackIDs[path[$0]] }
        // A track end stays at its end, wherever its valence and energy put it on the ramp.
        if case .track(let id) = start, let index = ids.firstIndex(of: id) {
            ids.insert(ids.remove(at: index), at: 0)
        }
        if case .track(let id) = end, let index = ids.lastIndex(of: id) {
            ids.append(ids.remove(at: index))
        }
        return ids
    }

    /// The valence–energy point of a path's end: the mood's, or the track's own values (the
    /// middle of the plane for a value it lacks).
    private func moodPoint(of end: PathEnd) -> (valence: Double, energy: Double) {
        switch end {
        case .mood(let mood):
            return mood.point
        case .track(let id):
            let row = recommender.row(of: id)
            let value = { (feature: AudioFeature) in
                row.flatMap { recommender.table.value(row: $0, feature: feature) }.map(Double.init) ?? 0.5
            }
            return (value(.valence), value(.energy))
        }
    }

    /// The number of consecutive tracks that make one step of a mood path.
    public static let moodPathStepLength = 3

    /// The steps of a mood path of `trackCount` tracks: consecutive runs of
    /// ``moodPathStepLength`` positions (the last may be shorter).
    ///
    /// The path takes one track per point, in even steps from one mood to the other, so a run of
    /// neighbouring positions holds tracks from one stretch of the path. Ordering for flow within
    /// each step (``PlaylistOrdering/arrange(_:steps:)``) smooths the transitions and keeps the ramp
    /// from one mood to the other: no track moves to another stretch.
    public static func moodPathSteps(trackCount: Int) -> [Range<Int>] {
        stride(from: 0, to: Swift.max(0, trackCount), by: moodPathStepLength).map {
            $0..<Swift.min($0 + moodPathStepLength, trackCount)
        }
    }

    // MARK: - Length

    func duration(of trackID: Int64) -> Int {
        recommender.row(of: trackID).flatMap { recommender.attributes.duration(row: $0) } ?? 210_000
    }

    func medianDuration() -> Int {
        let durations = recommender.attributes.durationMS.filter { $0 >= 0 }.map(Int.init).sorted()
        return durations.isEmpty ? 210_000 : durations[durations.count / 2]
    }

    /// The first tracks of `ranked` that make up `length`.
    func cut(_ ranked: [Int64], to length: Length) -> [Int64] {
        switch length {
        case .trackCount(let count):
            return Array(ranked.prefix(Swift.min(count, PlaylistBuilder.maximumTrackCount)))
        case .duration(let milliseconds):
            var total = 0
            var result: [Int64] = []
            for id in ranked where total < milliseconds && result.count < PlaylistBuilder.maximumTrackCount {
                result.append(id)
                total += duration(of: id)
            }
            return result
        }
    }
}

extension Recommender {
    /// The raw audio features of a track, or empty features when it has none.
    public func audioFeatures(of trackID: Int64) -> AudioFeatures {
        var features = AudioFeatures()
        guard let row = row(of: trackID) else { return features }
        for feature in AudioFeature.allCases {
            features[feature] = table.value(row: row, feature: feature).map(Double.init)
        }
        return features
    }
}

extension PlaylistBuilder.PathEnd {
    /// The recommender's seed at this end.
    var seed: RecommendationSeed {
        switch self {
        case .mood(let mood): .mood(mood)
        case .track(let id): .track(id)
        }
    }
}
