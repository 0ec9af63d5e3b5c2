/// The audio features of one track, as measured by one source.
///
/// Every feature is optional because sources differ in what they carry: the tidytuesday dataset
/// has no time signature, and the Kaggle "Top 50" set has no key or mode. Values outside the
/// documented range are kept as they are and reported by ``outOfRangeFeatures``.
public struct AudioFeatures: Hashable, Sendable, Codable {
    public var danceability: Double?
    public var energy: Double?
    public var key: Int?
    public var loudness: Double?
    public var mode: Int?
    public var speechiness: Double?
    public var acousticness: Double?
    public var instrumentalness: Double?
    public var liveness: Double?
    public var valence: Double?
    public var tempo: Double?
    public var timeSignature: Int?

    public init(
        danceability: Double? = nil,
        energy: Double? = nil,
        key: Int? = nil,
        loudness: Double? = nil,
        mode: Int? = nil,
        speechiness: Double? = nil,
        acousticness: Double? = nil,
        instrumentalness: Double? = nil,
        liveness: Double? = nil,
        valence: Double? = nil,
        tempo: Double? = nil,
        timeSignature: Int? = nil
    ) {
        self.danceability = danceability
        self.energy = energy
        self.key = key
        self.loudness = loudness
        self.mode = mode
        self.speechiness = speechiness
        self.acousticness = acousticness
        self.instrumentalness = instrumentalness
        self.liveness = liveness
        self.valence = valence
        self.tempo = tempo
        self.timeSignature = timeSignature
    }

    enum CodingKeys: String, CodingKey {
        case danceability, energy, key, loudness, mode, speechiness, acousticness, instrumentalness
        case liveness, valence, tempo
        case timeSignature = "time_signature"
    }
}

// MARK: - Access by feature

extension AudioFeatures {
    /// The value of `feature`, as a `Double`, or `nil` when the source did not provide it.
    public subscript(feature: AudioFeature) -> Double? {
        get {
            switch feature {
            case .danceability: danceability
            case .energy: energy
            case .key: key.map(Double.init)
            case .loudness: loudness
            case .mode: mode.map(Double.init)
            case .speechiness: speechiness
            case .acousticness: acousticness
            case .instrumentalness: instrumentalness
            case .liveness: liveness
            case .valence: valence
            case .tempo: tempo
            case .timeSignature: timeSignature.map(Double.init)
            }
        }
        set {
            switch feature {
            case .danceability: danceability = newValue
            case .energy: energy = newValue
            case .key: key = newValue.flatMap(AudioFeatures.wholeNumber)
            case .loudness: loudness = newValue
            case .mode: mode = newValue.flatMap(AudioFeatures.wholeNumber)
            case .speechiness: speechiness = newValue
            case .acousticness: acousticness = newValue
            case .instrumentalness: instrumentalness = newValue
            case .liveness: liveness = newValue
            case .valence: valence = newValue
            case .tempo: tempo = newValue
            case .timeSignature: timeSignature = newValue.flatMap(AudioFeatures.wholeNumber)
            }
        }
    }

    /// `value` rounded to an `Int`, or `nil` when it has no `Int` (infinite, NaN or beyond ±2⁶³):
    /// setting a discrete feature never traps.
    static func wholeNumber(_ value: Double) -> Int? {
        Int(exactly: value.rounded())
    }

    /// Whether no feature has a value.
    public var isEmpty: Bool {
        AudioFeature.all.allSatisfy { self[$0] == nil }
    }

    /// The number of features that have a value.
    public var presentCount: Int {
        AudioFeature.all.count { self[$0] != nil }
    }

    /// The features whose values lie outside their documented range (tempo 0, loudness above 0 dB).
    public var outOfRangeFeatures: [AudioFeature] {
        AudioFeature.all.filter { feature in
            guard let value = self[feature] else { return false }
            return !feature.documentedRange.contains(value)
        }
    }

    /// ``outOfRangeFeatures`` as a bit set, one bit per feature in `AudioFeature.all` order.
    public var outOfRangeFlags: Int {
        var flags = 0
        for (bit, feature) in AudioFeature.all.enumerated() {
            if let value = self[feature], !feature.documentedRange.contains(value) { flags |= 1 << bit }
        }
        return flags
    }

    /// The features whose values are not valid at all: not finite, outside
    /// ``AudioFeature/validRange``, or not whole for a discrete feature. The store never holds such
    /// a value; importers refuse it or keep it as missing.
    public var invalidFeatures: [AudioFeature] {
        AudioFeature.all.filter { feature in self[feature].map { !feature.isValid($0) } ?? false }
    }

    /// These features without the invalid values (see ``invalidFeatures``), and the features dropped.
    public func removingInvalidValues() -> (features: AudioFeatures, dropped: [AudioFeature]) {
        let dropped = invalidFeatures
        var result = self
        for feature in dropped { result[feature] = nil }
        return (result, dropped)
    }

    /// The features named by a bit set made by ``outOfRangeFlags``.
    public static func features(inFlags flags: Int) -> [AudioFeature] {
        AudioFeature.all.enumerated().compactMap { bit, feature in
            flags & (1 << bit) != 0 ? feature : nil
        }
    }
}
