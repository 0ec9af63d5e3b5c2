/// The tags a trained music tagger heard in an audio file, each with its probability.
///
/// The AudioAnalysis library's `MusicTagger` produces them (musicnn's `MSD_musicnn`: 50 Last.fm
/// tags of genre, mood, instrumentation and decade). The store keeps ``topTags`` as tags of the
/// kind ``tagKind`` with the analysis's source, and every probability with the file's details.
public struct AudioTagProbabilities: Hashable, Sendable, Codable {
    /// The kind of the tags stored for a track: `audio-tag`.
    public static let tagKind = "audio-tag"

    /// The most tags stored per track.
    public static let topTagLimit = 5

    /// The least probability of a tag stored per track: 0.1, about twice what a tag's probability
    /// is over all music (the MSD model's outputs rarely pass 0.6).
    public static let topTagThreshold = 0.1

    /// The model that heard them, by name (`MSD_musicnn`).
    public var model: String
    /// Each of the model's tags with its probability, from 0 to 1.
    public var probabilities: [String: Double]

    public init(model: String, probabilities: [String: Double]) {
        self.model = model
        self.probabilities = probabilities
    }

    /// The probability of `tag`, or 0 when the model has no such tag.
    public subscript(tag: String) -> Double { probabilities[tag] ?? 0 }

    /// The tags stored for the track: at most ``topTagLimit`` of probability at least
    /// ``topTagThreshold``, most probable first (ties by name).
    public var topTags: [String] {
        probabilities.filter { $0.value >= Self.topTagThreshold }
            .sorted { ($0.value, $1.key) > ($1.value, $0.key) }
            .prefix(Self.topTagLimit)
            .map(\.key)
    }
}
