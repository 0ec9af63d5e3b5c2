import Features

/// Computing the scores of ``ClusterQuality`` from a fitted model.
extension ClusterQuality {
    /// Scores a fitted model on its data.
    ///
    /// - Parameters:
    ///   - model: A model fitted on `data`.
    ///   - data: The points, one per row.
    ///   - silhouetteSampleSize: The most points the silhouette looks at; 4,000 by default.
    ///   - threadCount: The threads that score the silhouette's points; the scores do not depend
    ///     on it.
    ///   - generator: The source of the silhouette sample.
    /// - Complexity: O(*n* · *d* + *s*² · *d*) for a sample of *s* points.
    public static func evaluate(
        _ model: KMeans,
        on data: Matrix,
        silhouetteSampleSize: Int = 4000,
        threadCount: Int = 1,
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
        quality.silhouette = silhouette(
            data: data,
            labels: model.labels,
            rows: rows,
            clusterCount: model.clusterCount,
            threadCount: threadCount
        )
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
    ///
    /// The rows' dot products come in blocks of 256 rows; the rows of a block are scored on
    /// `threadCount` threads and their scores added in row order, so the mean does not depend on
    /// the thread count.
    static func silhouette(
        data: Matrix,
        labels: [Int32],
        rows: [Int],
        clusterCount k: Int,
        threadCount: Int = 1
    ) -> Double? {
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
        // Dot products in blocks of 256 rows, so memory stays at 256 × s floats.
        let blockRows = 256
        for blockStart in stride(from: 0, to: s, by: blockRows) {
            let end = Swift.min(s, blockStart + blockRows)
            let rowsOfBlock = Matrix(
                rowCount: end - blockStart,
                columnCount: d,
                elements: Array(sample.elements[(blockStart * d)..<(end * d)])
            )
            let block = rowsOfBlock.multipliedByTranspose(of: sample)
            let scores = block.elements.withUnsafeBufferPointer { products in
                norms.withUnsafeBufferPointer { norms in
                    sampleLabels.withUnsafeBufferPointer { sampleLabels in
                        counts.withUnsafeBufferPointer { counts in
                            Kernels.parallelChunks(
                                KMeans.blocks(of: end - blockStart, parts: threadCount),
                                threadCount: threadCount
                            ) { chunk in
                                var sums = [Double](repeating: 0, count: k)
                                return chunk.map { blockRow in
                                    silhouetteScore(
                                        of: blockStart + blockRow,
                                        products: products.baseAddress! + blockRow * s,
                                        norms: norms,
                                        labels: sampleLabels,
                                        counts: counts,
                                        sums: &sums
                                    )
                                }
                            }
                        }
                    }
                }
            }
            for chunk in scores {
                for score in chunk { if let score { total += score } }
            }
        }
        return total / Double(s)
    }

    /// The silhouette of sampled row `i`, from its dot products with every sampled row; `nil` for
    /// a row alone in its cluster (which scores 0) or equally far from its own and the nearest
    /// other cluster's rows at distance 0.
    private static func silhouetteScore(
        of i: Int,
        products: UnsafePointer<Float>,
        norms: UnsafeBufferPointer<Float>,
        labels: UnsafeBufferPointer<Int>,
        counts: UnsafeBufferPointer<Int>,
        sums: inout [Double]
    ) -> Double? {
        let k = counts.count
        for c in 0..<k { sums[c] = 0 }
        for j in 0..<norms.count where j != i {
            let squared = Swift.max(0, norms[i] + norms[j] - 2 * products[j])
            sums[labels[j]] += Double(squared.squareRoot())
        }
        let own = labels[i]
        guard counts[own] > 1 else { return nil }  // a singleton scores 0
        let a = sums[own] / Double(counts[own] - 1)
        var b = Double.infinity
        for c in 0..<k where c != own && counts[c] > 0 { b = Swift.min(b, sums[c] / Double(counts[c])) }
        let larger = Swift.max(a, b)
        return larger > 0 ? (b - a) / larger : nil
    }
}
