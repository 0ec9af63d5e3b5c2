import Features

/// An exact cosine-similarity index over the rows of a feature matrix.
///
/// The index keeps a copy of the rows scaled to unit length, so that a dot product is a cosine.
/// Rows of length zero (a track at the centre of a z-scored space) stay zero and have similarity 0
/// to everything. Queries are answered exactly, never approximately: a batch of queries runs as
/// blocks of `cblas_sgemm` with a streaming top-*k* per query, so no query × track score matrix is
/// ever held in memory.
///
/// Ties are broken by track ID, smaller first, so that results do not depend on thread timing or
/// on the order in which blocks were visited.
///
/// ```swift
/// let index = CosineIndex(features)
/// let neighbors = index.nearestNeighbors(of: query, count: 10)
/// ```
public struct CosineIndex: Sendable {
    /// The rows scaled to unit Euclidean length, one track per row.
    public let vectors: Matrix
    /// The store's track ID of each row.
    public let trackIDs: [Int64]

    /// Creates an index over the rows of `features`.
    ///
    /// - Complexity: O(*n* · *d*).
    public init(_ features: FeatureMatrix) {
        vectors = CosineIndex.normalizedRows(of: features.values)
        trackIDs = features.trackIDs
    }

    /// The number of indexed tracks.
    public var count: Int { vectors.rowCount }

    /// The number of feature columns.
    public var dimension: Int { vectors.columnCount }

    /// Returns `vector` scaled to unit length, or unchanged when its length is zero.
    public static func normalized(_ vector: [Float]) -> [Float] {
        let norm = vector.reduce(0) { $0 + $1 * $1 }.squareRoot()
        guard norm > 0, norm.isFinite else { return vector }
        return vector.map { $0 / norm }
    }

    /// Returns the cosine similarity between `query` and every indexed track, in row order.
    ///
    /// - Parameter query: A vector of ``dimension`` values; need not be normalised.
    /// - Returns: ``count`` similarities in −1…1 (0 for zero vectors).
    /// - Complexity: O(*n* · *d*), one `cblas_sgemv`.
    public func similarities(to query: [Float]) -> [Float] {
        precondition(query.count == dimension, "A query needs \(dimension) values, got \(query.count).")
        return scores(of: CosineIndex.normalized(query))
    }

    /// Returns the `count` tracks most similar to `query` among the rows that `isIncluded` accepts.
    ///
    /// - Parameters:
    ///   - query: A vector of ``dimension`` values; need not be normalised.
    ///   - count: The number of neighbours to return.
    ///   - isIncluded: Whether a row may be returned; all rows by default.
    /// - Returns: Neighbours ordered from most to least similar, ties by track ID.
    /// - Complexity: O(*n* · *d* + *n* log *k*) for *n* indexed tracks of dimension *d*.
    public func nearestNeighbors(
        of query: [Float],
        count: Int,
        where isIncluded: (Int) -> Bool = { _ in true }
    ) -> [Neighbor] {
        let scores = similarities(to: query)
        var selection = TopK(capacity: count)
        for row in scores.indices where isIncluded(row) {
            selection.insert(similarity: scores[row], row: row, trackID: trackIDs[row])
        }
        return selection.neighbors
    }

