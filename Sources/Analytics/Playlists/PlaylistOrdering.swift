import Features

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Puts the tracks of a playlist in an order that flows: harmonic key changes, small tempo steps,
/// an energy curve, and no artist twice in a row; locked tracks keep their positions.
///
/// Ordering is a small travelling-salesman problem. It is solved greedily (each free position takes
/// the free track that joins best to the one before it) and then improved by swapping pairs of free
/// positions while the total cost falls. Both steps break ties by track ID, so the result is
/// deterministic.
public struct PlaylistOrdering: Sendable {
    /// How energy should move through the playlist.
    public enum Arc: String, CaseIterable, Sendable, Codable {
        /// Keep energy level, near the playlist's median.
        case flat
        /// Build from the calmest tracks to the most energetic.
        case rising
        /// Warm up, peak two thirds of the way in, and cool down.
        case peak
    }

    /// The energy curve to follow, or `nil` for none.
    public var arc: Arc?
    /// Whether tracks by the same main artist are kept apart.
    public var separatesArtists: Bool

    public init(arc: Arc? = nil, separatesArtists: Bool = true) {
        self.arc = arc
        self.separatesArtists = separatesArtists
    }

    /// Returns the entries in flowing order; entries with `isLocked` stay at their index.
    ///
    /// - Parameter entries: The tracks, with their features.
    /// - Returns: The same entries, reordered.
    /// - Complexity: O(*n*²) for the greedy pass, O(*n*²) per improvement pass, at most 20 passes.
    public func ordered(_ entries: [Playlist.Entry]) -> [Playlist.Entry] {
        let n = entries.count
        guard n > 2 else { return entries }
        // Costs are computed from valid values only; an infinite tempo or a key of 10⁹ counts as
        // missing, so no cost is NaN and no index leaves its table.
        let original = entries
        let entries = entries.map { entry in
            var entry = entry
            entry.features = entry.features.removingInvalidValues().features
            return entry
        }
        let targets = arcTargets(for: entries)
        var slots = [Int?](repeating: nil, count: n)
        var free: [Int] = []
        for (index, entry) in entries.enumerated() {
            if entry.isLocked { slots[index] = index } else { free.append(index) }
        }
        free.sort { entries[$0].trackID < entries[$1].trackID }

        // Greedy: each open position takes the free track that joins best.
        for position in 0..<n where slots[position] == nil {
            var best = -1
            var bestCost = Double.infinity
            for candidate in free {
                var cost = arcCost(entries[candidate], target: targets?[position])
                if position > 0, let previous = slots[position - 1] {
                    cost += transitionCost(entries[previous], entries[candidate])
                }
                if position + 1 < n, let next = slots[position + 1] {
                    cost += transitionCost(entries[candidate], entries[next])
                }
                if cost < bestCost {
                    bestCost = cost
                    best = candidate
                }
            }
            slots[position] = best
            free.removeAll { $0 == best }
        }
        var order = slots.map { $0! }

        // Improve: swap pairs of unlocked positions while the total cost falls.
        let open = (0..<n).filter { !entries[order[$0]].isLocked }
        func localCost(_ position: Int) -> Double {
            var cost = arcCost(entries[order[position]], target: targets?[position])
            if position > 0 { cost += transitionCost(entries[order[position - 1]], entries[order[position]]) }
            if position + 1 < n { cost += transitionCost(entries[order[position]], entries[order[position + 1]]) }
            return cost
        }
        for _ in 0..<20 {
            var improved = false
            for (a, i) in open.enumerated() {
                for j in open[(a + 1)...] {
                    let affected = Set([i - 1, i, i + 1, j - 1, j, j + 1].filter { $0 >= 0 && $0 < n }).sorted()
                    let before = affected.reduce(0) { $0 + localCost($1) }
                    order.swapAt(i, j)
                    let after = affected.reduce(0) { $0 + localCost($1) }
                    if after < before - 1e-9 { improved = true } else { order.swapAt(i, j) }
                }
            }
            if !improved { break }
        }
        return order.map { original[$0] }
    }

    // MARK: - Costs

    /// The cost of playing `b` right after `a`: 1 − ``transitionSmoothness(from:to:)``, plus 1 for
    /// the same main artist when artists are separated.
    func transitionCost(_ a: Playlist.Entry, _ b: Playlist.Entry) -> Double {
        var cost = 1 - PlaylistOrdering.transitionSmoothness(from: a, to: b)
        if separatesArtists, let artist = a.artists.first, artist == b.artists.first { cost += 1 }
        return cost
    }

    func arcCost(_ entry: Playlist.Entry, target: Double?) -> Double {
        guard let target, let energy = entry.features.energy else { return 0 }
        return 2 * abs(energy - target)
    }

    /// The energy each position should have, spread over the playlist's own energy range.
    func arcTargets(for entries: [Playlist.Entry]) -> [Double]? {
        guard let arc else { return nil }
        let energies = entries.compactMap(\.features.energy).sorted()
        guard let low = energies.first, let high = energies.last else { return nil }
        let median = energies[energies.count / 2]
        let n = entries.count
        return (0..<n).map { position in
            let t = n > 1 ? Double(position) / Double(n - 1) : 0
            switch arc {
            case .flat: return median
            case .rising: return low + (high - low) * t
            case .peak:
                let shape = t <= 2.0 / 3.0 ? t * 1.5 : (1 - t) * 3
                return low + (high - low) * (0.3 + 0.7 * shape)
            }
        }
    }

    /// How smoothly `b` follows `a`, from 0 to 1: 40 % harmonic (Camelot), 40 % tempo, 20 % energy.
    ///
    /// Tempo compares the nearest of the tempo, its half and its double (a 70 BPM track mixes into
    /// a 140 BPM one), and counts a step of 12 % or more as fully rough. Unknown keys or tempos
    /// score 0.5 for their part.
    public static func transitionSmoothness(from a: Playlist.Entry, to b: Playlist.Entry) -> Double {
        let harmonic: Double
        if let keyA = a.features.key, let modeA = a.features.mode, let keyB = b.features.key,
            let modeB = b.features.mode,
            let camelotA = CamelotKey(pitchClass: keyA, mode: modeA),
            let camelotB = CamelotKey(pitchClass: keyB, mode: modeB)
        {
            harmonic = camelotA.smoothness(to: camelotB)
        } else {
            harmonic = 0.5
        }
        let tempo: Double
        if let tempoA = a.features.tempo, let tempoB = b.features.tempo, tempoA >= 1, tempoB >= 1 {
            let step = [1.0, 2.0, 0.5].map { abs(log2(tempoB * $0 / tempoA)) }.min()!
            tempo = Swift.max(0, 1 - step / log2(1.12))
        } else {
            tempo = 0.5
        }
        let energy: Double
        if let energyA = a.features.energy, let energyB = b.features.energy {
            energy = Swift.max(0, 1 - abs(energyA - energyB) / 0.3)
        } else {
            energy = 0.5
        }
        return 0.4 * harmonic + 0.4 * tempo + 0.2 * energy
    }

    /// The mean ``transitionSmoothness(from:to:)`` of consecutive tracks, 0…1; 1 for fewer than two.
    public static func transitionScore(of entries: [Playlist.Entry]) -> Double {
        guard entries.count > 1 else { return 1 }
        let total = zip(entries, entries.dropFirst()).reduce(0) { $0 + transitionSmoothness(from: $1.0, to: $1.1) }
        return total / Double(entries.count - 1)
    }
}
