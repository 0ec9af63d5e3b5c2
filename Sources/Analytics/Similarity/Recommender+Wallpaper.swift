import Features

// MARK: - Wallpaper artists

/// The artists who turn up in most lists of a library ("wallpaper"), and how much their tracks are
/// damped in lists from seed tracks.
///
/// An artist is wallpaper when their tracks are among the ``listLength`` nearest other-artist
/// tracks (of the 50 nearest) of more than half of ``sampleCount`` sample tracks spread evenly over
/// the library, by the sound alone, so that no block or seed changes it. A damped track's ranking score is
/// lowered by ``penalty`` times the share of sample lists the artist turns up in: an artist in
/// every list loses ``penalty``, one in just over half of them half as much. A library of
/// fewer than ``minimumArtistCount`` artists has none, as every artist there turns up everywhere.
public struct WallpaperArtists: Sendable, Equatable {
    /// The sample tracks whose lists are counted.
    public static let sampleCount = 64
    /// The tracks of each sample list.
    public static let listLength = 10
    /// The nearest tracks searched for a sample's list by other artists.
    static let searchDepth = 50
    /// The fewest main artists a library needs before any is called wallpaper.
    public static let minimumArtistCount = 8
    /// The most a wallpaper artist's score is lowered, in cosine units (scores lie in −1…1).
    public static let penalty = 0.1

    /// The score lowering of each wallpaper artist's tracks, by artist code; empty when none.
    public var damping: [Int32: Double]

    public init(damping: [Int32: Double] = [:]) {
        self.damping = damping
    }

    /// The wallpaper artists of the library `index` holds.
    ///
    /// - Parameters:
    ///   - index: The sound of every row.
    ///   - artistOfRow: The main artist of each row as a code, −1 when unknown.
    /// - Complexity: O(*s* · *n* · *d*) for ``sampleCount`` *s* sample rows of *n* tracks of
    ///   dimension *d*.
    public init(index: CosineIndex, artistOfRow: [Int32]) {
        precondition(artistOfRow.count == index.count, "one artist code per row")
        self.init()
        let n = index.count
        guard Set(artistOfRow.filter { $0 >= 0 }).count >= Self.minimumArtistCount else { return }
        let samples = Swift.min(Self.sampleCount, n)
        let d = index.dimension
        let sampleRows = (0..<samples).map { $0 * n / samples }
        var elements: [Float] = []
        elements.reserveCapacity(samples * d)
        for row in sampleRows { elements += index.vectors.elements[(row * d)..<(row * d + d)] }
        // One blocked pass over the index for every sample; each list is the first ``listLength``
        // of its ``searchDepth`` nearest tracks by other artists.
        let depth = Swift.min(n, Self.searchDepth)
        let nearest = index.topK(
            of: CosineIndex.normalizedRows(of: Matrix(rowCount: samples, columnCount: d, elements: elements)),
            rows: 0..<samples,
            count: depth
        )
        var lists: [Int32: Int] = [:]
        for (sample, row) in sampleRows.enumerated() {
            let own = artistOfRow[row]
            var found = Set<Int32>()
            var length = 0
            for slot in 0..<depth where length < Self.listLength {
                let other = Int(nearest.rows[sample * depth + slot])
                guard other >= 0, other != row, artistOfRow[other] >= 0, artistOfRow[other] != own else { continue }
                found.insert(artistOfRow[other])
                length += 1
            }
            for artist in found { lists[artist, default: 0] += 1 }
        }
        for (artist, count) in lists where 2 * count > samples {
            damping[artist] = Self.penalty * Double(count) / Double(samples)
        }
    }
}

extension Recommender {
    /// The artists who turn up in most lists of this library (``WallpaperArtists``), found the
    /// first time they are asked for.
    public var wallpaperArtists: WallpaperArtists { wallpaperCache.value }
}
