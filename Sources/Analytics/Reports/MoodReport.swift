import Features

/// What a library feels like, what its vibes are and how its owner's listening mood has moved:
/// every number of a mood report, ready for a renderer.
///
/// A report is computed once, from plain values read from the store (``MoodReport/Input``), and
/// then rendered as terminal text, Markdown, JSON or a self-contained HTML page. Renderers only
/// format; they compute nothing. The JSON form is this type encoded with snake-case keys; its
/// schema is versioned by ``schemaVersion`` and described in the Reports article of the catalog.
///
/// ```swift
/// let report = try MoodReport(input)
/// print(report.renderedText(style: .plain))
/// ```
public struct MoodReport: Hashable, Sendable, Codable {
    /// What a report without a clustering run says in place of its vibes; the renderers append
    /// the caller's hint (such as how to make a run) to it.
    public static let noVibesText = "No clustering run yet, so this report has no vibes."

    /// The version of the JSON schema: raised whenever a field is added, removed or changes meaning.
    public static let currentSchemaVersion = 2

    /// The ``currentSchemaVersion`` the report was made with.
    public var schemaVersion: Int
    /// The IANA time zone listening history was bucketed in, such as `Europe/Berlin` or `UTC`.
    public var timeZone: String
    /// What the library holds.
    public var overview: Overview
    /// The distribution of each audio feature over the tracks that have it.
    public var features: [FeatureDistribution]
    /// The valence–energy map: quadrant shares, soft moods and a density grid.
    public var moodMap: MoodMap
    /// The vibes of a saved clustering run, or `nil` when the library has not been clustered.
    public var vibes: VibesSection?
    /// A 2-D map of the library by principal component analysis, or `nil` with fewer than 2 tracks.
    public var map: LibraryMap?
    /// Mood over time from listening history, or `nil` when there are no plays.
    public var listening: Listening?
    /// The tracks least like any vibe.
    public var outliers: Outliers
    /// Every track with audio features, for the HTML report's explorer, or `nil` unless the input
    /// asks for it (``Input/includesTrackList``).
    public var tracks: TrackList?
}

// MARK: - Overview

extension MoodReport {
    /// What the library holds, as counted by the store.
    public struct Overview: Hashable, Sendable, Codable {
        /// A feature source (`csv`, `exportify`, `web-api` …) and how many tracks it covers.
        public struct Source: Hashable, Sendable, Codable {
            public var source: String
            /// Tracks with features from this source.
            public var tracks: Int
            /// Tracks whose preferred (current) features come from this source.
            public var preferred: Int

            public init(source: String, tracks: Int, preferred: Int) {
                self.source = source
                self.tracks = tracks
                self.preferred = preferred
            }
        }

        /// How many tracks have a value for one feature.
        public struct Coverage: Hashable, Sendable, Codable {
            public var feature: String
            public var tracks: Int

            public init(feature: String, tracks: Int) {
                self.feature = feature
                self.tracks = tracks
            }
        }

        public var tracks: Int
        public var artists: Int
        /// Tracks with audio features from any source.
        public var tracksWithFeatures: Int
        public var playlists: Int
        public var savedTracks: Int
        /// Plays in the listening history.
        public var plays: Int
        public var sources: [Source]
        /// Tracks with a value for each feature, in `AudioFeature.all` order.
        public var coverage: [Coverage]
        /// The playlist the report is limited to, by name; `nil` for the whole library.
        public var playlist: String?

        public init(
            tracks: Int,
            artists: Int,
            tracksWithFeatures: Int,
            playlists: Int,
            savedTracks: Int,
            plays: Int,
            sources: [Source],
            coverage: [Coverage]
        ) {
            self.tracks = tracks
            self.artists = artists
            self.tracksWithFeatures = tracksWithFeatures
            self.playlists = playlists
            self.savedTracks = savedTracks
            self.plays = plays
            self.sources = sources
            self.coverage = coverage
        }
    }
}

// MARK: - Feature distributions

extension MoodReport {
    /// The histogram and summary statistics of one audio feature.
    ///
    /// Unit-interval features have ten bins of 0.1 over 0…1; loudness has 5 dB bins and tempo
    /// 20 BPM bins, from the round value below the minimum to the one above the maximum; key and
    /// mode have one bin per value. A bin holds values `lower ≤ v < upper`, the last one also
    /// `v = upper`; values outside a fixed range are counted in the nearest end bin.
    public struct FeatureDistribution: Hashable, Sendable, Codable {
        /// One bar of a histogram.
        public struct Bin: Hashable, Sendable, Codable {
            public var lower: Double
            public var upper: Double
            public var count: Int
        }

