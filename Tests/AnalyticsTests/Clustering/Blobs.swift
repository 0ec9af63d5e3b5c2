import Features
import Foundation

/// Points drawn around known centres, with the true cluster of each point.
struct Blobs {
    var matrix: Matrix
    var truth: [Int]

    /// `perCluster` Gaussian points (standard deviation `spread`) around each of `centres`.
    init(centres: [[Float]], perCluster: Int, spread: Float, seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var rows: [[Float]] = []
        var truth: [Int] = []
        for (index, centre) in centres.enumerated() {
            for _ in 0..<perCluster {
                rows.append(centre.map { $0 + spread * Blobs.gaussian(using: &rng) })
                truth.append(index)
            }
        }
        // Shuffle the rows so that their order carries no information.
        var order = Array(rows.indices)
        for i in stride(from: order.count - 1, to: 0, by: -1) { order.swapAt(i, rng.next(below: i + 1)) }
        matrix = Matrix(rows: order.map { rows[$0] })
        self.truth = order.map { truth[$0] }
    }

    /// A standard normal variate by the Box–Muller transform.
    static func gaussian(using rng: inout SplitMix64) -> Float {
        let u = max(rng.nextUnitInterval(), 1e-300)
        let v = rng.nextUnitInterval()
        return Float((-2 * log(u)).squareRoot() * cos(2 * Double.pi * v))
    }
}

/// Whether `labels` split the points exactly as `truth` does, up to renaming the clusters.
func isSamePartition(_ labels: [Int32], _ truth: [Int]) -> Bool {
    guard labels.count == truth.count else { return false }
    var forward: [Int32: Int] = [:]
    var backward: [Int: Int32] = [:]
    for (label, expected) in zip(labels, truth) {
        if let mapped = forward[label], mapped != expected { return false }
        if let mapped = backward[expected], mapped != label { return false }
        forward[label] = expected
        backward[expected] = label
    }
    return true
}
