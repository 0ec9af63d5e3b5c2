/// What local analysis found in one audio file.
///
/// ``features`` uses Spotify's names and scales. Every value has a ``Provenance`` and a confidence
/// (0 to 1) in ``provenance`` and ``confidence``; a field the analysis does not produce (liveness
/// always, the others when the audio gives no basis, such as the key of silence) is `nil` and has
/// neither.
public struct AudioFileAnalysis: Hashable, Sendable {
    /// The decoded length, in milliseconds.
    public var durationMS: Int
    /// The features, on Spotify's scales.
    public var features: AudioFeatures
    /// How each present feature was obtained.
    public var provenance: [AudioFeature: Provenance]
    /// Confidence in each present feature, 0 to 1.
    public var confidence: [AudioFeature: Double]
    /// The measurements the estimates are made from.
    public var descriptors: AudioDescriptors
    /// The file's tags that identify the recording.
    public var tags: AudioFileTags
    /// The codec, sample rate and channel count of the file's audio stream.
    public var stream: AudioStreamFormat
    /// What a trained music tagger heard, or `nil` when none ran or the audio was shorter than
    /// what it hears at once.
    public var audioTags: AudioTagProbabilities?
    /// What the tagger's penultimate layer heard, averaged over the file (what the music sounds
    /// like, for the similarity's embedding block), or `nil` when ``audioTags`` is; the store
    /// keeps it apart from ``details``.
    public var embedding: [Float]?
    /// The analyser that produced this, as stored with the values (the AudioAnalysis library's
    /// `AudioAnalyzer.version`).
    public var analyzer: String

    public init(
        durationMS: Int,
        features: AudioFeatures,
        provenance: [AudioFeature: Provenance],
        confidence: [AudioFeature: Double],
        descriptors: AudioDescriptors,
        tags: AudioFileTags,
        stream: AudioStreamFormat,
        audioTags: AudioTagProbabilities? = nil,
        embedding: [Float]? = nil,
        analyzer: String
    ) {
        self.durationMS = durationMS
        self.features = features
        self.provenance = provenance
        self.confidence = confidence
        self.descriptors = descriptors
        self.tags = tags
        self.stream = stream
        self.audioTags = audioTags
        self.embedding = embedding
        self.analyzer = analyzer
    }

    /// The source the values are stored under.
    public var source: FeatureSource { .localAnalysis(analyzer: analyzer) }

    /// What the store keeps of an analysis beside the features and their provenance, and what
    /// `analyze --json` prints as `details`.
    public struct Details: Hashable, Sendable, Codable {
        public var descriptors: AudioDescriptors
        public var stream: AudioStreamFormat
        /// Absent from the JSON when no tagger ran.
        public var audioTags: AudioTagProbabilities?

        public init(descriptors: AudioDescriptors, stream: AudioStreamFormat, audioTags: AudioTagProbabilities? = nil) {
            self.descriptors = descriptors
            self.stream = stream
            self.audioTags = audioTags
        }

        enum CodingKeys: String, CodingKey {
            case descriptors, stream
            case audioTags = "audio_tags"
        }
    }

    /// The descriptors, the stream format and the tags heard.
    public var details: Details { Details(descriptors: descriptors, stream: stream, audioTags: audioTags) }
}

/// Whether a value is a measurement or a model's guess.
public enum Provenance: String, Hashable, Sendable, Codable {
    /// Measured from the signal by an established method (tempo, key, loudness, duration).
    case measured
    /// Estimated by a heuristic from measured descriptors (energy, valence, …): see the AudioAnalysis
    /// library's `FeatureEstimator`.
    case estimated
}

/// Codec and layout of a file's audio stream.
public struct AudioStreamFormat: Hashable, Sendable, Codable {
    public var codec: String
    public var sampleRate: Int
    public var channels: Int

    public init(codec: String, sampleRate: Int, channels: Int) {
        self.codec = codec
        self.sampleRate = sampleRate
        self.channels = channels
    }

    enum CodingKeys: String, CodingKey {
        case codec
        case sampleRate = "sample_rate"
        case channels
    }
}

