import Features

// MARK: - Wallpaper artists

/// The artists who turn up in most lists of a library ("wallpaper"), and how much their tracks are
/// damped in lists from seed tracks.
///
/// An artist is wallpaper when their tracks are among the ``listLength`` nearest other-artist
/// tracks of more than half of ``sampleCount`` sample tracks spread evenly over the library (by
/// the sound alone, so that no block or seed changes it). A damped track's ranking score is
/// lowered by ``penalty`` times the share of sample lists the artist turns up in: an artist in
/// every list loses ``penalty``, one in just over half of them half as much. A library of
/// fewer than ``minimumArtistCount`` artists has none, as every artist there turns up everywhere.
public struct WallpaperArtists: Sendable, Equatable {
    /// The sample tracks whose lists are counted.
    public static let sampleCount = 64
    /// The tracks of each sample list.
    public static let listLength = 10
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
        var lists: [Int32: Int] = [:]
        for sample in 0..<samples {
            let row = sample * n / samples
            let own = artistOfRow[row]
            let query = Array(index.vectors.elements[(row * d)..<(row * d + d)])
            let nearest = index.nearestNeighbors(of: query, count: Self.listLength) {
                $0 != row && artistOfRow[$0] >= 0 && artistOfRow[$0] != own
            }
            for artist in Set(nearest.map { artistOfRow[$0.row] }) { lists[artist, default: 0] += 1 }
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
