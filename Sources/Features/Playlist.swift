/// An ordered playlist built from a library, ready to export, store or push to Spotify.
///
/// The type carries everything a push needs in one call (name, description and the ordered
/// ``spotifyTrackURIs``) and everything an export needs (titles, artists, durations, features).
///
/// ```swift
/// let created = try await spotify.createPlaylist(name: playlist.name, description: playlist.description)
/// if let id = SpotifyID(created.id) {
///     _ = try await spotify.addItems(playlist.spotifyTrackURIs, to: id)
/// }
/// ```
public struct Playlist: Hashable, Sendable, Codable {
    /// The playlist's name.
    public var name: String
    /// A one-line description of how it was built, such as "Vibe 3, warm-up → peak → cool-down".
    public var description: String
    /// The tracks in play order.
    public var entries: [Entry]
    /// How smoothly consecutive tracks flow, from 0 (jarring) to 1 (seamless); `nil` when not scored.
    public var transitionScore: Double?

    public init(name: String, description: String, entries: [Entry], transitionScore: Double? = nil) {
        self.name = name
        self.description = description
        self.entries = entries
        self.transitionScore = transitionScore
    }

    /// One track of a playlist.
    public struct Entry: Hashable, Sendable, Codable {
        /// The store's track ID.
        public var trackID: Int64
        /// The Spotify track ID, `nil` for local files.
        public var spotifyID: SpotifyID?
        public var name: String
        /// The credited artists, main artist first.
        public var artists: [String]
        public var album: String?
        /// The duration in milliseconds.
        public var durationMS: Int?
        /// Spotify's popularity, 0…100.
        public var popularity: Int?
        /// The audio features used to order the playlist.
        public var features: AudioFeatures
        /// Whether the user pinned the track to its position.
        public var isLocked: Bool
        /// The path of the track's audio file, for tracks analysed from local files.
        public var filePath: String?
        /// What a CSV export writes beyond the fields above, when the application looked it up.
        public var exportDetails: ExportDetails?
        /// Whether the track is in the user's library (`false`: only in the reference pool, new to
        /// the user); `nil` when not looked up.
        public var isInLibrary: Bool?

        /// The columns of an Exportify CSV that a library keeps besides the fields of an entry,
        /// so that an exported playlist imports back without losing them.
        public struct ExportDetails: Hashable, Sendable, Codable {
            /// The album's release date as imported: `2019`, `2019-06` or `2019-06-14`.
            public var releaseDate: String?
            public var isExplicit: Bool?
            /// Who added the track, and when (ISO 8601), in the playlist or library it came from.
            public var addedBy: String?
            public var addedAt: String?
            /// The artists' genres.
            public var genres: [String]
            public var recordLabel: String?

            public init(
                releaseDate: String? = nil,
                isExplicit: Bool? = nil,
                addedBy: String? = nil,
                addedAt: String? = nil,
                genres: [String] = [],
                recordLabel: String? = nil
            ) {
                self.releaseDate = releaseDate
                self.isExplicit = isExplicit
                self.addedBy = addedBy
                self.addedAt = addedAt
                self.genres = genres
                self.recordLabel = recordLabel
            }
        }

        public init(
            trackID: Int64,
            spotifyID: SpotifyID?,
            name: String,
            artists: [String],
            album: String? = nil,
            durationMS: Int? = nil,
            popularity: Int? = nil,
            features: AudioFeatures = AudioFeatures(),
            isLocked: Bool = false
        ) {
            self.trackID = trackID
            self.spotifyID = spotifyID
            self.name = name
            self.artists = artists
            self.album = album
            self.durationMS = durationMS.flatMap { Track.validDurationMS.contains($0) ? $0 : nil }
            self.popularity = popularity
            self.features = features
            self.isLocked = isLocked
        }

        enum CodingKeys: String, CodingKey {
            case trackID = "track_id"
            case spotifyID = "spotify_id"
            case name, artists, album
            case durationMS = "duration_ms"
            case popularity, features
            case isLocked = "locked"
            case filePath = "file_path"
            case isInLibrary = "in_library"
        }
    }

    enum CodingKeys: String, CodingKey {
        case name, description
        case entries = "tracks"
        case transitionScore = "transition_score"
    }
}

// MARK: - Derived values

extension Playlist {
    /// The `spotify:track:` URIs in play order, skipping tracks without a Spotify ID: the body of
    /// Spotify's "add items to playlist" request.
    public var spotifyTrackURIs: [String] {
        entries.compactMap { $0.spotifyID?.trackURI }
    }

    /// The total duration in milliseconds of the tracks whose duration is known and valid
    /// (``Track/validDurationMS``; anything else counts as unknown, so the sum cannot overflow).
    public var totalDurationMS: Int {
        entries.reduce(0) { total, entry in
            total + (entry.durationMS.flatMap { Track.validDurationMS.contains($0) ? $0 : nil } ?? 0)
        }
    }
}
