/// The kinds of file `import` reads. The raw values are what `--format` takes.
public enum ImportFormat: String, CaseIterable, Codable, Sendable {
    /// Audio-feature CSVs in the Kaggle/tidytuesday shape: any column order, `track_id` or `uri`/`id`.
    case featuresCSV = "features-csv"
    /// An Exportify playlist export: `Track URI`, `Artist Name(s)`, features, genres, added-at.
    case exportify
    /// Spotify account data: `StreamingHistory*.json` (`endTime`, `artistName`, `trackName`, `msPlayed`).
    case streamingHistory = "streaming-history"
    /// Spotify extended streaming history: `Streaming_History_Audio_*.json` / `endsong_*.json` (`ts`, `ms_played`, …).
    case extendedHistory = "extended-history"
    /// Spotify account data: `YourLibrary.json` (saved tracks).
    case yourLibrary = "your-library"
    /// Spotify account data: `Playlist*.json`.
    case accountPlaylists = "account-playlists"
    /// JSON saved from the Spotify Web API: audio features, tracks, saved-track and playlist pages.
    case spotifyJSON = "spotify-json"
    /// A saved ReccoBeats `/v1/audio-features` response: `{"content": [{"href": …, "isrc": …, …}]}`.
    case reccoBeatsJSON = "reccobeats-json"

    /// What the format is, for help and summaries.
    public var summary: String {
        switch self {
        case .featuresCSV: "audio-feature CSV (Kaggle/tidytuesday shape)"
        case .exportify: "Exportify playlist CSV"
        case .streamingHistory: "Spotify account-data streaming history"
        case .extendedHistory: "Spotify extended streaming history"
        case .yourLibrary: "Spotify account-data YourLibrary.json"
        case .accountPlaylists: "Spotify account-data playlists"
        case .spotifyJSON: "Spotify Web API JSON"
        case .reccoBeatsJSON: "ReccoBeats audio-features JSON"
        }
    }

    /// The provenance recorded for features and tags that come from files of this format.
    var source: String { "file:" + rawValue }
}

/// How 0…1 features are written in a CSV.
public enum FeatureScale: String, CaseIterable, Codable, Sendable {
    /// 0.0 to 1.0, as Spotify's API returns them.
    case unit
    /// 0 to 100, as some Kaggle datasets write them (divided by 100 on import).
    case percent
}

/// What an import should do.
public struct ImportOptions: Sendable {
    /// The format, or `nil` to detect it from the file's header or shape.
    public var format: ImportFormat?
    /// The scale of 0…1 features, or `nil` to detect it from the values.
    public var scale: FeatureScale?
    /// Import the good rows of a file with bad ones, listing every rejected row, instead of
    /// rejecting the whole file.
    public var skipInvalid = false
    /// Import a file even if a file with the same content was imported before.
    public var force = false
    /// Add the file's new tracks to the reference pool (candidates for recommendations and
    /// playlists) instead of the user's library.
    public var isReference = false
    /// How many rejected rows a summary lists in full (all are counted and recorded).
    public var listedRejectionLimit = 10
    /// Called now and then with the bytes read so far and the file size.
    public var progress: (@Sendable (_ bytesRead: Int, _ totalBytes: Int) -> Void)?
    /// How many bytes of a CSV are read at a time: the memory a tabular import holds for the file
    /// whatever its size (more only while one record is longer). Tests make it small so that
    /// records straddle chunks.
    ///
    /// Measured on the million-row CSV (243 MB): 64 KiB to 4 MiB import at the same speed within
    /// the noise; 1 MiB keeps reads few and the window well inside the L2 cache's reach.
    var chunkSize = 1 << 20

    public init(
        format: ImportFormat? = nil,
        scale: FeatureScale? = nil,
        skipInvalid: Bool = false,
        force: Bool = false,
        isReference: Bool = false,
        progress: (@Sendable (Int, Int) -> Void)? = nil
    ) {
        self.format = format
        self.scale = scale
        self.skipInvalid = skipInvalid
        self.force = force
        self.isReference = isReference
        self.progress = progress
    }
}

/// What one file's import did.
///
/// What the writes did (``counts``) reads as the summary's own properties: `summary.tracksNew`
/// is `summary.counts.tracksNew`, and the JSON holds them beside the rest.
@dynamicMemberLookup
public struct ImportSummary: Codable, Sendable {
    /// Whether the file was imported or had been imported before.
    public enum Status: String, Codable, Sendable {
        case imported
        /// The same content (by SHA-256) was imported before; nothing was changed.
        case unchanged
    }