        /// The feature's wire name, such as `energy`.
        public var feature: String
        /// The unit, such as `0–1`, `dB` or `BPM`.
        public var unit: String
        /// The number of tracks with a value.
        public var count: Int
        /// The number of tracks with features but no value for this one (or a "not measured" sentinel).
        public var missing: Int
        public var mean: Double?
        public var median: Double?
        public var minimum: Double?
        public var maximum: Double?
        public var bins: [Bin]
    }
}

// MARK: - Valence–energy map

extension MoodReport {
    /// The library on the valence–energy plane.
    ///
    /// Quadrants split both axes at 0.5 and use the circumplex names of ``Mood``. The soft moods are
    /// those of Organize Your Music: for a track of energy *e* and valence *v*, happy = *e*·*v*,
    /// sad = (1 − *e*)(1 − *v*), angry = *e*(1 − *v*) and chill = (1 − *e*)·*v*; the four sum to 1
    /// per track, and the report gives their library means.
    public struct MoodMap: Hashable, Sendable, Codable {
        /// The number of tracks and the share of the mapped tracks in one quadrant.
        public struct Quadrant: Hashable, Sendable, Codable {
            /// The ``Mood`` raw value, such as `happy/energetic`.
            public var mood: String
            public var tracks: Int
            public var share: Double
        }

        /// Library means of the Organize Your Music soft moods; they sum to 1.
        public struct SoftMoods: Hashable, Sendable, Codable {
            public var happy: Double
            public var sad: Double
            public var angry: Double
            public var chill: Double
        }

        /// Tracks with both valence and energy.
        public var tracks: Int
        /// The four quadrants in ``Mood`` declaration order.
        public var quadrants: [Quadrant]
        public var softMoods: SoftMoods
        /// The number of grid cells along each axis.
        public var gridSize: Int
        /// Track counts on a `gridSize × gridSize` grid over 0…1: `grid[e][v]` counts tracks with
        /// energy in row `e` (low to high) and valence in column `v` (low to high).
        public var grid: [[Int]]
    }
}

// MARK: - Vibes

extension MoodReport {
    /// A track named in a report.
    public struct TrackReference: Hashable, Sendable, Codable {
        /// The store's track ID.
        public var id: Int64
        public var name: String
        public var artists: [String]
    }

    /// A feature's value and how far it lies from the library mean, in library standard deviations.
    public struct FeatureValue: Hashable, Sendable, Codable {
        public var feature: String
        public var value: Double
        public var zScore: Double
    }

    /// The vibes of one saved clustering run.
    public struct VibesSection: Hashable, Sendable, Codable {
        /// An artist and how many of a vibe's tracks credit them first.
        public struct ArtistCount: Hashable, Sendable, Codable {
            public var artist: String
            public var tracks: Int
        }

        /// One vibe.
        public struct Vibe: Hashable, Sendable, Codable {
            public var cluster: Int
            public var name: String
            public var mood: Mood
            public var size: Int
            /// The share of the run's tracks, from 0 to 1.
            public var share: Double
            /// The share of the time played on the run's tracks (skips apart) that went to this
            /// vibe, or `nil` without such plays.
            public var listenedShare: Double?
            /// The members' mean of every profiled feature, in original units, with its z-score.
            public var profile: [FeatureValue]
            /// The tracks nearest the centroid, nearest first.
            public var representatives: [TrackReference]
            /// The artists credited first on most of the vibe's tracks.
            public var topArtists: [ArtistCount]
            /// The genres most of the vibe's tracks carry, or `nil` when no track has a genre.
            public var topGenres: [GenreCount]?
        }

        /// A genre and how many of a vibe's tracks carry it.
        public struct GenreCount: Hashable, Sendable, Codable {
            public var genre: String
            public var tracks: Int
        }

        /// The run number.
        public var runID: Int64
        /// The features clustered on, in column order.
        public var features: [String]
        /// The scaling, such as `zscore`.
        public var scaling: String
        /// The number of tracks clustered.
        public var tracks: Int
        /// The vibes, largest first.
        public var vibes: [Vibe]
        /// The playlist the run was made of, by name; `nil` for a run of the library.
        public var playlist: String?
    }
}

