import Features

extension PlaylistOrdering {
    /// Returns the entries in harmonic order: round the Camelot wheel key by key, each step to a
    /// neighbouring key, with tempo breaking ties; entries with `isLocked` stay at their index.
    ///
    /// The walk visits the 24 keys of the wheel as a snake: at each hour the minor (`A`) and major
    /// (`B`) keys in turn, the letter it ends on opening the next hour, so every step between two
    /// keys the walk visits in a row is a relative major/minor change or one hour round the wheel
    /// (``CamelotKey/smoothness(to:)`` 0.9). Of the 48 walks (clockwise or anticlockwise, from 12
    /// starting hours, either letter first), the one whose steps between the keys the playlist
    /// holds are smoothest wins; on a tie, the first in that order (clockwise, from hour 1, minor
    /// first). Within a key, tracks run by tempo,
    /// slow to fast and fast to slow in turn, so the tracks on either side of a key change are
    /// close in tempo; then by energy and track ID. Tracks without a valid key and mode follow, by
    /// tempo. The same input gives the same order.
    ///
    /// - Parameter entries: The tracks, with their features.
    /// - Returns: The same entries, reordered.
    /// - Complexity: O(*n* log *n*) for *n* entries.
    public static func harmonicOrder(_ entries: [Playlist.Entry]) -> [Playlist.Entry] {
        let free = cleaned(entries).enumerated().filter { !$0.element.isLocked }
        var groups: [CamelotKey: [(index: Int, entry: Playlist.Entry)]] = [:]
        var keyless: [(index: Int, entry: Playlist.Entry)] = []
        for (index, entry) in free {
            if let key = camelotKey(of: entry) {
                groups[key, default: []].append((index, entry))
            } else {
                keyless.append((index, entry))
            }
        }
        let walk = bestWalk(through: Set(groups.keys))
        var placed: [Int] = []
        for (position, key) in walk.enumerated() {
            let ascending = byTempo(groups[key] ?? [])
            placed += position.isMultiple(of: 2) ? ascending : ascending.reversed()
        }
        placed += byTempo(keyless)
        // The free positions, in order, take the free tracks in harmonic order.
        var result = entries
        for (slot, source) in zip(free.map(\.offset), placed) { result[slot] = entries[source] }
        return result
    }

    /// The keys of `keys` in the order of the smoothest snake walk round the wheel.
    static func bestWalk(through keys: Set<CamelotKey>) -> [CamelotKey] {
        guard keys.count > 1 else { return Array(keys) }
        var best: (walk: [CamelotKey], roughness: Double)?
        for step in [1, -1] {
            for start in 1...12 {
                for startsMajor in [false, true] {
                    let walk = snake(from: start, startingMajor: startsMajor, step: step).filter(keys.contains)
                    let roughness = zip(walk, walk.dropFirst()).reduce(0) { $0 + 1 - $1.0.smoothness(to: $1.1) }
                    if best == nil || roughness < best!.roughness - 1e-12 { best = (walk, roughness) }
                }
            }
        }
        return best!.walk
    }

    /// All 24 keys: from hour `start`, one hour at a time in the direction of `step`, both letters
    /// at each hour, the second letter of one hour first at the next.
    static func snake(from start: Int, startingMajor: Bool, step: Int) -> [CamelotKey] {
        (0..<12).flatMap { offset -> [CamelotKey] in
            let hour = ((start - 1 + step * offset) % 12 + 12) % 12 + 1
            let majorFirst = startingMajor == offset.isMultiple(of: 2)
            return [CamelotKey(number: hour, isMajor: majorFirst), CamelotKey(number: hour, isMajor: !majorFirst)]
        }
    }

    static func camelotKey(of entry: Playlist.Entry) -> CamelotKey? {
        guard let key = entry.features.key, let mode = entry.features.mode else { return nil }
        return CamelotKey(pitchClass: key, mode: mode)
    }

    /// The indices of `tracks` by tempo, then energy (unknown values last), then track ID.
    static func byTempo(_ tracks: [(index: Int, entry: Playlist.Entry)]) -> [Int] {
        tracks.sorted { a, b in
            let tempoA = a.entry.features.tempo ?? .infinity
            let tempoB = b.entry.features.tempo ?? .infinity
            if tempoA != tempoB { return tempoA < tempoB }
            let energyA = a.entry.features.energy ?? .infinity
            let energyB = b.entry.features.energy ?? .infinity
            if energyA != energyB { return energyA < energyB }
            return (a.entry.trackID, a.index) < (b.entry.trackID, b.index)
        }
        .map(\.index)
    }
}
