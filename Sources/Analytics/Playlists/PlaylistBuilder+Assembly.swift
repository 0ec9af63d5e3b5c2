import Features

extension PlaylistBuilder {
    /// How a built playlist is ordered.
    public enum Order: Hashable, Sendable {
        /// The lowest transition cost (``PlaylistOrdering/arrange(_:steps:)`` without an arc);
        /// a mood path flows within each of its steps, so its ramp survives.
        case flow
        /// Along an energy curve.
        case arc(PlaylistOrdering.Arc)
        /// Round the Camelot wheel, tempo breaking ties (``PlaylistOrdering/harmonicOrder(_:)``).
        case key
        /// As chosen: best first, or a mood path's own order.
        case asChosen
    }

    /// A track pinned to a position of the playlist.
    public struct Lock: Hashable, Sendable {
        /// The position, 1 for the first track; past the end means last.
        public var position: Int
        /// The track.
        public var entry: Playlist.Entry

        public init(position: Int, entry: Playlist.Entry) {
            self.position = position
            self.entry = entry
        }
    }

    /// The chosen tracks with seed tracks first, in seed order, cut to `length` when it is a count.
    ///
    /// A playlist built from seed tracks starts with them.
    public static func startingWithSeeds(_ chosen: [Int64], seeds: [Int64], length: Length) -> [Int64] {
        var ids = seeds + chosen.filter { !seeds.contains($0) }
        if case .trackCount(let count) = length { ids = Array(ids.prefix(count)) }
        return ids
    }

    /// Places the locked tracks, then orders the playlist: `build`'s last step.
    ///
    /// Each lock removes its track from where it was and puts it at its position; with a length
    /// in tracks, the last unlocked track makes room. Locked tracks keep their positions
    /// whatever the order.
    ///
    /// - Parameters:
    ///   - chosen: The tracks chosen, best first (or a mood path in its order).
    ///   - locks: The pinned tracks, applied in turn.
    ///   - length: The playlist's length.
    ///   - order: How to order it.
    ///   - isMoodPath: Whether `chosen` is a mood path, whose steps flow keeps.
    /// - Returns: The ordered entries with their cost and the greedy baseline's.
    public static func assemble(
        _ chosen: [Playlist.Entry],
        locks: [Lock],
        length: Length,
        order: Order,
        isMoodPath: Bool
    ) -> PlaylistOrdering.Arrangement {
        var entries = chosen
        for lock in locks {
            var entry = lock.entry
            entry.isLocked = true
            entries.removeAll { $0.trackID == entry.trackID }
            entries.insert(entry, at: Swift.max(0, Swift.min(lock.position - 1, entries.count)))
            if case .trackCount(let count) = length, entries.count > count,
                let last = entries.lastIndex(where: { !$0.isLocked })
            {
                entries.remove(at: last)
            }
        }
        let steps = isMoodPath ? moodPathSteps(trackCount: entries.count) : []
        switch order {
        case .flow:
            return PlaylistOrdering(arc: nil).arrange(entries, steps: steps)
        case .arc(let arc):
            return PlaylistOrdering(arc: arc).arrange(entries)
        case .asChosen, .key:
            let ordering = PlaylistOrdering()
            if order == .key { entries = PlaylistOrdering.harmonicOrder(entries) }
            return PlaylistOrdering.Arrangement(
                entries: entries,
                cost: ordering.totalCost(of: entries),
                greedyCost: ordering.totalCost(of: ordering.greedyOrder(entries, steps: steps)),
                arcCorrelation: nil
            )
        }
    }
}