extension MoodReport.Overview {
    /// For a report limited to one playlist, the sentence that says so; `nil` for the library.
    public var scopeSentence: String? {
        playlist.map { "Limited to the playlist “\($0)”: \(ReportFormatting.count(tracks, "track"))." }
    }
}

extension MoodReport.VibesSection {
    /// What the vibes' shares are of: "the library", or "the playlist" for a run of one playlist.
    public var whole: String { playlist == nil ? "the library" : "the playlist" }

    /// For a run of one playlist, the sentence that says so; `nil` for a run of the library.
    public var scopeSentence: String? {
        playlist.map {
            "Run \(runID) was made of the playlist “\($0)” only (\(ReportFormatting.count(tracks, "track"))), "
                + "so its shares are of that playlist, not of the library."
        }
    }
}

// MARK: - Library map

extension MoodReport {
    /// The library projected on its first two principal components.
    public struct LibraryMap: Hashable, Sendable, Codable {
        /// One track on the map.
        public struct Point: Hashable, Sendable, Codable {
            public var x: Double
            public var y: Double
            /// The index into ``groups`` of the track's colour.
            public var group: Int
        }

        /// How much one input column weighs in the two components.
        public struct Loading: Hashable, Sendable, Codable {
            public var column: String
            public var pc1: Double
            public var pc2: Double
        }

        /// What the map was computed on, such as `run 2: zscore over danceability,energy,…`.
        public var basis: String
        /// The share of variance each principal component explains, largest first (all of them).
        public var explainedVarianceRatios: [Double]
        /// The input columns' weights in PC1 and PC2.
        public var loadings: [Loading]
        /// What colours the points: vibe names with a run, mood quadrants without.
        public var groups: [String]
        /// The number of tracks projected.
        public var trackCount: Int
        /// The points drawn: every track, or an even sample of at most the point limit.
        public var points: [Point]
    }
}

// MARK: - Track list

extension MoodReport {
    /// Every track with audio features, grouped and ready to be drawn, sorted and exported.
    ///
    /// With a run, the groups are its vibes, largest first as in ``VibesSection/vibes``, then
    /// `not in run N` when some tracks with features were not clustered by the run; without one,
    /// the four mood quadrants in ``Mood`` declaration order. Feature values are the stored ones
    /// rounded to 3 decimals. When there are more tracks than ``pointLimit``, the scatter draws an
    /// even sample by track ID (``Entry/isDrawn``); the list itself is always complete.
    public struct TrackList: Hashable, Sendable, Codable {
        /// A vibe or a mood quadrant, and how many tracks of the list it holds.
        public struct Group: Hashable, Sendable, Codable {
            public var name: String
            public var tracks: Int
        }

        /// One track.
        public struct Entry: Hashable, Sendable, Codable {
            /// The store's track ID.
            public var id: Int64
            public var name: String
            /// The credited artists, main artist first.
            public var artists: [String]
            /// The Spotify track ID, if the track has one.
            public var spotifyID: SpotifyID?
            /// The path of the audio file the track was analysed from, if any.
            public var filePath: String?
            /// The track's length in milliseconds, if known.
            public var durationMS: Int?
            /// The index into ``TrackList/groups``.
            public var group: Int
            /// The distance to its vibe's centroid in the run's scaled space, rounded to 3
            /// decimals; `nil` without a run or outside it.
            public var distance: Double?
            /// One value per ``TrackList/features`` entry, in its units, rounded to 3 decimals;
            /// `nil` where the track has none.
            public var values: [Double?]
            /// Whether the explorer's scatter draws the track.
            public var isDrawn: Bool
        }

        /// The features of ``Entry/values``, by wire name, such as `valence`.
        public var features: [String]
        /// Their units, such as `0–1`, `dB` or `BPM`.
        public var units: [String]
        /// The groups, every one of them, even when empty.
        public var groups: [Group]
        /// The most tracks the scatter draws.
        public var pointLimit: Int
        /// How many tracks the scatter draws: all of them, or `pointLimit`.
        public var drawnCount: Int
        /// How many tracks have features: the sum of the groups' sizes.
        public var trackCount: Int
        /// The listed tracks, by ascending track ID: every track with features, or, in a library
        /// larger than ``MoodReport/Input/trackListLimit``, the drawn ones.
        public var entries: [Entry]