    /// Returns the `count` tracks most similar to each row of `queries`, searching exactly.
    ///
    /// The queries are cut into contiguous ranges, one per task, and each task multiplies blocks
    /// of its queries by blocks of the index with a single-threaded `cblas_sgemm`, keeping only a
    /// running top-`count` per query. The result is the same for every `taskCount`.
    ///
    /// - Parameters:
    ///   - queries: One query per row, with ``dimension`` columns; need not be normalised.
    ///   - count: The number of neighbours per query.
    ///   - taskCount: The number of concurrent tasks; ``Parallelism/defaultThreadCount`` by default.
    /// - Returns: For each query, its neighbours from most to least similar, ties by track ID.
    /// - Complexity: O(*q* · *n* · *d*) time and O(*q* · *k*) memory beyond the index.
    public func nearestNeighbors(
        of queries: Matrix,
        count: Int,
        taskCount: Int = Parallelism.defaultThreadCount
    ) async -> [[Neighbor]] {
        precondition(
            queries.columnCount == dimension || queries.rowCount == 0,
            "Queries need \(dimension) columns, got \(queries.columnCount)."
        )
        precondition(taskCount >= 1, "At least one task is needed.")
        let k = Swift.min(count, self.count)
        guard k > 0, queries.rowCount > 0 else { return Array(repeating: [], count: queries.rowCount) }
        let normalizedQueries = CosineIndex.normalizedRows(of: queries)
        // Ranges are whole query blocks, so every block (and every sgemm call, and so every float
        // of every score) is the same whatever the task count.
        let blockCount = (queries.rowCount + CosineIndex.queryBlock - 1) / CosineIndex.queryBlock
        let tasks = Swift.max(1, Swift.min(taskCount, blockCount))
        let chunk = (blockCount + tasks - 1) / tasks * CosineIndex.queryBlock
        let ranges = stride(from: 0, to: queries.rowCount, by: chunk).map {
            $0..<Swift.min($0 + chunk, queries.rowCount)
        }
        let parts = await withTaskGroup(of: (Int, TopKBlock).self) { group in
            for (position, range) in ranges.enumerated() {
                group.addTask {
                    (position, self.topK(of: normalizedQueries, rows: range, count: k))
                }
            }
            var parts = [TopKBlock?](repeating: nil, count: ranges.count)
            for await (position, block) in group { parts[position] = block }
            return parts.map { $0! }
        }
        var result: [[Neighbor]] = []
        result.reserveCapacity(queries.rowCount)
        for part in parts {
            for query in 0..<part.queryCount {
                var neighbors: [Neighbor] = []
                neighbors.reserveCapacity(k)
                for slot in 0..<k {
                    let row = Int(part.rows[query * k + slot])
                    guard row >= 0 else { break }
                    neighbors.append(
                        Neighbor(row: row, trackID: trackIDs[row], similarity: part.scores[query * k + slot])
                    )
                }
                result.append(neighbors)
            }
        }
        return result
    }
}

/// One result of a nearest-neighbour search.
public struct Neighbor: Hashable, Sendable {
    /// The row of the track in the index.
    public var row: Int
    /// The store's track ID.
    public var trackID: Int64
    /// The cosine similarity to the query, from −1 (opposite) to 1 (same direction).
    public var similarity: Float

    public init(row: Int, trackID: Int64, similarity: Float) {
        self.row = row
        self.trackID = trackID
        self.similarity = similarity
    }
}

// MARK: - Selection

/// The running best `capacity` of a stream of scored rows, most similar first, ties by track ID.
struct TopK {
    let capacity: Int
    private(set) var neighbors: [Neighbor] = []

    init(capacity: Int) {
        self.capacity = Swift.max(0, capacity)
        neighbors.reserveCapacity(self.capacity + 1)
    }

    /// Whether `(a, aID)` ranks before `(b, bID)`: higher similarity, then smaller track ID.
    @inline(__always)
    static func ranksBefore(_ a: Float, _ aID: Int64, _ b: Float, _ bID: Int64) -> Bool {
        a > b || (a == b && aID < bID)
    }

    mutating func insert(similarity: Float, row: Int, trackID: Int64) {
        guard capacity > 0, !similarity.isNaN else { return }
        if neighbors.count == capacity {
            let last = neighbors[capacity - 1]
            guard TopK.ranksBefore(similarity, trackID, last.similarity, last.trackID) else { return }
            neighbors.removeLast()
        }
        var position = neighbors.count
        while position > 0,
            TopK.ranksBefore(similarity, trackID, neighbors[position - 1].similarity, neighbors[position - 1].trackID)
        {
            position -= 1
        }
        neighbors.insert(Neighbor(row: row, trackID: trackID, similarity: similarity), at: position)
    }
}

/// The top-*k* of a range of queries, flat: slot *j* of query *i* is at `i * k + j`; row −1 is empty.
struct TopKBlock: Sendable {
    var queryCount: Int
    var scores: [Float]
    var rows: [Int32]
}
