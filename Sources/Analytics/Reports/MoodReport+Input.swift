import Features
import Foundation

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

    public var id: Int64
    /// The playlist the run was made of, by name; `nil` for a run of the library.
    public var playlist: String?
    /// The schema and fitted scaling of the run.
    public var scaling: FeatureScaling
    /// One entry per cluster, with the names the run saved.
    public var vibes: [VibeProfile]
    /// The clustered tracks, ascending, with each one's cluster and distance at the same index.
    ///
    /// Kept as three arrays rather than a dictionary: a run of a million tracks is read from the
    /// store's packed arrays as they are, and a report looks tracks up by binary search.
    public private(set) var trackIDs: [Int64]
    public private(set) var clusters: [Int32]
    public private(set) var distances: [Float]

    public init(id: Int64, scaling: FeatureScaling, vibes: [VibeProfile], assignments: [Int64: Assignment]) {
        let sorted = assignments.sorted { $0.key < $1.key }
        self.init(
            id: id,
            scaling: scaling,
            vibes: vibes,
            trackIDs: sorted.map(\.key),
            clusters: sorted.map { Int32($0.value.cluster) },
            distances: sorted.map { Float($0.value.distance) }
        )
    }

    /// A run from its packed arrays, as the store keeps them.
    ///
    /// - Precondition: The arrays have one entry per track, and `trackIDs` ascends.
    public init(
        id: Int64,
        scaling: FeatureScaling,
        vibes: [VibeProfile],
        trackIDs: [Int64],
        clusters: [Int32],
        distances: [Float]
    ) {
        precondition(
            trackIDs.count == clusters.count && trackIDs.count == distances.count,
            "A run needs one cluster and one distance per track."
        )
        self.id = id
        self.scaling = scaling
        self.vibes = vibes
        self.trackIDs = trackIDs
        self.clusters = clusters
        self.distances = distances
    }

    /// How many tracks the run clustered.
    public var trackCount: Int { trackIDs.count }

    /// The index of `trackID` in ``trackIDs``, by binary search.
    func index(of trackID: Int64) -> Int? {
        TrackIndex.binarySearch(trackID, inAscending: trackIDs)
    }

    /// The vibe and distance of `trackID`, or `nil` when the run did not cluster it.
    public func assignment(of trackID: Int64) -> Assignment? {
        index(of: trackID).map { Assignment(cluster: Int(clusters[$0]), distance: Double(distances[$0])) }
    }

    /// The vibe of every clustered track, keyed by track ID; setting it replaces the arrays.
    public var assignments: [Int64: Assignment] {
        get {
            Dictionary(uniqueKeysWithValues: trackIDs.indices.map { (trackIDs[$0], assignment(at: $0)) })
        }
        set {
            self = ReportRun(id: id, scaling: scaling, vibes: vibes, assignments: newValue)
        }
    }

    func assignment(at index: Int) -> Assignment {
        Assignment(cluster: Int(clusters[index]), distance: Double(distances[index]))
    }
}

extension MoodReport {
    /// Everything a report is computed from, read from the store by the caller.
    public struct Input: Sendable {
        public var overview: Overview
        /// The current raw features of every track that has any.
        public var table: FeatureTable
        /// Names and artists of tracks, keyed by track ID: every track of `table`, or only some
        /// when ``trackLookup`` finds the others and ``credits`` counts their artists and genres.
        public var tracks: [Int64: TrackCredit]
        /// Finds the tracks the report names (representatives, outliers, the explorer's list) that
        /// ``tracks`` lacks; called once, with every such ID. A library of a million tracks then
        /// reads the details of the few thousand it shows instead of all of them.
        public var trackLookup: (@Sendable ([Int64]) throws -> [Int64: TrackCredit])?
        /// Every row's main artist and genres as codes, for the per-vibe counts; without it they
        /// are counted from ``tracks``.
        public var credits: TrackCreditTable?
        /// The run whose vibes are reported, or `nil`.
        public var run: ReportRun?
        /// The listening history, in any order.
        public var plays: [PlayRecord]
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
        /// track ID.
        public var trackListPointLimit = 20_000
        /// The most tracks the explorer's tables list. Up to this many, every track is listed
        /// (and downloadable); above it, the tables hold the scatter's even sample, so that the
        /// page of a million tracks stays a few megabytes rather than 150 and opens in a browser.
        public var trackListLimit = 50_000
        /// The most rows the library map's principal components are fitted on; larger libraries
        /// are sampled evenly, which moves the components by far less than a drawn point.
        public var mapFitLimit = 200_000

        public init(
            overview: Overview,
            table: FeatureTable,
            tracks: [Int64: TrackCredit],
            run: ReportRun?,
            plays: [PlayRecord],
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
