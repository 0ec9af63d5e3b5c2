import Features

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Puts the tracks of a playlist in an order that flows, or that follows an energy curve; locked
/// tracks keep their positions.
///
/// Both orders are judged by one transition cost, ``transitionCost(from:to:)``, summed over
/// consecutive tracks (``totalCost(of:)``):
///
///     cost(a, b) = 0.4 · (1 − camelot(a, b)) + 0.4 · (1 − tempo(a, b)) + 0.2 · (1 − energy(a, b))
///                  + 1 when a and b share their main artist (with `separatesArtists`)
///
/// - `camelot` is ``CamelotKey/smoothness(to:)``: 1 for the same key, 0.9 one hour round the wheel
///   or to the relative major/minor, falling to 0 across the wheel.
/// - `tempo` is 1 − *s* / log₂ 1.12, at least 0, where *s* is the octave-folded BPM step
///   min(*d*, |*d* − 1|) for *d* = |log₂ BPMᵦ − log₂ BPMₐ|: equal tempos and a 2 : 1 or 1 : 2 ratio
///   (70 into 140 BPM) score 1, a step of 12 % or more scores 0.
/// - `energy` is 1 − |Δ energy| / 0.3, at least 0: an energy step of 0.3 or more scores 0.
///
/// A missing key, tempo or energy scores 0.5 for its part. The cost is symmetric and lies in
/// 0…2.
///
/// `flow` (no ``arc``) minimises the total cost: the best of several greedy nearest-neighbour
/// tours, improved by 2-opt, Or-opt and swap moves until no move lowers the cost. It starts from
/// the best greedy tour and accepts only moves that lower the cost, so its total is never above
/// that tour's (``Arrangement/greedyCost``). An ``arc`` first assigns tracks to positions by rank
/// (the calmest track to the lowest point of the curve), which maximises the shape correlation,
/// and then swaps tracks of neighbouring energy rank where that lowers the cost and keeps the
/// correlation at or above ``minimumArcCorrelation``. Every step breaks ties by position and
/// track ID, so the same input gives the same order, bit for bit.
public struct PlaylistOrdering: Sendable {
    /// The result of ordering a playlist, with the figures that judge it.
    public struct Arrangement: Hashable, Sendable {
        /// The entries in their new order.
        public var entries: [Playlist.Entry]
        /// The total transition cost of ``entries``, ``PlaylistOrdering/totalCost(of:)``.
        public var cost: Double
        /// The total cost of the best-start greedy nearest-neighbour order of the same entries,
        /// under the same locks and steps: the baseline flow never exceeds.
        public var greedyCost: Double
        /// For an arc, the Pearson correlation between the curve sampled at each position and the
        /// energies placed there, −1…1; `nil` without an arc, for the flat arc, or when fewer
        /// than three tracks have an energy or the energies do not vary.
        public var arcCorrelation: Double?

        public init(entries: [Playlist.Entry], cost: Double, greedyCost: Double, arcCorrelation: Double? = nil) {
            self.entries = entries
            self.cost = cost
            self.greedyCost = greedyCost
            self.arcCorrelation = arcCorrelation
        }
    }

    /// How energy should move through the playlist.
    public enum Arc: Hashable, Sendable, Codable, CaseIterable, CustomStringConvertible {
        /// Keep energy level: ordered as flow, whose cost already penalises energy steps.
        case flat
        /// Build from the calmest tracks to the most energetic.
        case rising
        /// Warm up, peak two thirds of the way in, and cool down.
        case peak
        /// Start with the most energetic tracks and wind down.
        case falling
        /// A curve through these energies, evenly spaced from the first track to the last and
        /// joined by straight lines; at least two values, each 0…1.
        case custom([Double])

        /// The named curves.
        public static let allCases: [Arc] = [.flat, .rising, .peak, .falling]

        /// Parses a name (`rising`) or a comma-separated custom curve (`0.2,0.8,0.4`).
        public init?(parsing text: String) {
            if let named = Arc.allCases.first(where: { $0.description == text }) {
                self = named
                return
            }
            let values = text.split(separator: ",", omittingEmptySubsequences: false).map {
                Double($0.filter { $0 != " " })
            }
            guard values.count >= 2, values.allSatisfy({ $0.map { (0...1).contains($0) } ?? false }) else {
                return nil
            }
            self = .custom(values.map { $0! })
        }

