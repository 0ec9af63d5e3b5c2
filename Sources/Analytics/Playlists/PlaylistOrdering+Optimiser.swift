import Features

extension PlaylistOrdering {
    /// The ordering of one playlist as a path problem over entry indices: a symmetric cost matrix,
    /// the locked positions (a locked entry's index is its position) and the step of each position.
    ///
    /// An order is an array of entry indices, one per position. A move may change only unlocked
    /// positions and keeps every entry within its step.
    struct OrderingProblem {
        /// The number of entries.
        let count: Int
        /// The transition costs, row-major: `costs[a * count + b]` is the cost of `b` after `a`.
        let costs: [Double]
        let isLocked: [Bool]
        /// The step of each position and of the entry that starts there: 0 outside every step.
        let stepOf: [Int]
        let trackIDs: [Int64]
        let energies: [Double?]

        /// The free tracks above which greedy starts are sampled rather than all tried.
        static let allStartsLimit = 128
        /// The number of sampled greedy starts.
        static let sampledStartCount = 32
        /// The smallest cost decrease that counts as an improvement; far above rounding error.
        static let improvementTolerance = 1e-9

        init(entries: [Playlist.Entry], steps: [Range<Int>], cost: (Playlist.Entry, Playlist.Entry) -> Double) {
            count = entries.count
            var costs = [Double](repeating: 0, count: count * count)
            for a in 0..<count {
                for b in (a + 1)..<Swift.max(a + 1, count) {
                    let value = cost(entries[a], entries[b])
                    costs[a * count + b] = value
                    costs[b * count + a] = value
                }
            }
            self.costs = costs
            isLocked = entries.map(\.isLocked)
            var stepOf = [Int](repeating: 0, count: count)
            for (index, range) in steps.enumerated() {
                for position in range where (0..<count).contains(position) { stepOf[position] = index + 1 }
            }
            self.stepOf = stepOf
            trackIDs = entries.map(\.trackID)
            energies = entries.map { $0.features.energy }
        }

        @inline(__always) func cost(_ a: Int, _ b: Int) -> Double { costs[a * count + b] }

        /// The total cost of an order, summed from the first transition to the last.
        func cost(of order: [Int]) -> Double {
            guard order.count > 1 else { return 0 }
            var total = 0.0
            for position in 1..<order.count { total += cost(order[position - 1], order[position]) }
            return total
        }

        // MARK: - Greedy nearest neighbour

        /// The free entries of each step, by track ID (then index).
        func freeEntriesByStep() -> [[Int]] {
            var free = [[Int]](repeating: [], count: (stepOf.max() ?? 0) + 1)
            for index in 0..<count where !isLocked[index] { free[stepOf[index]].append(index) }
            for step in free.indices { free[step].sort { (trackIDs[$0], $0) < (trackIDs[$1], $1) } }
            return free
        }

        /// The greedy nearest-neighbour order that opens the first free position with `start`.
        func greedyOrder(start: Int?) -> [Int] {
            var free = freeEntriesByStep()
            var order = [Int](repeating: -1, count: count)
            for position in 0..<count where isLocked[position] { order[position] = position }
            var isFirst = true
            for position in 0..<count where order[position] < 0 {
                let step = stepOf[position]
                var pick = 0
                if isFirst, let start, let index = free[step].firstIndex(of: start) {
                    pick = index
                } else {
                    var best = Double.infinity
                    for (index, candidate) in free[step].enumerated() {
                        var total = position > 0 ? cost(order[position - 1], candidate) : 0
                        if position + 1 < count, isLocked[position + 1] { total += cost(candidate, position + 1) }
                        if total < best {
                            best = total
                            pick = index
                        }
                    }
                }
                isFirst = false
                order[position] = free[step].remove(at: pick)
            }
            return order
        }

