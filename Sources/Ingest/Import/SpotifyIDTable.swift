/// The tracks of the store by Spotify ID, in memory, while an import of many new tracks has the
/// `tracks_spotify_id` index dropped (``LibraryWriter/deferIndexBuilds(expectedTracks:)``).
///
/// Measured on the million-row CSV: with the unique index kept up to date row by row (random IDs,
/// each landing on another page), the import's rows took 17.0–18.3 s; with the index built once
/// after them, 12.9–14.7 s, and the index builds 2.1 s instead of 1.3–1.9 s. Until then, a repeated
/// ID is found here. A slot packs 32 bits of the ID's hash and the track's store ID into
/// 8 bytes, so a million IDs take 16 MB (a `[String: Int64]` held about 110 MB). The hash only
/// narrows the search: a track whose hash matches is read back from the store and its ID compared
/// (``find(_:isTrack:)``), so two IDs that share a hash are told apart.
///
/// Written here rather than taken from a package: what it must do (8 bytes a track, lookups that
/// end in a check against the store) is not what a general hash map offers.
struct SpotifyIDTable {
    /// The largest table by default: 2²³ slots, 64 MB, which hold 6.3 million tracks at the
    /// highest load.
    static let defaultMaximumSlotCount = 1 << 23
    /// Most tracks per slot before the table doubles: linear probing stays short up to here.
    static let maximumLoad = 0.75

    /// Each slot: the hash's upper 32 bits, then the track's store ID; 0 is an empty slot.
    private var slots: [UInt64]
    private var shift: Int
    private(set) var count = 0
    /// The most slots the table may grow to (a power of two).
    let maximumSlotCount: Int

    /// A table sized for `expectedCount` tracks, or `nil` when they would not fit in
    /// `maximumSlotCount` slots (a power of two).
    init?(expectedCount: Int, maximumSlotCount: Int = defaultMaximumSlotCount) {
        precondition(maximumSlotCount > 1 && maximumSlotCount.nonzeroBitCount == 1)
        self.maximumSlotCount = maximumSlotCount
        var size = min(1 << 16, maximumSlotCount)
        while Double(expectedCount) > Double(size) * Self.maximumLoad {
            guard size < maximumSlotCount else { return nil }
            size <<= 1
        }
        slots = [UInt64](repeating: 0, count: size)
        shift = 32 - size.trailingZeroBitCount
    }

    /// The 32-bit hash of a Spotify ID: FNV-1a over its bytes, then mixed (the finaliser of
    /// SplitMix64) so that the upper bits, which pick the slot, depend on every byte.
    static func hash(_ id: String) -> UInt32 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in id.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        hash = (hash ^ (hash >> 30)) &* 0xbf58_476d_1ce4_e5b9
        hash = (hash ^ (hash >> 27)) &* 0x94d0_49bb_1331_11eb
        hash ^= hash >> 31
        return UInt32(truncatingIfNeeded: hash >> 32)
    }

    /// The store ID of the track with Spotify ID `id`, or `nil` when the table has none:
    /// `isTrack(storeID)` says whether the track with that store ID has `id` (only asked of tracks
    /// whose ID has the same hash).
    func find(_ id: String, isTrack: (Int64) throws -> Bool) rethrows -> Int64? {
        let hash = Self.hash(id)
        var slot = Int(hash >> UInt32(shift))
        let mask = slots.count - 1
        while slots[slot] != 0 {
            if UInt32(truncatingIfNeeded: slots[slot] >> 32) == hash {
                let storeID = Int64(slots[slot] & 0xffff_ffff)
                if try isTrack(storeID) { return storeID }
            }
            slot = (slot + 1) & mask
        }
        return nil
    }

    /// Adds the track with Spotify ID `id` and store ID `storeID`, which must not be in the table;
    /// returns `false`, adding nothing, when it cannot: the table would outgrow
    /// ``maximumSlotCount``, or the store ID is not in 1…2³²−1.
    mutating func insert(_ id: String, storeID: Int64) -> Bool {
        guard storeID > 0 && storeID <= Int64(UInt32.max) else { return false }
        if Double(count + 1) > Double(slots.count) * Self.maximumLoad {
            guard slots.count < maximumSlotCount else { return false }
            grow()
        }
        place(UInt64(Self.hash(id)) << 32 | UInt64(storeID))
        count += 1
        return true
    }

    private mutating func place(_ entry: UInt64) {
        var slot = Int(UInt32(truncatingIfNeeded: entry >> 32) >> UInt32(shift))
        let mask = slots.count - 1
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        slots[slot] = entry
    }

    /// Doubles the table: a slot's place is read from the hash it keeps.
    private mutating func grow() {
        let old = slots
        slots = [UInt64](repeating: 0, count: old.count * 2)
        shift -= 1
        for entry in old where entry != 0 { place(entry) }
    }
}