    public var path: String
    public var format: ImportFormat
    public var status: Status
    public var runID: Int64?
    public var sha256: String
    public var encoding: String?
    /// The scale of 0…1 features and how it was chosen, for feature CSVs.
    public var scale: String?
    public var rowsRead = 0
    public var rowsImported = 0
    public var rowsRejected = 0
    /// What the store's writer did: tracks, features, plays, playlists and saved tracks written.
    public var counts = LibraryWriter.Counts()
    public var playsMatched = 0
    /// How many values outside their valid range were kept as missing (`--skip-invalid`), per
    /// field; without `--skip-invalid` such a value rejects the file.
    public var invalidKeptAsMissing: [String: Int] = [:]
    /// Remarks worth reading: ignored columns, skipped podcast plays, detected scale.
    public var notes: [String] = []
    /// The first rejected rows, with reasons (all are counted in ``rowsRejected``).
    public var rejections: [ImportError] = []
    public var seconds = 0.0
    /// How long each phase took (`scan`, `parse+write`, `commit`, …), in order; for `--timings`,
    /// not part of the JSON summary.
    public var phases: [(name: String, duration: Duration)] = []

    init(path: String, format: ImportFormat, status: Status, runID: Int64? = nil, sha256: String) {
        self.path = path
        self.format = format
        self.status = status
        self.runID = runID
        self.sha256 = sha256
    }

    /// One of ``counts``, as `summary.tracksNew`.
    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<LibraryWriter.Counts, Value>) -> Value {
        get { counts[keyPath: keyPath] }
        set { counts[keyPath: keyPath] = newValue }
    }

    enum CodingKeys: String, CodingKey {
        case path, format, status, sha256, encoding, scale, notes, rejections, seconds
        case runID = "run_id"
        case rowsRead = "rows_read"
        case rowsImported = "rows_imported"
        case rowsRejected = "rows_rejected"
        case playsMatched = "plays_matched"
        case invalidKeptAsMissing = "invalid_kept_as_missing"
    }

    // The counts' keys sit beside the summary's own, in one object.

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        path = try container.decode(String.self, forKey: .path)
        format = try container.decode(ImportFormat.self, forKey: .format)
        status = try container.decode(Status.self, forKey: .status)
        runID = try container.decodeIfPresent(Int64.self, forKey: .runID)
        sha256 = try container.decode(String.self, forKey: .sha256)
        encoding = try container.decodeIfPresent(String.self, forKey: .encoding)
        scale = try container.decodeIfPresent(String.self, forKey: .scale)
        rowsRead = try container.decode(Int.self, forKey: .rowsRead)
        rowsImported = try container.decode(Int.self, forKey: .rowsImported)
        rowsRejected = try container.decode(Int.self, forKey: .rowsRejected)
        counts = try LibraryWriter.Counts(from: decoder)
        playsMatched = try container.decode(Int.self, forKey: .playsMatched)
        invalidKeptAsMissing = try container.decode([String: Int].self, forKey: .invalidKeptAsMissing)
        notes = try container.decode([String].self, forKey: .notes)
        rejections = try container.decode([ImportError].self, forKey: .rejections)
        seconds = try container.decode(Double.self, forKey: .seconds)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(path, forKey: .path)
        try container.encode(format, forKey: .format)
        try container.encode(status, forKey: .status)
        try container.encodeIfPresent(runID, forKey: .runID)
        try container.encode(sha256, forKey: .sha256)
        try container.encodeIfPresent(encoding, forKey: .encoding)
        try container.encodeIfPresent(scale, forKey: .scale)
        try container.encode(rowsRead, forKey: .rowsRead)
        try container.encode(rowsImported, forKey: .rowsImported)
        try container.encode(rowsRejected, forKey: .rowsRejected)
        try counts.encode(to: encoder)
        try container.encode(playsMatched, forKey: .playsMatched)
        try container.encode(invalidKeptAsMissing, forKey: .invalidKeptAsMissing)
        try container.encode(notes, forKey: .notes)
        try container.encode(rejections, forKey: .rejections)
        try container.encode(seconds, forKey: .seconds)
    }
}
