import Features
import Foundation

/// A track as a report names it: its store ID, title and credited artists, and where it can be
/// played.
public struct ReportTrack: Hashable, Sendable {
    public var id: Int64
    public var name: String
    /// The credited artists, main artist first.
    public var artists: [String]
    /// Its genres (the artists' genres as Spotify tags them), if known.
    public var genres: [String]
    /// Its Spotify track ID, if it has one.
    public var spotifyID: SpotifyID?
    /// The path of the audio file it was analysed from, if any.
    public var filePath: String?
    /// Its length in milliseconds, if known.
    public var durationMS: Int?

    public init(
        id: Int64,
        name: String,
        artists: [String],
        genres: [String] = [],
        spotifyID: SpotifyID? = nil,
        filePath: String? = nil,
        durationMS: Int? = nil
    ) {
        self.id = id
        self.name = name
        self.artists = artists
        self.genres = genres
        self.spotifyID = spotifyID
        self.filePath = filePath
        self.durationMS = durationMS
    }
}

/// One play of the listening history, as a report needs it.
public struct ReportPlay: Hashable, Sendable {
    /// When playback ended (Spotify's `endTime` or `ts`).
    public var endedAt: Date
    /// How long the track played, in milliseconds.
    public var msPlayed: Int
    /// The store's track, or `nil` when the play matches no track.
    public var trackID: Int64?
    /// Whether the play counts as a skip; see ``isSkip(skipped:reasonEnd:)``.
    public var isSkip: Bool
    /// Whether the history says if the play was skipped; see
    /// ``skipIsRecorded(skipped:reasonEnd:)``. A play without skip data has ``isSkip`` false.
    public var skipIsRecorded: Bool

    public init(endedAt: Date, msPlayed: Int, trackID: Int64?, isSkip: Bool, skipIsRecorded: Bool = true) {
        self.endedAt = endedAt
        self.msPlayed = msPlayed
        self.trackID = trackID
        self.isSkip = isSkip
        self.skipIsRecorded = skipIsRecorded
    }

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

/// A saved clustering run, as a report needs it.
public struct ReportRun: Sendable {
    /// A track's vibe and distance to its centroid.
    public struct Assignment: Hashable, Sendable {
        public var cluster: Int
        /// The Euclidean distance to the centroid, in scaled units.
        public var distance: Double

        public init(cluster: Int, distance: Double) {
            self.cluster = cluster
            self.distance = distance
        }
    }

    /// One cluster of the run, as saved.
    public struct Vibe: Hashable, Sendable {
        public var cluster: Int
        public var name: String
        /// The ``Mood`` raw value, such as `calm/content`.
        public var mood: String
        public var size: Int
        /// The share of the run's tracks, from 0 to 1.
        public var share: Double
        /// The members' mean of every feature, in original units, keyed by wire name.
        public var means: [String: Double]
        /// The members' means in library standard deviations, keyed by wire name.
        public var zScores: [String: Double]

        public init(
            cluster: Int,
            name: String,
            mood: String,
            size: Int,
            share: Double,
            means: [String: Double],
            zScores: [String: Double]
        ) {
            self.cluster = cluster
            self.name = name
            self.mood = mood
            self.size = size
            self.share = share
            self.means = means
            self.zScores = zScores
        }
    }

    public var id: Int64
    /// The schema and fitted scaling of the run.
    public var scaling: FeatureScaling
    /// One entry per cluster, with the names the run saved.
    public var vibes: [Vibe]
    /// The vibe of every clustered track, keyed by track ID.
    public var assignments: [Int64: Assignment]

    public init(id: Int64, scaling: FeatureScaling, vibes: [Vibe], assignments: [Int64: Assignment]) {
        self.id = id
        self.scaling = scaling
        self.vibes = vibes
        self.assignments = assignments
    }
}

extension MoodReport {
    /// Everything a report is computed from, read from the store by the caller.
    public struct Input: Sendable {
        public var overview: Overview
        /// The current raw features of every track that has any.
        public var table: FeatureTable
        /// Names and artists of the tracks, keyed by track ID (at least those of `table`).
        public var tracks: [Int64: ReportTrack]
        /// The run whose vibes are reported, or `nil`.
        public var run: ReportRun?
        /// The listening history, in any order.
        public var plays: [ReportPlay]
        /// The zone plays are bucketed in; the user's local zone unless `--utc`.
        public var timeZone: TimeZone
        /// The number of representative tracks per vibe.
        public var representativeCount = 3
        /// The number of top artists per vibe.
        public var topArtistCount = 3
        /// The number of outliers.
        public var outlierCount = 8
        /// The most points drawn on the library map; larger libraries are sampled evenly.
        public var mapPointLimit = 1500
        /// Whether the report lists every track with features (``MoodReport/tracks``), as the
        /// HTML explorer needs; off by default, which keeps the other formats small.
        public var includesTrackList = false
        /// The most points the explorer's scatter draws; larger libraries are sampled evenly by
        /// track ID, while the track list stays complete.
        public var trackListPointLimit = 20_000

        public init(
            overview: Overview,
            table: FeatureTable,
            tracks: [Int64: ReportTrack],
            run: ReportRun?,
            plays: [ReportPlay],
            timeZone: TimeZone
        ) {
            self.overview = overview
            self.table = table
            self.tracks = tracks
            self.run = run
            self.plays = plays
            self.timeZone = timeZone
        }
    }
}
