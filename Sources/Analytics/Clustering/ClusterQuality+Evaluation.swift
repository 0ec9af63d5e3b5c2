import Features

/// Computing the scores of ``ClusterQuality`` from a fitted model.
extension ClusterQuality {
    /// Scores a fitted model on its data.
    ///
    /// - Parameters:
    ///   - model: A model fitted on `data`.
    ///   - data: The points, one per row.
    ///   - silhouetteSampleSize: The most points the silhouette looks at; 4,000 by default.
    ///   - generator: The source of the silhouette sample.
    /// - Complexity: O(*n* · *d* + *s*² · *d*) for a sample of *s* points.
    public static func evaluate(
        _ model: KMeans,
        on data: Matrix,
        silhouetteSampleSize: Int = 4000,
        using generator: inout some RandomNumberGenerator
    ) -> ClusterQuality {
        precondition(model.labels.count == data.rowCount, "The model was fitted on other data.")
        var rng = SplitMix64(seed: generator.next())
        let sizes = model.clusterSizes
        let occupied = sizes.filter { $0 > 0 }.count
        var quality = ClusterQuality(
            clusterCount: model.clusterCount,
            inertia: model.inertia,
            silhouette: nil,
            calinskiHarabasz: nil,
            daviesBouldin: nil,
            silhouetteSampleSize: 0
        )
        guard occupied >= 2, occupied < data.rowCount else { return quality }
        quality.calinskiHarabasz = calinskiHarabasz(model, data: data, sizes: sizes, occupied: occupied)
        quality.daviesBouldin = daviesBouldin(model, sizes: sizes)
        let rows = KMeans.sampleIndices(from: data.rowCount, count: silhouetteSampleSize, using: &rng)
        quality.silhouette = silhouette(data: data, labels: model.labels, rows: rows, clusterCount: model.clusterCount)
        quality.silhouetteSampleSize = rows.count
        return quality
    }

    static func calinskiHarabasz(_ model: KMeans, data: Matrix, sizes: [Int], occupied: Int) -> Double {
        let d = data.columnCount
        let n = data.rowCount
        var mean = [Double](repeating: 0, count: d)
        for c in 0..<model.clusterCount {
            for j in 0..<d { mean[j] += Double(model.centroids[c, j]) * Double(sizes[c]) }
        }
        for j in 0..<d { mean[j] /= Double(n) }
        var between = 0.0
        for c in 0..<model.clusterCount where sizes[c] > 0 {
            var squared = 0.0
            for j in 0..<d {
                let difference = Double(model.centroids[c, j]) - mean[j]
                squared += difference * difference
            }
            between += Double(sizes[c]) * squared
        }
        let within = model.inertia
        guard within > 0 else { return 1 }
        return between * Double(n - occupied) / (within * Double(occupied - 1))
    }

    static func daviesBouldin(_ model: KMeans, sizes: [Int]) -> Double {
        let k = model.clusterCount
        var spread = [Double](repeating: 0, count: k)
        for (label, squared) in zip(model.labels, model.squaredDistances) {
            spread[Int(label)] += Double(squared).squareRoot()
        }
        let clusters = (0..<k).filter { sizes[$0] > 0 }
        for c in clusters { spread[c] /= Double(sizes[c]) }
        var total = 0.0
        var allSeparated = false
        var allTight = true
        for a in clusters {
            var worst = 0.0
            for b in clusters where b != a {
                var squared = 0.0
                for j in 0..<model.centroids.columnCount {
                    let difference = Double(model.centroids[a, j] - model.centroids[b, j])
                    squared += difference * difference
                }
                let separation = squared.squareRoot()
                if separation > 0 {
                    allSeparated = true
                    worst = Swift.max(worst, (spread[a] + spread[b]) / separation)
                }
            }
            if spread[a] > 1e-12 { allTight = false }
            total += worst
        }
        if allTight || !allSeparated { return 0 }
        return total / Double(clusters.count)
    }

    /// The mean silhouette of the sampled rows, measured against the other sampled rows.
    static func silhouette(data: Matrix, labels: [Int32], rows: [Int], clusterCount k: Int) -> Double? {
        let d = data.columnCount
        let s = rows.count
        var elements = [Float]()
        elements.reserveCapacity(s * d)
        for row in rows { elements.append(contentsOf: data.row(row)) }
        let sample = Matrix(rowCount: s, columnCount: d, elements: elements)
        let sampleLabels = rows.map { Int(labels[$0]) }
        var counts = [Int](repeating: 0, count: k)
        for label in sampleLabels { counts[label] += 1 }
        guard counts.filter({ $0 > 0 }).count >= 2 else { return nil }

        let norms = sample.squaredRowNorms()
        var total = 0.0
        var sums = [Double](repeating: 0, count: k)
        // Dot products in blocks of 256 rows, so memory stays at 256 × s floats.
        let blockRows = 256
        var block = Matrix(rowCount: 0, columnCount: s)
        var blockStart = 0
        for i in 0..<s {
            if i == blockStart + block.rowCount {
                blockStart = i
                let end = Swift.min(s, i + blockRows)
                let rowsOfBlock = Matrix(
                    rowCount: end - i,
                    columnCount: d,
                    elements: Array(sample.elements[(i * d)..<(end * d)])
                )
                block = rowsOfBlock.multipliedByTranspose(of: sample)
            }
            for c in 0..<k { sums[c] = 0 }
            let base = (i - blockStart) * s
            for j in 0..<s where j != i {
                let squared = Swift.max(0, norms[i] + norms[j] - 2 * block.elements[base + j])
                sums[sampleLabels[j]] += Double(squared.squareRoot())
            }
            let own = sampleLabels[i]
            guard counts[own] > 1 else { continue }  // a singleton scores 0
            let a = sums[own] / Double(counts[own] - 1)
            var b = Double.infinity
            for c in 0..<k where c != own && counts[c] > 0 { b = Swift.min(b, sums[c] / Double(counts[c])) }
            let larger = Swift.max(a, b)
            if larger > 0 { total += (b - a) / larger }
        }
        return total / Double(s)
    }
}