        /// The name, or the custom values joined by commas.
        public var description: String {
            switch self {
            case .flat: "flat"
            case .rising: "rising"
            case .peak: "peak"
            case .falling: "falling"
            case .custom(let values): values.map { "\($0)" }.joined(separator: ",")
            }
        }

        /// The curve's height at `t`, 0 (first track) … 1 (last track); `nil` for ``flat``.
        public func value(at t: Double) -> Double? {
            switch self {
            case .flat: return nil
            case .rising: return t
            case .falling: return 1 - t
            case .peak: return 0.3 + 0.7 * (t <= 2.0 / 3.0 ? t * 1.5 : (1 - t) * 3)
            case .custom(let values):
                guard values.count > 1 else { return values.first }
                let x = Swift.min(Swift.max(t, 0), 1) * Double(values.count - 1)
                let index = Swift.min(Int(x), values.count - 2)
                let fraction = x - Double(index)
                return values[index] + (values[index + 1] - values[index]) * fraction
            }
        }
    }

    /// The shape correlation an arc keeps while its transitions are improved, when the
    /// playlist's energies allow it (otherwise the best correlation they allow).
    public static let minimumArcCorrelation = 0.8

    /// The energy curve to follow, or `nil` for flow.
    public var arc: Arc?
    /// Whether tracks by the same main artist are kept apart (a cost of 1 per adjacent pair).
    public var separatesArtists: Bool

    public init(arc: Arc? = nil, separatesArtists: Bool = true) {
        self.arc = arc
        self.separatesArtists = separatesArtists
    }

    /// Returns the entries in order; entries with `isLocked` stay at their index.
    ///
    /// - Parameter entries: The tracks, with their features.
    /// - Returns: The same entries, reordered.
    public func ordered(_ entries: [Playlist.Entry]) -> [Playlist.Entry] {
        arrange(entries).entries
    }

    /// Orders the entries and reports the order's cost beside the best-start greedy cost.
    ///
    /// - Parameters:
    ///   - entries: The tracks, with their features. Entries with `isLocked` stay at their index.
    ///   - steps: Consecutive ranges of positions that tracks must stay within, such as the steps
    ///     of a mood path (``PlaylistBuilder/moodPathSteps(trackCount:)``); empty for none. Used by
    ///     flow; an arc other than ``Arc/flat`` needs it empty.
    /// - Returns: The entries in order, with their cost, the greedy cost and the arc correlation.
    /// - Complexity: O(*n*³) for the greedy starts (at most 32 starts above 128 free tracks, then
    ///   O(32 · *n*²)), and O(*n*²) per improvement pass, with the passes capped for long playlists.
    public func arrange(_ entries: [Playlist.Entry], steps: [Range<Int>] = []) -> Arrangement {
        if entries.count > PlaylistOrdering.windowLength {
            return arrangeInWindows(entries, steps: steps)
        }
        // Costs are computed from valid values only; an infinite tempo or a key of 10⁹ counts as
        // missing, so no cost is NaN and no index leaves its table.
        let cleaned = entries.map { entry in
            var entry = entry
            entry.features = entry.features.removingInvalidValues().features
            return entry
        }
        let problem = OrderingProblem(entries: cleaned, steps: steps, cost: transitionCost(from:to:))
        let greedy = problem.bestGreedyOrder()
        let greedyCost = problem.cost(of: greedy)
        var order: [Int]
        var correlation: Double? = nil
        if let arc, arc != .flat {
            precondition(steps.isEmpty, "An energy arc orders the whole playlist; steps apply to flow only.")
            let targets = PlaylistOrdering.targets(of: arc, count: entries.count)
            (order, correlation) = problem.arcOrder(targets: targets)
        } else {
            order = greedy
            problem.improve(&order)
        }
        return Arrangement(
            entries: order.map { entries[$0] },
            cost: problem.cost(of: order),
            greedyCost: greedyCost,
            arcCorrelation: correlation
        )
    }

    // MARK: - Long playlists

