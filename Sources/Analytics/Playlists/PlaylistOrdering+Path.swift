import Features

extension PlaylistOrdering {
    /// The entries as a walk between the moods of the first and the last: both stay where they
    /// are, and the tracks between are sorted by their projection on the straight line from the
    /// first's valence–energy point to the last's (ties by track ID). Tracks without both
    /// features keep their order, after the placed ones.
    ///
    /// - Parameter entries: The playlist in its current order.
    /// - Returns: The entries in path order; unchanged when there are 3 or fewer, or when the
    ///   first or the last lacks valence or energy.
    /// - Complexity: O(*n* log *n*) for *n* entries.
    public static func path(_ entries: [Playlist.Entry]) -> [Playlist.Entry] {
        guard entries.count > 3, let first = entries.first, let last = entries.last,
            let start = moodPoint(of: first), let end = moodPoint(of: last)
        else { return entries }
        let direction = (end.valence - start.valence, end.energy - start.energy)
        let middle = entries.dropFirst().dropLast()
        let placed = middle.compactMap { entry in
            moodPoint(of: entry).map { point in
                (entry, (point.valence - start.valence) * direction.0 + (point.energy - start.energy) * direction.1)
            }
        }
        .sorted { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0.trackID < $1.0.trackID }
        .map(\.0)
        let unplaced = middle.filter { moodPoint(of: $0) == nil }
        return [first] + placed + unplaced + [last]
    }

    /// An entry's valence and energy, when it has both.
    private static func moodPoint(of entry: Playlist.Entry) -> (valence: Double, energy: Double)? {
        guard let valence = entry.features.valence, let energy = entry.features.energy else { return nil }
        return (valence, energy)
    }
}