        /// The best of the greedy orders from every start (or from a fixed-seed sample of starts
        /// above ``allStartsLimit`` free tracks); the first start wins a tie.
        func bestGreedyOrder() -> [Int] {
            guard let opening = (0..<count).first(where: { !isLocked[$0] }) else { return Array(0..<count) }
            var starts = freeEntriesByStep()[stepOf[opening]]
            if starts.count > OrderingProblem.allStartsLimit {
                // A partial Fisher–Yates shuffle written out, so the sample does not depend on the
                // standard library's shuffle.
                var generator = SplitMix64(seed: 0x5EED_F10C)
                for index in 0..<OrderingProblem.sampledStartCount {
                    starts.swapAt(index, index + generator.next(below: starts.count - index))
                }
                starts = Array(starts.prefix(OrderingProblem.sampledStartCount))
            }
            var best: [Int] = []
            var bestCost = Double.infinity
            for start in starts {
                let order = greedyOrder(start: start)
                let total = cost(of: order)
                if total < bestCost {
                    best = order
                    bestCost = total
                }
            }
            return best
        }

        // MARK: - Local search

        /// The maximal runs of consecutive unlocked positions in one step: the ranges 2-opt and
        /// Or-opt moves stay within.
        func movableRuns() -> [ClosedRange<Int>] {
            var runs: [ClosedRange<Int>] = []
            var position = 0
            while position < count {
                guard !isLocked[position] else {
                    position += 1
                    continue
                }
                var end = position
                while end + 1 < count, !isLocked[end + 1], stepOf[end + 1] == stepOf[position] { end += 1 }
                if end > position { runs.append(position...end) }
                position = end + 1
            }
            return runs
        }

        /// The cost of the edge between positions `a` and `b` of `order`, 0 when either is outside.
        @inline(__always) func edge(_ order: [Int], _ a: Int, _ b: Int) -> Double {
            a >= 0 && b < count ? cost(order[a], order[b]) : 0
        }

        /// The cost of the edges that touch positions `i` and `j` (`i` < `j`), each counted once.
        @inline(__always) func edgesTouching(_ order: [Int], _ i: Int, _ j: Int) -> Double {
            j == i + 1
                ? edge(order, i - 1, i) + edge(order, i, j) + edge(order, j, j + 1)
                : edge(order, i - 1, i) + edge(order, i, i + 1) + edge(order, j - 1, j) + edge(order, j, j + 1)
        }

        /// Improves `order` by 2-opt, Or-opt and swap moves until no move lowers the cost by more
        /// than ``improvementTolerance``, or the pass budget runs out.
        ///
        /// Every accepted move lowers the total, so the result never costs more than the input.
        func improve(_ order: inout [Int]) {
            guard count > 2 else { return }
            let runs = movableRuns()
            var positionsByStep = [[Int]](repeating: [], count: (stepOf.max() ?? 0) + 1)
            for position in 0..<count where !isLocked[position] { positionsByStep[stepOf[position]].append(position) }
            let passLimit = count <= 200 ? 1000 : Swift.max(2, 40_000_000 / (count * count))
            let tolerance = -OrderingProblem.improvementTolerance
            for _ in 0..<passLimit {
                var improved = false
                // 2-opt: reverse positions i…j; with a symmetric cost only the two end edges change.
                for run in runs {
                    for i in run.lowerBound..<run.upperBound {
                        for j in (i + 1)...run.upperBound {
                            let delta =
                                edge(order, i - 1, j) + edge(order, i, j + 1) - edge(order, i - 1, i)
                                - edge(order, j, j + 1)
                            if delta < tolerance {
                                order[i...j].reverse()
                                improved = true
                            }
                        }
                    }
                }
                // Or-opt: move a block of 1–3 tracks, forwards or reversed, elsewhere in its run.
                for run in runs {
                    for length in 1...3 where length < run.count {
                        for i in run.lowerBound...(run.upperBound - length + 1) {
                            for gap in run.lowerBound...(run.upperBound + 1) where gap < i || gap > i + length {
                                for reversed in [false, true] where !(reversed && length == 1) {
                                    if orOptDelta(order, block: i, length: length, gap: gap, reversed: reversed)
                                        < tolerance
                                    {
                                        var block = Array(order[i..<(i + length)])
                                        if reversed { block.reverse() }
                                        order.removeSubrange(i..<(i + length))
                                        order.insert(contentsOf: block, at: gap < i ? gap : gap - length)
                                        improved = true
                                    }
                                }
                            }
                        }
                    }
                }
                // Swap: exchange two tracks of one step, also across locked positions.
                for positions in positionsByStep {
                    for (offset, i) in positions.enumerated() {
                        for j in positions[(offset + 1)...] {
                            let before = edgesTouching(order, i, j)
                            order.swapAt(i, j)
                            if edgesTouching(order, i, j) - before < tolerance {
                                improved = true
                            } else {
                                order.swapAt(i, j)
                            }
                        }
                    }
                }
                if !improved { break }
            }
        }