    /// The most tracks ordered as one problem. The cost matrix takes 8 *n*² bytes, so a longer
    /// playlist is ordered in consecutive windows of this many positions (a multiple of the mood
    /// path's step length, so no step is split).
    public static let windowLength = 999

    /// Orders a playlist longer than ``windowLength`` window by window.
    ///
    /// Flow orders each window of consecutive entries as a playlist of its own and joins them; its
    /// greedy cost is that of best-start greedy within the same windows, joined the same way. An
    /// arc first deals the free tracks to positions by energy rank over the whole playlist (the
    /// calmest to the lowest point of the curve), then orders each window's tracks along its
    /// stretch of the curve. Locked entries keep their positions.
    func arrangeInWindows(_ entries: [Playlist.Entry], steps: [Range<Int>]) -> Arrangement {
        let count = entries.count
        let windows = PlaylistOrdering.windows(count: count, steps: steps)
        var ordered: [Playlist.Entry] = []
        var greedy: [Playlist.Entry] = []
        ordered.reserveCapacity(count)
        if let arc, arc != .flat {
            precondition(steps.isEmpty, "An energy arc orders the whole playlist; steps apply to flow only.")
            let targets = PlaylistOrdering.targets(of: arc, count: count)
            // Global rank matching decides which window each free track plays in.
            let cleanedEnergies = entries.map { $0.features.removingInvalidValues().features.energy }
            let known = cleanedEnergies.compactMap { $0 }.sorted()
            let median = known.isEmpty ? 0.5 : known[known.count / 2]
            let free = (0..<count).filter { !entries[$0].isLocked }
            let tracks = free.sorted {
                (cleanedEnergies[$0] ?? median, entries[$0].trackID, $0)
                    < (cleanedEnergies[$1] ?? median, entries[$1].trackID, $1)
            }
            let positions = free.sorted { (targets[$0], $0) < (targets[$1], $1) }
            var dealt = entries
            for (track, position) in zip(tracks, positions) { dealt[position] = entries[track] }
            for (window, _) in windows {
                let part = Array(dealt[window])
                let cleaned = part.map { entry in
                    var entry = entry
                    entry.features = entry.features.removingInvalidValues().features
                    return entry
                }
                let problem = OrderingProblem(entries: cleaned, steps: [], cost: transitionCost(from:to:))
                let order = problem.arcOrder(targets: Array(targets[window])).order
                ordered += order.map { part[$0] }
                greedy += problem.bestGreedyOrder().map { part[$0] }
            }
            return Arrangement(
                entries: ordered,
                cost: totalCost(of: PlaylistOrdering.cleaned(ordered)),
                greedyCost: totalCost(of: PlaylistOrdering.cleaned(greedy)),
                arcCorrelation: PlaylistOrdering.arcCorrelation(of: ordered, following: arc)
            )
        }
        for (window, partSteps) in windows {
            let part = Array(entries[window])
            ordered += arrange(part, steps: partSteps).entries
            greedy += greedyOrder(part, steps: partSteps)
        }
        return Arrangement(
            entries: ordered,
            cost: totalCost(of: PlaylistOrdering.cleaned(ordered)),
            greedyCost: totalCost(of: PlaylistOrdering.cleaned(greedy))
        )
    }

    /// The windows of ``windowLength`` positions that cover `count`, each with the steps within
    /// it, counted from the window's start.
    static func windows(count: Int, steps: [Range<Int>]) -> [(window: Range<Int>, steps: [Range<Int>])] {
        stride(from: 0, to: count, by: windowLength).map { start in
            let window = start..<Swift.min(start + windowLength, count)
            let inside = steps.compactMap { step -> Range<Int>? in
                let clipped = step.clamped(to: window)
                return clipped.isEmpty ? nil : (clipped.lowerBound - start)..<(clipped.upperBound - start)
            }
            return (window, inside)
        }
    }

    /// The entries with invalid feature values (an infinite tempo, a key of 10⁹) removed.
    static func cleaned(_ entries: [Playlist.Entry]) -> [Playlist.Entry] {
        entries.map { entry in
            var entry = entry
            entry.features = entry.features.removingInvalidValues().features
            return entry
        }
    }

    // MARK: - Costs

