import Foundation

/// One play of the listening history: when it ended, how long it played, its track, and whether
/// it was skipped.
///
/// The store reads it (`LibraryStore.playHistory()`); the mood report charts it.
public struct PlayRecord: Hashable, Sendable {
    /// When playback ended (Spotify's `endTime` or `ts`).
    public var endedAt: Date
    /// How long the track played, in milliseconds.
    public var msPlayed: Int
    /// The store's track, or `nil` when the play matches no track.
    public var trackID: Int64?
    /// Spotify's `skipped` flag (extended history only), `nil` when the source does not say.
    public var skipped: Bool?
    /// Why playback ended (`trackdone`, `fwdbtn`, …; extended history only).
    public var reasonEnd: String?

    public init(endedAt: Date, msPlayed: Int, trackID: Int64?, skipped: Bool?, reasonEnd: String? = nil) {
        self.endedAt = endedAt
        self.msPlayed = msPlayed
        self.trackID = trackID
        self.skipped = skipped
        self.reasonEnd = reasonEnd
    }

    /// A play whose skip is known (`skipped` is `isSkip`), or unknown when `skipIsRecorded` is
    /// false: then it is no skip.
    public init(endedAt: Date, msPlayed: Int, trackID: Int64?, isSkip: Bool, skipIsRecorded: Bool = true) {
        self.init(endedAt: endedAt, msPlayed: msPlayed, trackID: trackID, skipped: skipIsRecorded ? isSkip : nil)
    }

    /// Whether the play counts as a skip; see ``isSkip(skipped:reasonEnd:)``.
    public var isSkip: Bool { Self.isSkip(skipped: skipped, reasonEnd: reasonEnd) }

    /// Whether the history says if the play was skipped; see ``skipIsRecorded(skipped:reasonEnd:)``.
    /// A play without skip data has ``isSkip`` false.
    public var skipIsRecorded: Bool { Self.skipIsRecorded(skipped: skipped, reasonEnd: reasonEnd) }

    /// Whether a play of the extended streaming history was a skip.
    ///
    /// Spotify's `skipped` decides when present. Older exports leave it `null`; then a play that
    /// ended with the forward button (`reason_end` = `fwdbtn`) is a skip. Account-data
    /// `StreamingHistory` files carry neither, so their plays are never skips.
    public static func isSkip(skipped: Bool?, reasonEnd: String?) -> Bool {
        if let skipped { return skipped }
        return reasonEnd == "fwdbtn"
    }

    /// Whether a play's source says if it was skipped: it carries Spotify's `skipped` or a
    /// `reason_end`. Account-data `StreamingHistory` files carry neither, so a report of such a
    /// history says that skips are not recorded rather than that there were none.
    public static func skipIsRecorded(skipped: Bool?, reasonEnd: String?) -> Bool {
        skipped != nil || reasonEnd != nil
    }
}