        /// The change in cost from moving the block at `block..<block + length` into the gap before
        /// position `gap` (outside the block), reversed or not.
        func orOptDelta(_ order: [Int], block: Int, length: Int, gap: Int, reversed: Bool) -> Double {
            // Positions outside the playlist have no edge; -1 stands for them.
            let last = block + length - 1
            let first = reversed ? order[last] : order[block]
            let final = reversed ? order[block] : order[last]
            let before = block > 0 ? order[block - 1] : -1
            let after = last + 1 < count ? order[last + 1] : -1
            let left = gap > 0 ? order[gap - 1] : -1
            let right = gap < count ? order[gap] : -1
            let removed = link(before, order[block]) + link(order[last], after) - link(before, after)
            let added = link(left, first) + link(final, right) - link(left, right)
            return added - removed
        }

        /// The cost from entry `a` to entry `b`, 0 when either is -1 (outside the playlist).
        @inline(__always) func link(_ a: Int, _ b: Int) -> Double {
            a >= 0 && b >= 0 ? cost(a, b) : 0
        }

        // MARK: - Arc

        /// The order that follows `targets` (one per position): rank matching, then swaps of
        /// tracks of neighbouring energy rank that lower the cost while the shape correlation stays
        /// at or above ``PlaylistOrdering/minimumArcCorrelation`` (or the rank matching's own,
        /// when lower).
        func arcOrder(targets: [Double]) -> (order: [Int], correlation: Double?) {
            var order = [Int](repeating: -1, count: count)
            for position in 0..<count where isLocked[position] { order[position] = position }
            let known = energies.compactMap { $0 }.sorted()
            let median = known.isEmpty ? 0.5 : known[known.count / 2]
            func rankEnergy(_ index: Int) -> Double { energies[index] ?? median }
            let tracks = (0..<count).filter { !isLocked[$0] }.sorted {
                (rankEnergy($0), trackIDs[$0], $0) < (rankEnergy($1), trackIDs[$1], $1)
            }
            let positions = (0..<count).filter { !isLocked[$0] }.sorted { (targets[$0], $0) < (targets[$1], $1) }
            for (track, position) in zip(tracks, positions) { order[position] = track }

            func correlation(_ order: [Int]) -> Double? {
                PlaylistOrdering.pearson(
                    (0..<count).compactMap { position in energies[order[position]].map { (targets[position], $0) } }
                )
            }
            let matched = correlation(order)
            let floor = matched.map { Swift.min(PlaylistOrdering.minimumArcCorrelation, $0) }
            var rank = [Int](repeating: 0, count: count)
            for (index, track) in tracks.enumerated() { rank[track] = index }
            let window = Swift.max(3, tracks.count / 10)
            let free = positions.sorted()
            let tolerance = -OrderingProblem.improvementTolerance
            for _ in 0..<(count <= 200 ? 1000 : 20) {
                var improved = false
                for (offset, i) in free.enumerated() {
                    for j in free[(offset + 1)...] where abs(rank[order[i]] - rank[order[j]]) <= window {
                        let before = edgesTouching(order, i, j)
                        order.swapAt(i, j)
                        var keeps = edgesTouching(order, i, j) - before < tolerance
                        if keeps, let floor {
                            keeps = correlation(order).map { $0 >= floor } ?? false
                        }
                        if keeps { improved = true } else { order.swapAt(i, j) }
                    }
                }
                if !improved { break }
            }
            return (order, correlation(order))
        }
    }
}