    /// The cost of playing `b` right after `a`, 0…2: the weighted roughness of the key change,
    /// the tempo step and the energy step, plus 1 for the same main artist when artists are
    /// separated. The type's overview gives the formula; the cost is symmetric.
    public func transitionCost(from a: Playlist.Entry, to b: Playlist.Entry) -> Double {
        var cost = 1 - PlaylistOrdering.transitionSmoothness(from: a, to: b)
        if separatesArtists, let artist = a.artists.first, artist == b.artists.first { cost += 1 }
        return cost
    }

    /// The sum of ``transitionCost(from:to:)`` over consecutive entries; 0 for fewer than two.
    public func totalCost(of entries: [Playlist.Entry]) -> Double {
        zip(entries, entries.dropFirst()).reduce(0) { $0 + transitionCost(from: $1.0, to: $1.1) }
    }

    /// The order of best-start greedy nearest neighbour, the baseline flow improves on.
    ///
    /// From each start (every free track that may open the playlist, or 32 of them drawn with a
    /// fixed seed when more than 128 tracks are free), each open position takes the free track with
    /// the lowest cost from the track before it (plus the cost into a locked track after it); the
    /// tour with the lowest total wins, the first start on a tie.
    public func greedyOrder(_ entries: [Playlist.Entry], steps: [Range<Int>] = []) -> [Playlist.Entry] {
        if entries.count > PlaylistOrdering.windowLength {
            return PlaylistOrdering.windows(count: entries.count, steps: steps).flatMap { window, partSteps in
                greedyOrder(Array(entries[window]), steps: partSteps)
            }
        }
        let cleaned = entries.map { entry in
            var entry = entry
            entry.features = entry.features.removingInvalidValues().features
            return entry
        }
        let problem = OrderingProblem(entries: cleaned, steps: steps, cost: transitionCost(from:to:))
        return problem.bestGreedyOrder().map { entries[$0] }
    }

    /// The Pearson correlation between `arc` sampled at each position and the energies of
    /// `entries`, over the entries that have an energy; `nil` for the flat arc, fewer than three
    /// energies, or no variation.
    public static func arcCorrelation(of entries: [Playlist.Entry], following arc: Arc) -> Double? {
        let targets = PlaylistOrdering.targets(of: arc, count: entries.count)
        guard targets.count == entries.count else { return nil }
        let pairs = zip(targets, entries).compactMap { target, entry in
            entry.features.energy.flatMap { $0.isFinite ? (target, $0) : nil }
        }
        return pearson(pairs)
    }

    /// The curve's height at each of `count` positions; empty for the flat arc.
    static func targets(of arc: Arc, count: Int) -> [Double] {
        (0..<count).compactMap { position in
            arc.value(at: count > 1 ? Double(position) / Double(count - 1) : 0)
        }
    }

    static func pearson(_ pairs: [(Double, Double)]) -> Double? {
        guard pairs.count >= 3 else { return nil }
        let n = Double(pairs.count)
        let meanX = pairs.reduce(0) { $0 + $1.0 } / n
        let meanY = pairs.reduce(0) { $0 + $1.1 } / n
        var sxy = 0.0
        var sxx = 0.0
        var syy = 0.0
        for (x, y) in pairs {
            sxy += (x - meanX) * (y - meanY)
            sxx += (x - meanX) * (x - meanX)
            syy += (y - meanY) * (y - meanY)
        }
        guard sxx > 1e-12, syy > 1e-12 else { return nil }
        return sxy / (sxx * syy).squareRoot()
    }

    /// How smoothly `b` follows `a`, from 0 to 1: 40 % harmonic (Camelot), 40 % tempo, 20 % energy.
    ///
    /// Tempo folds the step between the two tempos by octaves (a 70 BPM track mixes into a 140 BPM
    /// one), and counts a step of 12 % or more as fully rough; energy counts a step of 0.3 or more
    /// as fully rough. Unknown keys, tempos or energies score 0.5 for their part. Symmetric:
    /// swapping `a` and `b` gives the same value, bit for bit.
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
            // |x − y| is exactly |y − x| in floating point, so the step is symmetric bit for bit.
            let octaves = abs(log2(tempoB) - log2(tempoA))
            let step = Swift.min(octaves, abs(octaves - 1))
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
