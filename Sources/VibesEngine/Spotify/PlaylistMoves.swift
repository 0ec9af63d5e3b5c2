/// One of Spotify's reorder operations: move `rangeLength` items starting at `rangeStart` to
/// before the item at `insertBefore` (positions before the move; the item count means the end).
public struct PlaylistMove: Sendable, Hashable, Codable {
    public var rangeStart: Int
    public var insertBefore: Int
    public var rangeLength: Int

    public init(rangeStart: Int, insertBefore: Int, rangeLength: Int = 1) {
        self.rangeStart = rangeStart
        self.insertBefore = insertBefore
        self.rangeLength = rangeLength
    }

    enum CodingKeys: String, CodingKey {
        case rangeStart = "range_start"
        case insertBefore = "insert_before"
        case rangeLength = "range_length"
    }
}

/// The shortest sequence of single-item moves that turns a playlist's order into another.
///
/// The items that form a longest increasing subsequence of the new positions, read in the current
/// order, stay where they are; every other item is moved once, in the order of the new playlist,
/// to just after the item that precedes it there. That is `n − LIS` moves, the fewest single-item
/// moves that can do it (an item never moved keeps its order relative to the others never moved,
/// so those form an increasing subsequence).
public enum PlaylistMoves {
    /// The moves that turn the current order into `target`.
    ///
    /// - Parameter target: A permutation of `0..<n`: `target[k]` is the current position of the
    ///   item that should end at position `k`.
    /// - Returns: The moves, to send in order; each is a position in the order the moves before it
    ///   left.
    public static func moves(toReach target: [Int]) -> [PlaylistMove] {
        let n = target.count
        precondition(Set(target) == Set(0..<n), "target must be a permutation of 0..<\(n)")
        // The new position of each item, read in the current order.
        var rank = [Int](repeating: 0, count: n)
        for (position, item) in target.enumerated() { rank[item] = position }
        let staying = Set(longestIncreasingSubsequence(rank))
        var order = Array(0..<n)  // the items, by their current position, as the moves change it
        var moves: [PlaylistMove] = []
        moves.reserveCapacity(n - staying.count)
        for (position, item) in target.enumerated() where !staying.contains(item) {
            let from = order.firstIndex(of: item)!
            // Right after the item that precedes it in the target, which is already in place.
            let before = position == 0 ? 0 : order.firstIndex(of: target[position - 1])! + 1
            moves.append(PlaylistMove(rangeStart: from, insertBefore: before))
            order.remove(at: from)
            order.insert(item, at: before > from ? before - 1 : before)
        }
        return moves
    }

    /// Applies `moves` to `items` as Spotify does.
    ///
    /// A move whose insertion point lies inside its own range (or just after it) changes nothing.
    public static func apply<T>(_ moves: [PlaylistMove], to items: [T]) -> [T] {
        var items = items
        for move in moves {
            let start = move.rangeStart
            let end = start + move.rangeLength
            precondition(start >= 0 && move.rangeLength >= 1 && end <= items.count, "range out of bounds")
            precondition((0...items.count).contains(move.insertBefore), "insert_before out of bounds")
            guard move.insertBefore < start || move.insertBefore > end else { continue }
            let range = Array(items[start..<end])
            items.removeSubrange(start..<end)
            items.insert(
                contentsOf: range,
                at: move.insertBefore > start ? move.insertBefore - move.rangeLength : move.insertBefore
            )
        }
        return items
    }

    /// The indices of one longest strictly increasing subsequence of `values` (patience sorting,
    /// O(n log n)).
    public static func longestIncreasingSubsequence(_ values: [Int]) -> [Int] {
        var tails: [Int] = []  // index of the smallest tail of an increasing run of each length
        var previous = [Int](repeating: -1, count: values.count)
        for (index, value) in values.enumerated() {
            var low = 0
            var high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[index] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var result: [Int] = []
        var index = tails.last ?? -1
        while index >= 0 {
            result.append(index)
            index = previous[index]
        }
        return result.reversed()
    }

    /// The target order that puts `current` items back in `wanted` order, matching items by key
    /// (the k-th occurrence of a key in one with the k-th in the other).
    ///
    /// - Returns: `target` for ``moves(toReach:)``, or `nil` when the two hold different items.
    public static func target(from current: [String], to wanted: [String]) -> [Int]? {
        guard current.count == wanted.count else { return nil }
        var positions: [String: [Int]] = [:]
        for (index, key) in current.enumerated() { positions[key, default: []].append(index) }
        var used: [String: Int] = [:]
        var target: [Int] = []
        target.reserveCapacity(wanted.count)
        for key in wanted {
            let next = used[key, default: 0]
            guard let list = positions[key], next < list.count else { return nil }
            target.append(list[next])
            used[key] = next + 1
        }
        return target
    }
}