/// The tags of a file that can identify its recording.
public struct AudioFileTags: Hashable, Sendable, Codable {
    public var title: String?
    public var artist: String?
    public var album: String?
    /// An ISRC, upper-cased without hyphens, when a tag holds a well-formed one.
    public var isrc: String?
    /// A Spotify track ID found in a tag (a `open.spotify.com/track/…` URL or a `spotify:track:` URI).
    public var spotifyID: SpotifyID?

    public init(
        title: String? = nil,
        artist: String? = nil,
        album: String? = nil,
        isrc: String? = nil,
        spotifyID: SpotifyID? = nil
    ) {
        self.title = title
        self.artist = artist
        self.album = album
        self.isrc = isrc
        self.spotifyID = spotifyID
    }

    enum CodingKeys: String, CodingKey {
        case title, artist, album, isrc
        case spotifyID = "spotify_id"
    }
}

/// Measurements of a file that the estimated features are computed from, kept for inspection and
/// for calibration.
public struct AudioDescriptors: Hashable, Sendable, Codable {
    /// EBU R128 integrated loudness, LUFS.
    public var integratedLoudness: Double?
    /// EBU R128 loudness range, LU.
    public var loudnessRange: Double?
    /// aubio's confidence in its tempo.
    public var tempoConfidence: Double
    /// 1 for perfectly even beats, 0 for beat intervals spread by 25 % or more.
    public var beatRegularity: Double
    /// Onsets per second.
    public var onsetRate: Double
    /// Mean spectral centroid, Hz.
    public var spectralCentroid: Double
    /// Mean spectral flatness, 0 to 1.
    public var spectralFlatness: Double
    /// Mean share of power at or above 4 kHz.
    public var highFrequencyShare: Double
    /// Mean share of power below 150 Hz.
    public var lowFrequencyShare: Double
    /// Share of the level's modulation at 3–6 Hz, the rate of syllables.
    public var syllabicModulation: Double
    /// Correlation of the pitch-class profile with the winning key's profile.
    public var keyCorrelation: Double
    /// The recording's tuning, cents from A = 440 Hz.
    public var tuningCents: Double
    /// Share of the analysis frames that were silent.
    public var silentShare: Double
    /// The 12-bin pitch-class profile the key was read from, C first, scaled to a maximum of 1.
    public var pitchClassProfile: [Double]

    public init(
        integratedLoudness: Double?,
        loudnessRange: Double?,
        tempoConfidence: Double,
        beatRegularity: Double,
        onsetRate: Double,
        spectralCentroid: Double,
        spectralFlatness: Double,
        highFrequencyShare: Double,
        lowFrequencyShare: Double,
        syllabicModulation: Double,
        keyCorrelation: Double,
        tuningCents: Double,
        silentShare: Double,
        pitchClassProfile: [Double]
    ) {
        self.integratedLoudness = integratedLoudness
        self.loudnessRange = loudnessRange
        self.tempoConfidence = tempoConfidence
        self.beatRegularity = beatRegularity
        self.onsetRate = onsetRate
        self.spectralCentroid = spectralCentroid
        self.spectralFlatness = spectralFlatness
        self.highFrequencyShare = highFrequencyShare
        self.lowFrequencyShare = lowFrequencyShare
        self.syllabicModulation = syllabicModulation
        self.keyCorrelation = keyCorrelation
        self.tuningCents = tuningCents
        self.silentShare = silentShare
        self.pitchClassProfile = pitchClassProfile
    }

    enum CodingKeys: String, CodingKey {
        case integratedLoudness = "integrated_loudness"
        case loudnessRange = "loudness_range"
        case tempoConfidence = "tempo_confidence"
        case beatRegularity = "beat_regularity"
        case onsetRate = "onset_rate"
        case spectralCentroid = "spectral_centroid"
        case spectralFlatness = "spectral_flatness"
        case highFrequencyShare = "high_frequency_share"
        case lowFrequencyShare = "low_frequency_share"
        case syllabicModulation = "syllabic_modulation"
        case keyCorrelation = "key_correlation"
        case tuningCents = "tuning_cents"
        case silentShare = "silent_share"
        case pitchClassProfile = "pitch_class_profile"
    }
}
