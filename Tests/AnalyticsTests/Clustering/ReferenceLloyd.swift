import Features

/// Lloyd's k-means written as plainly as possible, in `Double`, to hold the fast kernels to.
///
/// Every row is compared with every centre by its squared Euclidean distance, summed over the
/// features in `Double`; the nearest centre wins, the lowest index on a tie. New centres are the
/// means of their rows. Nothing is vectorized, chunked, bounded or threaded.
struct ReferenceLloyd {
    /// The rows, one `Double` array per row.
    var rows: [[Double]]

    init(_ data: Matrix) {
        rows = (0..<data.rowCount).map { data.row($0).map(Double.init) }
    }

    /// ‖x − c‖², in `Double`.
    static func squaredDistance(_ x: [Double], _ c: [Double]) -> Double {
        var sum = 0.0
        for j in x.indices { sum += (x[j] - c[j]) * (x[j] - c[j]) }
        return sum
    }

    /// The squared distance of every row to every centre: `distances[i][c]`.
    func squaredDistances(to centres: [[Double]]) -> [[Double]] {
        rows.map { row in centres.map { Self.squaredDistance(row, $0) } }
    }

    /// The index of the nearest centre of every row; ties go to the lowest index.
    func nearestCentres(_ centres: [[Double]]) -> [Int32] {
        squaredDistances(to: centres).map { distances in
            var best = 0
            for c in distances.indices where distances[c] < distances[best] { best = c }
            return Int32(best)
        }
    }

    /// The mean of the rows of each cluster, or `nil` for a cluster that has none.
    func means(labels: [Int32], clusterCount k: Int) -> [[Double]?] {
        var sums = [[Double]](repeating: [Double](repeating: 0, count: rows.first?.count ?? 0), count: k)
        var counts = [Int](repeating: 0, count: k)
        for (row, label) in zip(rows, labels) {
            for j in row.indices { sums[Int(label)][j] += row[j] }
            counts[Int(label)] += 1
        }
        return (0..<k).map { c in counts[c] == 0 ? nil : sums[c].map { $0 / Double(counts[c]) } }
    }

    /// The sum over rows of the squared distance to the centre given by the row's label.
    func inertia(labels: [Int32], centres: [[Double]]) -> Double {
        zip(rows, labels).reduce(0) { $0 + Self.squaredDistance($1.0, centres[Int($1.1)]) }
    }

    /// Lloyd's iterations from `initial`: assign, then move every centre to its rows' mean, until
    /// no label changes or after `maxIterations` updates; then the labels by the last centres.
    ///
    /// - Returns: The final labels and centres, or `nil` if a cluster ran empty (the reference
    ///   does not reseed).
    func fit(from initial: [[Double]], maxIterations: Int) -> (labels: [Int32], centres: [[Double]])? {
        var centres = initial
        var labels = [Int32]()
        for _ in 0..<maxIterations {
            let next = nearestCentres(centres)
            if next == labels { break }
            labels = next
            var moved: [[Double]] = []
            for mean in means(labels: labels, clusterCount: centres.count) {
                guard let mean else { return nil }
                moved.append(mean)
            }
            centres = moved
        }
        return (nearestCentres(centres), centres)
    }
}
