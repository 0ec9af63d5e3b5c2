/// A small, fast, seedable random number generator: Steele, Lea and Flood's SplitMix64.
///
/// Every random choice in an analysis (k-means++ seeding, samples for the silhouette, mini-batches)
/// draws from a generator created from the user's `--seed`, so the same seed gives the same result
/// on every run and every machine. The sequence is fixed by this file, not by the standard
/// library, so it does not change with the Swift version.
///
/// ```swift
/// var rng = SplitMix64(seed: 42)
/// let first = rng.next()
/// ```
public struct SplitMix64: RandomNumberGenerator, Hashable, Sendable {
    /// The internal state, advanced by a fixed odd constant on every draw.
    public private(set) var state: UInt64

    /// Creates a generator whose sequence is determined by `seed`.
    public init(seed: UInt64) {
        state = seed
    }

    /// Returns the next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Returns a uniformly distributed value in `0 ..< 1` with 53 random bits.
    public mutating func nextUnitInterval() -> Double {
        Double(next() >> 11) * 0x1p-53
    }

    /// Returns a uniformly distributed integer in `0 ..< upperBound`, without modulo bias.
    ///
    /// - Parameter upperBound: A positive bound.
    public mutating func next(below upperBound: Int) -> Int {
        precondition(upperBound > 0, "The upper bound must be positive.")
        let bound = UInt64(upperBound)
        // Lemire's multiply-and-reject method.
        var product = next().multipliedFullWidth(by: bound)
        if product.low < bound {
            let threshold = (0 &- bound) % bound
            while product.low < threshold {
                product = next().multipliedFullWidth(by: bound)
            }
        }
        return Int(product.high)
    }

    /// Returns a new generator for an independent stream, such as one restart of k-means.
    ///
    /// The child's seed is drawn from this generator, so the children of one seed are reproducible.
    public mutating func split() -> SplitMix64 {
        SplitMix64(seed: next())
    }
}