        /// Whether ``entries`` holds every track rather than the scatter's sample.
        public var listsEveryTrack: Bool { entries.count == trackCount }
    }
}

// MARK: - Listening

extension MoodReport {
    /// Plays of one time bucket (a month, a weekday or an hour of the day).
    ///
    /// A play is placed by the local time it ended. Valence and energy are the means over the
    /// bucket's plays that were not skips and have features, weighted by milliseconds played.
    public struct TimeBucket: Hashable, Sendable, Codable {
        /// `2021-04`, `Mon` or `07`.
        public var label: String
        public var plays: Int
        public var msPlayed: Int
        /// Plays counted as skips (see ``PlayRecord/isSkip``), and their time.
        public var skips: Int
        public var skippedMS: Int
        /// Plays whose source says whether they were skipped (``PlayRecord/skipIsRecorded``); when
        /// 0, ``skips`` is 0 because skips are not recorded, not because there were none.
        public var playsWithSkipData: Int
        /// The time of non-skipped plays whose track has valence and energy.
        public var msWithFeatures: Int
        public var valence: Double?
        public var energy: Double?

        /// Whether ``skips`` counts skips: true when some play of the bucket says whether it was
        /// skipped, or the bucket has no plays.
        public var skipsAreRecorded: Bool { playsWithSkipData > 0 || plays == 0 }
    }

    /// Time spent on one vibe of the run, against its share of the library.
    public struct VibeListening: Hashable, Sendable, Codable {
        public var name: String
        public var msPlayed: Int
        public var listenedShare: Double
        public var libraryShare: Double
    }

    /// Mood over time from the listening history.
    public struct Listening: Hashable, Sendable, Codable {
        public var plays: Int
        public var msPlayed: Int
        /// Plays counted as skips (see ``PlayRecord/isSkip``), and their time.
        public var skips: Int
        public var skippedMS: Int
        /// Plays whose source says whether they were skipped (``PlayRecord/skipIsRecorded``). When
        /// 0 (an account-data `StreamingHistory` export), ``skips`` is 0 because skips are not
        /// recorded, and the renderers say so instead of "0 skips".
        public var playsWithSkipData: Int
        /// Non-skipped plays whose track has valence and energy, and their time.
        public var playsWithFeatures: Int
        public var msWithFeatures: Int
        /// Non-skipped plays that cannot be placed on the mood map: no matching track in the store
        /// (``unmatchedPlays`` of them) or a track without valence and energy.
        public var playsWithoutFeatures: Int
        public var msWithoutFeatures: Int
        /// Plays (skips included) that match no track of the store.
        public var unmatchedPlays: Int
        /// The end times of the first and last plays, ISO 8601 in the report's time zone.
        public var firstPlay: String
        public var lastPlay: String
        /// Means over the time of plays with features, and the soft moods of that listening.
        public var valence: Double?
        public var energy: Double?
        public var softMoods: MoodMap.SoftMoods?
        /// Every month from the first play to the last, empty months included.
        public var byMonth: [TimeBucket]
        /// Monday to Sunday.
        public var byWeekday: [TimeBucket]
        /// Hours 00 to 23.
        public var byHour: [TimeBucket]
        /// Time per vibe of the run, largest library share first; empty without a run.
        public var vibes: [VibeListening]

        /// Whether ``skips`` counts skips: true when some play says whether it was skipped.
        public var skipsAreRecorded: Bool { playsWithSkipData > 0 || plays == 0 }
    }
}

// MARK: - Outliers

extension MoodReport {
    /// The tracks least like any vibe.
    public struct Outliers: Hashable, Sendable, Codable {
        /// One outlier.
        public struct Track: Hashable, Sendable, Codable {
            public var track: TrackReference
            /// The vibe it was assigned to, with a run.
            public var vibe: String?
            /// The distance in the scaled space: to its vibe's centroid, or to the library mean.
            public var distance: Double
            /// The two features farthest from the library mean, in standard deviations.
            public var standsOut: [FeatureValue]
        }

        /// `distance to vibe centroid` with a run, `distance from library mean` without.
        public var basis: String
        public var tracks: [Track]
    }
}
