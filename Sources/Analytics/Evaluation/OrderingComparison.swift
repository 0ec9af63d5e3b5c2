import Features

/// How much smoother `flow` orders real playlists than the naive baselines, on the same playlists.
///
/// Every playlist is ordered three ways and judged by one cost,
/// ``PlaylistOrdering/totalCost(of:)`` divided by its number of transitions, so long and short
/// playlists weigh the same:
/// - **flow**, ``PlaylistOrdering/arrange(_:steps:)`` without an arc;
/// - **greedy**, best-start greedy nearest neighbour (``PlaylistOrdering/greedyOrder(_:steps:)``),
///   the naive baseline;
/// - **random**, the exact expected cost of a uniformly shuffled order: the mean cost over every
///   ordered pair of distinct tracks, so no seed is involved.
///
/// Each difference "flow − baseline" comes with a paired bootstrap confidence interval over the
/// playlists (``PairedBootstrap``). Lower costs are smoother, so a difference whose whole interval
/// lies below zero means flow is smoother than that baseline on playlists like these.
public struct OrderingComparison: Hashable, Sendable, Codable {
    /// One playlist's figures.
    public struct PlaylistResult: Hashable, Sendable, Codable {
        /// The playlist's name.
        public var name: String
        /// Its tracks with features.
        public var trackCount: Int
        /// The cost per transition of the flow order, of best-start greedy, and of a random order
        /// (expected).
        public var flow: Double
        public var greedy: Double
        public var random: Double

        enum CodingKeys: String, CodingKey {
            case name
            case trackCount = "track_count"
            case flow, greedy, random
        }
    }

    /// The playlists compared, in the order given.
    public var playlists: [PlaylistResult]
    /// The mean cost per transition over the playlists: flow, greedy and random.
    public var flow: Double
    public var greedy: Double
    public var random: Double
    /// Flow − greedy and flow − random, per transition, with their paired bootstrap intervals.
    public var greedyDifference: PairedBootstrap
    public var randomDifference: PairedBootstrap
    /// The playlists on which flow costs less than greedy, the same (within 10⁻⁹), and more.
    public var lower: Int
    public var equal: Int
    public var higher: Int
    /// The seed of the bootstrap.
    public var bootstrapSeed: UInt64

    enum CodingKeys: String, CodingKey {
        case playlists, flow, greedy, random
        case greedyDifference = "flow_minus_greedy"
        case randomDifference = "flow_minus_random"
        case lower, equal, higher
        case bootstrapSeed = "bootstrap_seed"
    }

    /// Orders every playlist by flow and by best-start greedy, and compares them with each other
    /// and with the expected cost of a random order.
    ///
    /// - Parameters:
    ///   - playlists: The playlists, each a name and its tracks with their features; those with
    ///     fewer than three tracks are skipped, as they have at most one order that matters.
    ///   - ordering: The ordering whose flow is judged; its ``PlaylistOrdering/arc`` is ignored.
    ///   - resampleCount: The bootstrap resamples of each interval.
    ///   - seed: The seed of the bootstrap.
    ///   - progress: Called after each playlist with the tracks ordered so far and in all.
    /// - Returns: The comparison; every mean and interval is 0 without playlists.
    public static func measure(
        playlists: [(name: String, entries: [Playlist.Entry])],
        ordering: PlaylistOrdering = PlaylistOrdering(),
        resampleCount: Int = 1_000,
        seed: UInt64,
        progress: ((_ done: Int, _ total: Int) -> Void)? = nil
    ) -> OrderingComparison {
        var flowOrdering = ordering
        flowOrdering.arc = nil
        var results: [PlaylistResult] = []
        let work = playlists.reduce(0) { $0 + $1.entries.count }
        var done = 0
        for playlist in playlists {
            done += playlist.entries.count
            defer { progress?(done, work) }
            guard playlist.entries.count >= 3 else { continue }
            let steps = Double(playlist.entries.count - 1)
            let arrangement = flowOrdering.arrange(playlist.entries)
            results.append(
                PlaylistResult(
                    name: playlist.name,
                    trackCount: playlist.entries.count,
                    flow: arrangement.cost / steps,
                    greedy: arrangement.greedyCost / steps,
                    random: expectedRandomCost(of: playlist.entries, ordering: flowOrdering)
                )
            )
        }
        let flows = results.map(\.flow)
        let greedies = results.map(\.greedy)
        let randoms = results.map(\.random)
        func mean(_ values: [Double]) -> Double { values.isEmpty ? 0 : values.reduce(0, +) / Double(values.count) }
        var (lower, equal, higher) = (0, 0, 0)
        for result in results {
            if result.flow < result.greedy - 1e-9 {
                lower += 1
            } else if result.flow <= result.greedy + 1e-9 {
                equal += 1
            } else {
                higher += 1
            }
        }
        return OrderingComparison(
            playlists: results,
            flow: mean(flows),
            greedy: mean(greedies),
            random: mean(randoms),
            greedyDifference: PairedBootstrap.meanDifference(flows, greedies, resampleCount: resampleCount, seed: seed),
            randomDifference: PairedBootstrap.meanDifference(
                flows,
                randoms,
                resampleCount: resampleCount,
                seed: seed &+ 1
            ),
            lower: lower,
            equal: equal,
            higher: higher,
            bootstrapSeed: seed
        )
    }

    /// The expected cost per transition of a uniformly random order: every transition of a
    /// random permutation is a uniformly drawn ordered pair of distinct tracks.
    static func expectedRandomCost(of entries: [Playlist.Entry], ordering: PlaylistOrdering) -> Double {
        let cleaned = entries.map { entry in
            var entry = entry
            entry.features = entry.features.removingInvalidValues().features
            return entry
        }
        var sum = 0.0
        for i in cleaned.indices {
            for j in cleaned.indices where j != i { sum += ordering.transitionCost(from: cleaned[i], to: cleaned[j]) }
        }
        let pairs = Double(cleaned.count * (cleaned.count - 1))
        return pairs > 0 ? sum / pairs : 0
    }
}

extension OrderingComparison {
    /// The playlists an ordering evaluation takes, from playlist labels: each playlist's tracks,
    /// by playlist name, keeping those of a length in `lengths`.
    ///
    /// - Returns: The kept playlists sorted by name, each with its track IDs in increasing order,
    ///   and how many playlists were left out for their length.
    public static func playlists(
        from labels: [Int64: Set<String>],
        lengths: ClosedRange<Int>
    ) -> (kept: [(name: String, trackIDs: [Int64])], skippedCount: Int) {
        var members: [String: [Int64]] = [:]
        for (trackID, names) in labels {
            for name in names { members[name, default: []].append(trackID) }
        }
        let kept = members.filter { lengths.contains($0.value.count) }.sorted { $0.key < $1.key }
            .map { (name: $0.key, trackIDs: $0.value.sorted()) }
        return (kept, members.count - kept.count)
    }
}
